/* linearize, the output: Algorithm 1 of Anantpur and Govindarajan (CC 2014) driven by the plan of
 * linearize_guards.c, the phis of the guard variable, O3 and the layout.
 *
 * Edges whose target is not known yet ("dangling": a terminator and the index of its successor)
 * point at a placeholder block and are patched when the next entry is made. The output is
 * structured in the strict sense of rc_is_structured (maximal folding), which needs every if-then
 * to have its own join: a chain guard G_p is a selection whose join is the next entry (exactly G_p's
 * fall-through and block p come in); a side of a guard whose last item is itself a guard ends in a
 * join block of its own (flagged RC_BLOCK_GUARD, one `jmp`); a loop is entered at its first entry
 * and left from its back-edge guard only (Alg. 1 lines 24-33), so it folds to one node. */
#include "linearize_internal.h"
#include "../sim/scalar.h" /* sim_icmp: the interpreter's integer compare */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dangling {
  rc_instr *term;
  uint32_t slot;
} dangling;

typedef RC_VEC(dangling) dangling_vec;

typedef struct emit_guard {
  bool else_side;
  dangling_vec side[2]; /* then, else */
} emit_guard;

/* A loop of the output being emitted, as the level around it left it: its guards open[base ..],
 * its chain, and where the loop sits in it (depth: in a side of its open guard at that depth). */
typedef struct emit_level {
  uint32_t base, depth;
  bool else_side;
  dangling_vec chain;
} emit_level;

typedef struct emitter {
  lin_build *b;
  const lin_region *r;
  rc_block *P;
  lin_block_vec *out;       /* blocks in emission order */
  dangling_vec chain;       /* the open edges of the current loop level */
  RC_VEC(emit_guard) open;  /* guards whose sides are still being filled; open[base ..] are the
                               current loop level's */
  uint32_t base;
  RC_VEC(emit_level) levels;  /* the loops around the current position */
  RC_VEC(rc_block *) headers; /* per open loop: its first entry (NULL until made) */
} emitter;

void lin_build_init(lin_build *b, rc_kernel *k) {
  memset(b, 0, sizeof *b);
  b->k = k;
  b->placeholder = rc_block_new(k, "linearize.placeholder");
  rc_builder bld;
  rc_builder_at_end(&bld, b->placeholder);
  rc_build_unreachable(&bld);
}

static void set_gend(lin_build *b, const rc_block *blk, rc_value *v) {
  while (b->gend.len <= blk->id) rc_vec_push(&b->gend, NULL);
  b->gend.data[blk->id] = v;
}

static rc_value *guard_const(lin_build *b, uint32_t v) { return rc_const_int(b->k, RC_I32, (int64_t)v); }

/* A block of the output made by the transform: flagged, named after the block it belongs to, with
 * the phi of g (filled at the end). */
static rc_block *new_guard_block(emitter *em, const char *name, rc_instr **phi) {
  rc_block *blk = rc_block_new(em->b->k, name);
  blk->bflags |= RC_BLOCK_GUARD;
  *phi = rc_phi_new(blk, RC_I32, NULL);
  rc_vec_push(&em->b->phis, *phi);
  set_gend(em->b, blk, &(*phi)->v);
  rc_vec_push(em->out, blk);
  return blk;
}

static void patch(dangling_vec *v, rc_block *to) {
  for (uint32_t i = 0; i < v->len; i++) rc_term_set_target(v->data[i].term, v->data[i].slot, to);
  v->len = 0;
}

static void push_dangling(dangling_vec *v, rc_instr *term, uint32_t slot) {
  dangling d = {term, slot};
  rc_vec_push(v, d);
}

/* Open edges that meet where only one may: a join block of their own. */
static void join_if_several(emitter *em, dangling_vec *v, const char *near) {
  if (v->len <= 1) return;
  char name[160];
  snprintf(name, sizeof name, "%.140s.J", near);
  rc_instr *phi;
  rc_block *j = new_guard_block(em, name, &phi);
  patch(v, j);
  rc_builder bld;
  rc_builder_at_end(&bld, j);
  push_dangling(v, rc_build_jmp(&bld, em->b->placeholder), 0);
  em->b->counts.joins++;
}

/* The open edges of the innermost open guard's sides go to where it sits: its parent's side, or the
 * chain. */
