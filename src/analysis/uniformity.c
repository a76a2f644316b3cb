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
 * Sync dependence (src/analysis/syncdep.c). A divergent branch B makes the phis divergent at
 *   each join of B: a block reached from two successors of B by paths that are disjoint but for
 *   their ends. Found as in LLVM's SyncDependenceAnalysis, by propagating "labels" (the nearest
 *   definition of a virtual variable assigned differently in each successor of B) in topological
 *   order of an acyclic graph; a block receiving two different labels is a join and becomes its
 *   own label.
 *   Propagation stops once all fresh labels are the same one (all later blocks would get that one
 *   label), which keeps it to the region that B controls (LLVM stops at one fresh block).
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

#include "syncdep.h"

#include <stdlib.h>
#include <string.h>

/* Values that escape cycles (see mark_temporal). */
typedef struct escapes {
  uint32_t n;          /* escaping values */
  uint32_t *value;     /* sorted by the innermost cycle of their block */
  uint32_t *slice;     /* per cycle id c (and m): first index of values in cycles >= c */
  uint32_t size, *tree; /* min-tree over escape depths (UINT32_MAX: gone) */
} escapes;

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

  rc_syncdep sd;   /* sync dependence (syncdep.h) */
  bool sd_ready;
  escapes esc;     /* values escaping cycles, for temporal divergence (built on first use) */
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

/* ---- temporal divergence ---------------------------------------------------------------------
 * When cycle c gets a divergent exit, the values defined in c (nested cycles included) and used
 * outside c become divergent. A value defined in block b escapes the cycles around b from the
 * innermost up to the outermost one that some use lies outside of; call the depth of that one its
 * escape depth. Sorted by the innermost cycle of their block (cycle ids are in forest pre-order,
 * so the cycles nested in c are a range), the values defined in c form one slice, and those
 * escaping c are the ones in the slice with escape depth <= depth(c). A segment tree of escape
 * depths finds them, and a value leaves it once marked: each value is found once, and marking a
 * cycle costs O((1 + values found) log n) instead of a walk over the cycle. */
static void escapes_build(unif *s) {
  const rc_cycle_info *ci = s->ci;
  uint32_t m = ci->ncycles, nv = s->u->nvalues;
  escapes *x = &s->esc;
  uint32_t *depth = rc_xmalloc((nv ? nv : 1) * sizeof *depth), *cyc = rc_xmalloc((nv ? nv : 1) * sizeof *cyc);
  x->slice = rc_xcalloc(m + 2, sizeof *x->slice);
  for (uint32_t id = 0; id < nv; id++) {
    depth[id] = UINT32_MAX;
    const rc_instr *d = s->def[id];
    uint32_t cb = d && d->parent ? ci->innermost[d->parent->id] : RC_NONE;
    cyc[id] = cb;
    if (cb == RC_NONE) continue;
    for (uint32_t e = s->use_start[id]; e < s->use_start[id + 1]; e++) {
      uint32_t ub = s->users[e]->parent->id, out = RC_NONE;
      for (uint32_t c = cb; c != RC_NONE && !rc_cycle_contains(ci, c, ub); c = ci->cycles[c].parent) out = c;
      if (out != RC_NONE && ci->cycles[out].depth < depth[id]) depth[id] = ci->cycles[out].depth;
    }
    if (depth[id] != UINT32_MAX) x->slice[cb + 1]++;
  }
  for (uint32_t c = 0; c <= m; c++) x->slice[c + 1] += x->slice[c];
  x->n = x->slice[m];
  x->value = rc_xmalloc((x->n ? x->n : 1) * sizeof *x->value);
  uint32_t *fill = rc_xmalloc((m + 1) * sizeof *fill);
  memcpy(fill, x->slice, (m + 1) * sizeof *fill);
  for (uint32_t id = 0; id < nv; id++)
    if (depth[id] != UINT32_MAX) x->value[fill[cyc[id]]++] = id;
  free(fill);
  for (x->size = 1; x->size < x->n; x->size *= 2) {}
  x->tree = rc_xmalloc(2 * x->size * sizeof *x->tree);
  for (uint32_t i = 0; i < x->size; i++) x->tree[x->size + i] = i < x->n ? depth[x->value[i]] : UINT32_MAX;
  for (uint32_t i = x->size; i-- > 1;)
    x->tree[i] = x->tree[2 * i] < x->tree[2 * i + 1] ? x->tree[2 * i] : x->tree[2 * i + 1];
  free(depth);
  free(cyc);
}

