/* Uniformity (divergence) analysis: which values and which branches may differ between the
 * threads of a wave. Reference: LLVM's "Convergence And Uniformity" document and
 * GenericUniformityAnalysis / SyncDependenceAnalysis (after Rosemann, Moll and Hack, POPL 2021);
 * Karrenberg and Hack. A fixpoint that starts with everything uniform:
 *
 * Sources. Calls of builtins marked divergent_source in src/ir/tables.c (global_id, local_id,
 *   lane_id, atomics); allocas (every thread has its own private memory, so the address differs);
 *   loads whose address may point to private memory; vector-register reads at wave level.
 *   "May point to private memory" is a taint that flows from allocas through every instruction but
 *   loads; if a tainted value is ever stored to memory (or handed to an atomic) the taint escapes
 *   and every loaded value is tainted too. Parameters, constants, localmem addresses, wave-size and
 *   group queries, ballot and exec are uniform.
 * Data dependence. An instruction with a divergent operand is divergent (ballot excepted).
 * Branches. A br or switch is divergent when its condition is. `!uniform` and `!divergent`
 *   annotations override that verdict (RC_IF_UNIFORM, RC_IF_DIVERGENT), and the flag
 *   RC_UNIF_ALL_DIVERGENT makes every br and switch divergent, annotations included.
 * Sync dependence. A divergent branch B makes the phis divergent at each join of B: a block
 *   reached from two successors of B by paths that are disjoint but for their ends. Found as in
 *   LLVM's SyncDependenceAnalysis, by propagating "labels" (the nearest definition of a virtual
 *   variable assigned differently in each successor of B) in topological order of an acyclic
 *   graph; a block receiving two different labels is a join and becomes its own label.
 *   Propagation stops when a single block carries a fresh label (all later blocks would get that
 *   one label), which keeps it to the region that B controls.
 *   The acyclic graph is LLVM's "modified post-order" made explicit (src/analysis/syncgraph.c):
 *   the header of a reducible cycle does not lead into its body but straight to the cycle's
 *   exits, so its back edges end there; a branch outside the cycle reaches at most its header (the
 *   only entry), a branch inside propagates through the body to the latches and from the header
 *   to the exits. Labels jump over single-entry single-exit regions, where nothing can join.
 *   Phis of a join block whose incoming values are all the same value (undef aside) stay uniform.
 * Temporal divergence. If the header of a reducible cycle C that contains B pushes a label to an
 *   exit that already carries a different one, threads leave C in different iterations (a
 *   divergent exit). Then every value defined in the outermost cycle containing B but not that
 *   exit and used outside it is marked divergent itself (not only its outside uses, as LLVM
 *   does): a consumer that keeps a uniform value in one scalar register would hand a lane that
 *   left earlier the value of a later iteration. This costs precision inside the cycle.
 * Irreducible cycles, conservatively. Each outermost irreducible cycle K is one node of the
 *   acyclic graph, leading to K's exits. If a divergent branch lies in K, or two different labels
 *   reach K (threads enter it divergently), K is "assumed divergent" as in LLVM: every value
 *   defined in K is divergent (this includes the phis at its entries), and K acts as a divergent
 *   branch whose successors are its exits (each exit gets its own label).
 *
 * Cost: building the graph and the fixpoint are linear; sync propagation costs, per divergent
 * branch, the nodes its labels reach before they meet, with single-entry single-exit regions
 * counting as one, times a log for the heap (a cycle with many exits reached from a divergent
 * branch costs them all); temporal marking visits each cycle with a divergent exit once. */
#include "reconv/analysis.h"

#include "syncgraph.h"

#include <stdlib.h>
#include <string.h>

typedef struct unif {
  const rc_kernel *k;
  const rc_cfg *g;
  const rc_domtree *dom, *pdom;
  const rc_cycle_info *ci;
  rc_uniformity *u;
  uint32_t n;

  /* values: users in CSR form, value id -> instruction (NULL for parameters) */
  rc_instr **def;
  uint32_t *use_start;
  rc_instr **users;
  rc_u32vec work; /* divergent values whose users are not yet updated */

  rc_syncgraph sg; /* the acyclic propagation graph (syncgraph.h) */

  /* per-branch propagation state, reset through `touched` */
  uint32_t *label;
  uint8_t *entered_div; /* collapsed node reached by two labels */
  uint8_t *in_heap;
  rc_u32vec heap, touched;
  uint8_t *cluster_done; /* per cycle: irreducible cycle already tainted and propagated */
} unif;

