/* Flow blocks' branches and phis (thesis 5.1): the i1 condition that selects a flow block's final
 * successor, built from the conditions of the flows' sources, and the values the phis of original
 * blocks get through flow blocks. Both are built on demand, iteratively, and memoised per (flow
 * block, target); see reconverge.c for the algorithm around them. */
#include "reconverge_internal.h"

/* ---- flow blocks: conditions --------------------------------------------------------------------------- */

static rc_value *not_of(reconv *r, rc_block *blk, rc_value *c) {
  otn *x = N(r, blk->id);
  if (x->not_cond) return x->not_cond;
  rc_builder bld;
  rc_builder_before_term(&bld, blk);
  x->not_cond = rc_build_binop(&bld, RC_OP_XOR, c, rc_const_bool(r->k, true), NULL);
  return x->not_cond;
}

/* Where `target` is among the targets flow node `flow` passed on to its remainder, or RC_NONE. Only
 * for those can flows arrive from it (a flow node is rerouted at most once, with all its open
 * targets). */
static uint32_t forwarded_index(const reconv *r, uint32_t flow, uint32_t target) {
  const rc_u32vec *fw = &r->flows.data[flow].forwarded;
  uint32_t lo = 0, hi = fw->len;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (fw->data[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo < fw->len && fw->data[lo] == target ? lo : RC_NONE;
}

static bool forwards(const reconv *r, uint32_t flow, uint32_t target) {
  return forwarded_index(r, flow, target) != RC_NONE;
}

/* Whether flow node `flow` passed on `target` alone: then every flow that arrives from it wants
 * target (the flows that wanted its closed successor went there), and the condition needs no phi
 * in it. Without this, a flow block whose flows want T or X built `phi [true..], [false..]` for T
 * and the negation for X, which the remainder then read on the edge only X's flows take. */
static bool forwards_only(const reconv *r, uint32_t flow, uint32_t target) {
  const rc_u32vec *fw = &r->flows.data[flow].forwarded;
  return fw->len == 1 && fw->data[0] == target;
}

/* The memoised condition of (flow, target): next to the flow's forwarded targets when it forwards
 * target (all requests but the first of a chain), in the kernel-wide map otherwise. */
static rc_value **memo_slot(reconv *r, uint32_t flow, uint32_t target) {
  uint32_t i = forwarded_index(r, flow, target);
  return i != RC_NONE ? &r->flows.data[flow].forwarded_cond[i] : NULL;
}

static rc_value *memo_get(reconv *r, uint32_t flow, uint32_t target) {
  rc_value **slot = memo_slot(r, flow, target);
  return slot ? *slot : rc_u64map_get(&r->cond_memo, memo_key(flow, target));
}

static void memo_put(reconv *r, uint32_t flow, uint32_t target, rc_value *v) {
  rc_value **slot = memo_slot(r, flow, target);
  if (slot) *slot = v;
  else rc_u64map_put(&r->cond_memo, memo_key(flow, target), v);
}

/* A new phi in a flow block, after the ones it already has (flow blocks hold only phis until their
 * terminator is built). */
static rc_instr *flow_phi(reconv *r, uint32_t fi, rc_type t) {
  flow_node *f = &r->flows.data[fi];
  rc_instr *phi = rc_instr_new(r->k, RC_OP_PHI, t, 0, 0);
  if (f->last_phi) rc_instr_insert_after(f->last_phi, phi); else rc_instr_prepend(f->block, phi);
  f->last_phi = phi;
  return phi;
}

/* The i1 value that is true in flow block `fi` exactly for the flows that want `target`. Built on
 * demand, iteratively (requests go to older flow blocks only, so there is no cycle). */
rc_value *reconv_flow_cond(reconv *r, uint32_t fi, uint32_t target) {
  rc_value *have = memo_get(r, fi, target);
  if (have) return have;
  rc_u32vec stack = {0};
  RC_VEC(rc_value *) vals = {0};
  rc_vec_push(&stack, fi);
  while (stack.len) {
    uint32_t cur = stack.data[stack.len - 1];
    flow_node *f = &r->flows.data[cur];
    if (memo_get(r, cur, target)) {
      stack.len--;
      continue;
    }
    /* the conditions of the flow predecessors, or the ones still to be built first */
    bool ready = true;
    vals.len = 0;
    for (uint32_t p = 0; p < f->preds.len; p++) {
      flow_pred *fp = &f->preds.data[p];
      rc_value *v = NULL, **slot = fp->kind == FP_FLOW ? memo_slot(r, fp->flow, target) : NULL;
      if (slot && forwards_only(r, fp->flow, target)) {
        v = rc_const_bool(r->k, true);
      } else if (slot && !(v = *slot)) {
        rc_vec_push(&stack, fp->flow);
        ready = false;
      }
      rc_vec_push(&vals, v);
    }
    if (!ready) continue;
    f = &r->flows.data[cur];
    bool all_same_const = true;
    int64_t first_const = -1;
    for (uint32_t p = 0; p < f->preds.len; p++) {
      flow_pred *fp = &f->preds.data[p];
      rc_value *v = vals.data[p];
      if (fp->kind == FP_TARGET)
        v = rc_const_bool(r->k, fp->t1 == target);
      else if (fp->kind == FP_COND)
        v = fp->t1 == target ? fp->cond
            : fp->t2 == target ? not_of(r, fp->block, fp->cond)
                               : rc_const_bool(r->k, false);
      else if (!v)
        v = rc_const_bool(r->k, false);
      vals.data[p] = v;
      if (v->kind != RC_V_CONST) all_same_const = false;
      else if (first_const < 0) first_const = rc_const_ival(v);
      else if (rc_const_ival(v) != first_const) all_same_const = false;
    }
    rc_value *result;
    if (vals.len == 1) {
      result = vals.data[0];
    } else if (all_same_const && vals.len) {
      result = rc_const_bool(r->k, first_const != 0);
    } else {
      rc_instr *phi = flow_phi(r, cur, RC_I1);
      f = &r->flows.data[cur];
      for (uint32_t p = 0; p < f->preds.len; p++) rc_phi_add_incoming(phi, vals.data[p], f->preds.data[p].block);
      result = &phi->v;
    }
    memo_put(r, cur, target, result);
    stack.len--;
  }
  rc_vec_free(&vals);
  rc_vec_free(&stack);
  return memo_get(r, fi, target);
}

/* ---- materialising flow blocks ------------------------------------------------- */

int reconv_materialize_flows(reconv *r) {
  for (uint32_t fi = 0; fi < r->flows.len; fi++) { /* the forwarded targets are final now */
    flow_node *f = &r->flows.data[fi];
    f->forwarded_cond = rc_xcalloc(f->forwarded.len ? f->forwarded.len : 1, sizeof *f->forwarded_cond);
  }
  for (uint32_t fi = 0; fi < r->flows.len; fi++) {
    flow_node *f = &r->flows.data[fi];
    uint32_t succ[3], nsucc = 0;
    if (f->remainder != RC_NONE) {
      if (f->closed.len > 1)
        return rc_error(r->ctx, "reconverge: flow block %s has %u closed targets and a remainder (a bug)",
                        f->block->name, f->closed.len);
      if (f->closed.len) succ[nsucc++] = f->closed.data[0];
      succ[nsucc++] = f->remainder;
    } else {
      if (f->open.len)
        return rc_error(r->ctx, "reconverge: flow block %s still has open edges at the end (a bug)",
                        f->block->name);
      if (f->closed.len > 2 || f->closed.len == 0)
        return rc_error(r->ctx, "reconverge: flow block %s ends with %u successors (a bug)",
                        f->block->name, f->closed.len);
      for (uint32_t i = 0; i < f->closed.len; i++) succ[nsucc++] = f->closed.data[i];
    }
    rc_value *cond = nsucc == 2 ? reconv_flow_cond(r, fi, succ[0]) : NULL;
    f = &r->flows.data[fi];
    rc_builder bld;
    rc_builder_at_end(&bld, f->block);
    if (nsucc == 1)
      rc_build_jmp(&bld, r->k->blocks[succ[0]]);
    else
      rc_build_br(&bld, cond, r->k->blocks[succ[0]], r->k->blocks[succ[1]]);
  }
  return 0;
}

/* ---- phis of the original targets ---------------------------------------------------------------------- */

static rc_value *value_memo_get(reconv *r, uint32_t flow, rc_instr *phi) {
  return rc_u64map_get(&r->value_memo, memo_key(flow, phi->v.id));
}

/* A phi in flow block `fi` with the given entry per flow predecessor, for target phis that carry
 * value `origin` (reconv_origin). Entries that are undef do not matter (no flow from that
 * predecessor uses the value), so an existing value phi of the same origin that agrees wherever
 * both are defined is reused, its undef entries filled in. Each predecessor wants one target, so
 * the phis that carry, say, a loop counter to several targets share one phi instead of one per
 * target (which made the output quadratic in the number of targets). Phis of different origins
 * are not shared: filling a uniform loop counter's undef entries with another value's would keep
 * the phi from simplifying away once the live-in phis are gone, and make the counter divergent
 * (a divergent loop exit where the structurizer keeps a uniform one: `reconv gen --seed 185`). */
static rc_value *merge_value_phi(reconv *r, uint32_t fi, rc_type ty, rc_value **vals, uint32_t origin,
                                 bool exit) {
  flow_node *f = &r->flows.data[fi];
  uint32_t np = f->preds.len;
  for (uint32_t i = 0; i < f->value_phis.len; i++) {
    rc_instr *phi = f->value_phis.data[i];
    if (phi->v.type != ty || f->value_phi_origin.data[i] != origin) continue;
    bool ok = true;
    for (uint32_t p = 0; p < np && ok; p++) {
      rc_value *a = phi->ops[p], *b = vals[p];
      ok = a == b || a->kind == RC_V_UNDEF || b->kind == RC_V_UNDEF;
    }
    if (!ok) continue;
    for (uint32_t p = 0; p < np; p++)
      if (phi->ops[p]->kind == RC_V_UNDEF && vals[p]->kind != RC_V_UNDEF) phi->ops[p] = vals[p];
    if (exit) f->value_phi_exit.data[i] = 1;
    return &phi->v;
  }
  rc_instr *phi = flow_phi(r, fi, ty);
  f = &r->flows.data[fi];
  for (uint32_t p = 0; p < np; p++) rc_phi_add_incoming(phi, vals[p], f->preds.data[p].block);
  rc_vec_push(&f->value_phis, phi);
  rc_vec_push(&f->value_phi_origin, origin);
  rc_vec_push(&f->value_phi_exit, exit ? 1u : 0u);
  return &phi->v;
}

/* Whether value v, defined in a cycle of the output CFG, comes into flow block `fi` along an
 * edge that leaves that cycle (vals: the value per flow predecessor). Such a value gets a phi in fi
 * even where it dominates fi (an exit phi, as in LLVM's LCSSA form): the uniformity analysis keeps a
 * value uniform inside its cycle when only exit phis read it outside (read_outside_only_by_exit_phis
 * in uniformity.c), since lower copies it per lane on the exit edge. Without the phi, a uniform loop
 * counter read after a divergent exit through a flow block became divergent in the whole loop
 * (`reconv gen --seed 410`: 74 more vector instructions than LLVM's structurizer, whose output
 * keeps the exit phi). Only on the exit edge itself: further out, a phi would read the value
 * outside its cycle like any other use. */
static bool leaves_cycle(const reconv *r, const rc_value *v, uint32_t fi, rc_value *const *vals) {
  const rc_cycle_info *ci = r->cycles;
  if (!ci || v->kind != RC_V_INSTR) return false;
  /* a live-in phi (rc_ssa_expose_live_ins) is simplified away later: where its value is defined counts */
  uint32_t id = v->id < r->norigin && r->origin[v->id] != RC_NONE ? r->origin[v->id] : v->id;
  uint32_t db = id < r->ndef_block ? r->def_block[id] : RC_NONE;
  if (db == RC_NONE || db >= ci->nblocks) return false;
  uint32_t c = ci->innermost[db];
  const flow_node *f = &r->flows.data[fi];
  if (c == RC_NONE || f->block->id >= ci->nblocks || rc_cycle_contains(ci, c, f->block->id)) return false;
  for (uint32_t p = 0; p < f->preds.len; p++) {
    uint32_t pb = f->preds.data[p].block->id;
    if (vals[p]->kind != RC_V_UNDEF && pb < ci->nblocks && rc_cycle_contains(ci, c, pb)) return true;
  }
  return false;
}

/* The value phi `phi` (in an original block T) must take when T is reached through flow block `fi`:
 * per incoming flow, the phi's entry for the block that originally branched to T, undef for flows
 * that do not go to T (thesis 5.1: the phi nodes of rerouted edges get the values of their original
 * predecessors). A phi in the flow block when the values differ, do not dominate it, or leave a
 * cycle on the way in (leaves_cycle). */
static rc_value *flow_value(reconv *r, const rc_domtree *dom, uint32_t fi, rc_instr *phi) {
  rc_value *have = value_memo_get(r, fi, phi);
  if (have) return have;
  uint32_t t = phi->parent->id;
  rc_type ty = (rc_type)phi->v.type;
  rc_u32vec *stack = &r->fv_stack;
  stack->len = 0;
  rc_vec_push(stack, fi);
  while (stack->len) {
    uint32_t cur = stack->data[stack->len - 1];
    if (value_memo_get(r, cur, phi)) {
      stack->len--;
      continue;
    }
    /* each predecessor's value, or the flow node still to be done first */
    flow_node *f = &r->flows.data[cur];
    bool ready = true;
    r->fv_vals.len = 0;
    for (uint32_t p = 0; p < f->preds.len; p++) {
      flow_pred *fp = &f->preds.data[p];
      rc_value *v = NULL;
      if (fp->kind == FP_FLOW) {
        if (forwards(r, fp->flow, t) && !(v = value_memo_get(r, fp->flow, phi))) {
          rc_vec_push(stack, fp->flow);
          ready = false;
        }
      } else if (fp->t1 == t || (fp->kind == FP_COND && fp->t2 == t)) {
        v = rc_phi_value_for(phi, fp->src);
      }
      rc_vec_push(&r->fv_vals, v ? v : rc_undef(r->k, ty));
    }
    if (!ready) continue;
    f = &r->flows.data[cur];
    rc_value *same = NULL;
    bool differ = false;
    for (uint32_t p = 0; p < r->fv_vals.len; p++) {
      rc_value *v = r->fv_vals.data[p];
      if (v->kind == RC_V_UNDEF) continue;
      if (!same) same = v;
      else if (same != v) differ = true;
    }
    rc_value *result;
    rc_instr *def = same ? rc_value_instr(same) : NULL;
    if (!same) {
      result = rc_undef(r->k, ty);
    } else if (!differ && (!def || (def->parent != f->block && rc_dominates(dom, def->parent->id, f->block->id)))) {
      /* one value that dominates: itself, or an exit phi if the way in leaves its cycle */
      result = leaves_cycle(r, same, cur, r->fv_vals.data)
                   ? merge_value_phi(r, cur, ty, r->fv_vals.data, reconv_origin(r, phi), true)
                   : same;
    } else {
      result = merge_value_phi(r, cur, ty, r->fv_vals.data, reconv_origin(r, phi), false);
    }
    rc_u64map_put(&r->value_memo, memo_key(cur, phi->v.id), result);
    stack->len--;
  }
  return value_memo_get(r, fi, phi);
}

/* Give the phis of every block that flow blocks now lead to their entries for the flow blocks, and
 * drop the entries of blocks that no longer branch there. */
void reconv_fix_target_phis(reconv *r, const rc_domtree *dom) {
  rc_kernel *k = r->k;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    rc_block *blk = k->blocks[b];
    if (!blk->first || blk->first->op != RC_OP_PHI) continue;
    bool from_flow = false;
    for (uint32_t p = 0; p < blk->npreds && !from_flow; p++) {
      uint32_t id = blk->preds[p]->id;
      from_flow = id < r->n.len && r->n.data[id].flow != RC_NONE;
    }
    if (!from_flow) continue;
    for (rc_instr *phi = blk->first; phi && phi->op == RC_OP_PHI; phi = phi->next) {
      for (uint32_t p = 0; p < blk->npreds; p++) {
        rc_block *pb = blk->preds[p];
        if (pb->id >= r->n.len || r->n.data[pb->id].flow == RC_NONE) continue;
        if (rc_phi_index_of(phi, pb) >= 0) continue;
        rc_phi_add_incoming(phi, flow_value(r, dom, r->n.data[pb->id].flow, phi), pb);
      }
      for (uint32_t o = phi->nops; o-- > 0;)
        if (!rc_block_has_pred(blk, phi->targets[o])) rc_phi_remove_incoming(phi, o);
    }
  }
}
