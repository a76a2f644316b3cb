/* linearize: guard-variable linearization of unstructured regions (J. Anantpur and R. Govindarajan,
 * "Taming Control Divergence in GPUs through Control Flow Linearization", CC 2014, sections 3-4).
 *
 * An unstructured region (Def. 4: bounded by its common immediate dominator D and post-dominator P,
 * single entry from D, single exit to P) becomes a chain of guarded blocks (Algorithm 1): the
 * region's blocks are put in an order (reverse post-order from D by default), block number p of the
 * order gets a guard block `if (g == p)` before it, every block of the region sets the guard
 * variable g to the position of the successor it would have branched to (n, one past the last, for
 * P) and falls through to the next guard; a block that is the source of a retreating edge is
 * followed by a back-edge guard `if (g <= p)` that jumps back to the guard of the loop's first block
 * (Alg. 1 lines 24-33). Each back edge of the output closes an interval of the order; the intervals
 * are made laminar ("the destination of the corresponding back edge ... moved up, to the closest
 * back edge destination", section 3.2), so loops are nested or disjoint and the output is reducible
 * even where the input was not (section 3.3). The guard check `g <= p` is the paper's "g == B2.id or
 * g == B4.id" of Fig. 8 in one comparison: the values a back-edge guard can see are its loop's blocks
 * (the retreating successors) and positions past it.
 *
 * Regions (Algorithm 2): for every unstructured edge (Def. 1, rc_unstructured_edges) the set
 * {source, target} grows until it is closed: D and P are its common dominator and post-dominator
 * (Defs. 2, 3; outside the set), the set takes every block on a path D -> P, and any edge that enters
 * the set other than from D or leaves it other than to P adds its other end. Regions that overlap are
 * merged. `region=all` linearizes everything between the entry and the exit instead, as section 3
 * does ("the region encompassing all blocks of the input CFG except for the Entry and Exit blocks"):
 * that is how the paper's branch interleaving (Fig. 7) and loop merging (Fig. 8) arise from
 * structured input. Everything outside the regions is left as it is, and inside a minimised region
 * a structured sub-region is kept whole (Algorithm 3, linearize_regions.c): one unit, guarded at its
 * entry, setting g at its exit.
 *
 * The guard variable is SSA: each block of a region defines g by a select on its branch condition
 * (or a constant), and each inserted block reads g through an i32 phi over its predecessors (the phis
 * the SSA construction places for a variable defined in every block of the region; trivial ones are
 * removed by rc_ssa_simplify_phis). Values of the original code that no longer dominate their uses,
 * and the phis of blocks whose predecessors changed, are repaired by the shared SSA repair
 * (ssa_repair.c, rc_ssa_repair_linearized: undef where no definition reaches, and at the end of an
 * original block that one of the phi's own predecessors must follow). Original blocks keep their identity; inserted
 * blocks are flagged RC_BLOCK_GUARD, so trace comparison skips them.
 *
 * Optimisations (section 4.2), cumulative: opt=1 O1, opt=2 O1+O2, opt=3 O1+O2+O3. O1 and O2 decide
 * where guard checks go (linearize_guards.c, with the analysis of the values g can hold at each
 * guard block); O3 "if a guard block has only one predecessor and if that predecessor is a block
 * from an unstructured region, then the guard block is merged with its predecessor".
 *
 * Preparation (as for reconverge): switches are lowered to two-way branches, dead blocks removed,
 * infinite loops given an exit edge, exits unified; shared joins, which Def. 1 does not call
 * unstructured, get joins of their own (linearize_joins.c) before any region is sought. The pass
 * refuses (rc_error, kernel unchanged) a region holding a work-group barrier that a thread-dependent
 * branch already decides (rc_barrier_divergent_branch), an output whose guards would put a barrier
 * in divergent control flow (checked on the copy), and regions beyond the guard-value analysis's
 * size at opt >= 1. Every run goes on a copy first: the kernel changes only when the
 * output is structured. The regions (Algorithm 2) are found in linearize_regions.c. Traversals are
 * iterative; the pass keeps no global state. */
#include "linearize_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { ORDER_RPO, ORDER_INTERLEAVE } order_mode;

typedef struct lin_opts {
  int opt;
  region_mode region;
  order_mode order;
  bool merge_loops, show_values;
  const char *kernel_name; /* for messages: the kernel the user named (runs go on copies first) */
} lin_opts;