/* ---- marking ---------------------------------------------------------------------------------- */

static void mark_value(unif *s, uint32_t id) {
  if (id == RC_NONE || id >= s->u->nvalues || s->u->divergent_value[id]) return;
  s->u->divergent_value[id] = 1;
  rc_vec_push(&s->work, id);
}

static bool same_value(const rc_value *a, const rc_value *b) {
  if (a == b) return true;
  if (a->kind == RC_V_CONST && b->kind == RC_V_CONST && a->type == b->type)
    return rc_type_is_float((rc_type)a->type) ? rc_const_fval(a) == rc_const_fval(b)
                                              : rc_const_ival(a) == rc_const_ival(b);
  return false;
}

/* A phi whose incoming values are all one value (undef aside) is that value on every path. */
static bool phi_is_trivial(const rc_instr *phi) {
  const rc_value *only = NULL;
  for (uint32_t i = 0; i < phi->nops; i++) {
    const rc_value *v = phi->ops[i];
    if (v->kind == RC_V_UNDEF) continue;
    if (!only) only = v;
    else if (!same_value(only, v)) return false;
  }
  return true;
}

static void taint_phis(unif *s, uint32_t b) {
  for (rc_instr *i = s->k->blocks[b]->first; i && i->op == RC_OP_PHI; i = i->next) {
    if (!phi_is_trivial(i)) mark_value(s, i->v.id);
  }
  s->u->sync_join[b] = 1;
}

static void taint_all_defs(unif *s, uint32_t c) {
  const rc_cycle *cy = &s->ci->cycles[c];
  for (uint32_t i = 0; i < cy->nblocks; i++)
    for (rc_instr *in = s->k->blocks[cy->blocks[i]]->first; in; in = in->next)
      if (in->v.type != RC_VOID) mark_value(s, in->v.id);
}

/* Temporal divergence: values defined in cycle c and used outside it. */
static void mark_temporal(unif *s, uint32_t c) {
  if (s->u->temporal_cycle[c]) return;
  s->u->temporal_cycle[c] = 1;
  const rc_cycle *cy = &s->ci->cycles[c];
  for (uint32_t i = 0; i < cy->nblocks; i++)
    for (rc_instr *in = s->k->blocks[cy->blocks[i]]->first; in; in = in->next) {
      uint32_t id = in->v.id;
      if (in->v.type == RC_VOID || id == RC_NONE || s->u->divergent_value[id]) continue;
      for (uint32_t e = s->use_start[id]; e < s->use_start[id + 1]; e++)
        if (!rc_cycle_contains(s->ci, c, s->users[e]->parent->id)) {
          mark_value(s, id);
          break;
        }
    }
}

/* ---- sync dependence: label propagation from one divergent branch ------------------------------- */

static bool heap_less(const unif *s, uint32_t a, uint32_t b) { return s->sg.topo[a] < s->sg.topo[b]; }

static void heap_push(unif *s, uint32_t x) {
  if (s->in_heap[x]) return;
  s->in_heap[x] = 1;
  rc_vec_push(&s->heap, x);
  uint32_t i = s->heap.len - 1;
  while (i && heap_less(s, s->heap.data[i], s->heap.data[(i - 1) / 2])) {
    uint32_t p = (i - 1) / 2, t = s->heap.data[i];
    s->heap.data[i] = s->heap.data[p];
    s->heap.data[p] = t;
    i = p;
  }
}

static uint32_t heap_pop(unif *s) {
  uint32_t top = s->heap.data[0];
  s->heap.data[0] = s->heap.data[--s->heap.len];
  for (uint32_t i = 0;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < s->heap.len && heap_less(s, s->heap.data[l], s->heap.data[m])) m = l;
    if (r < s->heap.len && heap_less(s, s->heap.data[r], s->heap.data[m])) m = r;
    if (m == i) break;
    uint32_t t = s->heap.data[i];
    s->heap.data[i] = s->heap.data[m];
    s->heap.data[m] = t;
    i = m;
  }
  s->in_heap[top] = 0;
  return top;
}

/* how a label travels: along an edge of the graph; from the header of a reducible cycle around
 * the branch to the cycle's exits (a join there is a divergent exit); or as a new definition */
