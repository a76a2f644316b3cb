/* LLVM instructions (and constant expressions) -> view instructions, one to one: the view
 * instruction has the LLVM instruction's type, and its operand i is the LLVM operand i
 * (imp_operand_number). An instruction reconv does not model, or one with an operand or result
 * reconv cannot represent, becomes `opaque` (import_call.c). Calls are in import_call.c.
 *
 * Import builds each function in two passes (import.c): imp_shell makes every instruction with its
 * type, opcode and immediates, so that every value exists; imp_fill_operands then gives them
 * their operands — which may be defined anywhere in the function (blocks need not be in
 * dominance order, and phis refer forward). */
#include "bridge.h"

#include <stdlib.h>
#include <string.h>

static int atomic_builtin_of(LLVMAtomicRMWBinOp op) {
  switch (op) {
  case LLVMAtomicRMWBinOpXchg: return RC_BI_ATOMIC_XCHG;
  case LLVMAtomicRMWBinOpAdd: return RC_BI_ATOMIC_ADD;
  case LLVMAtomicRMWBinOpSub: return RC_BI_ATOMIC_SUB;
  case LLVMAtomicRMWBinOpAnd: return RC_BI_ATOMIC_AND;
  case LLVMAtomicRMWBinOpOr: return RC_BI_ATOMIC_OR;
  case LLVMAtomicRMWBinOpXor: return RC_BI_ATOMIC_XOR;
  case LLVMAtomicRMWBinOpMax: return RC_BI_ATOMIC_SMAX;
  case LLVMAtomicRMWBinOpMin: return RC_BI_ATOMIC_SMIN;
  case LLVMAtomicRMWBinOpUMax: return RC_BI_ATOMIC_UMAX;
  case LLVMAtomicRMWBinOpUMin: return RC_BI_ATOMIC_UMIN;
  default: return -1;
  }
}

static rc_opcode binop_of(LLVMOpcode op) {
  switch (op) {
  case LLVMAdd: return RC_OP_ADD;
  case LLVMSub: return RC_OP_SUB;
  case LLVMMul: return RC_OP_MUL;
  case LLVMSDiv: return RC_OP_SDIV;
  case LLVMUDiv: return RC_OP_UDIV;
  case LLVMSRem: return RC_OP_SREM;
  case LLVMURem: return RC_OP_UREM;
  case LLVMAnd: return RC_OP_AND;
  case LLVMOr: return RC_OP_OR;
  case LLVMXor: return RC_OP_XOR;
  case LLVMShl: return RC_OP_SHL;
  case LLVMLShr: return RC_OP_LSHR;
  case LLVMAShr: return RC_OP_ASHR;
  case LLVMFAdd: return RC_OP_FADD;
  case LLVMFSub: return RC_OP_FSUB;
  case LLVMFMul: return RC_OP_FMUL;
  case LLVMFDiv: return RC_OP_FDIV;
  case LLVMFRem: return RC_OP_FREM;
  default: return RC_OP_NONE;
  }
}

static rc_opcode cast_of(LLVMOpcode op) {
  switch (op) {
  case LLVMTrunc: return RC_OP_TRUNC;
  case LLVMZExt: return RC_OP_ZEXT;
  case LLVMSExt: return RC_OP_SEXT;
  case LLVMFPTrunc: return RC_OP_FPTRUNC;
  case LLVMFPExt: return RC_OP_FPEXT;
  case LLVMFPToSI: return RC_OP_FPTOSI;
  case LLVMFPToUI: return RC_OP_FPTOUI;
  case LLVMSIToFP: return RC_OP_SITOFP;
  case LLVMUIToFP: return RC_OP_UITOFP;
  case LLVMPtrToInt: return RC_OP_PTRTOINT;
  case LLVMIntToPtr: return RC_OP_INTTOPTR;
  case LLVMBitCast: return RC_OP_BITCAST;
  case LLVMAddrSpaceCast: return RC_OP_ADDRSPACECAST;
  default: return RC_OP_NONE;
  }
}

static rc_cmp icmp_of(LLVMIntPredicate p) {
  switch (p) {
  case LLVMIntEQ: return RC_CMP_EQ;
  case LLVMIntNE: return RC_CMP_NE;
  case LLVMIntUGT: return RC_CMP_UGT;
  case LLVMIntUGE: return RC_CMP_UGE;
  case LLVMIntULT: return RC_CMP_ULT;
  case LLVMIntULE: return RC_CMP_ULE;
  case LLVMIntSGT: return RC_CMP_SGT;
  case LLVMIntSGE: return RC_CMP_SGE;
  case LLVMIntSLT: return RC_CMP_SLT;
  default: return RC_CMP_SLE;
  }
}

