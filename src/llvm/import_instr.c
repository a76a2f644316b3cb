/* LLVM instructions -> reconv instructions (calls are in import_call.c).
 *
 * Arithmetic, comparisons, select and casts map one to one; on vectors they apply element by
 * element. Casts between types reconv does not distinguish (pointer bitcasts, address-space casts)
 * and freeze produce no instruction. Loads and stores of vectors become one access per element. */
#include "bridge.h"

#include <stdlib.h>
#include <string.h>

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

static bool is_vector(LLVMValueRef v) {
  return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind;
}

static LLVMTypeRef scalar_type_of(LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
}

/* One element of an arithmetic, comparison, select or cast instruction. */
static rc_value *scalar_op(importer *im, LLVMValueRef inst, rc_value **ops, rc_type t) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  rc_builder *b = &im->b;
  rc_opcode rop;
  if ((rop = binop_of(op)) != RC_OP_NONE) return rc_build_binop(b, rop, ops[0], ops[1], NULL);
  switch (op) {
  case LLVMFNeg: return rc_build_unop(b, RC_OP_FNEG, ops[0], NULL);
  case LLVMICmp: return rc_build_cmp(b, icmp_of(LLVMGetICmpPredicate(inst)), ops[0], ops[1], NULL);
  case LLVMFCmp: return rc_build_cmp(b, fcmp_of(LLVMGetFCmpPredicate(inst)), ops[0], ops[1], NULL);
  case LLVMSelect: return rc_build_select(b, ops[0], ops[1], ops[2], NULL);
  case LLVMFreeze: return ops[0];
  case LLVMAddrSpaceCast: return ops[0];
  default: break;
  }
  rop = cast_of(op);
  if (ops[0]->type == t && (op == LLVMBitCast || op == LLVMAddrSpaceCast)) return ops[0];
  if (ops[0]->kind == RC_V_CONST && (rop == RC_OP_TRUNC || rop == RC_OP_ZEXT || rop == RC_OP_SEXT)) {
    /* integer constants the importer made (the amdgcn global offset) fold right away, as LLVM's
     * IR builder folds them on export */
    int64_t v = rc_const_ival(ops[0]);
    unsigned w = rc_type_bits((rc_type)ops[0]->type);
    if (rop == RC_OP_ZEXT && w < 64) v &= (int64_t)((UINT64_C(1) << w) - 1);
    if (rop == RC_OP_SEXT && w == 1) v = -v;
    return rc_const_int(im->k, t, v);
  }
  if (op == LLVMBitCast && (ops[0]->type == RC_PTR || t == RC_PTR)) {
    imp_error(im, inst, "bit casts between pointers and other types are not supported");
    return NULL;
  }
  return rc_build_cast(b, rop, ops[0], t, NULL);
}

/* Instructions that act element by element on vectors: operands that are scalars in a vector
 * instruction (a select condition) apply to every element. */
static int elementwise(importer *im, LLVMValueRef inst) {
  unsigned nops = (unsigned)LLVMGetNumOperands(inst);
  rc_type t = imp_type(im, scalar_type_of(inst), inst);
  if (t == RC_VOID) return -1;
  uint32_t n = is_vector(inst) ? LLVMGetVectorSize(LLVMTypeOf(inst)) : 1;
  rc_value **elems[3] = {NULL, NULL, NULL};
  rc_value *scalars[3] = {NULL, NULL, NULL};
  for (unsigned o = 0; o < nops && o < 3; o++) {
    LLVMValueRef v = LLVMGetOperand(inst, o);
    uint32_t cnt;
    if (is_vector(v)) {
      if (imp_elems(im, v, &elems[o], &cnt)) return -1;
      if (cnt != n || !is_vector(inst))
        return imp_error(im, inst, "mixing vectors of different lengths, or vectors and scalars, is "
                                   "not supported");
    } else if (!(scalars[o] = imp_scalar(im, v))) {
      return -1;
    }
  }
  rc_value **res = n > 1 || is_vector(inst) ? rc_arena_alloc(&im->tmp, n * sizeof *res) : NULL;
  for (uint32_t e = 0; e < n; e++) {
    rc_value *ops[3];
    for (unsigned o = 0; o < nops && o < 3; o++) ops[o] = elems[o] ? elems[o][e] : scalars[o];
    rc_value *r = scalar_op(im, inst, ops, t);
    if (!r) return -1;
    if (!res) {
      imp_name(im, r, inst);
      imp_set_value(im, inst, r);
      return 0;
    }
    res[e] = r;
  }
  imported *rec = imp_record(im, inst, IMP_VECTOR);
  rec->elems = res;
  rec->n = n;
  return 0;
}