enum { EDGE_NORMAL, EDGE_CYCLE_EXIT, EDGE_NEW_DEF };

typedef struct branch_ctx {
  uint32_t block;     /* the divergent branch */
  rc_u32vec joins;    /* blocks whose phis become divergent */
  rc_u32vec div_exits; /* exit blocks reached in different iterations */
} branch_ctx;

/* Push `label` into the node of block `to`; a second, different label makes a join. Labels are
 * block ids: a branch's successors label themselves (so two entries of one collapsed cycle carry
 * different labels), a join labels itself with its node. EDGE_NEW_DEF pushes a definition that
 * exists nowhere else yet (the exits of a divergent irreducible cycle), which joins with any
 * label already there. */
static void push_label(unif *s, branch_ctx *bc, uint32_t to, uint32_t label, int kind) {
  uint32_t x = s->sg.node[to];
  uint32_t old = s->label[x];
  if (old == label && !(kind == EDGE_NEW_DEF && old != RC_NONE)) return;
  if (old == RC_NONE) rc_vec_push(&s->touched, x);
  if (old != x) heap_push(s, x);
  if (old == RC_NONE) {
    s->label[x] = label;
    return;
  }
  s->label[x] = x; /* a join: the node defines its own label from here on */
  if (kind == EDGE_CYCLE_EXIT) rc_vec_push(&bc->div_exits, to);
  if (s->sg.collapsed[x]) s->entered_div[x] = 1;
  else if (kind != EDGE_CYCLE_EXIT) rc_vec_push(&bc->joins, x);
}

/* An irreducible cycle entered divergently or holding a divergent branch: all its values are
 * divergent, and its exits each start a label of their own. */
static void diverge_cluster(unif *s, branch_ctx *bc, uint32_t c) {
  if (!s->cluster_done[c]) {
    s->cluster_done[c] = 1;
    s->u->assumed_divergent[c] = 1;
    taint_all_defs(s, c);
  }
  const rc_cycle *cy = &s->ci->cycles[c];
  const rc_cfg *g = s->g;
  for (uint32_t i = 0; i < cy->nexits; i++) {
    uint32_t X = cy->exits[i], first = RC_NONE;
    bool apart = false;
    /* an exit entered from two blocks of the cycle joins threads that left it apart */
    for (uint32_t e = g->pred_start[X]; e < g->pred_start[X + 1] && !apart; e++) {
      uint32_t p = g->preds[e];
      if (!rc_cycle_contains(s->ci, c, p)) continue;
      if (first == RC_NONE) first = p;
      else apart = p != first;
    }
    push_label(s, bc, X, X, EDGE_NEW_DEF);
    if (apart && s->sg.collapsed[s->sg.node[X]]) s->entered_div[s->sg.node[X]] = 1;
    else if (apart) rc_vec_push(&bc->joins, X);
  }
}

static void propagate_branch(unif *s, uint32_t B) {
  branch_ctx bc = {B, {0}, {0}};
  uint32_t bn = s->sg.node[B];
  if (s->sg.collapsed[bn]) {
    uint32_t c = s->sg.node_cycle[bn];
    if (s->cluster_done[c]) return; /* the same propagation ran for another branch in it */
    diverge_cluster(s, &bc, c);
  } else {
    const rc_cfg *g = s->g;
    for (uint32_t e = g->succ_start[B]; e < g->succ_start[B + 1]; e++) {
      uint32_t t = g->succs[e];
      push_label(s, &bc, t, t, EDGE_NORMAL); /* each successor block is a label of its own */
    }
  }
  while (s->heap.len) {
    uint32_t x = s->heap.data[0];
    /* a single fresh node hands its one label to everything after it: no more joins */
    if (s->heap.len == 1 && !(s->sg.collapsed[x] && s->entered_div[x])) break;
    heap_pop(s);
    uint32_t label = s->label[x], c = s->sg.node_cycle[x];
    if (s->sg.collapsed[x] && s->entered_div[x]) {
      diverge_cluster(s, &bc, c);
    } else if (c != RC_NONE) {
      /* a cycle's exits; for a reducible cycle around B these are exits in other iterations */
      int kind = !s->sg.collapsed[x] && rc_cycle_contains(s->ci, c, B) ? EDGE_CYCLE_EXIT : EDGE_NORMAL;
      for (uint32_t e = s->sg.start[x]; e < s->sg.start[x + 1]; e++)
        push_label(s, &bc, s->sg.to[e], label, kind);
    } else if (s->sg.skip[x] != RC_NONE) {
      push_label(s, &bc, s->sg.skip[x], label, EDGE_NORMAL);
    } else {
      for (uint32_t e = s->sg.start[x]; e < s->sg.start[x + 1]; e++)
        push_label(s, &bc, s->sg.to[e], label, EDGE_NORMAL);
    }
  }
  while (s->heap.len) heap_pop(s);
  for (uint32_t i = 0; i < s->touched.len; i++) {
    uint32_t x = s->touched.data[i];
    s->label[x] = RC_NONE;
    s->entered_div[x] = 0;
  }
  s->touched.len = 0;
  for (uint32_t i = 0; i < bc.joins.len; i++) taint_phis(s, bc.joins.data[i]);
  for (uint32_t i = 0; i < bc.div_exits.len; i++) {
    /* the outermost cycle around B that does not contain the exit */
    uint32_t X = bc.div_exits.data[i], outer = RC_NONE;
    for (uint32_t c = s->ci->innermost[B]; c != RC_NONE; c = s->ci->cycles[c].parent)
      if (!rc_cycle_contains(s->ci, c, X)) outer = c;
    if (outer != RC_NONE) mark_temporal(s, outer);
  }
  rc_vec_free(&bc.joins);
  rc_vec_free(&bc.div_exits);
}

