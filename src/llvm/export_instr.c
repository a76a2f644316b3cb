/* reconv instructions -> LLVM instructions, for one kernel body.
 *
 * reconv's pointers are flat byte addresses; here they are generic `i8*` pointers (address space
 * 0 on amdgcn), cast to typed pointers right before each access. Parameters of other address
 * spaces are cast to generic ones at the entry, allocas live in the target's alloca address space
 * and localmem becomes a module-level array in the local address space. Each reconv instruction
 * becomes the LLVM instruction(s) the importer turns back into it, so import -> export -> import
 * gives the same reconv IR: `gep p, i, 4` is a getelementptr over i32, a work-item query is a
 * call of the OpenCL function clang would call, flow blocks and branch annotations are metadata
 * on terminators (!reconv.flow, !reconv.divergent ...). Phis stay phis (the i1 phis of flow
 * blocks are the thesis's LLVM pass's). Values used before their definition (in a block order
 * that is not a dominance order) get placeholders that are replaced once defined. */
#include "bridge.h"
#include "llvm_compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LLVMTypeRef ex_type(exporter *ex, rc_type t) {
  switch (t) {
  case RC_I1: return LLVMInt1TypeInContext(ex->lctx);
  case RC_I8: return LLVMInt8TypeInContext(ex->lctx);
  case RC_I16: return LLVMInt16TypeInContext(ex->lctx);
  case RC_I32: return LLVMInt32TypeInContext(ex->lctx);
  case RC_I64: return LLVMInt64TypeInContext(ex->lctx);
  case RC_F32: return LLVMFloatTypeInContext(ex->lctx);
  case RC_F64: return LLVMDoubleTypeInContext(ex->lctx);
  case RC_PTR: return ex->ptr;
  default: return LLVMVoidTypeInContext(ex->lctx);
  }
}

LLVMValueRef ex_value(exporter *ex, const rc_value *v) {
  LLVMTypeRef t = ex_type(ex, (rc_type)v->type);
  switch (v->kind) {
  case RC_V_UNDEF: return LLVMGetUndef(t);
  case RC_V_CONST:
    if (rc_type_is_float((rc_type)v->type)) return LLVMConstReal(t, rc_const_fval(v));
    if (v->type == RC_PTR)
      return rc_const_ival(v) == 0
                 ? LLVMConstPointerNull(t)
                 : LLVMConstIntToPtr(LLVMConstInt(LLVMInt64TypeInContext(ex->lctx), (unsigned long long)rc_const_ival(v), 0), t);
    return LLVMConstInt(t, (unsigned long long)rc_const_ival(v), 1);
  default:
    break;
  }
  if (ex->vals[v->id]) return ex->vals[v->id];
  /* defined later: a placeholder in the scratch block, replaced by define() */
  LLVMBasicBlockRef at = LLVMGetInsertBlock(ex->b);
  LLVMPositionBuilderAtEnd(ex->b, ex->scratch);
  ex->vals[v->id] = LLVMBuildPhi(ex->b, t, "");
  ex->placeholder[v->id] = true;
  LLVMPositionBuilderAtEnd(ex->b, at);
  return ex->vals[v->id];
}

static void define(exporter *ex, const rc_value *v, LLVMValueRef l) {
  if (ex->placeholder[v->id]) {
    LLVMReplaceAllUsesWith(ex->vals[v->id], l);
    LLVMInstructionEraseFromParent(ex->vals[v->id]);
    ex->placeholder[v->id] = false;
  }
  ex->vals[v->id] = l;
}

LLVMValueRef ex_function(exporter *ex, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                         unsigned nparams, bool readnone, bool convergent) {
  LLVMTypeRef fty = LLVMFunctionType(ret, params, nparams, 0);
  LLVMValueRef f = LLVMGetNamedFunction(ex->lmod, name);
  if (f) {
    if (LLVMGlobalGetValueType(f) != fty) /* declared differently in the original module */
      return LLVMConstBitCast(f, LLVMPointerType(fty, LLVMGetPointerAddressSpace(LLVMTypeOf(f))));
    return f;
  }
  f = LLVMAddFunction(ex->lmod, name, fty);
  const char *attrs[] = {"nounwind", readnone ? "willreturn" : NULL, convergent ? "convergent" : NULL};
  for (int i = 0; i < 3; i++)
    if (attrs[i])
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                              LLVMCreateEnumAttribute(ex->lctx, LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i])), 0));
  if (readnone) LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, rc_llvm_readnone_attr(ex->lctx));
  return f;
}