static rc_cmp fcmp_of(LLVMRealPredicate p) {
  switch (p) {
  case LLVMRealPredicateFalse: return RC_CMP_FFALSE;
  case LLVMRealOEQ: return RC_CMP_OEQ;
  case LLVMRealOGT: return RC_CMP_OGT;
  case LLVMRealOGE: return RC_CMP_OGE;
  case LLVMRealOLT: return RC_CMP_OLT;
  case LLVMRealOLE: return RC_CMP_OLE;
  case LLVMRealONE: return RC_CMP_ONE;
  case LLVMRealORD: return RC_CMP_ORD;
  case LLVMRealUNO: return RC_CMP_UNO;
  case LLVMRealUEQ: return RC_CMP_UEQ;
  case LLVMRealUGT: return RC_CMP_FUGT;
  case LLVMRealUGE: return RC_CMP_FUGE;
  case LLVMRealULT: return RC_CMP_FULT;
  case LLVMRealULE: return RC_CMP_FULE;
  case LLVMRealUNE: return RC_CMP_UNE;
  default: return RC_CMP_FTRUE;
  }
}

/* Do all operands of v (the first n) have a value reconv represents? */
static bool operands_representable(importer *im, LLVMValueRef v, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (!imp_representable(im, LLVMGetOperand(v, i))) return false;
  return true;
}

/* getelementptr: the byte scale of each index and the constant offset of struct fields, walking
 * the indexed types with reconv's layout. Vector GEPs (vectors of addresses) stay opaque. */
static rc_instr *gep_shell(importer *im, LLVMValueRef v, rc_type t) {
  unsigned n = (unsigned)LLVMGetNumOperands(v);
  for (unsigned i = 0; i < n; i++)
    if (LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(v, i))) == LLVMVectorTypeKind) return NULL;
  rc_instr *ri = rc_instr_new(im->k, RC_OP_GEP, t, n, 0);
  int64_t *scale = rc_xcalloc(n ? n : 1, sizeof *scale);
  rc_type cur = imp_type(im, LLVMGetGEPSourceElementType(v));
  bool ok = rc_type_is_value(im->m, cur);
  for (unsigned i = 1; i < n && ok; i++) {
    if (i == 1) {
      scale[0] = (int64_t)rc_type_alloc_size(im->m, cur);
      continue;
    }
    const rc_typeinfo *ti = rc_type_info(im->m, cur);
    if (!ti || ti->kind == RC_TK_OTHER) {
      ok = false;
    } else if (ti->kind == RC_TK_STRUCT) {
      LLVMValueRef idx = LLVMGetOperand(v, i);
      uint64_t field = LLVMIsAConstantInt(idx) ? LLVMConstIntGetZExtValue(idx) : UINT64_MAX;
      if (field >= ti->count) {
        ok = false;
      } else {
        ri->imm += (int64_t)ti->offsets[field];
        cur = ti->fields[field];
      }
    } else {
      cur = ti->elem;
      scale[i - 1] = ti->kind == RC_TK_VECTOR ? (int64_t)rc_type_size(cur) : (int64_t)rc_type_alloc_size(im->m, cur);
    }
  }
  if (ok) rc_instr_set_cases(im->k, ri, scale, n ? n - 1 : 0);
  free(scale);
  return ok ? ri : NULL;
}

/* The view of a value-computing LLVM operation (instruction or constant expression) with opcode
 * op and type t, operands still empty; NULL when reconv does not model it. */
