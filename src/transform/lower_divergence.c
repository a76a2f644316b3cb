/* Divergence at wave level: what the uniformity analysis (uniformity.c) cannot see because it
 * assumes LLVM's convergence model, and what the lowering (lower.c) nevertheless does.
 *
 * The uniformity analysis calls a value uniform when the threads that execute the same *dynamic
 * instance* of its definition agree; threads in different iterations of a cycle are different
 * instances. The lowered code does not respect iterations: the lanes that want the primary
 * successor B of a divergent branch wait at B while the wave runs the rest of B's region (every
 * block reachable from the branch without passing B), which may go around a loop, re-execute
 * blocks above the branch and re-enter B from another side. At B the waiting lanes and the wave's
 * lanes merge although they are in different iterations (found by the property tests: a flow block
 * at the header of an inner loop whose dispatch phi differs between lanes that took the inner back
 * edge and lanes that went around the outer loop). So, for every primary successor B:
 *   1. a phi of B is divergent unless all its incoming values are one constant or parameter: lanes
 *      that enter B from different edges, or restored from the re-join mask, meet there;
 *   2. a value defined in B's region and used outside it (at B or after; a phi's incoming value is
 *      used at the end of its predecessor) is divergent when the wave can run its block again after
 *      lanes parked at B (the block is reachable from a divergent branch of P inside the region):
 *      the lanes that waited computed it in an earlier pass through the region, the wave's lanes in
 *      the last one. This is the analysis's temporal divergence, with the region in the place of a
 *      cycle. A block the wave cannot reach again before B (a loop body's first block, when the
 *      loop's latch is B) gives every lane the value of one pass (mark_reentered).
 * Then divergence flows along data dependence (a phi with a divergent incoming value, an
 * instruction with a divergent operand, a branch on a divergent condition). A branch that becomes
 * divergent also has joins (sync dependence); the caller marks it !divergent and runs the
 * analysis again, until no branch changes. */
#include "reconv/analysis.h"
#include "reconv/transform.h"
#include "lower_regions.h"

#include <stdlib.h>
#include <string.h>

typedef struct wavediv {
  const rc_kernel *k;
  rc_uniformity *u;
  rc_instr **def;          /* per value id */
  uint32_t *use_start;     /* users in CSR form */
  rc_instr **users;
  uint8_t *crosses;        /* per value: used in a block other than its own (escaping_values) */
  uint8_t *leaves;         /* per block: it defines such a value */
  rc_u32vec work;
} wavediv;

static bool invariant(const rc_value *v) {
  return v->kind == RC_V_CONST || v->kind == RC_V_UNDEF || v->kind == RC_V_PARAM;
}

/* Every incoming value of the phi is the same constant or parameter (undef aside). */
static bool one_invariant(const rc_instr *phi) {
  const rc_value *only = NULL;
  for (uint32_t o = 0; o < phi->nops; o++) {
    const rc_value *v = phi->ops[o];
    if (v->kind == RC_V_UNDEF) continue;
    if (!invariant(v)) return false;
    if (!only) {
      only = v;
    } else if (v != only) {
      if (v->kind != RC_V_CONST || only->kind != RC_V_CONST || v->type != only->type) return false;
      bool same = rc_type_is_float((rc_type)v->type) ? rc_const_fval(v) == rc_const_fval(only)
                                                     : rc_const_ival(v) == rc_const_ival(only);
      if (!same) return false;
    }
  }
  return true;
}

static void mark(wavediv *w, uint32_t v) {
  if (w->u->divergent_value[v]) return;
  w->u->divergent_value[v] = 1;
  rc_vec_push(&w->work, v);
}

static void build_users(wavediv *w) {
  const rc_kernel *k = w->k;
  uint32_t n = k->nvalues;
  w->def = rc_xcalloc(n + 1, sizeof *w->def);
  uint32_t *count = rc_xcalloc(n + 1, sizeof *count);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->v.id != RC_NONE) w->def[i->v.id] = i;
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o]->id != RC_NONE && !invariant(i->ops[o])) count[i->ops[o]->id]++;
    }
  w->use_start = rc_xmalloc((n + 1) * sizeof *w->use_start);
  uint32_t total = 0;
  for (uint32_t v = 0; v < n; v++) {
    w->use_start[v] = total;
    total += count[v];
  }
  w->use_start[n] = total;
  w->users = rc_xmalloc((total + 1) * sizeof *w->users);
  memset(count, 0, n * sizeof *count);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next)
      for (uint32_t o = 0; o < i->nops; o++) {
        const rc_value *x = i->ops[o];
        if (x->id != RC_NONE && !invariant(x)) w->users[w->use_start[x->id] + count[x->id]++] = i;
      }
  free(count);
  /* a value whose every use is in its own block never leaves a region that holds that block */
  w->crosses = rc_xcalloc(n + 1, 1);
  w->leaves = rc_xcalloc(k->nblocks + 1, 1);
  for (uint32_t v = 0; v < n; v++) {
    const rc_instr *d = w->def[v];
    if (!d || !d->parent) continue;
    for (uint32_t j = w->use_start[v]; j < w->use_start[v + 1] && !w->crosses[v]; j++) {
      const rc_instr *i = w->users[j];
      if (i->op != RC_OP_PHI) w->crosses[v] = i->parent != d->parent;
      for (uint32_t o = 0; i->op == RC_OP_PHI && o < i->nops; o++)
        if (i->ops[o] == &d->v && i->targets[o] != d->parent) w->crosses[v] = 1;
    }
    w->leaves[d->parent->id] |= w->crosses[v];
  }
}

