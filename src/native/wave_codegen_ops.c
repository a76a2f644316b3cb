/* The SIMD wave backend: arithmetic, comparisons, casts and select (wave_codegen.h), with the
 * semantics of docs/ir.md exactly, so that the memory a kernel leaves is the interpreter's:
 *
 * - integers wrap (no nsw/nuw), shift amounts are taken modulo the width (LLVM makes a shift by the
 *   width or more poison), fptosi/fptoui saturate and give 0 for NaN (llvm.fpto[su]i.sat);
 * - integer division faults on a lane that divides by zero or overflows (INT_MIN / -1), as in the
 *   simulators, and never on an inactive lane: its divisor becomes 1 first (a vector division is W
 *   scalar divisions on x86, and an idle lane dividing by zero would trap: ISPC's SIGFPE, #2292);
 * - floats are IEEE operations of their type; f16 computes in float and rounds once to half, which
 *   is the correctly rounded half for + - * / (24 >= 2 * 11 + 2 bits), as the simulators' double;
 *   frem is C's fmod (exact). */
#include "wave_codegen.h"

static LLVMIntPredicate icmp_pred(rc_cmp c) {
  switch (c) {
  case RC_CMP_EQ: return LLVMIntEQ;
  case RC_CMP_NE: return LLVMIntNE;
  case RC_CMP_SLT: return LLVMIntSLT;
  case RC_CMP_SLE: return LLVMIntSLE;
  case RC_CMP_SGT: return LLVMIntSGT;
  case RC_CMP_SGE: return LLVMIntSGE;
  case RC_CMP_ULT: return LLVMIntULT;
  case RC_CMP_ULE: return LLVMIntULE;
  case RC_CMP_UGT: return LLVMIntUGT;
  default: return LLVMIntUGE;
  }
}

static LLVMRealPredicate fcmp_pred(rc_cmp c) {
  switch (c) {
  case RC_CMP_OEQ: return LLVMRealOEQ;
  case RC_CMP_ONE: return LLVMRealONE;
  case RC_CMP_OLT: return LLVMRealOLT;
  case RC_CMP_OLE: return LLVMRealOLE;
  case RC_CMP_OGT: return LLVMRealOGT;
  case RC_CMP_OGE: return LLVMRealOGE;
  case RC_CMP_ORD: return LLVMRealORD;
  case RC_CMP_UEQ: return LLVMRealUEQ;
  case RC_CMP_UNE: return LLVMRealUNE;
  case RC_CMP_FULT: return LLVMRealULT;
  case RC_CMP_FULE: return LLVMRealULE;
  case RC_CMP_FUGT: return LLVMRealUGT;
  case RC_CMP_FUGE: return LLVMRealUGE;
  case RC_CMP_UNO: return LLVMRealUNO;
  case RC_CMP_FTRUE: return LLVMRealPredicateTrue;
  default: return LLVMRealPredicateFalse;
  }
}

/* A constant of the instruction's type (splat for vector instructions). */
static LLVMValueRef const_like(wcg *g, LLVMTypeRef t, uint64_t v, bool vec) {
  LLVMValueRef c = LLVMConstInt(t, v, 0);
  return vec ? wcg_splat(g, c) : c;
}

/* The shift amount modulo the width (docs/ir.md): a power of two masks, i33 and the like divide. */
static LLVMValueRef shift_amount(wcg *g, LLVMValueRef y, LLVMTypeRef t, unsigned bits, bool vec) {
  if ((bits & (bits - 1)) == 0) return LLVMBuildAnd(g->b, y, const_like(g, t, bits - 1, vec), "");
  return LLVMBuildURem(g->b, y, const_like(g, t, bits, vec), "");
}

/* The most negative integer of the width, as the simulators print it (an i64). */
static LLVMValueRef smin_of(wcg *g, unsigned bits) {
  return wcg_const_i64(g, bits >= 64 ? (uint64_t)1 << 63 : (uint64_t)0 - ((uint64_t)1 << (bits - 1)));
}