static rc_instr *operation_shell(importer *im, LLVMValueRef v, LLVMOpcode op, rc_type t) {
  rc_kernel *k = im->k;
  unsigned nops = (unsigned)LLVMGetNumOperands(v);
  rc_opcode rop;
  rc_instr *ri = NULL;
  if ((rop = binop_of(op)) != RC_OP_NONE) return rc_instr_new(k, rop, t, 2, 0);
  if ((rop = cast_of(op)) != RC_OP_NONE) return rc_instr_new(k, rop, t, 1, 0);
  switch (op) {
  case LLVMFNeg: return rc_instr_new(k, RC_OP_FNEG, t, 1, 0);
  case LLVMFreeze: return rc_instr_new(k, RC_OP_FREEZE, t, 1, 0);
  case LLVMICmp:
  case LLVMFCmp:
    ri = rc_instr_new(k, op == LLVMICmp ? RC_OP_ICMP : RC_OP_FCMP, t, 2, 0);
    ri->pred = (uint16_t)(op == LLVMICmp ? icmp_of(LLVMGetICmpPredicate(v)) : fcmp_of(LLVMGetFCmpPredicate(v)));
    return ri;
  case LLVMSelect: return rc_instr_new(k, RC_OP_SELECT, t, 3, 0);
  case LLVMLoad: return rc_instr_new(k, RC_OP_LOAD, t, 1, 0);
  case LLVMStore: return rc_instr_new(k, RC_OP_STORE, RC_VOID, 2, 0);
  case LLVMGetElementPtr: return gep_shell(im, v, t);
  case LLVMExtractElement: return rc_instr_new(k, RC_OP_EXTRACTELT, t, 2, 0);
  case LLVMInsertElement: return rc_instr_new(k, RC_OP_INSERTELT, t, 3, 0);
  case LLVMShuffleVector: {
    if (!LLVMIsAInstruction(v)) return NULL; /* the mask of a constant expression is not reachable */
    unsigned n = LLVMGetNumMaskElements(v);
    int64_t *mask = rc_xmalloc((n ? n : 1) * sizeof *mask);
    for (unsigned i = 0; i < n; i++) {
      int e = LLVMGetMaskValue(v, i);
      mask[i] = e == LLVMGetUndefMaskElem() ? -1 : e;
    }
    ri = rc_instr_new(k, RC_OP_SHUFFLE, t, 2, 0);
    rc_instr_set_cases(k, ri, mask, n);
    free(mask);
    return ri;
  }
  case LLVMExtractValue:
  case LLVMInsertValue: {
    unsigned n = LLVMGetNumIndices(v);
    const unsigned *idx = LLVMGetIndices(v);
    int64_t *path = rc_xmalloc((n ? n : 1) * sizeof *path);
    for (unsigned i = 0; i < n; i++) path[i] = idx[i];
    ri = rc_instr_new(k, op == LLVMExtractValue ? RC_OP_EXTRACTVAL : RC_OP_INSERTVAL, t,
                      op == LLVMExtractValue ? 1 : 2, 0);
    rc_instr_set_cases(k, ri, path, n);
    free(path);
    return ri;
  }
  case LLVMFence: { /* ordering only: reconv's machines run one memory, in program order */
    if (!LLVMIsAInstruction(v)) return NULL;
    ri = rc_instr_new(k, RC_OP_CALL, RC_VOID, 0, 0);
    ri->pred = RC_BI_FENCE;
    return ri;
  }
  case LLVMAtomicRMW: {
    /* an atomic read-modify-write is the atomic builtin of the same operation on (address,
     * value); the memory order and scope stay in the LLVM instruction. fadd/fsub/nand have no
     * builtin and stay opaque. */
    int bi = atomic_builtin_of(LLVMGetAtomicRMWBinOp(v));
    if (bi < 0 || !LLVMIsAInstruction(v)) return NULL;
    ri = rc_instr_new(k, RC_OP_CALL, t, 2, 0);
    ri->pred = (uint16_t)bi;
    return ri;
  }
  case LLVMAlloca: {
    LLVMValueRef count = LLVMGetOperand(v, 0);
    rc_type at = imp_type(im, LLVMGetAllocatedType(v));
    if (!LLVMIsAConstantInt(count) || !rc_type_is_value(im->m, at)) return NULL;
    uint64_t size = rc_type_alloc_size(im->m, at) * LLVMConstIntGetZExtValue(count);
    if (size == 0 || size > (1u << 24)) return NULL;
    ri = rc_instr_new(k, RC_OP_ALLOCA, t, 0, 0);
    ri->imm = (int64_t)size;
    return ri;
  }
  default: (void)nops; return NULL;
  }
}

/* Terminators: targets are known now (every block exists), operands follow. A terminator reconv
 * does not model makes the function one reconv leaves alone (import.c checks that first). */