/* Is the use of value v by instruction i outside the region? (A phi uses its incoming values at
 * the end of their predecessors.) */
static bool used_outside(lower_regions *r, const rc_instr *i, const rc_value *v) {
  if (i->op != RC_OP_PHI) return !lower_regions_member(r, i->parent->id);
  for (uint32_t o = 0; o < i->nops; o++)
    if (i->ops[o] == v && !lower_regions_member(r, i->targets[o]->id)) return true;
  return false;
}

/* Rule 2 for the values of block x of the region. */
static void escaping_values(wavediv *w, lower_regions *r, uint32_t x) {
  if (!w->leaves[x]) return;
  for (const rc_instr *i = w->k->blocks[x]->first; i; i = i->next) {
    if (i->v.id == RC_NONE || !w->crosses[i->v.id] || w->u->divergent_value[i->v.id]) continue;
    for (uint32_t j = w->use_start[i->v.id]; j < w->use_start[i->v.id + 1]; j++)
      if (used_outside(r, w->users[j], &i->v)) {
        mark(w, i->v.id);
        break;
      }
  }
}

/* Rules 1 and 2 for primary successor B, whose region r has just made. The blocks the wave can
 * run again after lanes park at B are those reachable from P by a path of at least one edge in
 * the region: the region but P0 (a member of P is reached by such a path exactly when it has a
 * predecessor in the region). The values of a unit of the region below (lower_regions.c) that is
 * not in that unit's own P0 were judged against the unit's region, which this one contains: a
 * use outside this region is outside that one. */
static void primary_rules(wavediv *w, lower_regions *r, const rc_block *B) {
  for (const rc_instr *phi = B->first; phi && phi->op == RC_OP_PHI; phi = phi->next)
    if (!one_invariant(phi)) mark(w, phi->v.id);
  for (uint32_t q = 0; q < r->blocks.len; q++) {
    uint32_t x = r->blocks.data[q];
    if (!lower_regions_in_p0(r, x)) escaping_values(w, r, x);
  }
  for (uint32_t q = 0; q < r->units.len; q++) {
    uint32_t n;
    const uint32_t *p0 = lower_regions_unit_unjudged(r, r->units.data[q], &n);
    for (uint32_t i = 0; i < n; i++) escaping_values(w, r, p0[i]);
  }
}

uint32_t rc_wave_divergence(const rc_kernel *k, const rc_cfg *g, const rc_domtree *pdom,
                            rc_uniformity *u, rc_u32vec *branches) {
  return lower_wave_divergence(k, g, pdom, u, branches, NULL, NULL);
}

uint32_t lower_wave_divergence(const rc_kernel *k, const rc_cfg *g, const rc_domtree *pdom, rc_uniformity *u,
                               rc_u32vec *branches, lower_region_fn each, void *ctx) {
  wavediv w0;
  memset(&w0, 0, sizeof w0);
  wavediv *w = &w0;
  w->k = k;
  w->u = u;
  build_users(w);
  /* branches are judged on what this refinement adds: a condition the analysis already called
   * divergent on a branch it calls uniform is a !uniform annotation, which is left as it is */
  uint8_t *before = rc_xmalloc(k->nvalues + 1);
  memcpy(before, u->divergent_value, k->nvalues);
  /* primary successors of the divergent branches (the strict post-dominating successor) */
  uint32_t *primary = rc_xmalloc((k->nblocks + 1) * sizeof *primary);
  for (uint32_t b = 0; b < k->nblocks; b++) {
    primary[b] = RC_NONE;
    const rc_instr *t = rc_block_term(k->blocks[b]);
    if (!u->divergent_branch[b] || !t || t->op != RC_OP_BR) continue;
    for (uint32_t s = 0; s < 2 && primary[b] == RC_NONE; s++)
      if (rc_strictly_dominates(pdom, t->targets[s]->id, b)) primary[b] = t->targets[s]->id;
  }
  lower_regions r;
  lower_regions_init(&r, g, pdom, primary);
  for (uint32_t B; (B = lower_regions_next(&r)) != RC_NONE;) {
    primary_rules(w, &r, k->blocks[B]);
    if (each) each(ctx, &r, B);
  }
  lower_regions_free(&r);
  /* data dependence */
  while (w->work.len) {
    uint32_t v = w->work.data[--w->work.len];
    for (uint32_t j = w->use_start[v]; j < w->use_start[v + 1]; j++) {
      const rc_instr *i = w->users[j];
      if (i->v.id != RC_NONE) mark(w, i->v.id);
    }
  }
  uint32_t n = 0;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    const rc_instr *t = rc_block_term(k->blocks[b]);
    if (u->divergent_branch[b] || !t || (t->op != RC_OP_BR && t->op != RC_OP_SWITCH)) continue;
    if (t->op == RC_OP_BR && t->targets[0] == t->targets[1]) continue;
    const rc_value *c = t->ops[0];
    if (c->id != RC_NONE && !invariant(c) && u->divergent_value[c->id] && !before[c->id]) {
      u->divergent_branch[b] = 1;
      if (branches) rc_vec_push(branches, b);
      n++;
    }
  }
  free(before);
  free(primary);
  free(w->def);
  free(w->use_start);
  free(w->users);
  free(w->crosses);
  free(w->leaves);
  rc_vec_free(&w->work);
  return n;
}