static LLVMValueRef call(exporter *ex, LLVMValueRef f, LLVMTypeRef ret, LLVMTypeRef *ptys, LLVMValueRef *args,
                         unsigned n, const char *name) {
  LLVMTypeRef fty = LLVMFunctionType(ret, ptys, n, 0);
  return LLVMBuildCall2(ex->b, fty, f, args, n, LLVMGetTypeKind(ret) == LLVMVoidTypeKind ? "" : name);
}

static LLVMValueRef intrinsic(exporter *ex, const char *name, LLVMTypeRef *overloads, unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  return LLVMGetIntrinsicDeclaration(ex->lmod, id, overloads, n);
}

/* The flat pointer p as a pointer to `elem` (no instruction when it already is one). */
static LLVMValueRef typed_ptr(exporter *ex, LLVMValueRef p, LLVMTypeRef elem) {
  LLVMTypeRef want = LLVMPointerType(elem, ex->flat_as);
  if (LLVMIsABitCastInst(p) && LLVMTypeOf(LLVMGetOperand(p, 0)) == want) return LLVMGetOperand(p, 0);
  return LLVMBuildBitCast(ex->b, p, want, "");
}

static LLVMValueRef resize_int(exporter *ex, LLVMValueRef v, LLVMTypeRef to, bool sign) {
  unsigned from = LLVMGetIntTypeWidth(LLVMTypeOf(v)), want = LLVMGetIntTypeWidth(to);
  if (from == want) return v;
  if (from > want) return LLVMBuildTrunc(ex->b, v, to, "");
  return sign ? LLVMBuildSExt(ex->b, v, to, "") : LLVMBuildZExt(ex->b, v, to, "");
}

/* ---- calls of builtins ----------------------------------------------------------------------------------- */

static LLVMValueRef emit_query(exporter *ex, const rc_instr *i, const char *name) {
  uint32_t n;
  const bridge_query *q = bridge_query_table(&n);
  while (q->bi != i->pred) q++;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ex->lctx);
  bool dim = i->nops == 1;
  /* size_t for the work-item functions, uint for the subgroup ones */
  LLVMTypeRef ret = dim ? LLVMIntPtrTypeInContext(ex->lctx, ex->td) : i32;
  LLVMValueRef f = ex_function(ex, q->mangled, ret, &i32, dim, true, false);
  LLVMValueRef arg = dim ? ex_value(ex, i->ops[0]) : NULL;
  LLVMValueRef r = call(ex, f, ret, &i32, &arg, dim, name);
  return resize_int(ex, r, ex_type(ex, (rc_type)i->v.type), false);
}

static LLVMValueRef emit_math(exporter *ex, const rc_instr *i, const char *name) {
  uint32_t n;
  const bridge_math *mt = bridge_math_table(&n);
  while (mt->bi != i->pred) mt++;
  LLVMTypeRef t = ex_type(ex, (rc_type)i->v.type);
  LLVMTypeRef tys[4] = {t, t, t, LLVMInt1TypeInContext(ex->lctx)};
  LLVMValueRef args[4];
  unsigned na = i->nops;
  for (unsigned a = 0; a < na; a++) args[a] = ex_value(ex, i->ops[a]);
  if (mt->intrinsic) {
    LLVMValueRef f = intrinsic(ex, mt->intrinsic, &t, 1);
    if (i->pred == RC_BI_ABS || i->pred == RC_BI_CLZ || i->pred == RC_BI_CTZ) {
      tys[na] = tys[3]; /* "is INT_MIN / zero poison": no, reconv defines those cases */
      args[na++] = LLVMConstInt(tys[3], 0, 0);
    }
    return call(ex, f, t, tys, args, na, name);
  }
  /* no intrinsic (rsqrt): the OpenCL function, mangled as clang does */
  char mangled[64];
  snprintf(mangled, sizeof mangled, "_Z%zu%s%c", strlen(mt->opencl), mt->opencl,
           i->v.type == RC_F64 ? 'd' : 'f');
  return call(ex, ex_function(ex, mangled, t, tys, na, true, false), t, tys, args, na, name);
}