static bool is_const_divisor(const rc_value *y, bool is_signed) {
  if (y->kind != RC_V_CONST) return false;
  unsigned bits = rc_type_bits((rc_type)y->type);
  int64_t v = rc_const_ival(y);
  if (bits == 1) v &= 1;
  return v != 0 && !(is_signed && (bits == 1 ? v == 1 : v == -1));
}

/* A vector of integers of up to 32 bits divided by a vector of them (no lane divides by zero or
 * overflows: the caller made sure): in double, which x86's vector unit divides (the integer
 * divisions would be one scalar idiv per lane). Exact: |x| <= 2^32 and a quotient that is not an
 * integer lies at least 1/|y| from one, while the rounding error of x/y in double is at most
 * |x/y| 2^-53 <= 2^-21/|y|; so truncating the double quotient gives the integer one. The remainder
 * is x - q y, in the integers' own arithmetic. */
static LLVMValueRef divide_in_double(wcg *g, rc_opcode op, LLVMValueRef x, LLVMValueRef y) {
  bool is_signed = op == RC_OP_SDIV || op == RC_OP_SREM;
  LLVMTypeRef dt = LLVMVectorType(g->f64, g->W), it = LLVMTypeOf(x);
  LLVMValueRef xd = is_signed ? LLVMBuildSIToFP(g->b, x, dt, "") : LLVMBuildUIToFP(g->b, x, dt, "");
  LLVMValueRef yd = is_signed ? LLVMBuildSIToFP(g->b, y, dt, "") : LLVMBuildUIToFP(g->b, y, dt, "");
  LLVMValueRef qd = LLVMBuildFDiv(g->b, xd, yd, "");
  LLVMValueRef q = is_signed ? LLVMBuildFPToSI(g->b, qd, it, "") : LLVMBuildFPToUI(g->b, qd, it, "");
  if (op == RC_OP_SDIV || op == RC_OP_UDIV) return q;
  return LLVMBuildSub(g->b, x, LLVMBuildMul(g->b, q, y, ""), "");
}

/* sdiv, udiv, srem, urem: the active lanes' faults first, then the division with the inactive
 * lanes' divisors replaced by 1. A constant divisor other than 0 and -1 needs neither. */
static LLVMValueRef divide(wcg *g, const rc_instr *i, bool vec) {
  rc_opcode op = (rc_opcode)i->op;
  bool is_signed = op == RC_OP_SDIV || op == RC_OP_SREM;
  LLVMValueRef x = wcg_operand(g, i->ops[0], vec), y = wcg_operand(g, i->ops[1], vec);
  LLVMTypeRef t = wcg_type(g, (rc_type)i->v.type);
  unsigned bits = rc_type_bits((rc_type)i->v.type);
  if (!is_const_divisor(i->ops[1], is_signed)) {
    LLVMValueRef zero = LLVMBuildICmp(g->b, LLVMIntEQ, y, LLVMConstNull(LLVMTypeOf(y)), "");
    LLVMValueRef ovf = NULL;
    if (is_signed) {
      uint64_t min = bits >= 64 ? (uint64_t)1 << 63 : (uint64_t)1 << (bits - 1);
      ovf = LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, x, const_like(g, t, min, vec), ""),
                         LLVMBuildICmp(g->b, LLVMIntEQ, y, const_like(g, t, ~(uint64_t)0, vec), ""), "");
    }
    if (vec) {
      LLVMValueRef e = wcg_exec(g);
      LLVMValueRef bad = LLVMBuildAnd(g->b, wcg_lanes_mask(g, zero), e, "");
      wcg_fault_if(g, LLVMBuildICmp(g->b, LLVMIntNE, bad, wcg_const_i64(g, 0), ""), i, RC_WAVE_FAULT_DIV_ZERO,
                   wcg_first_lane(g, bad), NULL, NULL);
      if (ovf) {
        bad = LLVMBuildAnd(g->b, wcg_lanes_mask(g, ovf), e, "");
        wcg_fault_if(g, LLVMBuildICmp(g->b, LLVMIntNE, bad, wcg_const_i64(g, 0), ""), i,
                     RC_WAVE_FAULT_DIV_OVERFLOW, wcg_first_lane(g, bad), smin_of(g, bits), NULL);
      }
      y = LLVMBuildSelect(g->b, wcg_mask_lanes(g, e), y, const_like(g, t, 1, true), "divisor");
    } else {
      wcg_fault_if(g, zero, i, RC_WAVE_FAULT_DIV_ZERO, NULL, NULL, NULL);
      if (ovf) wcg_fault_if(g, ovf, i, RC_WAVE_FAULT_DIV_OVERFLOW, NULL, smin_of(g, bits), NULL);
    }
  }
  if (vec && bits > 1 && bits <= 32 && !is_const_divisor(i->ops[1], is_signed)) return divide_in_double(g, op, x, y);
  switch (op) {
  case RC_OP_SDIV: return LLVMBuildSDiv(g->b, x, y, "");
  case RC_OP_UDIV: return LLVMBuildUDiv(g->b, x, y, "");
  case RC_OP_SREM: return LLVMBuildSRem(g->b, x, y, "");
  default: return LLVMBuildURem(g->b, x, y, "");
  }
}

