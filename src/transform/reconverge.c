/* reconverge: turn any CFG into a reconverging CFG (thesis 4.3, Reconverge / Reroute /
 * AddBasicBlockToOT, and 5.1 for flow blocks and their i1 conditions).
 *
 * Definition (thesis Def. 15): a CFG is reconverging if every divergent conditional branch has
 * exactly two successors, one of which post-dominates it (the primary successor).
 *
 * The blocks are processed in an ordering (ordering.c; PrepareOrdering below puts the exit last and
 * adds virtual nodes). An *open tree* (OT) holds the processed ("visited") blocks that still have
 * open edges: outgoing edges to blocks not yet visited, and incoming edges from blocks not yet
 * visited (backward edges). A visited block is added below all of its visited predecessors, which
 * path interleaving first brings onto one path. A divergent node is *armed* once one of its outgoing
 * edges is closed. Closing the other edge of an armed node A when its target T is processed makes T
 * A's primary successor, which is right only if every path from A reaches T.
 *
 * Condition 1 (before T is added): if flow from T's armed predecessors can still leave through open
 * edges to targets other than T, every such open edge is rerouted through one new flow block X, which
 * then post-dominates those armed nodes (they get X as primary successor). Condition 2 (after T is
 * added, when T has both unvisited successors and backward edges): if the subtrees of T and of its
 * visited successors hold open edges under several roots or to several targets, they are rerouted
 * the same way.
 *
 * A flow block dispatches each incoming flow to the target its source wanted. Which target a source
 * wants is kept symbolically (flow_pred) and turned into i1 phis only for the conditions the final
 * branches need (flow_cond), e.g. `FLOW0: %0 = phi i1 [true, A], [false, C]` (slides, 11). A flow
 * block ends with one or two successors: the first target closed while it was open (the "final
 * successor") and the flow block its remaining targets were rerouted to (the "remainder"), or its
 * closed targets when it was never rerouted.
 *
 * Where this differs from the thesis, and why (the property tests in tests/property judge it):
 * - Condition 1 looks at the flow *reachable* from the armed predecessors along closed edges, not
 *   only at their OT subtrees. The subtree misses flow that leaves through a backward edge into a
 *   block outside it, possibly through blocks already closed and removed from the tree (e.g. an
 *   armed block whose other edge goes back to a block from which an earlier flow block's open edge
 *   is reachable). With subtrees only, random CFGs gave outputs that were not reconverging; with the
 *   reachable set the check is exact, so every armed node's primary successor post-dominates it.
 *   Rerouted sets of Condition 2 are closed under reachability for the same reason.
 * - Condition 2 exists in the thesis to keep the subtrees faithful for its Condition 1. Once
 *   Condition 1 is exact it only adds flow blocks (on the random CFGs of the property tests, 8% more
 *   flow blocks, and it changes more already-reconverging CFGs), so it is off by default and
 *   `reconverge[cond2]` turns it on. It then counts only roots whose subtrees have open edges.
 * - Edges into a block are closed when the block is added (after Condition 1 and path interleaving);
 *   backward edges out of a block are closed at the end of its processing (after Condition 2).
 * - A uniform branch whose two targets are both rerouted keeps its branch: each edge goes through
 *   its own one-jump flow block into the funnel, instead of the branch becoming a jump.
 * - Virtual nodes (PrepareOrdering) are real blocks while the transform runs and are merged back
 *   into their block at the end; they are counted in the statistics.
 * - Path interleaving takes the visited predecessors in the order they were visited and hangs the
 *   branch that leads to each next one below the previous one.
 * - Blocks that cannot reach an exit first get a never-taken exit edge (connect_infinite_loops.c).
 * Phis of the original targets get their values through the flow blocks (reconv_fix_target_phis in flow_blocks.c); any
 * other definition that no longer dominates its uses is repaired by the shared SSA repair
 * (ssa_repair.c), as the thesis's pass does with SSAUpdater. */
#include "reconverge_internal.h"

#include "reconv/cost.h" /* rc_wave_static_cost: auto compares its candidates by it */

#include <stdio.h>

/* PrepareOrdering's virtual node Y of block B: B's branch lives in Y while the transform runs
 * (thesis 4.3.1). Afterwards Y's code goes back into B, which only jumped to Y. Y is left empty
 * and unreachable; the caller removes all of them at once (one removal at a time would renumber
 * the blocks after each one). */
static void merge_virtual(rc_block *owner, rc_block *y) {
  rc_instr *j = rc_block_term(owner);
  rc_instr_detach(j);
  for (rc_instr *i = y->first; i;) {
    rc_instr *next = i->next;
    rc_instr_detach(i);
    rc_instr_append(owner, i);
    i = next;
  }
  rc_instr *t = rc_block_term(owner);
  for (uint32_t e = 0; t && e < t->ntargets; e++)
    for (rc_instr *phi = t->targets[e]->first; phi && phi->op == RC_OP_PHI; phi = phi->next)
      for (uint32_t o = 0; o < phi->nops; o++)
        if (phi->targets[o] == y) phi->targets[o] = owner;
}