static LLVMValueRef emit_atomic(exporter *ex, const rc_instr *i, const char *name) {
  LLVMTypeRef t = ex_type(ex, (rc_type)i->v.type);
  LLVMValueRef p = typed_ptr(ex, ex_value(ex, i->ops[0]), t);
  LLVMAtomicOrdering sc = LLVMAtomicOrderingSequentiallyConsistent;
  if (i->pred == RC_BI_ATOMIC_CMPXCHG) {
    LLVMValueRef r = LLVMBuildAtomicCmpXchg(ex->b, p, ex_value(ex, i->ops[1]), ex_value(ex, i->ops[2]), sc, sc, 0);
    return LLVMBuildExtractValue(ex->b, r, 0, name);
  }
  LLVMAtomicRMWBinOp op;
  switch (i->pred) {
  case RC_BI_ATOMIC_ADD: op = LLVMAtomicRMWBinOpAdd; break;
  case RC_BI_ATOMIC_SUB: op = LLVMAtomicRMWBinOpSub; break;
  case RC_BI_ATOMIC_XCHG: op = LLVMAtomicRMWBinOpXchg; break;
  case RC_BI_ATOMIC_SMIN: op = LLVMAtomicRMWBinOpMin; break;
  case RC_BI_ATOMIC_SMAX: op = LLVMAtomicRMWBinOpMax; break;
  case RC_BI_ATOMIC_UMIN: op = LLVMAtomicRMWBinOpUMin; break;
  case RC_BI_ATOMIC_UMAX: op = LLVMAtomicRMWBinOpUMax; break;
  case RC_BI_ATOMIC_AND: op = LLVMAtomicRMWBinOpAnd; break;
  case RC_BI_ATOMIC_OR: op = LLVMAtomicRMWBinOpOr; break;
  default: op = LLVMAtomicRMWBinOpXor; break;
  }
  LLVMValueRef r = LLVMBuildAtomicRMW(ex->b, op, p, ex_value(ex, i->ops[1]), sc, 0);
  LLVMSetValueName2(r, name, strlen(name));
  return r;
}

static LLVMValueRef emit_memory_block(exporter *ex, const rc_instr *i) {
  LLVMValueRef len = ex_value(ex, i->ops[2]);
  if (LLVMGetIntTypeWidth(LLVMTypeOf(len)) < 32) len = LLVMBuildZExt(ex->b, len, LLVMInt32TypeInContext(ex->lctx), "");
  LLVMTypeRef lt = LLVMTypeOf(len), i1 = LLVMInt1TypeInContext(ex->lctx);
  LLVMValueRef args[4] = {ex_value(ex, i->ops[0]), ex_value(ex, i->ops[1]), len, LLVMConstInt(i1, 0, 0)};
  LLVMTypeRef tys[4] = {ex->ptr, LLVMTypeOf(args[1]), lt, i1};
  LLVMTypeRef over[3] = {ex->ptr, ex->ptr, lt};
  LLVMValueRef f = i->pred == RC_BI_MEMCPY ? intrinsic(ex, "llvm.memcpy", over, 3)
                                           : intrinsic(ex, "llvm.memset", (LLVMTypeRef[]){ex->ptr, lt}, 2);
  return call(ex, f, LLVMVoidTypeInContext(ex->lctx), tys, args, 4, "");
}

/* Can the synthesising exporter spell builtin b in LLVM IR (an OpenCL function or an intrinsic of
 * its tables)? The builtins of the LLVM path stay as the module had them (export_inplace.c). */
static bool exportable_builtin(rc_builtin b) {
  uint32_t n;
  switch (rc_builtin_get(b)->sig) {
  case RC_SIG_QUERY_DIM:
  case RC_SIG_QUERY: {
    const bridge_query *q = bridge_query_table(&n);
    for (uint32_t k = 0; k < n; k++)
      if (q[k].bi == b) return true;
    return false;
  }
  case RC_SIG_VOID0: case RC_SIG_ATOMIC: case RC_SIG_CMPXCHG: case RC_SIG_MEMCPY: case RC_SIG_MEMSET:
    return true;
  case RC_SIG_OTHER: return false;
  default: {
    const bridge_math *mt = bridge_math_table(&n);
    for (uint32_t k = 0; k < n; k++)
      if (mt[k].bi == b) return true;
    return false;
  }
  }
}