/* the largest region the guard-value analysis takes (its sets need n * n / 8 bytes: 50 MB here) */
enum { LIN_MAX_ANALYSED = 20000 };

/* ---- the order of a region and its loops ------------------------------------------------------- */

/* Reverse post-order of the region from D (the last successor explored first, so that `br c, T, F`
 * puts T's side before F's when both are open, as the paper's Fig. 4 lists B1..B6), or with
 * ORDER_INTERLEAVE a breadth-first topological order of its forward edges (Fig. 7b: "block B5 is
 * inserted between blocks B2 and B3"). Fills r->block; returns the number of blocks ordered. */
static uint32_t order_region(const rc_cfg *g, const rc_cycle_info *ci, const found_region *fr, const uint8_t *in_r,
                             order_mode mode, uint32_t *pos, lin_region *r) {
  uint32_t n = fr->blocks.len, npost = 0;
  uint32_t *post = rc_xmalloc((n + 1) * sizeof *post);
  rc_u32vec stack = {0}, next = {0};
  uint8_t *seen = rc_xcalloc(g->nblocks, 1);
  /* each block's successors twice over: first those that leave its innermost cycle, then the
   * others, each time the last first. A loop's exits are explored before its body, so they finish
   * first and come after the whole body in reverse post-order: the blocks of a loop are contiguous
   * in the order, and the interval of its back-edge guard holds no block outside the loop (a
   * thread that left the loop would otherwise sweep its guards with a value of g of its own, and
   * the back-edge check, uniform in fact, could not be shown uniform: Rodinia's hotspot for spir64,
   * whose loop exit leads to a divergent branch) */
  seen[fr->D] = 1;
  rc_vec_push(&stack, fr->D);
  rc_vec_push(&next, 2 * (g->succ_start[fr->D + 1] - g->succ_start[fr->D]));
  while (stack.len) {
    uint32_t x = stack.data[stack.len - 1];
    if (next.data[stack.len - 1] == 0) {
      if (x != fr->D) post[npost++] = x;
      stack.len--, next.len--;
      continue;
    }
    uint32_t ns = g->succ_start[x + 1] - g->succ_start[x], idx = --next.data[stack.len - 1];
    uint32_t y = g->succs[g->succ_start[x] + (idx >= ns ? idx - ns : idx)];
    uint32_t cy = ci->innermost[x];
    bool leaves = cy != RC_NONE && !rc_cycle_contains(ci, cy, y);
    if ((idx >= ns) != leaves || !in_r[y] || seen[y]) continue;
    seen[y] = 1;
    rc_vec_push(&stack, y);
    rc_vec_push(&next, 2 * (g->succ_start[y + 1] - g->succ_start[y]));
  }
  for (uint32_t i = 0; i < npost; i++) r->block[i] = post[npost - 1 - i];
  for (uint32_t i = 0; i < npost; i++) pos[r->block[i]] = i;
  if (mode == ORDER_INTERLEAVE && npost == n) {
    /* Kahn's algorithm over the forward edges of the reverse post-order, first in first out */
    uint32_t *indeg = rc_xcalloc(g->nblocks, sizeof *indeg);
    for (uint32_t i = 0; i < n; i++)
      for (uint32_t e = g->pred_start[r->block[i]]; e < g->pred_start[r->block[i] + 1]; e++) {
        uint32_t x = g->preds[e];
        if (in_r[x] && pos[x] < i) indeg[r->block[i]]++;
      }
    uint32_t head = 0, tail = 0;
    for (uint32_t e = g->succ_start[fr->D]; e < g->succ_start[fr->D + 1]; e++) {
      uint32_t y = g->succs[e];
      if (in_r[y] && indeg[y] == 0) {
        post[tail++] = y;
        indeg[y] = RC_NONE;
      }
    }
    while (head < tail) {
      uint32_t x = post[head++];
      for (uint32_t e = g->succ_start[x]; e < g->succ_start[x + 1]; e++) {
        uint32_t y = g->succs[e];
        if (!in_r[y] || pos[y] <= pos[x] || indeg[y] == RC_NONE) continue;
        if (--indeg[y] == 0) {
          post[tail++] = y;
          indeg[y] = RC_NONE;
        }
      }
    }
    if (tail == n) {
      for (uint32_t i = 0; i < n; i++) r->block[i] = post[i];
      for (uint32_t i = 0; i < n; i++) pos[r->block[i]] = i;
    }
    free(indeg);
  }
  free(post);
  free(seen);
  rc_vec_free(&stack);
  rc_vec_free(&next);
  return npost;
}