/* fptosi/fptoui: saturating, NaN to 0 (docs/ir.md), which is what llvm.fpto[su]i.sat computes. */
static LLVMValueRef float_to_int(wcg *g, LLVMValueRef x, LLVMTypeRef to, bool is_signed) {
  LLVMTypeRef ov[2] = {to, LLVMTypeOf(x)};
  return wcg_intrinsic(g, is_signed ? "llvm.fptosi.sat" : "llvm.fptoui.sat", ov, 2, &x, 1);
}

/* The same bits as another type: through an integer where one side is a pointer (LLVM's bitcast
 * does not cross between pointers and non-pointers). */
static LLVMValueRef reinterpret(wcg *g, LLVMValueRef x, rc_type from, rc_type to, bool vec) {
  LLVMTypeRef i64 = vec ? LLVMVectorType(g->i64, g->W) : g->i64;
  LLVMTypeRef lt = vec ? wcg_vtype(g, to) : wcg_type(g, to);
  if (rc_type_is_ptr(from) && rc_type_is_ptr(to)) return x;
  if (rc_type_is_ptr(from)) {
    x = LLVMBuildPtrToInt(g->b, x, i64, "");
    return to == RC_I64 ? x : LLVMBuildBitCast(g->b, x, lt, "");
  }
  if (rc_type_is_ptr(to)) {
    if (from != RC_I64) x = LLVMBuildBitCast(g->b, x, i64, "");
    return LLVMBuildIntToPtr(g->b, x, lt, "");
  }
  return LLVMBuildBitCast(g->b, x, lt, "");
}

static LLVMValueRef cast(wcg *g, const rc_instr *i, bool vec) {
  rc_type from = (rc_type)i->ops[0]->type, to = (rc_type)i->v.type;
  LLVMValueRef x = wcg_operand(g, i->ops[0], vec);
  LLVMTypeRef lt = vec ? wcg_vtype(g, to) : wcg_type(g, to);
  switch ((rc_opcode)i->op) {
  case RC_OP_TRUNC: return LLVMBuildTrunc(g->b, x, lt, "");
  case RC_OP_ZEXT: return LLVMBuildZExt(g->b, x, lt, "");
  case RC_OP_SEXT: return LLVMBuildSExt(g->b, x, lt, "");
  case RC_OP_FPTRUNC: return LLVMBuildFPTrunc(g->b, x, lt, "");
  case RC_OP_FPEXT: return LLVMBuildFPExt(g->b, x, lt, "");
  case RC_OP_FPTOSI: return float_to_int(g, x, lt, true);
  case RC_OP_FPTOUI: return float_to_int(g, x, lt, false);
  case RC_OP_SITOFP: return LLVMBuildSIToFP(g->b, x, lt, "");
  case RC_OP_UITOFP: return LLVMBuildUIToFP(g->b, x, lt, "");
  case RC_OP_PTRTOINT: return LLVMBuildPtrToInt(g->b, x, lt, "");
  case RC_OP_INTTOPTR: return LLVMBuildIntToPtr(g->b, x, lt, "");
  case RC_OP_ADDRSPACECAST: return x; /* one flat address map */
  default: return reinterpret(g, x, from, to, vec); /* bitcast */
  }
}