/* New blocks are laid out right before the block whose processing created them (after it for the
 * entry), the others keep their order. */
static void layout(reconv *r) {
  rc_kernel *k = r->k;
  uint32_t n = k->nblocks;
  rc_block **order = rc_xmalloc(n * sizeof *order);
  uint32_t *first_before = rc_xmalloc(n * sizeof *first_before), *next_new = rc_xmalloc(n * sizeof *next_new);
  uint32_t *last_before = rc_xmalloc(n * sizeof *last_before);
  for (uint32_t i = 0; i < n; i++) first_before[i] = last_before[i] = next_new[i] = RC_NONE;
  for (uint32_t i = 0; i < n; i++) {
    rc_block *b = k->blocks[i];
    if (b->id >= r->n.len || !r->n.data[b->id].is_new) continue;
    uint32_t a = r->n.data[b->id].anchor;
    if (a == RC_NONE || a >= n) a = 0;
    if (last_before[a] == RC_NONE) first_before[a] = i; else next_new[last_before[a]] = i;
    last_before[a] = i;
  }
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    rc_block *b = k->blocks[i];
    if (b->id < r->n.len && r->n.data[b->id].is_new) continue;
    bool after = i == r->entry;
    if (after) order[m++] = b;
    for (uint32_t j = first_before[i]; j != RC_NONE; j = next_new[j]) order[m++] = k->blocks[j];
    if (!after) order[m++] = b;
  }
  for (uint32_t i = 0; i < m; i++) {
    k->blocks[i] = order[i];
    order[i]->id = i;
  }
  free(order);
  free(first_before);
  free(next_new);
  free(last_before);
}

/* ---- the pass --------------------------------------------------------------------------------------------------- */

static bool divergent_term(const rc_kernel *k, const rc_uniformity *u, uint32_t b) {
  rc_instr *t = rc_block_term(k->blocks[b]);
  return t && t->op == RC_OP_BR && t->targets[0] != t->targets[1] && u->divergent_branch[b];
}

static uint32_t count_uniform_branches(const rc_kernel *k, const rc_uniformity *u) {
  uint32_t n = 0;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    rc_instr *t = rc_block_term(k->blocks[b]);
    if (t && t->ntargets >= 2 && !u->divergent_branch[b]) n++;
  }
  return n;
}

/* Analyse k and say whether it is reconverging; on a CFG snapshot and dominator tree of k when the
 * caller has them (cfg and dom not NULL: the analysis takes them over). When k is not reconverging
 * and keep is not NULL, the analysis goes to *keep instead of being freed: the next round starts
 * with the same analyses of the same kernel, and on a big kernel building them again is a good part
 * of a round. */
static bool reconverging_now(const rc_kernel *k, unsigned unif_flags, rc_u32vec *where,
                             uint32_t *uniform_branches, rc_cfg *cfg, rc_domtree *dom, rc_analysis *keep) {
  rc_analysis a;
  if (cfg && dom) rc_analysis_build_from(&a, k, unif_flags, cfg, dom);
  else rc_analysis_build(&a, k, unif_flags);
  bool ok = rc_is_reconverging(k, &a.cfg, &a.pdom, &a.unif, where);
  if (uniform_branches) *uniform_branches = count_uniform_branches(k, &a.unif);
  if (!ok && keep) *keep = a;
  else rc_analysis_free(&a);
  return ok;
}

typedef struct round_opts {
  int order;
  const char *custom;
  unsigned unif_flags;
  bool cond2, trace;
} round_opts;

typedef struct round_counts {
  uint32_t flow_blocks, virtual_nodes, rerouted_edges;
} round_counts;

/* One run of the algorithm over the whole kernel: analyses, ordering, PrepareOrdering, the open
 * tree, then flow blocks, phis, layout and SSA repair. given, when not NULL, is the analysis of k as
 * it is (with o->unif_flags), which the round takes over instead of building its own. On success
 * *cfg and *dom describe the kernel as it is then (the SSA repair needs them, and so does the
 * analysis of the output after it). */