static LLVMValueRef emit_call(exporter *ex, const rc_instr *i, const char *name) {
  switch (rc_builtin_get((rc_builtin)i->pred)->sig) {
  case RC_SIG_QUERY_DIM:
  case RC_SIG_QUERY: return emit_query(ex, i, name);
  case RC_SIG_VOID0: { /* barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE) */
    LLVMTypeRef i32 = LLVMInt32TypeInContext(ex->lctx);
    LLVMValueRef f = ex_function(ex, "_Z7barrierj", LLVMVoidTypeInContext(ex->lctx), &i32, 1, false, true);
    LLVMValueRef flags = LLVMConstInt(i32, 3, 0);
    return call(ex, f, LLVMVoidTypeInContext(ex->lctx), &i32, &flags, 1, "");
  }
  case RC_SIG_ATOMIC:
  case RC_SIG_CMPXCHG: return emit_atomic(ex, i, name);
  case RC_SIG_MEMCPY:
  case RC_SIG_MEMSET: return emit_memory_block(ex, i);
  default: return emit_math(ex, i, name);
  }
}

/* ---- instructions ---------------------------------------------------------------------------------------- */

LLVMOpcode ex_llvm_opcode(rc_opcode op) {
  static const LLVMOpcode map[RC_OP_COUNT] = {
      [RC_OP_ADD] = LLVMAdd, [RC_OP_SUB] = LLVMSub, [RC_OP_MUL] = LLVMMul, [RC_OP_SDIV] = LLVMSDiv,
      [RC_OP_UDIV] = LLVMUDiv, [RC_OP_SREM] = LLVMSRem, [RC_OP_UREM] = LLVMURem, [RC_OP_AND] = LLVMAnd,
      [RC_OP_OR] = LLVMOr, [RC_OP_XOR] = LLVMXor, [RC_OP_SHL] = LLVMShl, [RC_OP_LSHR] = LLVMLShr,
      [RC_OP_ASHR] = LLVMAShr, [RC_OP_FADD] = LLVMFAdd, [RC_OP_FSUB] = LLVMFSub, [RC_OP_FMUL] = LLVMFMul,
      [RC_OP_FDIV] = LLVMFDiv, [RC_OP_FREM] = LLVMFRem, [RC_OP_TRUNC] = LLVMTrunc, [RC_OP_ZEXT] = LLVMZExt,
      [RC_OP_SEXT] = LLVMSExt, [RC_OP_FPTRUNC] = LLVMFPTrunc, [RC_OP_FPEXT] = LLVMFPExt,
      [RC_OP_FPTOSI] = LLVMFPToSI, [RC_OP_FPTOUI] = LLVMFPToUI, [RC_OP_SITOFP] = LLVMSIToFP,
      [RC_OP_UITOFP] = LLVMUIToFP, [RC_OP_PTRTOINT] = LLVMPtrToInt, [RC_OP_INTTOPTR] = LLVMIntToPtr,
      [RC_OP_BITCAST] = LLVMBitCast, [RC_OP_ADDRSPACECAST] = LLVMAddrSpaceCast};
  return map[op];
}

LLVMIntPredicate ex_icmp_pred(rc_cmp c) {
  static const LLVMIntPredicate map[] = {
      [RC_CMP_EQ] = LLVMIntEQ, [RC_CMP_NE] = LLVMIntNE, [RC_CMP_SLT] = LLVMIntSLT, [RC_CMP_SLE] = LLVMIntSLE,
      [RC_CMP_SGT] = LLVMIntSGT, [RC_CMP_SGE] = LLVMIntSGE, [RC_CMP_ULT] = LLVMIntULT, [RC_CMP_ULE] = LLVMIntULE,
      [RC_CMP_UGT] = LLVMIntUGT, [RC_CMP_UGE] = LLVMIntUGE};
  return map[c];
}