static void close_innermost(emitter *em) {
  emit_guard g = em->open.data[--em->open.len];
  const char *near = em->out->data[em->out->len - 1]->name;
  join_if_several(em, &g.side[0], near);
  join_if_several(em, &g.side[1], near);
  dangling_vec *dst = em->open.len > em->base
                          ? &em->open.data[em->open.len - 1].side[em->open.data[em->open.len - 1].else_side]
                          : &em->chain;
  for (int s = 0; s < 2; s++)
    for (uint32_t i = 0; i < g.side[s].len; i++) rc_vec_push(dst, g.side[s].data[i]);
  rc_vec_free(&g.side[0]);
  rc_vec_free(&g.side[1]);
}

static void close_all(emitter *em) {
  while (em->open.len > em->base) close_innermost(em);
}

/* The open edges an item at `depth` of the current level (in the else side or not) is entered by:
 * the level's chain, or the side of the open guard it is nested in. Guards deeper close first. */
static dangling_vec *pending_for(emitter *em, uint32_t depth, bool else_side) {
  while (em->open.len > em->base + depth) close_innermost(em);
  if (depth == 0) return &em->chain;
  emit_guard *parent = &em->open.data[em->base + depth - 1];
  if (else_side && !parent->else_side) parent->else_side = true;
  return &parent->side[parent->else_side];
}

/* Make `entry` the target of the open edges v; the first entry after a loop begins is its header. */
static void enter(emitter *em, dangling_vec *v, rc_block *entry) {
  patch(v, entry);
  for (uint32_t i = em->headers.len; i-- > 0 && !em->headers.data[i];) em->headers.data[i] = entry;
}

/* The blocks of unit p in emission order: its entry, then the body of a structured sub-region. */
static void push_unit(emitter *em, uint32_t p) {
  const lin_region *r = em->r;
  rc_kernel *k = em->b->k;
  rc_vec_push(em->out, k->blocks[r->block[p]]);
  for (uint32_t i = r->member_start[p]; i < r->member_start[p + 1]; i++) rc_vec_push(em->out, k->blocks[r->members[i]]);
}

static void emit_unit(emitter *em, const lin_step *st) {
  const lin_region *r = em->r;
  rc_kernel *k = em->b->k;
  dangling_vec *pend = pending_for(em, st->depth, st->else_side);
  if (st->depth > 0) {
    if (st->else_side) em->b->counts.nested_else++;
    else em->b->counts.nested_then++;
  }
  rc_block *blk = k->blocks[r->block[st->pos]];
  /* the unit's exit ends in a jmp to the placeholder, setting g before it */
  rc_instr *x_term = rc_block_term(k->blocks[r->exit_block[st->pos]]);
  if (!st->guarded) {
    enter(em, pend, blk);
    push_unit(em, st->pos);
    push_dangling(pend, x_term, 0);
    em->b->counts.unguarded++;
    return;
  }
  /* Alg. 1 lines 6-8: the guard block of blk branches to blk when g holds its position */
  char name[160];
  snprintf(name, sizeof name, "%.140s.G", blk->name);
  rc_instr *phi;
  rc_block *guard = new_guard_block(em, name, &phi);
  push_unit(em, st->pos);
  rc_builder bld;
  rc_builder_at_end(&bld, guard);
  rc_value *m = rc_build_cmp(&bld, RC_CMP_EQ, &phi->v, guard_const(em->b, st->pos), NULL);
  rc_instr *br = rc_build_br(&bld, m, blk, em->b->placeholder);
  enter(em, pend, guard);
  em->b->counts.guards++;
  emit_guard g = {false, {{0}, {0}}};
  push_dangling(&g.side[0], x_term, 0);
  push_dangling(&g.side[1], br, 1);
  rc_vec_push(&em->open, g);
}

/* O1 for a loop (linearize_guards.c's begin_loop): a guard `g == p` whose then side will hold the
 * loop that begins next; the other values take its else side past the loop. */