/* ---- memory ------------------------------------------------------------------------------------------ */

static int import_load(importer *im, LLVMValueRef inst) {
  LLVMValueRef ptr = LLVMGetOperand(inst, 0);
  imported *base = imp_lookup(im, ptr);
  if (base && (base->kind == IMP_DISPATCH_PTR || base->kind == IMP_IMPLICITARG_PTR))
    return imp_special_load(im, inst, base);
  rc_value *p = imp_scalar(im, ptr);
  if (!p) return -1;
  rc_type t = imp_type(im, scalar_type_of(inst), inst);
  if (t == RC_VOID) return -1;
  if (!is_vector(inst)) {
    rc_value *r = rc_build_load(&im->b, t, p, NULL);
    imp_name(im, r, inst);
    imp_set_value(im, inst, r);
    return 0;
  }
  uint32_t n = LLVMGetVectorSize(LLVMTypeOf(inst));
  int64_t esize = (int64_t)LLVMABISizeOfType(im->td, scalar_type_of(inst));
  imported *rec = imp_record(im, inst, IMP_VECTOR);
  rec->elems = rc_arena_alloc(&im->tmp, n * sizeof *rec->elems);
  rec->n = n;
  for (uint32_t e = 0; e < n; e++)
    rec->elems[e] = rc_build_load(&im->b, t, imp_offset(im, p, (int64_t)e * esize, esize, NULL), NULL);
  return 0;
}

static int import_store(importer *im, LLVMValueRef inst) {
  LLVMValueRef val = LLVMGetOperand(inst, 0);
  rc_value *p = imp_scalar(im, LLVMGetOperand(inst, 1));
  if (!p) return -1;
  if (!is_vector(val)) {
    rc_value *v = imp_scalar(im, val);
    if (!v) return -1;
    rc_build_store(&im->b, v, p);
    return 0;
  }
  rc_value **e;
  uint32_t n;
  if (imp_elems(im, val, &e, &n)) return -1;
  int64_t esize = (int64_t)LLVMABISizeOfType(im->td, scalar_type_of(val));
  for (uint32_t i = 0; i < n; i++)
    rc_build_store(&im->b, e[i], imp_offset(im, p, (int64_t)i * esize, esize, NULL));
  return 0;
}

static int import_alloca(importer *im, LLVMValueRef inst) {
  LLVMValueRef count = LLVMGetOperand(inst, 0);
  if (!LLVMIsAConstantInt(count))
    return imp_error(im, inst, "allocas of a run-time size are not supported");
  uint64_t size = LLVMABISizeOfType(im->td, LLVMGetAllocatedType(inst)) * LLVMConstIntGetZExtValue(count);
  if (size == 0 || size > (1u << 24))
    return imp_error(im, inst, "alloca of %llu bytes is outside 1..16777216", (unsigned long long)size);
  rc_value *r = rc_build_alloca(&im->b, (int64_t)size, NULL);
  imp_name(im, r, inst);
  imp_set_value(im, inst, r);
  return 0;
}

static int import_gep(importer *im, LLVMValueRef inst) {
  imported *base = imp_lookup(im, LLVMGetOperand(inst, 0));
  if (base && (base->kind == IMP_DISPATCH_PTR || base->kind == IMP_IMPLICITARG_PTR))
    return imp_special_gep(im, inst, base);
  size_t n;
  const char *name = LLVMGetValueName2(inst, &n);
  rc_strbuf sb;
  rc_sb_init(&sb);
  if (n) bridge_sanitize(name, n, "v", &sb);
  rc_value *r = imp_gep(im, inst, n ? sb.data : NULL);
  rc_sb_free(&sb);
  if (!r) return -1;
  imp_set_value(im, inst, r);
  return 0;
}