static int reconverge_round(rc_ctx *ctx, rc_kernel *k, const round_opts *o, round_counts *counts,
                            rc_analysis *given, rc_cfg *cfg, rc_domtree *dom) {
  int order = o->order;
  const char *custom = o->custom;
  unsigned unif_flags = o->unif_flags;
  bool cond2 = o->cond2, trace = o->trace;
  rc_analysis a;
  if (given) a = *given;
  else rc_analysis_build(&a, k, unif_flags);
  rc_u32vec ord = {0};
  if (rc_compute_ordering(ctx, k, &a.cfg, &a.dom, &a.pdom, (rc_order_kind)order, custom, &ord)) {
    rc_analysis_free(&a);
    rc_vec_free(&ord);
    return -1;
  }

  reconv r;
  memset(&r, 0, sizeof r);
  r.ctx = ctx;
  r.k = k;
  r.cond2 = cond2;
  r.trace = trace;
  r.root.parent = r.root.first_child = r.root.last_child = r.root.next = r.root.prev = RC_NONE;
  r.entry = 0;
  for (uint32_t b = 0; b < k->nblocks; b++) reconv_new_node(&r, k->blocks[b], divergent_term(k, &a.unif, b));
  /* the uniform branches on launch-invariant conditions, to be marked as such in the output */
  rc_instr_vec uniform_terms = {0};
  uint8_t *inv = rc_xcalloc(k->nvalues + 1, 1);
  for (uint32_t b = 0; b < k->nblocks; b++) {
    rc_instr *t = rc_block_term(k->blocks[b]);
    if (t && t->ntargets >= 2 && !a.unif.divergent_branch[b] && t->nops && rc_launch_invariant(t->ops[0], inv))
      rc_vec_push(&uniform_terms, t);
  }
  free(inv);
  /* values cross edges only through phis while edges move (see live_in_phis.c) */
  rc_instr_vec exposed = {0};
  rc_u32vec exposed_origin = {0};
  rc_ssa_expose_live_ins(k, &exposed, &exposed_origin);
  r.norigin = k->nvalues;
  r.origin = rc_xmalloc((r.norigin ? r.norigin : 1) * sizeof *r.origin);
  memset(r.origin, 0xff, r.norigin * sizeof *r.origin); /* RC_NONE */
  for (uint32_t i = 0; i < exposed.len; i++) r.origin[exposed.data[i]->v.id] = exposed_origin.data[i];
  rc_vec_free(&exposed_origin);

  /* PrepareOrdering: the exit comes last */
  uint32_t exit = RC_NONE;
  for (uint32_t i = 0; i < ord.len; i++) {
    rc_instr *t = rc_block_term(k->blocks[ord.data[i]]);
    if (t && (t->op == RC_OP_RET || t->op == RC_OP_UNREACHABLE)) exit = i;
  }
  if (exit != RC_NONE) {
    uint32_t e = ord.data[exit];
    memmove(&ord.data[exit], &ord.data[exit + 1], (ord.len - exit - 1) * sizeof *ord.data);
    ord.data[ord.len - 1] = e;
  }
  /* PrepareOrdering: a divergent block whose two edges are both backward gets a virtual node Y,
   * placed just before the earlier of its targets; B jumps to Y and Y branches. */
  uint32_t nb0 = k->nblocks;
  uint32_t *pos = rc_xmalloc(nb0 * sizeof *pos);
  for (uint32_t i = 0; i < nb0; i++) pos[i] = RC_NONE;
  for (uint32_t i = 0; i < ord.len; i++) pos[ord.data[i]] = i;
  RC_VEC(rc_block *) vowner = {0};
  RC_VEC(rc_block *) vnode = {0};
  rc_u32vec vlist = {0}, vpos = {0};
  for (uint32_t i = 0; i < ord.len; i++) {
    uint32_t b = ord.data[i];
    if (!r.n.data[b].divergent) continue;
    rc_instr *t = rc_block_term(k->blocks[b]);
    uint32_t p0 = pos[t->targets[0]->id], p1 = pos[t->targets[1]->id];
    if (p0 > i || p1 > i) continue;
    rc_block *blk = k->blocks[b];
    rc_block *y = rc_block_new(k, rc_kernel_fresh_name(k, "virtual"));
    y->bflags |= RC_BLOCK_VIRTUAL;
    reconv_new_node(&r, y, true);
    rc_instr_detach(t);
    rc_instr_append(y, t);
    for (uint32_t e = 0; e < 2; e++)
      for (rc_instr *phi = t->targets[e]->first; phi && phi->op == RC_OP_PHI; phi = phi->next)
        for (uint32_t o = 0; o < phi->nops; o++)
          if (phi->targets[o] == blk) phi->targets[o] = y;
    rc_builder bld;
    rc_builder_at_end(&bld, blk);
    rc_build_jmp(&bld, y);
    rc_vec_push(&vowner, blk);
    rc_vec_push(&vnode, y);
    rc_vec_push(&vlist, y->id);
    rc_vec_push(&vpos, p0 < p1 ? p0 : p1);
    r.virtual_nodes++;
  }
  /* virtual nodes go right before the block at their position (a bucket list per position) */
  uint32_t *vhead = rc_xmalloc((ord.len + 1) * sizeof *vhead);
  uint32_t *vnext = rc_xmalloc((vlist.len + 1) * sizeof *vnext);
  for (uint32_t i = 0; i <= ord.len; i++) vhead[i] = RC_NONE;
  for (uint32_t v = vlist.len; v-- > 0;) {
    vnext[v] = vhead[vpos.data[v]];
    vhead[vpos.data[v]] = v;
  }
  rc_u32vec final_order = {0};
  for (uint32_t i = 0; i < ord.len; i++) {
    for (uint32_t v = vhead[i]; v != RC_NONE; v = vnext[v]) rc_vec_push(&final_order, vlist.data[v]);
    rc_vec_push(&final_order, ord.data[i]);
  }
  free(vhead);
  free(vnext);
  free(pos);
  rc_vec_free(&ord);
  rc_vec_free(&vlist);
  rc_vec_free(&vpos);
  rc_analysis_free(&a);

  if (r.trace) {
    rc_strbuf sb;
    rc_sb_init(&sb);
    rc_sb_printf(&sb, "reconverge @%s, order %s:", k->name, rc_order_name((rc_order_kind)order));
    for (uint32_t i = 0; i < final_order.len; i++) rc_sb_printf(&sb, " %s", k->blocks[final_order.data[i]]->name);
    rc_report(ctx, RC_SEV_NOTE, NULL, 0, 0, "%s", sb.data);
    rc_sb_free(&sb);
  }
  for (uint32_t i = 0; i < final_order.len; i++) reconv_process_block(&r, final_order.data[i]);
  rc_vec_free(&final_order);

  int rc = reconv_materialize_flows(&r);
  /* A uniform branch whose condition is the same for every thread of the launch (computed from
   * constants and kernel parameters only) stays uniform whatever threads meet there; but the
   * analysis of the output may no longer prove it, e.g. when flow blocks made its region an
   * irreducible cycle, which the analysis treats as divergent. The transform says so with
   * !uniform (thesis: uniform branches are preserved). A branch that is uniform only per dynamic
   * instance (a uniform loop's counter) is not marked: the lowered code can merge lanes from
   * different iterations, so the analysis of the output decides, and a further round reroutes it if
   * it is divergent there. The wave simulator checks every scalar branch at run time.
   * A kernel that goes back to an LLVM backend (RC_UNIF_TARGET) gets no such claims: the backend's
   * divergence analysis cannot read them, so the output must be reconverging without them. */
  for (uint32_t i = 0; rc == 0 && !(o->unif_flags & RC_UNIF_TARGET) && i < uniform_terms.len; i++) {
    rc_instr *t = uniform_terms.data[i];
    if (t->parent && (t->op == RC_OP_BR || t->op == RC_OP_SWITCH) && !(t->iflags & RC_IF_DIVERGENT))
      t->iflags |= RC_IF_UNIFORM;
  }
  rc_vec_free(&uniform_terms);
  if (rc == 0) {
    /* neither changes an edge: one dominator tree serves both */
    rc_cfg g;
    rc_cfg_build(&g, k);
    rc_domtree gdom;
    rc_domtree_build(&gdom, &g, false);
    /* exit phis for the wave path only: an LLVM backend's uniformity analysis makes only a
     * value's outside users divergent (temporal divergence), so its kernels need none */
    rc_cycle_info gcycles;
    bool have_cycles = !(o->unif_flags & RC_UNIF_TARGET) && rc_cycles_build(&gcycles, &g) == 0;
    if (have_cycles) {
      r.cycles = &gcycles;
      r.ndef_block = k->nvalues;
      r.def_block = rc_xmalloc((r.ndef_block ? r.ndef_block : 1) * sizeof *r.def_block);
      memset(r.def_block, 0xff, r.ndef_block * sizeof *r.def_block); /* RC_NONE */
      for (uint32_t b = 0; b < k->nblocks; b++)
        for (const rc_instr *i = k->blocks[b]->first; i; i = i->next)
          if (i->v.type != RC_VOID && i->v.id < r.ndef_block) r.def_block[i->v.id] = b;
    }
    reconv_fix_target_phis(&r, &gdom);
    r.cycles = NULL;
    free(r.def_block);
    r.def_block = NULL;
    if (have_cycles) rc_cycles_free(&gcycles);
    /* exit phis stay, though they have one value (flow_blocks.c, leaves_cycle) */
    for (uint32_t i = 0; i < r.flows.len; i++)
      for (uint32_t j = 0; j < r.flows.data[i].value_phis.len; j++)
        if (!r.flows.data[i].value_phi_exit.data[j])
          rc_vec_push(&exposed, r.flows.data[i].value_phis.data[j]);
    rc_ssa_simplify_phis_dom(k, &exposed, &gdom);
    rc_domtree_free(&gdom);
    rc_cfg_free(&g);
  }
  rc_vec_free(&exposed);
  if (rc == 0) layout(&r); /* while block ids still match the open tree's tables */
  if (rc == 0 && vnode.len > 0) {
    bool *dead = rc_xcalloc(k->nblocks, sizeof *dead);
    for (uint32_t i = 0; i < vnode.len; i++) {
      merge_virtual(vowner.data[i], vnode.data[i]);
      dead[vnode.data[i]->id] = true;
    }
    rc_kernel_remove_blocks(k, dead);
    free(dead);
  }
  /* a branch whose edges both end in one flow block chooses only its constants: fold it in */
  uint32_t folded = rc == 0 ? rc_fold_flow_branches(k) : 0;
  if (rc == 0) {
    rc_cfg_build(cfg, k);
    rc_domtree_build(dom, cfg, false);
    rc = rc_ssa_repair_kernel_dom(ctx, k, cfg, dom); /* changes no edge */
    if (rc) {
      rc_domtree_free(dom);
      rc_cfg_free(cfg);
    }
  }

  counts->flow_blocks += r.flow_blocks + r.split_blocks - folded;
  counts->virtual_nodes += r.virtual_nodes;
  counts->rerouted_edges += r.rerouted_edges;
  for (uint32_t i = 0; i < r.flows.len; i++) {
    flow_node *f = &r.flows.data[i];
    rc_vec_free(&f->preds);
    rc_vec_free(&f->open);
    rc_vec_free(&f->closed);
    rc_vec_free(&f->value_phis);
    rc_vec_free(&f->value_phi_origin);
    rc_vec_free(&f->value_phi_exit);
    rc_vec_free(&f->forwarded);
    free(f->forwarded_cond);
  }
  rc_u64map_free(&r.cond_memo);
  rc_u64map_free(&r.value_memo);
  free(r.origin);
  rc_vec_free(&r.flows);
  for (uint32_t i = 0; i < r.flow_in.len; i++) rc_vec_free(&r.flow_in.data[i]);
  rc_vec_free(&r.flow_in);
  rc_vec_free(&r.n);
  rc_vec_free(&r.tmp_roots);
  rc_vec_free(&r.tmp_nodes);
  rc_vec_free(&r.tmp_targets);
  rc_vec_free(&r.tmp_preds);
  rc_vec_free(&r.tmp_starts);
  rc_vec_free(&r.tmp_succs);
  rc_vec_free(&r.tmp_seeds);
  rc_vec_free(&r.fv_stack);
  rc_vec_free(&r.fv_vals);
  rc_vec_free(&r.closure);
  rc_vec_free(&vowner);
  rc_vec_free(&vnode);
  return rc;
}

