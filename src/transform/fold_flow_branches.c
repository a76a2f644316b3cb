/* A branch whose two edges both end in one flow block becomes a jump into it, the branch's
 * condition going into the flow block's condition phi. Reconverge reroutes each open edge of a
 * block on its own (thesis 4.3), so a block X whose two targets are both rerouted into flow block F
 * keeps `br %c, A, B` with empty flow blocks A and B that jump to F, and F's condition phi gets
 * `true` from one and `false` from the other. The lowering then runs a branch at X and writes a
 * constant into F's condition register on each side; LLVM's StructurizeCFG instead passes %c
 * itself to its flow block (the same merge as SimplifyCFG's of a diamond into a select). This
 * does that: X jumps to F, and F's phis take, on the one edge from X,
 * - the value both edges brought (an undef edge takes the other's value);
 * - %c where the true edge brought `true` and the false edge `false`, `xor %c, true` the other way
 *   round (lower folds it into a compare that only it reads).
 * Any other pair would need a select, which is an instruction more; such a branch is left alone.
 * Trace equivalence is unaffected: A and B are inserted blocks, which traces skip. The result is
 * reconverging whenever the input was: X has no branch left, no other block's successors change,
 * and every path of the new CFG is a path of the old one with A or B taken out, so every remaining
 * post-dominance holds. */
#include "reconverge_internal.h"

/* Where the edge to `t` from `x` ends when the blocks that only pass it on are skipped: t itself,
 * or the block an empty flow block with x as its only predecessor jumps to. */
static rc_block *edge_end(rc_block *x, rc_block *t) {
  if (!(t->bflags & RC_BLOCK_FLOW) || t->npreds != 1 || t->preds[0] != x) return t;
  rc_instr *j = rc_block_first_nonphi(t);
  return j && j->op == RC_OP_JMP ? j->targets[0] : t;
}

/* The value phi `phi` of F gets along the edge x -> t (-> F): t's own phis (t has one predecessor,
 * x) stand for what they get from x. */
static rc_value *value_along(rc_instr *phi, rc_block *x, rc_block *t) {
  rc_value *v = rc_phi_value_for(phi, t == phi->parent ? x : t);
  if (v && v->kind == RC_V_INSTR && ((rc_instr *)v)->op == RC_OP_PHI && ((rc_instr *)v)->parent == t && t != phi->parent)
    v = ((rc_instr *)v)->ops[0];
  return v;
}

typedef enum { SAME, COND, NOT_COND, NONE } merged_kind;

/* One value: the same value, or integer constants equal in type and value (constants are not
 * uniqued: each flow phi gets its own `false`). */
static bool same_value(const rc_value *a, const rc_value *b) {
  if (a == b) return true;
  return a->kind == RC_V_CONST && b->kind == RC_V_CONST && a->type == b->type && rc_type_is_int((rc_type)a->type) &&
         rc_type_bits((rc_type)a->type) <= 64 && rc_const_ival(a) == rc_const_ival(b);
}

/* What one edge from x must bring phi for the two it replaces: see the file comment. */
static merged_kind merge_kind(rc_value *on_true, rc_value *on_false, rc_value **same) {
  if (same_value(on_true, on_false) || on_false->kind == RC_V_UNDEF) return *same = on_true, SAME;
  if (on_true->kind == RC_V_UNDEF) return *same = on_false, SAME;
  if (on_true->type == RC_I1 && on_true->kind == RC_V_CONST && on_false->kind == RC_V_CONST &&
      (rc_const_ival(on_true) != 0) != (rc_const_ival(on_false) != 0))
    return rc_const_ival(on_true) ? COND : NOT_COND;
  return NONE;
}

/* Fold x's branch into f when every phi of f can take one value from x; false (nothing changed)
 * when one would need a select. */
static bool fold(rc_kernel *k, rc_block *x, rc_block *f, bool *dead) {
  rc_instr *t = rc_block_term(x);
  rc_block *on[2] = {t->targets[0], t->targets[1]};
  uint32_t nphis = 0;
  for (rc_instr *phi = f->first; phi && phi->op == RC_OP_PHI; phi = phi->next) nphis++;
  rc_value **merged = rc_xmalloc((nphis ? nphis : 1) * sizeof *merged);
  merged_kind *kind = rc_xmalloc((nphis ? nphis : 1) * sizeof *kind);
  uint32_t p = 0;
  bool ok = true, negated = false;
  for (rc_instr *phi = f->first; ok && phi && phi->op == RC_OP_PHI; phi = phi->next, p++) {
    rc_value *on_true = value_along(phi, x, on[0]), *on_false = value_along(phi, x, on[1]);
    kind[p] = on_true && on_false ? merge_kind(on_true, on_false, &merged[p]) : NONE;
    ok = kind[p] != NONE;
    negated |= kind[p] == NOT_COND;
  }
  if (ok) {
    rc_value *c = t->ops[0], *not_c = NULL;
    if (negated) {
      rc_builder bld;
      rc_builder_before_term(&bld, x);
      not_c = rc_build_binop(&bld, RC_OP_XOR, c, rc_const_bool(k, true), NULL);
    }
    bool direct = on[0] == f || on[1] == f; /* F keeps its phi entries for x then */
    rc_builder bld;
    rc_builder_at_end(&bld, x);
    rc_instr_detach(t); /* x leaves the preds of its old targets; F's entries for x stay */
    rc_build_jmp(&bld, f);
    p = 0;
    for (rc_instr *phi = f->first; phi && phi->op == RC_OP_PHI; phi = phi->next, p++) {
      rc_value *v = kind[p] == COND ? c : kind[p] == NOT_COND ? not_c : merged[p];
      if (direct) rc_instr_set_op(phi, (uint32_t)rc_phi_index_of(phi, x), v);
      else rc_phi_add_incoming(phi, v, x);
    }
    for (uint32_t e = 0; e < 2; e++)
      if (on[e] != f) dead[on[e]->id] = true;
  }
  free(merged);
  free(kind);
  return ok;
}

uint32_t rc_fold_flow_branches(rc_kernel *k) {
  uint32_t nb = k->nblocks, removed = 0;
  bool *dead = rc_xcalloc(nb + 1, sizeof *dead);
  for (uint32_t b = 0; b < nb; b++) {
    rc_block *x = k->blocks[b];
    rc_instr *t = rc_block_term(x);
    if (dead[b] || !t || t->op != RC_OP_BR || t->targets[0] == t->targets[1]) continue;
    rc_block *f = edge_end(x, t->targets[0]);
    if (f != x && f == edge_end(x, t->targets[1])) fold(k, x, f, dead);
  }
  for (uint32_t b = 0; b < nb; b++) removed += dead[b];
  if (removed) rc_kernel_remove_blocks(k, dead);
  free(dead);
  return removed;
}

bool rc_branch_folded_into_flow(const rc_block *b) {
  const rc_instr *j = rc_block_term(b);
  if (!j || j->op != RC_OP_JMP || !(j->targets[0]->bflags & RC_BLOCK_FLOW)) return false;
  for (const rc_instr *phi = j->targets[0]->first; phi && phi->op == RC_OP_PHI; phi = phi->next) {
    rc_value *v = rc_phi_value_for(phi, b);
    if (phi->v.type == RC_I1 && v && v->kind == RC_V_INSTR) return true;
  }
  return false;
}