/* Pointer casts keep what their operand is (also the amdgcn dispatch pointers). */
static int import_pointer_cast(importer *im, LLVMValueRef inst) {
  imported *src = imp_lookup(im, LLVMGetOperand(inst, 0));
  if (src && src->kind != IMP_VALUE) {
    imported *r = imp_record(im, inst, src->kind);
    *r = *src;
    return 0;
  }
  return elementwise(im, inst);
}

static int import_atomicrmw(importer *im, LLVMValueRef inst) {
  rc_builtin bi;
  switch (LLVMGetAtomicRMWBinOp(inst)) {
  case LLVMAtomicRMWBinOpXchg: bi = RC_BI_ATOMIC_XCHG; break;
  case LLVMAtomicRMWBinOpAdd: bi = RC_BI_ATOMIC_ADD; break;
  case LLVMAtomicRMWBinOpSub: bi = RC_BI_ATOMIC_SUB; break;
  case LLVMAtomicRMWBinOpAnd: bi = RC_BI_ATOMIC_AND; break;
  case LLVMAtomicRMWBinOpOr: bi = RC_BI_ATOMIC_OR; break;
  case LLVMAtomicRMWBinOpXor: bi = RC_BI_ATOMIC_XOR; break;
  case LLVMAtomicRMWBinOpMax: bi = RC_BI_ATOMIC_SMAX; break;
  case LLVMAtomicRMWBinOpMin: bi = RC_BI_ATOMIC_SMIN; break;
  case LLVMAtomicRMWBinOpUMax: bi = RC_BI_ATOMIC_UMAX; break;
  case LLVMAtomicRMWBinOpUMin: bi = RC_BI_ATOMIC_UMIN; break;
  default: return imp_error(im, inst, "this atomic operation is not supported");
  }
  rc_type t = imp_type(im, LLVMTypeOf(inst), inst);
  if (t == RC_VOID) return -1;
  if (!rc_type_is_int(t) || t == RC_I1) return imp_error(im, inst, "atomics on %s are not supported", rc_type_name(t));
  rc_value *args[2] = {imp_scalar(im, LLVMGetOperand(inst, 0)), imp_scalar(im, LLVMGetOperand(inst, 1))};
  if (!args[0] || !args[1]) return -1;
  rc_value *r = &rc_build_call(&im->b, bi, t, args, 2, NULL)->v;
  imp_name(im, r, inst);
  imp_set_value(im, inst, r);
  return 0;
}

/* cmpxchg yields {old, success}; extractvalue takes it apart (success = old == expected). */
static int import_cmpxchg(importer *im, LLVMValueRef inst) {
  rc_value *args[3];
  for (unsigned i = 0; i < 3; i++)
    if (!(args[i] = imp_scalar(im, LLVMGetOperand(inst, i)))) return -1;
  if (!rc_type_is_int((rc_type)args[1]->type) || args[1]->type == RC_I1)
    return imp_error(im, inst, "cmpxchg on %s is not supported", rc_type_name((rc_type)args[1]->type));
  imported *r = imp_record(im, inst, IMP_CMPXCHG);
  r->v = &rc_build_call(&im->b, RC_BI_ATOMIC_CMPXCHG, (rc_type)args[1]->type, args, 3, NULL)->v;
  r->aux = args[1];
  imp_name(im, r->v, inst);
  return 0;
}

static int import_extractvalue(importer *im, LLVMValueRef inst) {
  imported *agg = imp_lookup(im, LLVMGetOperand(inst, 0));
  if (!agg || agg->kind != IMP_CMPXCHG || LLVMGetNumIndices(inst) != 1)
    return imp_error(im, inst, "extractvalue is only supported on the result of cmpxchg");
  unsigned idx = LLVMGetIndices(inst)[0];
  rc_value *r = idx == 0 ? agg->v : rc_build_cmp(&im->b, RC_CMP_EQ, agg->v, agg->aux, NULL);
  imp_name(im, r, inst);
  imp_set_value(im, inst, r);
  return 0;
}

/* ---- vectors --------------------------------------------------------------------------------------------- */