/* The back-edge guards: block q gets one when it has a retreating successor; its back edge goes to
 * the earliest of them, moved up until the intervals are laminar (section 3.2). With merge_loops only
 * the outermost intervals keep theirs: a loop nested in another is run through the outer back edge
 * (section 5.2, Fig. 8: "the back edge from B6.1.G to B2.G is for both the inner as well as the
 * outer loop"). */
static void back_edges(lin_region *r, bool merge_loops) {
  uint32_t n = r->n;
  rc_u32vec st_start = {0}, st_end = {0};
  for (uint32_t q = 0; q < n; q++) {
    r->back_to[q] = RC_NONE;
    uint32_t a = RC_NONE;
    for (uint32_t s = 0; s < r->nsucc[q]; s++)
      if (r->succ[q][s] <= q && r->succ[q][s] < a) a = r->succ[q][s];
    if (a == RC_NONE) continue;
    while (st_end.len && st_end.data[st_end.len - 1] >= a) {
      if (st_start.data[st_start.len - 1] < a) a = st_start.data[st_start.len - 1];
      if (merge_loops) r->back_to[st_end.data[st_end.len - 1]] = RC_NONE;
      st_start.len--, st_end.len--;
    }
    rc_vec_push(&st_start, a);
    rc_vec_push(&st_end, q);
    r->back_to[q] = a;
  }
  rc_vec_free(&st_start);
  rc_vec_free(&st_end);
}


/* The units of a region after Algorithm 3: the blocks that own themselves, in the region's order,
 * with the exit and the other blocks of their sub-region; pos[] becomes the units' positions.
 * Returns the number of units. */
static uint32_t compact_units(lin_region *r, const uint32_t *owner, const uint32_t *exit_of, uint32_t *pos) {
  uint32_t nblk = r->n, n = 0;
  r->exit_block = rc_xmalloc((nblk + 1) * sizeof *r->exit_block);
  r->member_start = rc_xcalloc(nblk + 2, sizeof *r->member_start);
  r->members = rc_xmalloc((nblk + 1) * sizeof *r->members);
  for (uint32_t i = 0; i < nblk; i++)
    if (owner[r->block[i]] == r->block[i]) pos[r->block[i]] = n++;
  for (uint32_t i = 0; i < nblk; i++) {
    uint32_t b = r->block[i];
    if (owner[b] != b) r->member_start[pos[owner[b]] + 1]++;
  }
  for (uint32_t p = 0; p < n; p++) r->member_start[p + 1] += r->member_start[p];
  uint32_t *fill = rc_xmalloc((n + 1) * sizeof *fill);
  memcpy(fill, r->member_start, (n + 1) * sizeof *fill);
  uint32_t m = 0;
  for (uint32_t i = 0; i < nblk; i++) {
    uint32_t b = r->block[i];
    if (owner[b] != b) r->members[fill[pos[owner[b]]]++] = b;
    else {
      r->block[m] = b;
      r->exit_block[m++] = exit_of[b];
    }
  }
  free(fill);
  r->n = n;
  r->words = (n + 1 + 63) / 64;
  return n;
}

/* ---- one run ------------------------------------------------------------------------------------ */

static void free_region(lin_region *r) {
  free(r->block);
  free(r->exit_block);
  free(r->member_start);
  free(r->members);
  free(r->nsucc);
  free(r->succ);
  free(r->back_to);
  free(r->in);
  free(r->back_in);
  free(r->entry);
  memset(r, 0, sizeof *r);
}

static void format_set(const rc_kernel *k, const lin_region *r, const lin_word *s, rc_strbuf *sb) {
  rc_sb_printf(sb, "{");
  bool first = true;
  for (uint32_t v = 0; v <= r->n; v++)
    if (lin_has(s, v)) {
      rc_sb_printf(sb, "%s%s", first ? "" : ", ", v < r->n ? k->blocks[r->block[v]]->name : "exit");
      first = false;
    }
  rc_sb_printf(sb, "}");
}