static rc_instr *terminator_shell(importer *im, LLVMValueRef v, LLVMOpcode op) {
  rc_kernel *k = im->k;
  rc_instr *ri = NULL;
  switch (op) {
  case LLVMRet: return rc_instr_new(k, RC_OP_RET, RC_VOID, (uint32_t)LLVMGetNumOperands(v), 0);
  case LLVMUnreachable: return rc_instr_new(k, RC_OP_UNREACHABLE, RC_VOID, 0, 0);
  case LLVMBr:
    if (LLVMIsConditional(v)) {
      ri = rc_instr_new(k, RC_OP_BR, RC_VOID, 1, 2);
      ri->targets[0] = ptrmap_get(&im->blocks, LLVMGetSuccessor(v, 0));
      ri->targets[1] = ptrmap_get(&im->blocks, LLVMGetSuccessor(v, 1));
    } else {
      ri = rc_instr_new(k, RC_OP_JMP, RC_VOID, 0, 1);
      ri->targets[0] = ptrmap_get(&im->blocks, LLVMGetSuccessor(v, 0));
    }
    return ri;
  case LLVMSwitch: {
    unsigned n = LLVMGetNumSuccessors(v);
    ri = rc_instr_new(k, RC_OP_SWITCH, RC_VOID, 1, n);
    rc_type st = imp_type(im, LLVMTypeOf(LLVMGetOperand(v, 0)));
    for (unsigned s = 0; s < n; s++) ri->targets[s] = ptrmap_get(&im->blocks, LLVMGetSuccessor(v, s));
    for (unsigned c = 1; c < n; c++)
      ri->cases[c - 1] = rc_int_canon(st, LLVMConstIntGetSExtValue(LLVMGetOperand(v, 2 * c)));
    return ri;
  }
  default: return NULL;
  }
}

/* The LLVM instruction's source position, when its line tables name the input file. */
static void set_position(importer *im, LLVMValueRef inst, rc_instr *ri) {
  unsigned line = LLVMGetDebugLocLine(inst);
  if (!line) return;
  unsigned n = 0;
  const char *f = LLVMGetDebugLocFilename(inst, &n);
  if (!f || strlen(im->path) != n || memcmp(f, im->path, n) != 0) return;
  ri->line = line;
  ri->col = LLVMGetDebugLocColumn(inst);
}

rc_instr *imp_shell(importer *im, LLVMValueRef v, rc_block *b) {
  bool is_inst = LLVMIsAInstruction(v) != NULL;
  LLVMOpcode op = is_inst ? LLVMGetInstructionOpcode(v) : LLVMGetConstOpcode(v);
  rc_type t = imp_type(im, LLVMTypeOf(v));
  rc_instr *ri = NULL;
  if (is_inst && LLVMIsATerminatorInst(v)) {
    ri = terminator_shell(im, v, op);
    if (!ri) {
      imp_error(im, v, "internal error: an unexpected terminator");
      return NULL;
    }
  } else if (op == LLVMPHI) {
    ri = rc_instr_new(im->k, RC_OP_PHI, t, 0, 0);
  } else if (op == LLVMCall) {
    ri = imp_call_shell(im, v, t);
  } else {
    bool value_ok = t == RC_VOID || rc_type_is_value(im->m, t);
    if (value_ok && operands_representable(im, v, (unsigned)LLVMGetNumOperands(v)))
      ri = operation_shell(im, v, op, t);
    if (!ri) {
      if (!is_inst) {
        imp_error(im, im->cur, "internal error: a constant expression reconv cannot represent");
        return NULL;
      }
      ri = imp_opaque_shell(im, v, t);
    }
  }
  if (!ri) return NULL;
  if (is_inst) {
    ri->origin = im->cur_index;
    set_position(im, v, ri);
    if (b) rc_instr_append(b, ri);
    if (t != RC_VOID) ptrmap_put(&im->values, v, &ri->v);
  }
  imp_name(im, &ri->v, v);
  return ri;
}

int imp_fill_operands(importer *im, LLVMValueRef inst, rc_instr *ri) {
  im->cur = inst;
  im->cur_index = ri->origin;
  if (ri->op == RC_OP_PHI) {
    unsigned n = LLVMCountIncoming(inst);
    for (unsigned i = 0; i < n; i++) {
      rc_block *from = ptrmap_get(&im->blocks, LLVMGetIncomingBlock(inst, i));
      if (rc_phi_index_of(ri, from) >= 0) continue; /* LLVM lists each edge; reconv each block */
      im->cur_op = i;
      rc_value *v = imp_operand(im, LLVMGetIncomingValue(inst, i));
      if (!v) return -1;
      rc_phi_add_incoming(ri, v, from);
    }
    return 0;
  }
  for (uint32_t o = 0; o < ri->nops; o++) {
    im->cur_op = (unsigned)imp_operand_number(ri, o);
    rc_value *v = imp_operand(im, LLVMGetOperand(inst, im->cur_op));
    if (!v) return -1;
    ri->ops[o] = v;
  }
  return 0;
}