static void escapes_free(escapes *x) {
  free(x->value);
  free(x->slice);
  free(x->tree);
}

/* The first index in [lo, hi) whose escape depth is <= d, or RC_NONE; iterative descent. */
static uint32_t escapes_find(const escapes *x, uint32_t lo, uint32_t hi, uint32_t d) {
  uint32_t stack[64], sp = 0; /* nodes as (index, node lo, node hi), depth of the tree <= 32 */
  uint32_t nlo[64], nhi[64];
  stack[sp] = 1, nlo[sp] = 0, nhi[sp] = x->size, sp++;
  while (sp) {
    sp--;
    uint32_t v = stack[sp], a = nlo[sp], b = nhi[sp];
    if (b <= lo || a >= hi || x->tree[v] > d) continue;
    if (b - a == 1) return a;
    uint32_t mid = a + (b - a) / 2;
    stack[sp] = 2 * v + 1, nlo[sp] = mid, nhi[sp] = b, sp++; /* right after left */
    stack[sp] = 2 * v, nlo[sp] = a, nhi[sp] = mid, sp++;
  }
  return RC_NONE;
}

static void escapes_remove(escapes *x, uint32_t i) {
  uint32_t v = x->size + i;
  x->tree[v] = UINT32_MAX;
  for (v /= 2; v; v /= 2) x->tree[v] = x->tree[2 * v] < x->tree[2 * v + 1] ? x->tree[2 * v] : x->tree[2 * v + 1];
}

static void mark_temporal(unif *s, uint32_t c) {
  if (s->u->temporal_cycle[c]) return;
  s->u->temporal_cycle[c] = 1;
  if (!s->esc.tree) escapes_build(s);
  escapes *x = &s->esc;
  uint32_t lo = x->slice[c], hi = x->slice[s->ci->cycles[c].nested_end], d = s->ci->cycles[c].depth;
  for (uint32_t i; (i = escapes_find(x, lo, hi, d)) != RC_NONE;) {
    mark_value(s, x->value[i]);
    escapes_remove(x, i);
  }
}

/* Apply what the propagation from divergent branch b found. */
static void branch_divergent(unif *s, uint32_t b) {
  if (s->u->divergent_branch[b]) return;
  s->u->divergent_branch[b] = 1;
  if (!rc_domtree_contains(s->dom, b)) return;
  if (!s->sd_ready) { /* built on the first divergent branch: uniform kernels never pay for it */
    rc_syncdep_init(&s->sd, s->g, s->dom, s->pdom, s->ci);
    s->sd_ready = true;
  }
  rc_syncdep_result r = {0};
  rc_syncdep_branch(&s->sd, b, &r);
  for (uint32_t i = 0; i < r.joins.len; i++) taint_phis(s, r.joins.data[i]);
  for (uint32_t i = 0; i < r.diverged.len; i++) {
    s->u->assumed_divergent[r.diverged.data[i]] = 1;
    taint_all_defs(s, r.diverged.data[i]);
  }
  for (uint32_t i = 0; i < r.exited.len; i++) mark_temporal(s, r.exited.data[i]);
  rc_syncdep_result_free(&r);
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
  if (s.sd_ready) rc_syncdep_free(&s.sd);
  escapes_free(&s.esc);
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