/* `show-values`: the result of the analysis of section 4.2, one note per guard block. */
static void report_values(rc_ctx *ctx, const rc_kernel *k, const lin_region *r, const char *D, const char *P) {
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_sb_printf(&sb, "linearize @%s: region %s -> ... -> %s, order", k->name, D, P);
  for (uint32_t p = 0; p < r->n; p++) {
    rc_sb_printf(&sb, " %s", k->blocks[r->block[p]]->name);
    /* a structured sub-region kept whole (Algorithm 3): its other blocks in brackets */
    for (uint32_t i = r->member_start[p]; i < r->member_start[p + 1]; i++)
      rc_sb_printf(&sb, "%s%s%s", i == r->member_start[p] ? "[" : " ", k->blocks[r->members[i]]->name,
                   i + 1 == r->member_start[p + 1] ? "]" : "");
  }
  rc_report(ctx, RC_SEV_NOTE, NULL, 0, 0, "%s", sb.data);
  for (uint32_t p = 0; p < r->n; p++) {
    sb.len = 0;
    if (sb.data) sb.data[0] = 0;
    rc_sb_printf(&sb, "linearize @%s: g at %s.G: ", k->name, k->blocks[r->block[p]]->name);
    format_set(k, r, &r->in[(size_t)p * r->words], &sb);
    if (r->back_to[p] != RC_NONE) {
      rc_sb_printf(&sb, "; at %s.1.G: ", k->blocks[r->block[p]]->name);
      format_set(k, r, &r->back_in[(size_t)p * r->words], &sb);
    }
    rc_report(ctx, RC_SEV_NOTE, NULL, 0, 0, "%s", sb.data);
  }
  rc_sb_free(&sb);
}

/* Barriers (issue 30). A barrier that every thread of a work-group reaches equally often in the
 * input (no divergent branch in its iterated control dependence: rc_divergent_barriers) must stay
 * so in the output. The guard chain replaces the region's branches by checks of g; a check is
 * uniform when the value of g that reaches it is, which holds when the branches that set g on the
 * way are uniform (a loop of a uniform trip count around the barrier, a uniform `break`), or when
 * O1 found every value that reaches the check to be the block's own and removed it, or when the
 * barrier's block sits inside a structured sub-region kept whole (Algorithm 3) that a uniform
 * guard enters. The linearized kernel is checked with the same analysis: the names of the
 * barrier blocks in divergent control flow before, to compare with after. The analysis is
 * reconv's own (flags 0), not the amdgcn backend's view (RC_UNIF_TARGET), which calls every call
 * of a built-in such as get_group_id divergent: the question is what the work-group does. */
static void divergent_barrier_names(const rc_kernel *k, rc_u32vec *ids) {
  rc_analysis a;
  ids->len = 0;
  if (rc_analysis_build(&a, k, 0)) return;
  rc_divergent_barriers(k, &a, ids);
  rc_analysis_free(&a);
}

/* A barrier block of the linearized copy c in divergent control flow that was not so in k (by
 * name), or NULL. */
static const char *barrier_made_divergent(const rc_kernel *k, const rc_kernel *c) {
  rc_u32vec before = {0}, after = {0};
  divergent_barrier_names(c, &after);
  const char *made = NULL;
  if (after.len) divergent_barrier_names(k, &before);
  for (uint32_t i = 0; i < after.len && !made; i++) {
    const char *name = c->blocks[after.data[i]]->name;
    bool was = false;
    for (uint32_t j = 0; j < before.len && !was; j++) was = !strcmp(k->blocks[before.data[j]]->name, name);
    if (!was) made = name;
  }
  rc_vec_free(&before);
  rc_vec_free(&after);
  return made;
}

/* A barrier inside a region that a thread-dependent branch already decides whether, or how often,
 * a thread reaches (a divergent loop around it, a divergent if before it that it does not
 * post-dominate) cannot be put in uniform control flow by any guard: refused, naming the barrier's
 * block and the branch. */