static void emit_loop_guard(emitter *em, const lin_step *st) {
  dangling_vec *pend = pending_for(em, st->depth, st->else_side);
  char name[160];
  snprintf(name, sizeof name, "%.140s.L.G", em->b->k->blocks[em->r->block[st->first]]->name);
  rc_instr *phi;
  rc_block *guard = new_guard_block(em, name, &phi);
  rc_builder bld;
  rc_builder_at_end(&bld, guard);
  rc_value *m = rc_build_cmp(&bld, st->range ? RC_CMP_ULE : RC_CMP_EQ, &phi->v, guard_const(em->b, st->pos), NULL);
  rc_instr *br = rc_build_br(&bld, m, em->b->placeholder, em->b->placeholder);
  enter(em, pend, guard);
  em->b->counts.loop_guards++;
  emit_guard g = {false, {{0}, {0}}};
  push_dangling(&g.side[0], br, 0);
  push_dangling(&g.side[1], br, 1);
  rc_vec_push(&em->open, g);
}

/* A loop of the output begins: a level of its own, entered by the open edges where it sits (the
 * chain, or a side of an open guard: linearize_guards.c's begin_loop); the first entry made in it
 * is its header. */
static void begin_loop(emitter *em, const lin_step *st) {
  dangling_vec *pend = pending_for(em, st->depth, st->else_side);
  emit_level lv = {em->base, st->depth, st->else_side, {0}};
  if (st->depth > 0) { /* the side's edges enter the loop; the level's chain waits for its end */
    lv.chain = em->chain;
    em->chain = *pend;
    *pend = (dangling_vec){0};
    em->b->counts.nested_loops++;
  } /* else the chain itself enters the loop, and the loop's exit starts it again */
  rc_vec_push(&em->levels, lv);
  em->base = em->open.len;
  rc_vec_push(&em->headers, NULL);
}

/* Alg. 1 lines 24-33: after block q, a guard that sends the values of its loop back; the loop's
 * level ends, and the guard's other edge goes on where the loop sits. */
static void emit_back_guard(emitter *em, uint32_t q, uint32_t exit_value) {
  close_all(em);
  rc_kernel *k = em->b->k;
  char name[160];
  snprintf(name, sizeof name, "%.140s.1.G", k->blocks[em->r->exit_block[q]]->name);
  rc_instr *phi;
  rc_block *be = new_guard_block(em, name, &phi);
  patch(&em->chain, be);
  rc_block *header = em->headers.data[--em->headers.len];
  rc_builder bld;
  rc_builder_at_end(&bld, be);
  rc_value *c = rc_build_cmp(&bld, RC_CMP_ULE, &phi->v, guard_const(em->b, q), NULL);
  rc_instr *br = rc_build_br(&bld, c, header, em->b->placeholder);
  em->b->counts.back_guards++;
  if (exit_value != RC_NONE) {
    while (em->b->gexit.len <= be->id) rc_vec_push(&em->b->gexit, NULL);
    em->b->gexit.data[be->id] = guard_const(em->b, exit_value);
  }
  emit_level lv = em->levels.data[--em->levels.len];
  rc_vec_free(&em->chain);
  em->chain = lv.chain;
  em->base = lv.base;
  dangling_vec *dst = lv.depth ? &em->open.data[lv.base + lv.depth - 1].side[lv.else_side] : &em->chain;
  push_dangling(dst, br, 1);
}

/* g at the end of block x, whose successors s go to position pos_of(s): a select on its branch
 * condition, or a constant; the terminator becomes a jump to the placeholder (Alg. 1 line 7:
 * "an assignment is added to each unstructured block"). */
static void set_guard_assign(lin_build *b, rc_block *x, const uint32_t *targets, uint32_t ntargets) {
  rc_instr *t = rc_block_term(x);
  rc_builder bld;
  rc_builder_before(&bld, t);
  rc_value *v = guard_const(b, targets[0]);
  if (ntargets == 2 && targets[0] != targets[1])
    v = rc_build_select(&bld, t->ops[0], guard_const(b, targets[0]), guard_const(b, targets[1]), NULL);
  set_gend(b, x, v);
  rc_instr_detach(t);
  rc_builder_at_end(&bld, x);
  rc_build_jmp(&bld, b->placeholder);
}