static int reconverge_kernel(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  const char *order_name = rc_pass_arg_get(args, "order");
  int order = order_name ? rc_order_lookup(order_name) : RC_ORDER_DFPD;
  if (order < 0)
    return rc_error(ctx, "reconverge: unknown order '%s' (auto, df, dfpd, bf, bfpd, rpot, domreg, custom)",
                    order_name);
  const char *custom = rc_pass_arg_get(args, "blocks");
  if (custom && !order_name) order = RC_ORDER_CUSTOM;
  /* a kernel that goes back to an LLVM backend is made reconverging as that backend sees it */
  unsigned unif_flags = (rc_pass_arg_get(args, "all-divergent") ? RC_UNIF_ALL_DIVERGENT : 0) |
                        rc_uniformity_target_flags(k);
  bool force = rc_pass_arg_get(args, "force") != NULL;
  bool cond2 = rc_pass_arg_get(args, "cond2") != NULL;
  bool trace = rc_pass_arg_get(args, "trace") != NULL;
  const char *mr = rc_pass_arg_get(args, "max-rounds");
  uint32_t max_rounds = 4;
  if (mr) {
    char *end = NULL;
    unsigned long v = strtoul(mr, &end, 10);
    if (!*mr || *end || v < 1 || v > 100 || *mr == '-')
      return rc_error(ctx, "reconverge: max-rounds must be a number from 1 to 100, not '%s'", mr);
    max_rounds = (uint32_t)v;
  }

  uint32_t blocks_before = k->nblocks, uniform_before = 0;
  bool already = reconverging_now(k, unif_flags, NULL, &uniform_before, NULL, NULL, NULL);
  if (stats) {
    rc_stats_set(stats, "blocks_before", blocks_before);
    rc_stats_set(stats, "uniform_branches_before", uniform_before);
    rc_stats_set_str(stats, "order", rc_order_name((rc_order_kind)order));
  }
  if (already && !force) {
    if (stats) {
      rc_stats_set(stats, "blocks_after", k->nblocks);
      rc_stats_set(stats, "flow_blocks", 0);
      rc_stats_set(stats, "virtual_nodes", 0);
      rc_stats_set(stats, "rerouted_edges", 0);
      rc_stats_set(stats, "uniform_branches_after", uniform_before);
      rc_stats_set(stats, "already_reconverging", 1);
    }
    return 0;
  }

  /* preparation (thesis 4.1 step 1 and 4: two-way branches, one exit, reachable blocks only) */
  if (rc_prepare_cfg(ctx, k, stats)) return -1;

  /* Rounds: the flow blocks and the repaired SSA can make a branch the analysis called uniform
   * divergent in the output (a new join of divergent paths); a further round treats it as divergent
   * too, until the analysis of the output agrees that the kernel is reconverging. */
  round_opts ro = {order, custom, unif_flags, cond2, trace};
  round_counts cnt = {0, 0, 0};
  int rc = 0;
  uint32_t uniform_after = 0, rounds = 0;
  rc_u32vec where = {0};
  /* the analysis of the output of one round, which the next round starts from (nothing changes
   * the kernel in between) */
  rc_analysis next;
  bool have_next = false;
  for (;;) {
    rc_cfg cfg;
    rc_domtree dom;
    rc = reconverge_round(ctx, k, &ro, &cnt, have_next ? &next : NULL, &cfg, &dom);
    have_next = false; /* the round took it over */
    rounds++;
    if (rc) break;
    where.len = 0;
    if (reconverging_now(k, unif_flags, &where, &uniform_after, &cfg, &dom, &next)) break;
    have_next = true;
    if (rounds >= max_rounds) {
      rc = rc_error(ctx, "reconverge: @%s is still not reconverging at block %s after %u round%s%s",
                    k->name, where.len ? k->blocks[where.data[0]]->name : "?", rounds, rounds > 1 ? "s" : "",
                    max_rounds < 4 ? " (max-rounds)" : " (a bug in reconv)");
      break;
    }
    if (ro.order == RC_ORDER_CUSTOM) ro.order = RC_ORDER_DFPD; /* new blocks are not in the list */
  }
  if (have_next) rc_analysis_free(&next);
  rc_vec_free(&where);
  uint32_t remat = rc == 0 ? rc_remat_addresses(ctx, k) : 0;
  if (stats) {
    if (k->origin) rc_stats_set(stats, "rematerialized_addresses", remat);
    rc_stats_set(stats, "blocks_after", k->nblocks);
    rc_stats_set(stats, "flow_blocks", cnt.flow_blocks);
    rc_stats_set(stats, "virtual_nodes", cnt.virtual_nodes);
    rc_stats_set(stats, "rerouted_edges", cnt.rerouted_edges);
    rc_stats_set(stats, "uniform_branches_after", uniform_after);
    rc_stats_set(stats, "already_reconverging", already);
    rc_stats_set(stats, "rounds", rounds);
  }
  return rc;
}