static rc_value *select_by_index(importer *im, rc_value *idx, rc_value **elems, uint32_t n) {
  rc_value *r = elems[0];
  for (uint32_t i = 1; i < n; i++) {
    rc_value *hit = rc_build_cmp(&im->b, RC_CMP_EQ, idx, rc_const_int(im->k, (rc_type)idx->type, i), NULL);
    r = rc_build_select(&im->b, hit, elems[i], r, NULL);
  }
  return r;
}

static int import_vector_op(importer *im, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  rc_value **a, **bv = NULL;
  uint32_t na, nb = 0;
  if (imp_elems(im, LLVMGetOperand(inst, 0), &a, &na)) return -1;
  if (op == LLVMExtractElement) {
    LLVMValueRef idx = LLVMGetOperand(inst, 1);
    rc_value *r;
    if (LLVMIsAConstantInt(idx)) {
      uint64_t i = LLVMConstIntGetZExtValue(idx);
      r = i < na ? a[i] : rc_undef(im->k, (rc_type)a[0]->type);
    } else {
      rc_value *iv = imp_scalar(im, idx);
      if (!iv) return -1;
      r = select_by_index(im, iv, a, na);
    }
    imp_set_value(im, inst, r);
    return 0;
  }
  uint32_t n = LLVMGetVectorSize(LLVMTypeOf(inst));
  rc_value **res = rc_arena_alloc(&im->tmp, n * sizeof *res);
  if (op == LLVMInsertElement) {
    rc_value *v = imp_scalar(im, LLVMGetOperand(inst, 1));
    LLVMValueRef idx = LLVMGetOperand(inst, 2);
    if (!v) return -1;
    rc_value *iv = LLVMIsAConstantInt(idx) ? NULL : imp_scalar(im, idx);
    if (!LLVMIsAConstantInt(idx) && !iv) return -1;
    for (uint32_t i = 0; i < n; i++) {
      if (!iv) {
        res[i] = i == LLVMConstIntGetZExtValue(idx) ? v : a[i];
      } else {
        rc_value *hit = rc_build_cmp(&im->b, RC_CMP_EQ, iv, rc_const_int(im->k, (rc_type)iv->type, i), NULL);
        res[i] = rc_build_select(&im->b, hit, v, a[i], NULL);
      }
    }
  } else { /* shufflevector: elements of the concatenation of both operands */
    if (imp_elems(im, LLVMGetOperand(inst, 1), &bv, &nb)) return -1;
    for (uint32_t i = 0; i < n; i++) {
      int m = LLVMGetMaskValue(inst, i);
      res[i] = m < 0 ? rc_undef(im->k, (rc_type)a[0]->type)
               : (uint32_t)m < na ? a[m] : bv[(uint32_t)m - na];
    }
  }
  imported *rec = imp_record(im, inst, IMP_VECTOR);
  rec->elems = res;
  rec->n = n;
  return 0;
}

/* ---- control flow --------------------------------------------------------------------------------------- */

static int import_phi(importer *im, LLVMValueRef inst) {
  rc_type t = imp_type(im, scalar_type_of(inst), inst);
  if (t == RC_VOID) return -1;
  uint32_t n = is_vector(inst) ? LLVMGetVectorSize(LLVMTypeOf(inst)) : 1;
  imp_phi ph = {inst, rc_arena_alloc(&im->tmp, n * sizeof(rc_instr *)), n};
  for (uint32_t e = 0; e < n; e++) ph.phis[e] = rc_phi_new(im->b.block, t, NULL);
  rc_vec_push(&im->phis, ph);
  if (!is_vector(inst)) {
    imp_name(im, &ph.phis[0]->v, inst);
    imp_set_value(im, inst, &ph.phis[0]->v);
    return 0;
  }
  imported *rec = imp_record(im, inst, IMP_VECTOR);
  rec->elems = rc_arena_alloc(&im->tmp, n * sizeof *rec->elems);
  rec->n = n;
  for (uint32_t e = 0; e < n; e++) rec->elems[e] = &ph.phis[e]->v;
  return 0;
}

static rc_block *successor(importer *im, LLVMValueRef term, unsigned i) {
  return ptrmap_get(&im->blocks, LLVMGetSuccessor(term, i));
}