void lin_emit_region(lin_build *b, const lin_region *r, rc_block *D, rc_block *P, const lin_plan *plan) {
  rc_kernel *k = b->k;
  emitter em;
  memset(&em, 0, sizeof em);
  em.b = b, em.r = r, em.P = P;
  lin_block_vec out = {0};
  em.out = &out;
  b->counts.regions++;
  b->counts.region_blocks += r->n + r->member_start[r->n];
  for (uint32_t p = 0; p < r->n; p++) b->counts.subregions += r->member_start[p + 1] > r->member_start[p];
  for (uint32_t p = 0; p < r->n; p++) {
    rc_block *x = k->blocks[r->exit_block[p]];
    while (b->is_unit.len <= x->id) rc_vec_push(&b->is_unit, 0);
    b->is_unit.data[x->id] = 1;
    set_guard_assign(b, x, r->succ[p], r->nsucc[p]);
  }
  /* D's edges into the region (Alg. 1 lines 9-11): D sets g to the block it enters */
  rc_instr *dt = rc_block_term(D);
  uint32_t into[2], ninto = 0, slots[2];
  for (uint32_t s = 0; s < dt->ntargets && ninto < 2; s++) {
    rc_block *t = dt->targets[s];
    for (uint32_t p = 0; p < r->n; p++)
      if (r->block[p] == t->id) {
        into[ninto] = p, slots[ninto++] = s;
        break;
      }
  }
  if (ninto == 2) {
    /* D jumps to the first guard: O3 may merge that guard into D as into a block of the region
     * (the guard's only predecessor; the paper's "block from an unstructured region" is the block
     * that sets g, and D sets it here), one block and one jump less per region */
    while (b->is_unit.len <= D->id) rc_vec_push(&b->is_unit, 0);
    b->is_unit.data[D->id] = 1;
    set_guard_assign(b, D, into, 2);
    push_dangling(&em.chain, rc_block_term(D), 0);
  } else {
    set_gend(b, D, guard_const(b, into[0]));
    rc_term_set_target(dt, slots[0], b->placeholder);
    push_dangling(&em.chain, dt, slots[0]);
  }
  for (uint32_t i = 0; i < plan->len; i++) {
    const lin_step *st = &plan->data[i];
    if (st->kind == LIN_STEP_UNIT) emit_unit(&em, st);
    else if (st->kind == LIN_STEP_LOOP_BEGIN) begin_loop(&em, st);
    else if (st->kind == LIN_STEP_LOOP_GUARD) emit_loop_guard(&em, st);
    else emit_back_guard(&em, st->pos, st->exit_value);
  }
  close_all(&em);
  /* Alg. 1 lines 18-20: the last guard and block go to P; a join of their own when P has other
   * predecessors, so that the region folds to one node */
  if (P->npreds > 0) join_if_several(&em, &em.chain, out.len ? out.data[out.len - 1]->name : P->name);
  patch(&em.chain, P);
  rc_vec_free(&em.chain);
  rc_vec_free(&em.open);
  rc_vec_free(&em.levels);
  rc_vec_free(&em.headers);
  rc_vec_push(&b->emitted, out);
}

/* ---- the end: phis of g, O3, layout ---------------------------------------------------------------- */

/* After O3 merged a guard into block x, x ends with `g = select c, A, B; ...; m = icmp P g, C;
 * br m, T, F` (P is eq for a block's guard, ule or ugt for a back-edge guard's range of values):
 * when the compare comes out differently for A and for B, the check tests x's own branch condition
 * again, so the branch takes c itself (its targets swapped when the compare holds for B), and the
 * compare goes. Returns the select, now maybe unused (the caller removes it when nothing else
 * reads it), or NULL when x is not of that shape. */
static rc_instr *fold_merged_check(rc_block *x) {
  rc_instr *br = rc_block_term(x);
  if (!br || br->op != RC_OP_BR || br->ops[0]->kind != RC_V_INSTR) return NULL;
  rc_instr *m = (rc_instr *)br->ops[0];
  if (m->op != RC_OP_ICMP || m->pred > RC_CMP_UGE || m->parent != x || m->ops[0]->kind != RC_V_INSTR ||
      m->ops[1]->kind != RC_V_CONST)
    return NULL;
  rc_instr *sel = (rc_instr *)m->ops[0];
  if (sel->op != RC_OP_SELECT || sel->parent != x || sel->ops[1]->kind != RC_V_CONST ||
      sel->ops[2]->kind != RC_V_CONST)
    return NULL;
  int64_t A = ((rc_const *)sel->ops[1])->u.i, B = ((rc_const *)sel->ops[2])->u.i, C = ((rc_const *)m->ops[1])->u.i;
  unsigned bits = rc_type_bits((rc_type)sel->v.type);
  bool on_a = sim_icmp((rc_cmp)m->pred, bits, A, C), on_b = sim_icmp((rc_cmp)m->pred, bits, B, C);
  if (on_a == on_b) return NULL;
  rc_instr_set_op(br, 0, sel->ops[0]);
  if (on_b) {
    rc_block *t = br->targets[0];
    br->targets[0] = br->targets[1];
    br->targets[1] = t;
  }
  rc_instr_detach(m);
  return sel;
}