static void branch_divergent(unif *s, uint32_t b) {
  if (s->u->divergent_branch[b]) return;
  s->u->divergent_branch[b] = 1;
  if (rc_domtree_contains(s->dom, b)) propagate_branch(s, b);
}

/* ---- sources and the fixpoint ------------------------------------------------------------------ */

static bool is_conditional(const rc_instr *t) {
  return t && (t->op == RC_OP_BR || t->op == RC_OP_SWITCH) && t->ntargets >= 2;
}

/* Which values may hold an address into private memory (derived from an alloca)? */
static uint8_t *private_taint(unif *s) {
  uint32_t nv = s->u->nvalues;
  uint8_t *pt = rc_xcalloc(nv ? nv : 1, 1);
  rc_u32vec work = {0};
  bool escaped = false;
  for (uint32_t id = 0; id < nv; id++)
    if (s->def[id] && s->def[id]->op == RC_OP_ALLOCA) {
      pt[id] = 1;
      rc_vec_push(&work, id);
    }
  for (;;) {
    while (work.len) {
      uint32_t id = work.data[--work.len];
      for (uint32_t e = s->use_start[id]; e < s->use_start[id + 1]; e++) {
        rc_instr *u = s->users[e];
        if (u->op == RC_OP_STORE && u->ops[0]->id == id && u->ops[0]->kind != RC_V_CONST) escaped = true;
        if (u->op == RC_OP_CALL && rc_builtin_get((rc_builtin)u->pred)->has_side_effects)
          for (uint32_t o = 1; o < u->nops; o++) escaped |= u->ops[o]->id == id;
        if (u->op == RC_OP_LOAD || u->v.type == RC_VOID || u->v.id == RC_NONE || pt[u->v.id]) continue;
        pt[u->v.id] = 1;
        rc_vec_push(&work, u->v.id);
      }
    }
    if (!escaped) break;
    /* a private address went to memory: any load may bring it back */
    bool added = false;
    for (uint32_t id = 0; id < nv; id++)
      if (s->def[id] && s->def[id]->op == RC_OP_LOAD && !pt[id]) {
        pt[id] = 1;
        rc_vec_push(&work, id);
        added = true;
      }
    if (!added) break;
  }
  rc_vec_free(&work);
  return pt;
}

static bool is_source(const rc_instr *i, const uint8_t *pt) {
  switch (i->op) {
  case RC_OP_CALL: return rc_builtin_get((rc_builtin)i->pred)->divergent_source;
  case RC_OP_ALLOCA: return true;
  case RC_OP_LOAD: return i->ops[0]->id != RC_NONE && i->ops[0]->kind != RC_V_CONST && pt[i->ops[0]->id];
  case RC_OP_RGET: return i->reg && !i->reg->scalar;
  default: return false;
  }
}