/* ---- barriers stay in uniform control flow ------------------------------------------------------- */

/* Barrier blocks of k in divergent control flow (under reconverge's uniformity flags), or 0 when k
 * has none. */
static uint32_t divergent_barriers(const rc_kernel *k, const rc_pass_args *args) {
  unsigned flags = (rc_pass_arg_get(args, "all-divergent") ? RC_UNIF_ALL_DIVERGENT : 0) | rc_uniformity_target_flags(k);
  rc_analysis a;
  rc_analysis_build(&a, k, flags);
  uint32_t n = rc_divergent_barriers(k, &a, NULL);
  rc_analysis_free(&a);
  return n;
}

static bool has_barrier(const rc_kernel *k) {
  for (uint32_t b = 0; b < k->nblocks; b++)
    if (rc_block_has_barrier(k->blocks[b])) return true;
  return false;
}

/* Diagnostics of runs on scratch copies are dropped (a NULL callback would print them). */
static void discard_diag(void *user, const rc_diag *d) {
  (void)user;
  (void)d;
}

/* A scratch copy of k in its module, named after it and `tag`; the caller removes it. */
static rc_kernel *scratch_copy(rc_kernel *k, const char *tag) {
  char name[256];
  rc_kernel *c = NULL;
  for (unsigned n = 0; !c; n++) {
    snprintf(name, sizeof name, "%.200s.%s%u", k->name, tag, n);
    if (!rc_module_find_kernel(k->mod, name)) c = rc_kernel_clone(k->mod, k, name);
  }
  return c;
}