static int check_region_barriers(rc_ctx *ctx, const rc_kernel *k, const rc_analysis *a, const found_region *fr,
                                 const char *kernel_name) {
  uint32_t *mark = NULL, stamp = 0, w = RC_NONE, b = RC_NONE;
  for (uint32_t j = 0; j < fr->blocks.len && w == RC_NONE; j++) {
    b = fr->blocks.data[j];
    if (!rc_block_has_barrier(k->blocks[b])) continue;
    if (!mark) mark = rc_xcalloc(a->cfg.nblocks + 1, sizeof *mark);
    w = rc_barrier_divergent_branch(a, b, mark, &stamp);
  }
  free(mark);
  if (w == RC_NONE) return 0;
  return rc_report(ctx, RC_SEV_ERROR, k->mod->filename, k->line, k->col,
                   "linearize: kernel @%s: block %s holds a barrier inside a region to linearize, and the "
                   "thread-dependent branch at the end of %s decides whether, or how often, a thread reaches it; "
                   "no guard can put it in uniform control flow, so the kernel is left as it is",
                   kernel_name, k->blocks[b]->name, k->blocks[w]->name);
}

/* A region needs a block above the entry or below the exit: give the kernel an empty entry block
 * and an exit block that returns (flagged RC_BLOCK_VIRTUAL, skipped in traces). */
static void add_boundary(rc_kernel *k, bool entry, bool exit) {
  rc_builder bld;
  if (exit) {
    for (uint32_t b = 0; b < k->nblocks; b++) {
      rc_instr *t = rc_block_term(k->blocks[b]);
      if (!t || (t->op != RC_OP_RET && t->op != RC_OP_UNREACHABLE)) continue;
      rc_block *x = rc_block_new(k, "linearize.exit");
      x->bflags |= RC_BLOCK_VIRTUAL;
      rc_instr_detach(t);
      rc_instr_append(x, t);
      rc_builder_at_end(&bld, k->blocks[b]);
      rc_build_jmp(&bld, x);
      break;
    }
  }
  if (entry) {
    rc_block *old = k->blocks[0];
    rc_block *e = rc_block_new(k, "linearize.entry");
    e->bflags |= RC_BLOCK_VIRTUAL;
    rc_builder_at_end(&bld, e);
    rc_build_jmp(&bld, old);
    rc_block_move(e, 0);
  }
}