LLVMRealPredicate ex_fcmp_pred(rc_cmp c) {
  static const LLVMRealPredicate map[RC_CMP_COUNT] = {
      [RC_CMP_OEQ] = LLVMRealOEQ, [RC_CMP_ONE] = LLVMRealONE, [RC_CMP_OLT] = LLVMRealOLT,
      [RC_CMP_OLE] = LLVMRealOLE, [RC_CMP_OGT] = LLVMRealOGT, [RC_CMP_OGE] = LLVMRealOGE,
      [RC_CMP_ORD] = LLVMRealORD, [RC_CMP_UEQ] = LLVMRealUEQ, [RC_CMP_UNE] = LLVMRealUNE,
      [RC_CMP_FULT] = LLVMRealULT, [RC_CMP_FULE] = LLVMRealULE, [RC_CMP_FUGT] = LLVMRealUGT,
      [RC_CMP_FUGE] = LLVMRealUGE, [RC_CMP_UNO] = LLVMRealUNO, [RC_CMP_FTRUE] = LLVMRealPredicateTrue,
      [RC_CMP_FFALSE] = LLVMRealPredicateFalse};
  return map[c];
}

/* getelementptr over an element type of `scale` bytes, so the importer reads the scale back. */
/* One index of a .rir gep: base + sext(idx) * s. */
static LLVMValueRef gep_index(exporter *ex, LLVMValueRef base, LLVMValueRef idx, int64_t s, const char *name) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(ex->lctx), i64 = LLVMInt64TypeInContext(ex->lctx);
  if (s == 1) return LLVMBuildGEP2(ex->b, i8, base, &idx, 1, name);
  if (s <= 0) {
    LLVMValueRef off = LLVMBuildMul(ex->b, LLVMBuildSExtOrBitCast(ex->b, idx, i64, ""),
                                    LLVMConstInt(i64, (unsigned long long)s, 1), "");
    return LLVMBuildGEP2(ex->b, i8, base, &off, 1, name);
  }
  LLVMTypeRef et = s == 2 ? LLVMInt16TypeInContext(ex->lctx) : s == 4 ? LLVMInt32TypeInContext(ex->lctx)
                   : s == 8 ? i64 : LLVMArrayType(i8, (unsigned)s);
  LLVMValueRef g = LLVMBuildGEP2(ex->b, et, typed_ptr(ex, base, et), &idx, 1, name);
  return LLVMBuildBitCast(ex->b, g, ex->ptr, "");
}

/* A .rir gep: every index, then the constant byte offset (imm), which the export once dropped
 * (`gep %a, i32 %i, 4, offset 4` read a[i] instead of a[i + 1] on the LLVM path). What LLVM gives
 * keeps its own instruction. */
static LLVMValueRef emit_gep(exporter *ex, const rc_instr *i, const char *name) {
  LLVMValueRef r = ex_value(ex, i->ops[0]);
  for (uint32_t j = 1; j < i->nops; j++)
    r = gep_index(ex, r, ex_value(ex, i->ops[j]), i->cases[j - 1], j + 1 == i->nops && !i->imm ? name : "");
  if (i->imm) {
    LLVMTypeRef i8 = LLVMInt8TypeInContext(ex->lctx), i64 = LLVMInt64TypeInContext(ex->lctx);
    LLVMValueRef off = LLVMConstInt(i64, (unsigned long long)i->imm, 1);
    r = LLVMBuildGEP2(ex->b, i8, r, &off, 1, name);
  }
  return r;
}

static LLVMValueRef emit_localmem(exporter *ex, const rc_instr *i, const char *name) {
  LLVMTypeRef at = LLVMArrayType(LLVMInt8TypeInContext(ex->lctx), (unsigned)i->imm);
  const char *gname = *name ? name : "localmem";
  /* the original kernel's array of that name, unused since its body was replaced */
  LLVMValueRef old = LLVMGetNamedGlobal(ex->lmod, gname);
  if (old && !LLVMGetFirstUse(old) && LLVMGetLinkage(old) == LLVMInternalLinkage) LLVMDeleteGlobal(old);
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(ex->lmod, at, gname, ex->local_as);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetInitializer(g, LLVMGetUndef(at));
  LLVMSetAlignment(g, 16);
  return LLVMConstPointerCast(g, ex->ptr);
}