/* args with order=`order` instead of its order and custom block list; items holds args->n + 1. */
static rc_pass_args args_with_order(const rc_pass_args *args, const char *order, rc_pass_arg *items) {
  uint32_t n = 0;
  for (uint32_t i = 0; args && i < args->n; i++)
    if (strcmp(args->items[i].key, "order") != 0 && strcmp(args->items[i].key, "blocks") != 0) items[n++] = args->items[i];
  items[n++] = (rc_pass_arg){"order", order};
  return (rc_pass_args){items, n};
}

/* Would reconverge with these arguments leave k's barriers in uniform control flow (no more of them
 * in divergent control flow than before)? Tried on a copy; false also when the copy fails. */
static bool keeps_barriers_uniform(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, uint32_t before) {
  rc_kernel *c = scratch_copy(k, "barrier_check");
  rc_ctx quiet = *ctx;
  quiet.diag = discard_diag; /* the real run reports */
  quiet.diag_user = NULL;
  bool ok = reconverge_kernel(&quiet, c, args, NULL) == 0 && divergent_barriers(c, args) <= before;
  rc_module_remove_kernel(k->mod, c);
  return ok;
}

/* The pass. An ordering that does not respect post-dominance (DF, BF) can reroute the uniform
 * branches around a barrier through flow blocks that a divergent branch reaches, putting the
 * barrier in divergent control flow (issue: the bitonic kernels under order=df). A kernel with
 * barriers is therefore reconverged on a copy first; when its barriers would end up in divergent
 * control flow, the orderings dfpd, rpot and domreg are tried in turn (a note says which one is
 * used), and when none keeps them uniform the pass fails rather than produce code that hangs a
 * GPU. */