static int linearize_kernel(rc_ctx *ctx, rc_kernel *k, const lin_opts *o, region_mode mode, rc_stats *stats,
                            lin_counts *acc) {
  if (rc_prepare_cfg(ctx, k, stats)) return -1;
  rc_analysis a;
  region_vec rv = {0};
  bool added_entry = false, added_exit = false;
  for (;;) {
    if (rc_analysis_build(&a, k, 0)) return -1;
    bool need_entry = false, need_exit = false;
    int rc = lin_find_regions(k, &a, mode, &rv, &need_entry, &need_exit);
    if (rc == 0) break;
    for (uint32_t i = 0; i < rv.len; i++) rc_vec_free(&rv.data[i].blocks);
    rv.len = 0;
    rc_analysis_free(&a);
    if ((need_entry && added_entry) || (need_exit && added_exit)) {
      rc_vec_free(&rv);
      return rc_error(ctx, "linearize: @%s: no single-entry single-exit region found (a bug in reconv)", o->kernel_name);
    }
    add_boundary(k, need_entry, need_exit);
    added_entry |= need_entry;
    added_exit |= need_exit;
  }
  int rc = 0;
  lin_build b;
  memset(&b, 0, sizeof b);
  if (rc == 0) lin_build_init(&b, k);
  uint32_t n0 = a.cfg.nblocks;
  uint8_t *in_r = rc_xcalloc(n0 + 1, 1);
  uint32_t *pos = rc_xmalloc((n0 + 1) * sizeof *pos);
  uint32_t *owner = rc_xmalloc((n0 + 1) * sizeof *owner), *exit_of = rc_xmalloc((n0 + 1) * sizeof *exit_of);
  for (uint32_t i = 0; i < rv.len && rc == 0; i++) {
    found_region *fr = &rv.data[i];
    if (!fr->alive) continue;
    lin_region r;
    memset(&r, 0, sizeof r);
    uint32_t n = r.n = fr->blocks.len;
    for (uint32_t j = 0; j < n; j++) in_r[fr->blocks.data[j]] = 1;
    r.block = rc_xmalloc(n * sizeof *r.block);
    r.nsucc = rc_xmalloc(n * sizeof *r.nsucc);
    r.succ = rc_xmalloc(n * sizeof *r.succ);
    r.back_to = rc_xmalloc(n * sizeof *r.back_to);
    r.words = (n + 1 + 63) / 64;
    r.entry = rc_xcalloc(r.words, sizeof *r.entry);
    if (order_region(&a.cfg, &a.cycles, fr, in_r, o->order, pos, &r) != n) {
      rc = rc_error(ctx, "linearize: @%s: region of %s not reachable from %s (a bug in reconv)", o->kernel_name,
                    k->blocks[fr->blocks.data[0]]->name, k->blocks[fr->D]->name);
    } else {
      /* Algorithm 3: structured sub-regions of the minimised regions are kept whole, one unit each
       * (section 4.1: "guarding only the entry block of a structured region"); region=all
       * linearizes every block, as section 3 does */
      if (mode != REGION_ALL && n <= LIN_MAX_ANALYSED) lin_structured_subregions(&a, r.block, n, in_r, owner, exit_of);
      else
        for (uint32_t p = 0; p < n; p++) owner[r.block[p]] = exit_of[r.block[p]] = r.block[p];
      n = compact_units(&r, owner, exit_of, pos);
      for (uint32_t p = 0; p < n; p++) {
        uint32_t x = r.exit_block[p], ns = a.cfg.succ_start[x + 1] - a.cfg.succ_start[x];
        r.nsucc[p] = (uint8_t)ns;
        for (uint32_t s = 0; s < ns && s < 2; s++) {
          uint32_t y = a.cfg.succs[a.cfg.succ_start[x] + s];
          r.succ[p][s] = in_r[y] ? pos[y] : n;
          if (in_r[y] && owner[y] != y)
            rc = rc_error(ctx, "linearize: @%s: an edge enters a structured sub-region at %s (a bug in reconv)",
                          o->kernel_name, k->blocks[y]->name);
        }
        if (ns < 1 || ns > 2)
          rc = rc_error(ctx, "linearize: @%s: block %s has %u successors inside a region (a bug in reconv)",
                        o->kernel_name, k->blocks[x]->name, ns);
      }
      for (uint32_t e = a.cfg.succ_start[fr->D]; e < a.cfg.succ_start[fr->D + 1]; e++)
        if (in_r[a.cfg.succs[e]]) lin_add(r.entry, pos[a.cfg.succs[e]]);
    }
    if (rc == 0) {
      back_edges(&r, o->merge_loops);
      rc = check_region_barriers(ctx, k, &a, fr, o->kernel_name);
    }
    if (rc == 0) {
      /* the analysis keeps a set of n + 1 values per guard: quadratic memory, so very large regions
       * are linearized without it (opt=0) or refused */
      if (o->opt >= 1 || o->show_values) {
        if (n > LIN_MAX_ANALYSED) {
          rc = rc_error(ctx, "linearize: @%s: a region of %u blocks is beyond the guard-value analysis "
                        "(section 4.2, at most %u blocks); opt=0 linearizes it without", o->kernel_name, n,
                        LIN_MAX_ANALYSED);
        } else {
          lin_guard_values(&r);
        }
      }
    }
    if (rc == 0) {
      if (o->show_values) report_values(ctx, k, &r, k->blocks[fr->D]->name, k->blocks[fr->P]->name);
      lin_plan plan = {0};
      lin_plan_build(&r, &a.dom, o->opt, &plan);
      lin_emit_region(&b, &r, k->blocks[fr->D], k->blocks[fr->P], &plan);
      rc_vec_free(&plan);
    }
    for (uint32_t j = 0; j < fr->blocks.len; j++) in_r[fr->blocks.data[j]] = 0;
    free_region(&r);
  }
  free(in_r);
  free(pos);
  free(owner);
  free(exit_of);
  for (uint32_t i = 0; i < rv.len; i++) rc_vec_free(&rv.data[i].blocks);
  rc_vec_free(&rv);
  rc_analysis_free(&a);
  if (b.k) {
    int frc = lin_build_finish(ctx, &b, o->opt);
    if (rc == 0) rc = frc;
  }
  if (rc == 0) rc = rc_ssa_repair_linearized(ctx, k);
  if (rc == 0 && acc) {
    acc->regions += b.counts.regions;
    acc->region_blocks += b.counts.region_blocks;
    acc->subregions += b.counts.subregions;
    acc->guards += b.counts.guards;
    acc->back_guards += b.counts.back_guards;
    acc->joins += b.counts.joins;
    acc->unguarded += b.counts.unguarded;
    acc->nested_then += b.counts.nested_then;
    acc->nested_else += b.counts.nested_else;
    acc->nested_loops += b.counts.nested_loops;
    acc->loop_guards += b.counts.loop_guards;
    acc->merged += b.counts.merged;
  }
  return rc;
}