/* Remove the selects of cands that no instruction of k reads any more. */
static void remove_unused(rc_kernel *k, rc_instr_vec *cands) {
  if (!cands->len) return;
  uint8_t *used = rc_xcalloc(k->nvalues + 1, 1);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *in = k->blocks[b]->first; in; in = in->next)
      for (uint32_t o = 0; o < in->nops; o++)
        if (in->ops[o]->kind == RC_V_INSTR && in->ops[o]->id < k->nvalues) used[in->ops[o]->id] = 1;
  for (uint32_t i = 0; i < cands->len; i++) /* (a select may be there twice) */
    if (cands->data[i]->parent && cands->data[i]->v.id < k->nvalues && !used[cands->data[i]->v.id])
      rc_instr_detach(cands->data[i]);
  free(used);
}

/* O3: a guard block whose only predecessor is a block of a region or a region's entry D that sets g
 * (which jumps to it) is merged into that block: the block ends with the guard's check. */
static uint32_t merge_guards(lin_build *b, bool *dead) {
  uint32_t merged = 0;
  rc_instr_vec selects = {0};
  for (uint32_t e = 0; e < b->emitted.len; e++)
    for (uint32_t i = 0; i < b->emitted.data[e].len; i++) {
      rc_block *g = b->emitted.data[e].data[i];
      if (!(g->bflags & RC_BLOCK_GUARD) || g->npreds != 1 || dead[g->id]) continue;
      rc_block *x = g->preds[0];
      rc_instr *xt = rc_block_term(x);
      if (x->id >= b->is_unit.len || !b->is_unit.data[x->id] || !xt || xt->op != RC_OP_JMP) continue;
      if (g->first && g->first->op == RC_OP_PHI) continue;
      rc_instr *gt = rc_block_term(g);
      if (!gt || gt->op == RC_OP_JMP) continue; /* a join: nothing to merge */
      rc_instr_detach(xt);
      for (rc_instr *in = g->first; in;) {
        rc_instr *nx = in->next;
        rc_instr_detach(in);
        rc_instr_append(x, in);
        in = nx;
      }
      for (uint32_t s = 0; s < gt->ntargets; s++)
        for (rc_instr *phi = gt->targets[s]->first; phi && phi->op == RC_OP_PHI; phi = phi->next)
          for (uint32_t o = 0; o < phi->nops; o++)
            if (phi->targets[o] == g) phi->targets[o] = x;
      dead[g->id] = true;
      merged++;
      rc_instr *sel = fold_merged_check(x);
      if (sel) rc_vec_push(&selects, sel);
    }
  /* the gs the merged checks no longer read (a select whose value a phi still takes stays) */
  remove_unused(b->k, &selects);
  rc_vec_free(&selects);
  return merged;
}

/* A guard phi's incoming value `select c, A, B` made in the block P it comes from, when P ends in
 * `br c, T, F` and the phi's block is only one of T and F: along that edge c is known, so the phi
 * takes A (from T) or B (from F) itself. switch.0's `g = select %is1, 3, 5` before
 * `br %is1, case1, join` reaches join only as 5 (dwt2d's horizontalStep, a lowered switch); the
 * select then often has no reader left (O3's remove_unused drops it). */
static void known_along_edge(rc_kernel *k, rc_instr_vec *selects) {
  for (uint32_t bi = 0; bi < k->nblocks; bi++) {
    rc_block *blk = k->blocks[bi];
    if (!(blk->bflags & RC_BLOCK_GUARD)) continue;
    for (rc_instr *phi = blk->first; phi && phi->op == RC_OP_PHI; phi = phi->next)
      for (uint32_t o = 0; o < phi->nops; o++) {
        rc_instr *sel = rc_value_instr(phi->ops[o]);
        rc_block *from = phi->targets[o];
        rc_instr *br = rc_block_term(from);
        if (!sel || sel->op != RC_OP_SELECT || sel->parent != from || !br || br->op != RC_OP_BR ||
            br->ops[0] != sel->ops[0] || br->targets[0] == br->targets[1])
          continue;
        if (br->targets[0] == blk) rc_instr_set_op(phi, o, sel->ops[1]);
        else if (br->targets[1] == blk) rc_instr_set_op(phi, o, sel->ops[2]);
        else continue;
        rc_vec_push(selects, sel);
      }
  }
}