static int reconverge_ordered(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  if (!has_barrier(k)) return reconverge_kernel(ctx, k, args, stats);
  uint32_t before = divergent_barriers(k, args);
  if (keeps_barriers_uniform(ctx, k, args, before)) return reconverge_kernel(ctx, k, args, stats);
  const char *asked = rc_pass_arg_get(args, "order");
  static const char *const fallbacks[] = {"dfpd", "rpot", "domreg"};
  /* the same arguments with another order (and no custom block list) */
  rc_pass_arg *items = rc_xmalloc(((args ? args->n : 0) + 1) * sizeof *items);
  for (size_t f = 0; f < sizeof fallbacks / sizeof fallbacks[0]; f++) {
    if (asked && strcmp(asked, fallbacks[f]) == 0) continue;
    rc_pass_args alt = args_with_order(args, fallbacks[f], items);
    if (!keeps_barriers_uniform(ctx, k, &alt, before)) continue;
    rc_report(ctx, RC_SEV_NOTE, k->mod->filename, k->line, k->col,
              "reconverge: kernel @%s: order=%s would put a barrier in divergent control flow; order=%s "
              "is used instead", k->name, asked ? asked : "dfpd", fallbacks[f]);
    int rc = reconverge_kernel(ctx, k, &alt, stats);
    if (stats) rc_stats_set(stats, "order_fallback_for_barriers", 1);
    free(items);
    return rc;
  }
  free(items);
  return rc_report(ctx, RC_SEV_ERROR, k->mod->filename, k->line, k->col,
                   "reconverge: kernel @%s: every ordering tried (%s%s) puts a barrier in divergent control "
                   "flow, where a GPU would hang; the kernel is left as it is",
                   k->name, asked && strcmp(asked, "dfpd") && strcmp(asked, "rpot") && strcmp(asked, "domreg") ? asked : "",
                   asked && strcmp(asked, "dfpd") && strcmp(asked, "rpot") && strcmp(asked, "domreg") ? ", dfpd, rpot, domreg" : "dfpd, rpot, domreg");
}

/* ---- order=auto: the ordering chosen per kernel (issue 15) ----------------------------------------- */

/* The orderings auto tries, in the order that breaks ties. DF and BF are left out: they do not
 * respect post-dominance, so they change reconverging parts (thesis Fig. 4.10a) and can keep a branch
 * uniform that is divergent at wave level. BFPD comes last and only on small kernels: its ordering
 * is super-linear (over 60 s on a 10^4-block kernel where the others take 2 s); on the thesis's
 * Fig. 4.15a it is the only one that keeps the loop A -> B -> A. */
static const char *const auto_candidates[] = {"dfpd", "rpot", "domreg", "bfpd"};
/* the statistics of each candidate's cost (names outlive the stats: static) */
static const char *const auto_cost_names[] = {"order_auto_cost_dfpd", "order_auto_cost_rpot", "order_auto_cost_domreg",
                                              "order_auto_cost_bfpd"};
/* BFPD, the last candidate, only up to this many blocks: its ordering is super-linear (1.3 s at
 * 1,000 blocks, where DFPD takes 0.02 s) */
#define AUTO_BFPD_MAX_BLOCKS 200
_Static_assert(sizeof auto_cost_names == sizeof auto_candidates, "one cost statistic per candidate");

/* Kernels up to this size try every candidate, each measured on its lowered kernel; bigger ones get
 * DFPD alone. The candidates' own cost decides it: on the generated shapes of bench_reconverge RPOT
 * and DomReg grow faster than DFPD (10^5 blocks: 8 s under DFPD, over 100 s and 10 GB under RPOT),
 * and lower's wave-divergence refinement is super-linear too (10^4 blocks: 9 s). Up to 1,000 blocks
 * auto costs at most 0.15 s of CPU time. */
#define AUTO_MAX_BLOCKS 1000

/* The static cost of a reconverged kernel t: that of the kernel `lower` makes of it, by the wave
 * machine's cost model (rc_wave_static_cost: the original instructions, the flow blocks' branches,
 * the copies coalescing leaves, the re-join mask and exec work, weighted by loop depth).
 * UINT64_MAX when lowering fails. */
static uint64_t reconverged_cost(rc_ctx *quiet, rc_kernel *t, const rc_cost_weights *weights) {
  rc_kernel *w = scratch_copy(t, "lowered");
  /* norepair: a branch only divergent at wave level makes this ordering lose, not run auto again */
  rc_pass_arg norepair = {"norepair", NULL};
  rc_pass_args lower_args = {&norepair, 1};
  /* the host's weights are fractions: costs kept to a thousandth of a weight unit */
  uint64_t cost = rc_pass_lower(quiet, w, &lower_args, NULL) == 0
                      ? (uint64_t)(rc_wave_static_cost_weighted(w, weights) * (weights == &rc_cost_weights_gcn ? 1 : 1000))
                      : UINT64_MAX;
  rc_module_remove_kernel(t->mod, w);
  return cost;
}

/* The ordering of a kernel too big to try the candidates on: RPOT when its CFG is reducible, DFPD
 * otherwise. On generated kernels of 2,000 blocks RPOT's lowered code issues 2.5 to 10 times fewer
 * vector instructions than DFPD's (DFPD's outputs have far more cycles, docs/reconverge.md), and
 * on reducible ones it needs one round where DFPD's irreducible output needs two. But on big
 * irreducible CFGs with far jumps RPOT's flows carry values across much of the kernel: 76 s and
 * 10 GB at 10^5 blocks of bench_reconverge's shape, where DFPD needs 6 s. */