/* ---- the pass --------------------------------------------------------------------------------------- */

static uint32_t count_instrs(const rc_kernel *k) {
  uint32_t n = 0;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) n++;
  return n;
}

/* Is k structured (maximal folding), and does it have unstructured edges (Def. 1)? */
static bool structured_now(const rc_kernel *k, bool *unstructured_edges) {
  rc_analysis a;
  if (rc_analysis_build(&a, k, 0)) return false;
  bool ok = rc_is_structured(&a.cfg, &a.dom, &a.pdom, NULL);
  if (unstructured_edges) *unstructured_edges = !rc_unstructured_edges(&a.cfg, &a.dom, &a.pdom, &a.cycles, NULL);
  rc_analysis_free(&a);
  return ok;
}

/* the rounds of REGION_FOLD: each round linearizes the innermost regions maximal folding leaves,
 * and the next one runs on its output; a kernel that needs more is linearized whole */
enum { LIN_MAX_ROUNDS = 32 };

/* One run of the pass on k in mode: one round, or with REGION_FOLD rounds until k is structured (or
 * a round finds nothing to do). *structured says whether k is structured after it. */
static int linearize_rounds(rc_ctx *ctx, rc_kernel *k, const lin_opts *o, region_mode mode, rc_stats *stats,
                            lin_counts *acc, bool *structured) {
  /* shared joins first (linearize_joins.c): what Def. 1 does not call unstructured gets a join of
   * its own instead of guards; region=all linearizes everything, as section 3 */
  if (mode != REGION_ALL) {
    uint32_t split = 0;
    if (rc_prepare_cfg(ctx, k, stats) || lin_split_shared_joins(ctx, k, &split)) return -1;
    acc->joins_split += split;
    bool edges = false;
    *structured = structured_now(k, &edges);
    if (*structured && !edges) return 0;
  }
  for (uint32_t round = 0;; round++) {
    uint32_t before = acc->regions;
    if (linearize_kernel(ctx, k, o, mode, round == 0 && mode == REGION_ALL ? stats : NULL, acc)) return -1;
    *structured = structured_now(k, NULL);
    if (*structured || mode != REGION_FOLD || acc->regions == before || round + 1 >= LIN_MAX_ROUNDS) return 0;
  }
}

/* Run on a copy of k; true when it succeeded and the copy is structured. */
static int try_on_copy(rc_ctx *ctx, rc_kernel *k, const lin_opts *o, region_mode mode, bool *structured) {
  char name[256];
  rc_kernel *c = NULL;
  for (unsigned i = 0; !c; i++) {
    snprintf(name, sizeof name, "%.200s.linearize%u", k->name, i);
    if (!rc_module_find_kernel(k->mod, name)) c = rc_kernel_clone(k->mod, k, name);
  }
  lin_opts quiet = *o;
  quiet.show_values = false;
  lin_counts acc;
  memset(&acc, 0, sizeof acc);
  int rc = linearize_rounds(ctx, c, &quiet, mode, NULL, &acc, structured);
  *structured = rc == 0 && *structured;
  const char *made = rc == 0 ? barrier_made_divergent(k, c) : NULL;
  if (made)
    rc = rc_report(ctx, RC_SEV_ERROR, k->mod->filename, k->line, k->col,
                   "linearize: kernel @%s: block %s holds a barrier that every thread of a work-group reaches "
                   "equally often, but a thread-dependent branch of its region decides which sweep of the "
                   "guards runs it: linearized, it would be in divergent control flow, so the kernel is left "
                   "as it is", o->kernel_name, made);
  rc_module_remove_kernel(k->mod, c);
  return rc;
}