static void layout(lin_build *b) {
  rc_kernel *k = b->k;
  uint32_t n = k->nblocks;
  uint32_t *region_of = rc_xmalloc(n * sizeof *region_of);
  for (uint32_t i = 0; i < n; i++) region_of[i] = RC_NONE;
  for (uint32_t e = 0; e < b->emitted.len; e++)
    for (uint32_t i = 0; i < b->emitted.data[e].len; i++) {
      rc_block *x = b->emitted.data[e].data[i];
      if (x->id < n && k->blocks[x->id] == x) region_of[x->id] = e;
    }
  rc_block **order = rc_xmalloc(n * sizeof *order);
  uint8_t *done = rc_xcalloc(b->emitted.len + 1, 1);
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t e = region_of[i];
    if (e == RC_NONE) {
      order[m++] = k->blocks[i];
      continue;
    }
    if (e >= b->emitted.len || done[e]) continue; /* placed with its region already */
    done[e] = 1;
    for (uint32_t j = 0; j < b->emitted.data[e].len; j++) {
      rc_block *x = b->emitted.data[e].data[j];
      if (x->id < n && k->blocks[x->id] == x && region_of[x->id] == e) {
        order[m++] = x;
        region_of[x->id] = RC_NONE - 1; /* placed */
      }
    }
  }
  for (uint32_t i = 0; i < m; i++) {
    k->blocks[i] = order[i];
    order[i]->id = i;
  }
  free(order);
  free(done);
  free(region_of);
}

int lin_build_finish(rc_ctx *ctx, lin_build *b, int opt) {
  rc_kernel *k = b->k;
  int rc = 0;
  /* the phi of g in each inserted block: g at the end of each predecessor */
  for (uint32_t i = 0; i < b->phis.len && rc == 0; i++) {
    rc_instr *phi = b->phis.data[i];
    rc_block *blk = phi->parent;
    for (uint32_t p = 0; p < blk->npreds; p++) {
      rc_block *pb = blk->preds[p];
      if (rc_phi_index_of(phi, pb) >= 0) continue;
      rc_value *v = pb->id < b->gend.len ? b->gend.data[pb->id] : NULL;
      /* the exit edge of a back-edge guard that only one value leaves by */
      if (pb->id < b->gexit.len && b->gexit.data[pb->id] && rc_block_term(pb)->targets[0] != blk)
        v = b->gexit.data[pb->id];
      if (!v) {
        rc = rc_error(ctx, "linearize: @%s: no guard value at the end of block %s (a bug in reconv)", k->name,
                      pb->name);
        break;
      }
      rc_phi_add_incoming(phi, v, pb);
    }
  }
  if (rc == 0) rc_ssa_simplify_phis(k, &b->phis);
  if (rc == 0 && b->placeholder->npreds)
    rc = rc_error(ctx, "linearize: @%s: an edge was left unplaced (a bug in reconv)", k->name);
  if (rc == 0) {
    bool *dead = rc_xcalloc(k->nblocks, sizeof *dead);
    if (opt >= 3) b->counts.merged = merge_guards(b, dead);
    dead[b->placeholder->id] = true;
    rc_kernel_remove_blocks(k, dead);
    free(dead);
    if (opt >= 3) {
      rc_instr_vec selects = {0};
      known_along_edge(k, &selects);
      remove_unused(k, &selects);
      rc_vec_free(&selects);
    }
    layout(b);
  }
  rc_vec_free(&b->gend);
  rc_vec_free(&b->gexit);
  rc_vec_free(&b->phis);
  for (uint32_t e = 0; e < b->emitted.len; e++) rc_vec_free(&b->emitted.data[e]);
  rc_vec_free(&b->emitted);
  rc_vec_free(&b->is_unit);
  return rc;
}