void ex_annotate(exporter *ex, const rc_instr *i, LLVMValueRef term) {
  LLVMValueRef empty = LLVMMetadataAsValue(ex->lctx, LLVMMDNodeInContext2(ex->lctx, NULL, 0));
  uint32_t bf = i->parent->bflags;
  if (bf & RC_BLOCK_FLOW) LLVMSetMetadata(term, ex->md_flow, empty);
  if (bf & RC_BLOCK_GUARD) LLVMSetMetadata(term, ex->md_guard, empty);
  if (bf & RC_BLOCK_VIRTUAL) LLVMSetMetadata(term, ex->md_virtual, empty);
  if (i->iflags & RC_IF_UNIFORM) LLVMSetMetadata(term, ex->md_uniform, empty);
  if (i->iflags & RC_IF_DIVERGENT) LLVMSetMetadata(term, ex->md_divergent, empty);
}

static LLVMValueRef emit_terminator(exporter *ex, const rc_instr *i) {
  LLVMBasicBlockRef *bb = ex->blocks;
  switch ((rc_opcode)i->op) {
  case RC_OP_BR:
    return LLVMBuildCondBr(ex->b, ex_value(ex, i->ops[0]), bb[i->targets[0]->id], bb[i->targets[1]->id]);
  case RC_OP_JMP: return LLVMBuildBr(ex->b, bb[i->targets[0]->id]);
  case RC_OP_RET: return LLVMBuildRetVoid(ex->b);
  case RC_OP_UNREACHABLE: return LLVMBuildUnreachable(ex->b);
  default: { /* switch */
    LLVMValueRef v = ex_value(ex, i->ops[0]);
    LLVMValueRef sw = LLVMBuildSwitch(ex->b, v, bb[i->targets[0]->id], i->ntargets - 1);
    for (uint32_t c = 1; c < i->ntargets; c++)
      LLVMAddCase(sw, LLVMConstInt(LLVMTypeOf(v), (unsigned long long)i->cases[c - 1], 1), bb[i->targets[c]->id]);
    return sw;
  }
  }
}

static LLVMValueRef emit_phi(exporter *ex, const rc_instr *i, const char *name) {
  LLVMValueRef phi = LLVMBuildPhi(ex->b, ex_type(ex, (rc_type)i->v.type), name);
  for (uint32_t o = 0; o < i->nops; o++) {
    LLVMValueRef v = ex_value(ex, i->ops[o]);
    LLVMBasicBlockRef from = ex->blocks[i->targets[o]->id];
    /* LLVM lists an incoming value per edge; reconv one per predecessor block */
    for (uint32_t e = rc_block_count_pred(i->parent, i->targets[o]); e > 0; e--) LLVMAddIncoming(phi, &v, &from, 1);
  }
  return phi;
}

/* Does the synthesising exporter know type t (reconv's basic types)? */
static bool basic_type(rc_type t) {
  switch (t) {
  case RC_VOID: case RC_I1: case RC_I8: case RC_I16: case RC_I32: case RC_I64: case RC_F32: case RC_F64:
  case RC_PTR: case RC_MASK:
    return true;
  default: return false;
  }
}