int rc_pass_linearize(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  if (rc_pass_args_check(ctx, "linearize", args)) return -1;
  lin_opts o = {3, REGION_MIN, ORDER_RPO, false, false, k->name};
  const char *v = rc_pass_arg_get(args, "opt");
  if (v) {
    if (strlen(v) != 1 || v[0] < '0' || v[0] > '3')
      return rc_error(ctx, "linearize: opt must be 0, 1, 2 or 3 (section 4.2: O1, O2, O3 cumulative), not '%s'", v);
    o.opt = v[0] - '0';
  }
  v = rc_pass_arg_get(args, "region");
  if (v && strcmp(v, "min") && strcmp(v, "fold") && strcmp(v, "all"))
    return rc_error(ctx, "linearize: region must be 'min' (Algorithm 2), 'fold' (Algorithm 2 also from what "
                    "maximal folding leaves) or 'all' (section 3), not '%s'", v);
  if (v && !strcmp(v, "all")) o.region = REGION_ALL;
  if (v && !strcmp(v, "fold")) o.region = REGION_FOLD;
  v = rc_pass_arg_get(args, "order");
  if (v && strcmp(v, "rpo") && strcmp(v, "interleave"))
    return rc_error(ctx, "linearize: order must be 'rpo' or 'interleave', not '%s'", v);
  if (v && !strcmp(v, "interleave")) o.order = ORDER_INTERLEAVE;
  o.merge_loops = rc_pass_arg_get(args, "merge-loops") != NULL;
  o.show_values = rc_pass_arg_get(args, "show-values") != NULL;
  if (k->level != RC_LEVEL_THREAD) return rc_error(ctx, "linearize: @%s is not a thread-level kernel", k->name);

  uint32_t blocks_before = k->nblocks, instrs_before = count_instrs(k);
  if (stats) {
    rc_stats_set(stats, "blocks_before", blocks_before);
    rc_stats_set(stats, "instructions_before", instrs_before);
    rc_stats_set(stats, "opt", o.opt);
  }
  bool unstructured_edges = false;
  bool already = structured_now(k, &unstructured_edges);
  if (o.region != REGION_ALL && already && !unstructured_edges) {
    if (stats) {
      rc_stats_set(stats, "blocks_after", k->nblocks);
      rc_stats_set(stats, "instructions_after", instrs_before);
      rc_stats_set(stats, "regions", 0);
      rc_stats_set(stats, "already_structured", 1);
    }
    return 0;
  }
  /* Def. 1 and maximal folding can disagree (a shared join is no unstructured edge, but does not
   * fold): when the regions of the unstructured edges leave something unfolded, the blocks folding
   * leaves seed regions too, and as a last resort the whole kernel is linearized */
  region_mode mode = o.region;
  if (mode == REGION_MIN && !unstructured_edges) mode = REGION_FOLD;
  bool structured = false;
  for (;;) {
    if (try_on_copy(ctx, k, &o, mode, &structured)) return -1;
    if (structured || mode == REGION_ALL) break;
    mode = mode == REGION_MIN ? REGION_FOLD : REGION_ALL;
  }
  if (!structured)
    return rc_error(ctx, "linearize: @%s: the linearized CFG is not structured (a bug in reconv); the kernel is "
                    "left as it is", k->name);
  lin_counts acc;
  memset(&acc, 0, sizeof acc);
  if (linearize_rounds(ctx, k, &o, mode, stats, &acc, &structured)) return -1;
  if (stats) {
    rc_stats_set(stats, "regions", acc.regions);
    rc_stats_set(stats, "region_blocks", acc.region_blocks);
    rc_stats_set(stats, "structured_subregions", acc.subregions);
    rc_stats_set(stats, "guard_blocks", acc.guards - acc.merged);
    rc_stats_set(stats, "back_edge_guards", acc.back_guards);
    rc_stats_set(stats, "join_blocks", acc.joins);
    rc_stats_set(stats, "checks_removed", acc.unguarded);
    rc_stats_set(stats, "nested_then", acc.nested_then);
    rc_stats_set(stats, "nested_else", acc.nested_else);
    rc_stats_set(stats, "nested_loops", acc.nested_loops);
    rc_stats_set(stats, "loop_guards", acc.loop_guards);
    rc_stats_set(stats, "guards_merged", acc.merged);
    rc_stats_set(stats, "joins_split", acc.joins_split);
    rc_stats_set(stats, "blocks_after", k->nblocks);
    rc_stats_set(stats, "instructions_after", count_instrs(k));
    rc_stats_set(stats, "whole_kernel", mode == REGION_ALL);
    rc_stats_set(stats, "folding_seeds", mode == REGION_FOLD);
    rc_stats_set(stats, "already_structured", 0);
  }
  return 0;
}