static int import_terminator(importer *im, LLVMValueRef inst, LLVMOpcode op) {
  rc_instr *t = NULL;
  if (op == LLVMRet) {
    if (LLVMGetNumOperands(inst)) return imp_error(im, inst, "kernels return void");
    t = rc_build_ret(&im->b);
  } else if (op == LLVMUnreachable) {
    t = rc_build_unreachable(&im->b);
  } else if (op == LLVMBr && !LLVMIsConditional(inst)) {
    t = rc_build_jmp(&im->b, successor(im, inst, 0));
  } else if (op == LLVMBr) {
    rc_value *c = imp_scalar(im, LLVMGetCondition(inst));
    if (!c) return -1;
    t = rc_build_br(&im->b, c, successor(im, inst, 0), successor(im, inst, 1));
  } else { /* switch: operands are the value, the default, then (case value, target) pairs */
    rc_value *v = imp_scalar(im, LLVMGetOperand(inst, 0));
    if (!v) return -1;
    unsigned ncases = LLVMGetNumSuccessors(inst) - 1;
    int64_t *cases = rc_xmalloc((ncases + 1) * sizeof *cases);
    rc_block **targets = rc_xmalloc((ncases + 1) * sizeof *targets);
    for (unsigned c = 0; c < ncases; c++) {
      cases[c] = LLVMConstIntGetSExtValue(LLVMGetOperand(inst, 2 + 2 * c));
      targets[c] = successor(im, inst, c + 1);
    }
    t = rc_build_switch(&im->b, v, successor(im, inst, 0), cases, targets, ncases);
    free(cases);
    free(targets);
  }
  /* what reconv's own export recorded: inserted blocks and branch annotations */
  rc_block *b = im->b.block;
  if (LLVMGetMetadata(inst, im->md_flow)) b->bflags |= RC_BLOCK_FLOW;
  if (LLVMGetMetadata(inst, im->md_guard)) b->bflags |= RC_BLOCK_GUARD;
  if (LLVMGetMetadata(inst, im->md_virtual)) b->bflags |= RC_BLOCK_VIRTUAL;
  if (LLVMGetMetadata(inst, im->md_uniform)) t->iflags |= RC_IF_UNIFORM;
  if (LLVMGetMetadata(inst, im->md_divergent)) t->iflags |= RC_IF_DIVERGENT;
  return 0;
}

int imp_instr(importer *im, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (binop_of(op) != RC_OP_NONE) return elementwise(im, inst);
  switch (op) {
  case LLVMRet:
  case LLVMBr:
  case LLVMSwitch:
  case LLVMUnreachable: return import_terminator(im, inst, op);
  case LLVMFNeg:
  case LLVMICmp:
  case LLVMFCmp:
  case LLVMSelect:
  case LLVMFreeze:
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
  case LLVMFPTrunc:
  case LLVMFPExt:
  case LLVMFPToSI:
  case LLVMFPToUI:
  case LLVMSIToFP:
  case LLVMUIToFP:
  case LLVMPtrToInt:
  case LLVMIntToPtr: return elementwise(im, inst);
  case LLVMBitCast:
  case LLVMAddrSpaceCast: return import_pointer_cast(im, inst);
  case LLVMAlloca: return import_alloca(im, inst);
  case LLVMLoad: return import_load(im, inst);
  case LLVMStore: return import_store(im, inst);
  case LLVMGetElementPtr: return import_gep(im, inst);
  case LLVMPHI: return import_phi(im, inst);
  case LLVMExtractElement:
  case LLVMInsertElement:
  case LLVMShuffleVector: return import_vector_op(im, inst);
  case LLVMExtractValue: return import_extractvalue(im, inst);
  case LLVMAtomicRMW: return import_atomicrmw(im, inst);
  case LLVMAtomicCmpXchg: return import_cmpxchg(im, inst);
  case LLVMFence: /* reconv's memory is sequentially consistent; barriers order work-groups */
    imp_record(im, inst, IMP_NOTHING);
    return 0;
  case LLVMCall: return imp_call(im, inst);
  default: return imp_error(im, inst, "unsupported instruction");
  }
}