static int emit(exporter *ex, const rc_instr *i) {
  const char *name = i->v.name ? i->v.name : "";
  rc_opcode op = (rc_opcode)i->op;
  LLVMBuilderRef b = ex->b;
  LLVMTypeRef t = ex_type(ex, (rc_type)i->v.type);
  LLVMValueRef r = NULL;
  /* LLVM's own types (iN, pointers into address spaces, globals ...) in a kernel written as .rir:
   * the module is written by editing the one a kernel came from (export_inplace.c) */
  bool basic = basic_type((rc_type)i->v.type);
  for (uint32_t o = 0; basic && o < i->nops; o++)
    basic = basic_type((rc_type)i->ops[o]->type) && i->ops[o]->kind != RC_V_GLOBAL;
  if (!basic)
    return rc_report(ex->ctx, RC_SEV_ERROR, ex->k->mod->filename, i->line, i->col,
                     "kernel @%s: `%s` uses LLVM's types or globals; a kernel written as .rir with them "
                     "cannot be exported to LLVM IR yet (kernels read from LLVM IR keep theirs)",
                     ex->k->name, rc_opcode_name(op));
  if (rc_opcode_is_terminator(op)) {
    if (op == RC_OP_BREXECZ) goto wave;
    ex_annotate(ex, i, emit_terminator(ex, i));
    return 0;
  }
  if (op == RC_OP_ANDN) {
    LLVMValueRef y = LLVMBuildNot(b, ex_value(ex, i->ops[1]), "");
    r = LLVMBuildAnd(b, ex_value(ex, i->ops[0]), y, name);
  } else if (rc_opcode_is_int_binop(op) || rc_opcode_is_float_binop(op)) {
    r = LLVMBuildBinOp(b, ex_llvm_opcode(op), ex_value(ex, i->ops[0]), ex_value(ex, i->ops[1]), name);
  } else if (op == RC_OP_BITCAST && (i->v.type == RC_PTR || i->ops[0]->type == RC_PTR)) {
    /* reconv lets 64-bit values and pointers be bit casts of each other; LLVM says so this way */
    LLVMValueRef x = ex_value(ex, i->ops[0]);
    r = i->v.type == i->ops[0]->type ? x
        : i->v.type == RC_PTR        ? LLVMBuildIntToPtr(b, x, t, name)
                                     : LLVMBuildPtrToInt(b, x, t, name);
  } else if (rc_opcode_is_cast(op)) {
    r = LLVMBuildCast(b, ex_llvm_opcode(op), ex_value(ex, i->ops[0]), t, name);
  } else {
    switch (op) {
    case RC_OP_FNEG: r = LLVMBuildFNeg(b, ex_value(ex, i->ops[0]), name); break;
    case RC_OP_ICMP:
      r = LLVMBuildICmp(b, ex_icmp_pred((rc_cmp)i->pred), ex_value(ex, i->ops[0]), ex_value(ex, i->ops[1]), name);
      break;
    case RC_OP_FCMP:
      r = LLVMBuildFCmp(b, ex_fcmp_pred((rc_cmp)i->pred), ex_value(ex, i->ops[0]), ex_value(ex, i->ops[1]), name);
      break;
    case RC_OP_SELECT:
      r = LLVMBuildSelect(b, ex_value(ex, i->ops[0]), ex_value(ex, i->ops[1]), ex_value(ex, i->ops[2]), name);
      break;
    case RC_OP_LOAD:
      r = LLVMBuildLoad2(b, t, typed_ptr(ex, ex_value(ex, i->ops[0]), t), name);
      LLVMSetAlignment(r, rc_type_size((rc_type)i->v.type));
      break;
    case RC_OP_STORE: {
      LLVMTypeRef vt = ex_type(ex, (rc_type)i->ops[0]->type);
      LLVMValueRef s = LLVMBuildStore(b, ex_value(ex, i->ops[0]), typed_ptr(ex, ex_value(ex, i->ops[1]), vt));
      LLVMSetAlignment(s, rc_type_size((rc_type)i->ops[0]->type));
      return 0;
    }
    case RC_OP_GEP: r = emit_gep(ex, i, name); break;
    case RC_OP_LOCALMEM: r = emit_localmem(ex, i, name); break;
    case RC_OP_ALLOCA: return 0; /* placed in the entry block beforehand */
    case RC_OP_CALL:
      if (!exportable_builtin((rc_builtin)i->pred))
        return rc_report(ex->ctx, RC_SEV_ERROR, ex->k->mod->filename, i->line, i->col,
                         "kernel @%s: @%s in a kernel written as .rir cannot be exported to LLVM IR yet "
                         "(kernels read from LLVM IR keep their calls)", ex->k->name,
                         rc_builtin_get((rc_builtin)i->pred)->name);
      r = emit_call(ex, i, name);
      break;
    case RC_OP_PHI: r = emit_phi(ex, i, name); break;
    case RC_OP_FREEZE: r = LLVMBuildFreeze(b, ex_value(ex, i->ops[0]), name); break;
    case RC_OP_BALLOT: case RC_OP_EXEC: case RC_OP_SETEXEC: case RC_OP_RGET: case RC_OP_RSET: goto wave;
    default:
      /* what only the LLVM path makes (vectors, aggregates, globals, calls of functions, opaque
       * instructions) is written by editing the module it came from (export_inplace.c) */
      return rc_report(ex->ctx, RC_SEV_ERROR, ex->k->mod->filename, i->line, i->col,
                       "kernel @%s: `%s` in a kernel written as .rir cannot be exported to LLVM IR yet "
                       "(kernels read from LLVM IR keep theirs)", ex->k->name, rc_opcode_name(op));
    }
  }
  if (i->v.type != RC_VOID) define(ex, &i->v, r);
  return 0;
wave:
  return rc_report(ex->ctx, RC_SEV_ERROR, ex->k->mod->filename, i->line, i->col,
                   "kernel @%s: `%s` is a wave-level instruction; only thread-level kernels can be "
                   "exported to LLVM IR", ex->k->name, rc_opcode_name(op));
}