static const char *big_kernel_order(const rc_kernel *k) {
  rc_cfg g;
  rc_cfg_build(&g, k);
  bool reducible = rc_is_reducible(&g, NULL);
  rc_cfg_free(&g);
  return reducible ? "rpot" : "dfpd";
}

/* order=auto (the default): each candidate ordering runs on a copy of k, and the copy whose lowered
 * kernel has the lowest static cost (ties: the earlier candidate) becomes k's body — adopted, not
 * run again, so auto costs the candidates' runs plus their lowering. A kernel that is already
 * reconverging is left as it is without trying anything, and one of more than AUTO_MAX_BLOCKS
 * blocks gets big_kernel_order's directly. When every candidate fails, DFPD runs on k itself and
 * reports why. */
static int reconverge_auto(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  const rc_cost_weights *weights = rc_cost_weights_named(rc_pass_arg_get(args, "cost"));
  if (!weights) return rc_error(ctx, "reconverge: unknown cost '%s' (gcn, host)", rc_pass_arg_get(args, "cost"));
  rc_pass_arg *items = rc_xmalloc(((args ? args->n : 0) + 2) * sizeof *items);
  unsigned unif_flags = (rc_pass_arg_get(args, "all-divergent") ? RC_UNIF_ALL_DIVERGENT : 0) |
                        rc_uniformity_target_flags(k);
  const char *direct = k->nblocks > AUTO_MAX_BLOCKS ? big_kernel_order(k)
                       : !rc_pass_arg_get(args, "force") && reconverging_now(k, unif_flags, NULL, NULL, NULL, NULL, NULL)
                           ? auto_candidates[0]
                           : NULL;
  if (direct) {
    rc_pass_args chosen = args_with_order(args, direct, items);
    int rc = reconverge_ordered(ctx, k, &chosen, stats);
    free(items);
    return rc;
  }
  enum { NCAND = sizeof auto_candidates / sizeof auto_candidates[0] };
  rc_ctx quiet = *ctx;
  quiet.diag = discard_diag;
  quiet.diag_user = NULL;
  rc_kernel *best = NULL;
  uint64_t best_cost = UINT64_MAX;
  rc_stats cand_stats[NCAND];
  size_t best_index = 0;
  uint64_t costs[NCAND];
  int64_t tried = 0;
  for (size_t c = 0; c < NCAND; c++) rc_stats_init(&cand_stats[c]);
  for (size_t c = 0; c < NCAND; c++) {
    costs[c] = UINT64_MAX;
    if (strcmp(auto_candidates[c], "bfpd") == 0 && k->nblocks > AUTO_BFPD_MAX_BLOCKS) continue;
    tried++;
    rc_pass_args alt = args_with_order(args, auto_candidates[c], items);
    rc_kernel *t = scratch_copy(k, "auto");
    uint64_t cost = UINT64_MAX;
    if (reconverge_ordered(&quiet, t, &alt, &cand_stats[c]) == 0) cost = reconverged_cost(&quiet, t, weights);
    costs[c] = cost;
    if (cost < best_cost) {
      if (best) rc_module_remove_kernel(k->mod, best);
      best = t;
      best_cost = cost;
      best_index = c;
    } else {
      rc_module_remove_kernel(k->mod, t);
    }
  }
  int rc = 0;
  if (best) {
    rc_kernel_swap_bodies(k, best);
    rc_module_remove_kernel(k->mod, best);
    if (stats) {
      for (uint32_t i = 0; i < cand_stats[best_index].n; i++) {
        const rc_stat *st = &cand_stats[best_index].items[i];
        if (st->is_string) rc_stats_set_str(stats, st->name, st->sval);
        else rc_stats_add(stats, st->name, st->ival);
      }
      rc_stats_set(stats, "order_auto_tried", tried);
      rc_stats_set(stats, "order_auto_cost", (int64_t)best_cost);
      for (size_t c = 0; c < NCAND; c++) /* every candidate's, to see the choice (-1: failed) */
        rc_stats_set(stats, auto_cost_names[c], costs[c] == UINT64_MAX ? -1 : (int64_t)costs[c]);
    }
  } else {
    rc_pass_args chosen = args_with_order(args, auto_candidates[0], items);
    rc = reconverge_ordered(ctx, k, &chosen, stats);
  }
  for (size_t c = 0; c < NCAND; c++) rc_stats_free(&cand_stats[c]);
  free(items);
  return rc;
}

int rc_pass_reconverge(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  if (rc_pass_args_check(ctx, "reconverge", args)) return -1;
  const char *order = rc_pass_arg_get(args, "order");
  if (!rc_pass_arg_get(args, "blocks") && (!order || strcmp(order, "auto") == 0))
    return reconverge_auto(ctx, k, args, stats);
  return reconverge_ordered(ctx, k, args, stats);
}