LLVMValueRef wcg_emit_op(wcg *g, const rc_instr *i, bool scalar) {
  bool vec = !scalar;
  rc_opcode op = (rc_opcode)i->op;
  if (rc_opcode_is_cast(op)) return cast(g, i, vec);
  switch (op) {
  case RC_OP_FREEZE: return wcg_operand(g, i->ops[0], vec); /* reconv's values are never poison */
  case RC_OP_FNEG: return LLVMBuildFNeg(g->b, wcg_operand(g, i->ops[0], vec), "");
  case RC_OP_SELECT: {
    const rc_value *c = i->ops[0];
    LLVMValueRef cv = vec && !wave_value_is_scalar(c) ? wcg_scalar(g, c) : wcg_scalar(g, c);
    return LLVMBuildSelect(g->b, cv, wcg_operand(g, i->ops[1], vec), wcg_operand(g, i->ops[2], vec), "");
  }
  case RC_OP_SDIV: case RC_OP_UDIV: case RC_OP_SREM: case RC_OP_UREM: return divide(g, i, vec);
  default: break;
  }
  LLVMValueRef x = wcg_operand(g, i->ops[0], vec), y = wcg_operand(g, i->ops[1], vec);
  rc_type t = (rc_type)i->v.type;
  switch (op) {
  case RC_OP_ADD: return LLVMBuildAdd(g->b, x, y, "");
  case RC_OP_SUB: return LLVMBuildSub(g->b, x, y, "");
  case RC_OP_MUL: return LLVMBuildMul(g->b, x, y, "");
  case RC_OP_AND: return LLVMBuildAnd(g->b, x, y, "");
  case RC_OP_OR: return LLVMBuildOr(g->b, x, y, "");
  case RC_OP_XOR: return LLVMBuildXor(g->b, x, y, "");
  case RC_OP_ANDN: return LLVMBuildAnd(g->b, x, LLVMBuildNot(g->b, y, ""), "");
  case RC_OP_SHL: case RC_OP_LSHR: case RC_OP_ASHR: {
    unsigned bits = rc_type_bits(t);
    if (bits == 1) return x; /* every shift of an i1 is by 0 */
    LLVMValueRef amt = shift_amount(g, y, wcg_type(g, t), bits, vec);
    return op == RC_OP_SHL ? LLVMBuildShl(g->b, x, amt, "") : op == RC_OP_LSHR ? LLVMBuildLShr(g->b, x, amt, "")
                                                                              : LLVMBuildAShr(g->b, x, amt, "");
  }
  case RC_OP_FADD: return LLVMBuildFAdd(g->b, x, y, "");
  case RC_OP_FSUB: return LLVMBuildFSub(g->b, x, y, "");
  case RC_OP_FMUL: return LLVMBuildFMul(g->b, x, y, "");
  case RC_OP_FDIV: return LLVMBuildFDiv(g->b, x, y, "");
  case RC_OP_FREM: return LLVMBuildFRem(g->b, x, y, "");
  case RC_OP_ICMP:
    if (i->ops[0]->type == RC_MASK) /* masks compare as their bits */
      x = wcg_lanes_mask(g, x), y = wcg_lanes_mask(g, y);
    return LLVMBuildICmp(g->b, icmp_pred((rc_cmp)i->pred), x, y, "");
  case RC_OP_FCMP: return LLVMBuildFCmp(g->b, fcmp_pred((rc_cmp)i->pred), x, y, "");
  default: return NULL; /* refused before code generation (wave_native.c) */
  }
}