/* Parameters as flat pointers, and every alloca at the top of the entry block (static allocas). */
static void emit_entry(exporter *ex) {
  LLVMPositionBuilderAtEnd(ex->b, ex->blocks[0]);
  for (uint32_t p = 0; p < ex->k->nparams; p++) {
    LLVMValueRef a = LLVMGetParam(ex->fn, p);
    const rc_value *v = ex->k->params[p];
    ex->vals[v->id] = v->type == RC_PTR ? LLVMBuildPointerCast(ex->b, a, ex->ptr, "") : a;
  }
  LLVMValueRef first = LLVMGetFirstInstruction(ex->blocks[0]);
  for (uint32_t bi = 0; bi < ex->k->nblocks; bi++)
    for (const rc_instr *i = ex->k->blocks[bi]->first; i; i = i->next) {
      if (i->op != RC_OP_ALLOCA) continue;
      if (first) LLVMPositionBuilderBefore(ex->b, first); else LLVMPositionBuilderAtEnd(ex->b, ex->blocks[0]);
      LLVMValueRef a = LLVMBuildAlloca(ex->b, LLVMArrayType(LLVMInt8TypeInContext(ex->lctx), (unsigned)i->imm),
                                       i->v.name ? i->v.name : "");
      LLVMSetAlignment(a, 16);
      define(ex, &i->v, LLVMBuildPointerCast(ex->b, a, ex->ptr, ""));
    }
}

int ex_body(exporter *ex) {
  const rc_kernel *k = ex->k;
  ex->vals = rc_xcalloc(k->nvalues ? k->nvalues : 1, sizeof *ex->vals);
  ex->placeholder = rc_xcalloc(k->nvalues ? k->nvalues : 1, sizeof *ex->placeholder);
  ex->blocks = rc_xcalloc(k->nblocks ? k->nblocks : 1, sizeof *ex->blocks);
  for (uint32_t bi = 0; bi < k->nblocks; bi++)
    ex->blocks[bi] = LLVMAppendBasicBlockInContext(ex->lctx, ex->fn, k->blocks[bi]->name);
  ex->scratch = LLVMAppendBasicBlockInContext(ex->lctx, ex->fn, "reconv.placeholders");
  emit_entry(ex);
  int rc = 0;
  for (uint32_t bi = 0; bi < k->nblocks && rc == 0; bi++) {
    LLVMPositionBuilderAtEnd(ex->b, ex->blocks[bi]);
    for (const rc_instr *i = k->blocks[bi]->first; i && rc == 0; i = i->next) rc = emit(ex, i);
  }
  for (uint32_t v = 0; v < k->nvalues; v++)
    if (ex->placeholder[v]) { /* only after an error, or a use of a value no block defines */
      LLVMReplaceAllUsesWith(ex->vals[v], LLVMGetUndef(LLVMTypeOf(ex->vals[v])));
      LLVMInstructionEraseFromParent(ex->vals[v]);
      if (rc == 0)
        rc = rc_report(ex->ctx, RC_SEV_ERROR, k->mod->filename, 0, 0,
                       "kernel @%s uses a value that no instruction defines", k->name);
    }
  LLVMDeleteBasicBlock(ex->scratch);
  free(ex->vals);
  free(ex->placeholder);
  free(ex->blocks);
  ex->vals = NULL;
  ex->placeholder = NULL;
  ex->blocks = NULL;
  return rc;
}