/* Users of value id u_val: update after it became divergent. */
static void update_users(unif *s, uint32_t id, unsigned flags) {
  for (uint32_t e = s->use_start[id]; e < s->use_start[id + 1]; e++) {
    rc_instr *u = s->users[e];
    if (rc_opcode_is_terminator((rc_opcode)u->op)) {
      if (is_conditional(u) && u->ops[0]->id == id && !(u->iflags & RC_IF_UNIFORM) &&
          !(flags & RC_UNIF_ALL_DIVERGENT))
        branch_divergent(s, u->parent->id);
      continue;
    }
    if (u->op == RC_OP_BALLOT || u->v.type == RC_VOID) continue; /* ballot: one mask per wave */
    mark_value(s, u->v.id);
  }
}

int rc_uniformity_build(rc_uniformity *u, const rc_kernel *k, const rc_cfg *g,
                        const rc_domtree *dom, const rc_domtree *pdom,
                        const rc_cycle_info *ci, unsigned flags) {
  memset(u, 0, sizeof *u);
  uint32_t n = g->nblocks, nv = k->nvalues, m = ci->ncycles;
  u->nvalues = nv;
  u->nblocks = n;
  u->ncycles = m;
  u->divergent_value = rc_xcalloc(nv ? nv : 1, 1);
  u->divergent_branch = rc_xcalloc(n ? n : 1, 1);
  u->sync_join = rc_xcalloc(n ? n : 1, 1);
  u->temporal_cycle = rc_xcalloc(m ? m : 1, 1);
  u->assumed_divergent = rc_xcalloc(m ? m : 1, 1);

  unif s = {0};
  s.k = k;
  s.g = g;
  s.dom = dom;
  s.pdom = pdom;
  s.ci = ci;
  s.u = u;
  s.n = n;
  /* definitions and users */
  s.def = rc_xcalloc(nv ? nv : 1, sizeof *s.def);
  s.use_start = rc_xcalloc(nv + 2, sizeof *s.use_start);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->v.type != RC_VOID && i->v.id < nv) s.def[i->v.id] = i;
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o] && i->ops[o]->id < nv) s.use_start[i->ops[o]->id + 1]++;
    }
  for (uint32_t id = 0; id < nv; id++) s.use_start[id + 1] += s.use_start[id];
  s.users = rc_xmalloc((s.use_start[nv] ? s.use_start[nv] : 1) * sizeof *s.users);
  uint32_t *fill = rc_xmalloc((nv + 1) * sizeof *fill);
  memcpy(fill, s.use_start, (nv + 1) * sizeof *fill);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next)
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o] && i->ops[o]->id < nv) {
          /* an instruction using a value twice is listed twice; harmless */
          s.users[fill[i->ops[o]->id]++] = i;
        }
  free(fill);

  rc_syncgraph_build(&s.sg, g, dom, pdom, ci);
  s.label = rc_xmalloc((n ? n : 1) * sizeof *s.label);
  for (uint32_t b = 0; b < n; b++) s.label[b] = RC_NONE;
  s.entered_div = rc_xcalloc(n ? n : 1, 1);
  s.in_heap = rc_xcalloc(n ? n : 1, 1);
  s.cluster_done = rc_xcalloc(m ? m : 1, 1);

  uint8_t *pt = private_taint(&s);
  for (uint32_t id = 0; id < nv; id++)
    if (s.def[id] && is_source(s.def[id], pt)) mark_value(&s, id);
  free(pt);
  for (uint32_t b = 0; b < n; b++) {
    const rc_instr *t = rc_block_term(k->blocks[b]);
    if (!is_conditional(t)) continue;
    if ((flags & RC_UNIF_ALL_DIVERGENT) || (t->iflags & RC_IF_DIVERGENT)) branch_divergent(&s, b);
  }
  while (s.work.len) {
    uint32_t id = s.work.data[--s.work.len];
    update_users(&s, id, flags);
  }

  free(s.def);
  free(s.use_start);
  free(s.users);
  rc_syncgraph_free(&s.sg);
  free(s.label);
  free(s.entered_div);
  free(s.in_heap);
  free(s.cluster_done);
  rc_vec_free(&s.heap);
  rc_vec_free(&s.touched);
  rc_vec_free(&s.work);
  return 0;
}

void rc_uniformity_free(rc_uniformity *u) {
  free(u->divergent_value);
  free(u->divergent_branch);
  free(u->sync_join);
  free(u->temporal_cycle);
  free(u->assumed_divergent);
  memset(u, 0, sizeof *u);
}
