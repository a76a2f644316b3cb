/* Calls in reconv's view, and instructions it carries opaquely.
 *
 * A call becomes, by its callee:
 * - a function of the module that reconv imports: `call @f(...)` (RC_OP_CALLFN), operand i = argument i;
 * - a declared function or intrinsic that names a builtin (OpenCL C built-ins as clang mangles them
 *   with -nogpulib, LLVM and amdgcn intrinsics; rc_builtin_from_llvm_name): a builtin call on a
 *   prefix of the arguments, when its types are the builtin's;
 * - anything else (unknown functions, inline assembly, indirect calls, calls whose operands reconv
 *   cannot represent): opaque.
 * The original call stays in the LLVM module, so the view only has to say what the call computes
 * (for the simulators) and whether its result can differ between threads (for uniformity):
 * RC_IF_VARYING marks what the target's own divergence analysis treats as divergent whatever the
 * operands — on amdgcn, every call that is not an intrinsic (docs/llvm.md, "Uniformity"). */
#include "bridge.h"
#include "llvm_compat.h"

#include <stdlib.h>
#include <string.h>

/* Does a call of this callee write memory or have other effects, as far as LLVM's attributes say? */
static bool call_has_effects(LLVMValueRef call, LLVMValueRef callee) {
  unsigned kind = rc_llvm_memory_attr_kind();
  if (callee && LLVMIsAFunction(callee) &&
      rc_llvm_attr_is_readnone(LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, kind)))
    return false;
  return !rc_llvm_attr_is_readnone(LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, kind));
}

rc_instr *imp_opaque_shell(importer *im, LLVMValueRef inst, rc_type t) {
  bool is_call = LLVMIsACallInst(inst) != NULL;
  unsigned n = is_call ? LLVMGetNumArgOperands(inst) : (unsigned)LLVMGetNumOperands(inst);
  int64_t *map = rc_xmalloc((n ? n : 1) * sizeof *map);
  uint32_t kept = 0;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef o = LLVMGetOperand(inst, i);
    /* blocks (of terminators reconv does not model) and metadata are no values */
    if (!LLVMIsABasicBlock(o) && imp_representable(im, o)) map[kept++] = i;
  }
  rc_instr *ri = rc_instr_new(im->k, RC_OP_OPAQUE, t, kept, 0);
  rc_instr_set_cases(im->k, ri, map, kept);
  free(map);
  char *text = bridge_value_text(inst);
  ri->u.text = rc_arena_strdup(&im->m->arena, text);
  free(text);
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  LLVMValueRef callee = is_call ? LLVMGetCalledValue(inst) : NULL;
  bool effects = is_call ? call_has_effects(inst, callee)
                         : op == LLVMStore || op == LLVMLoad || op == LLVMFence || op == LLVMAtomicRMW ||
                               op == LLVMAtomicCmpXchg || op == LLVMVAArg;
  if (effects) ri->iflags |= RC_IF_EFFECTS;
  /* what a thread gets from memory it shares, or from a call reconv cannot see into, may differ
   * from what another thread gets */
  if (is_call || op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg || op == LLVMLoad || op == LLVMVAArg)
    ri->iflags |= RC_IF_VARYING;
  return ri;
}

/* Placeholders of the right types for a builtin's operands, so that the verifier's rules can
 * judge the mapping before the real operands exist. */
static bool builtin_fits(importer *im, rc_instr *ri, LLVMValueRef call) {
  for (uint32_t o = 0; o < ri->nops; o++) {
    LLVMValueRef a = LLVMGetOperand(call, o);
    if (!imp_representable(im, a)) return false;
    rc_type at = imp_type(im, LLVMTypeOf(a));
    /* constant arguments (a work-item query's dimension) must be seen as constants */
    ri->ops[o] = LLVMIsAConstantInt(a) && LLVMGetIntTypeWidth(LLVMTypeOf(a)) <= 64
                     ? rc_const_int(im->k, at, LLVMConstIntGetSExtValue(a))
                     : rc_undef(im->k, at);
  }
  bool ok = rc_instr_types_ok(im->k, ri);
  for (uint32_t o = 0; o < ri->nops; o++) ri->ops[o] = NULL;
  return ok;
}

rc_instr *imp_call_shell(importer *im, LLVMValueRef call, rc_type t) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  unsigned nargs = LLVMGetNumArgOperands(call);
  bool value_ok = t == RC_VOID || rc_type_is_value(im->m, t);
  if (value_ok && callee && LLVMIsAFunction(callee)) {
    rc_kernel *f = ptrmap_get(&im->functions, callee);
    if (f && f->is_function && f->nparams == nargs) {
      rc_instr *ri = rc_instr_new(im->k, RC_OP_CALLFN, t, nargs, 0);
      ri->u.callee = f;
      ri->iflags |= RC_IF_VARYING;
      bool ok = true;
      for (unsigned a = 0; a < nargs && ok; a++) ok = imp_representable(im, LLVMGetOperand(call, a));
      if (ok && t == f->ret_type) return ri;
    } else if (!f) {
      size_t n;
      const char *name = LLVMGetValueName2(callee, &n);
      rc_builtin_match bm;
      if (rc_builtin_from_llvm_name(name, n, &bm) >= 0 && bm.nargs <= nargs) {
        rc_instr *ri = rc_instr_new(im->k, RC_OP_CALL, t, bm.nargs, 0);
        ri->pred = (uint16_t)bm.builtin;
        ri->imm = bm.imm;
        if (!LLVMGetIntrinsicID(callee)) ri->iflags |= RC_IF_VARYING;
        if (builtin_fits(im, ri, call)) return ri;
      }
    }
  }
  return imp_opaque_shell(im, call, t);
}
