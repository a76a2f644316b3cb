/* Branch weights (!prof) across the in-place export (export_inplace.c). A weight belongs to a
 * successor slot of a branch: how often its condition sends a thread that way. Reconverge
 * retargets branches (a successor becomes a flow block) but keeps their conditions, so the weights
 * still say how often each slot is taken, and they stay, as LLVM's StructurizeCFG keeps them; a
 * branch on the negation of its old condition gets them swapped; a branch on something else loses
 * them. A flow block branches on a phi of i1 constants, one per incoming edge: when every edge into
 * it is weighted by one and the same branch (directly, or through a block that only that branch
 * enters and that only jumps on), the flow block's weights are the sums of the edges' weights per
 * value of the phi. Anything else (edges from different branches, whose weights are on different
 * scales; loops) gets no weights: no profile is better than a wrong one. */
#include "bridge.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool two_way(const rc_instr *t) {
  return t && t->op == RC_OP_BR && t->ntargets == 2 && t->targets[0] != t->targets[1];
}

ex_branch_weights ex_weights_of(LLVMValueRef l, unsigned md_prof) {
  ex_branch_weights w = {0};
  if (!l || LLVMGetInstructionOpcode(l) != LLVMBr || !LLVMIsConditional(l)) return w;
  LLVMValueRef md = LLVMGetMetadata(l, md_prof);
  if (!md || LLVMGetMDNodeNumOperands(md) != 3) return w;
  LLVMValueRef ops[3];
  LLVMGetMDNodeOperands(md, ops);
  unsigned len = 0;
  const char *name = ops[0] ? LLVMGetMDString(ops[0], &len) : NULL;
  if (!name || len != 14 || memcmp(name, "branch_weights", 14) != 0) return w;
  for (int s = 0; s < 2; s++) {
    if (!ops[s + 1] || !LLVMIsAConstantInt(ops[s + 1])) return w;
    w.w[s] = LLVMConstIntGetZExtValue(ops[s + 1]);
  }
  w.cond = LLVMGetCondition(l);
  w.known = true;
  return w;
}

/* Is c `xor x, true` (either order)? */
static bool negation_of(LLVMValueRef c, LLVMValueRef x) {
  if (!c || !LLVMIsABinaryOperator(c) || LLVMGetInstructionOpcode(c) != LLVMXor) return false;
  for (unsigned o = 0; o < 2; o++) {
    LLVMValueRef a = LLVMGetOperand(c, o), b = LLVMGetOperand(c, 1 - o);
    if (a == x && LLVMIsAConstantInt(b) && LLVMConstIntGetZExtValue(b) == 1) return true;
  }
  return false;
}

/* The slot of t that goes to `to`, or -1 when none or both do. */
static int slot_to(const rc_instr *t, const rc_block *to) {
  if (!two_way(t)) return -1;
  return t->targets[0] == to ? 0 : t->targets[1] == to ? 1 : -1;
}

/* The weights of flow block F's branch from those of the branch that weights every edge into it. */
static ex_branch_weights derive(const rc_kernel *k, const rc_block *F, const ex_branch_weights *final) {
  ex_branch_weights none = {0}, out = {0};
  const rc_instr *t = rc_block_term(F);
  const rc_value *c = t->ops[0];
  if (c->kind != RC_V_INSTR) return none;
  const rc_instr *phi = (const rc_instr *)c;
  if (phi->op != RC_OP_PHI || phi->parent != F) return none;
  const rc_block *by = NULL; /* the branch whose weights these are */
  for (uint32_t o = 0; o < phi->nops; o++) {
    const rc_block *P = phi->targets[o];
    if (phi->ops[o]->kind != RC_V_CONST || !P || P->id >= k->nblocks) return none;
    const rc_block *D = P;
    int s = slot_to(rc_block_term(P), F);
    if (s < 0) { /* P only jumps on, and only D enters it */
      const rc_instr *pt = rc_block_term(P);
      if (!pt || pt->op != RC_OP_JMP || P->npreds != 1) return none;
      D = P->preds[0];
      s = slot_to(rc_block_term(D), P);
    }
    if (s < 0 || D->id >= k->nblocks || !final[D->id].known || (by && by != D)) return none;
    by = D;
    out.w[rc_const_ival(phi->ops[o]) ? 0 : 1] += final[D->id].w[s];
  }
  if (!by || out.w[0] + out.w[1] == 0) return none;
  out.known = true;
  return out;
}

static void set_weights(exporter *ex, LLVMValueRef br, const ex_branch_weights *w, unsigned md_prof) {
  if (!w->known) {
    LLVMSetMetadata(br, md_prof, NULL);
    return;
  }
  uint64_t a = w->w[0], b = w->w[1], big = a > b ? a : b;
  if (big > UINT32_MAX) { /* weights are i32: scale both alike */
    uint64_t d = big / UINT32_MAX + 1;
    a /= d, b /= d;
  }
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ex->lctx);
  LLVMValueRef ops[3] = {LLVMMDStringInContext(ex->lctx, "branch_weights", 14), LLVMConstInt(i32, a, 0),
                         LLVMConstInt(i32, b, 0)};
  LLVMSetMetadata(br, md_prof, LLVMMDNodeInContext(ex->lctx, ops, 3));
}

void ex_profile_apply(exporter *ex, const rc_kernel *k, LLVMBasicBlockRef const *blk, const ex_branch_weights *orig,
                      unsigned md_prof) {
  ex_branch_weights *final = rc_xcalloc(k->nblocks + 1, sizeof *final);
  /* the branches that had weights, under their old or negated condition */
  for (uint32_t b = 0; b < k->nblocks; b++) {
    LLVMValueRef lt = LLVMGetBasicBlockTerminator(blk[b]);
    if (!two_way(rc_block_term(k->blocks[b])) || !orig[b].known || !lt || LLVMGetInstructionOpcode(lt) != LLVMBr ||
        !LLVMIsConditional(lt))
      continue;
    LLVMValueRef c = LLVMGetCondition(lt);
    if (c == orig[b].cond) final[b] = orig[b];
    else if (negation_of(c, orig[b].cond)) final[b] = (ex_branch_weights){c, {orig[b].w[1], orig[b].w[0]}, true};
  }
  /* flow blocks, in the view's order (a flow block may take its weights from an earlier one) */
  for (uint32_t b = 0; b < k->nblocks; b++) {
    const rc_block *F = k->blocks[b];
    if ((F->bflags & RC_BLOCK_FLOW) && !final[b].known && two_way(rc_block_term(F))) final[b] = derive(k, F, final);
  }
  for (uint32_t b = 0; b < k->nblocks; b++) {
    LLVMValueRef lt = LLVMGetBasicBlockTerminator(blk[b]);
    if (lt && LLVMGetInstructionOpcode(lt) == LLVMBr && LLVMIsConditional(lt)) set_weights(ex, lt, &final[b], md_prof);
  }
  free(final);
}
