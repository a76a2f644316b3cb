/* The SIMD wave backend: OpenCL's integer functions and conversions of the long tail
 * (wave_codegen.h), as vector instructions instead of a call of the interpreter's function per
 * active lane. Each computes what src/sim/builtins.c computes ("Integer functions of the long
 * tail", convert), bit for bit: the integer functions on integers of 2 to 64 bits (mul_hi and
 * mad_hi up to 32 bits, which they widen to twice the width), the conversions between integers of
 * 8 to 64 bits, f32 and f64 in the default rounding (and float to integer in every mode); anything
 * else (mad_sat, 64-bit mul_hi, f16, a directed rounding of a float result) stays with the per-lane
 * call. On int_ops (the corpus's misc/int_builtins.cl) the per-lane calls made the wave rows 126
 * times slower than pocl, on sobel_filter (uchar4 to float4 and back) 72 times. */
#include "wave_codegen.h"

typedef struct int_ops {
  wcg *g;
  LLVMTypeRef t;  /* the operands' type: iN or <W x iN> */
  unsigned bits;
} int_ops;

static LLVMValueRef k_of(const int_ops *o, uint64_t v) {
  LLVMValueRef c = LLVMConstInt(LLVMGetTypeKind(o->t) == LLVMVectorTypeKind ? LLVMGetElementType(o->t) : o->t, v, 0);
  return LLVMGetTypeKind(o->t) == LLVMVectorTypeKind ? wcg_splat(o->g, c) : c;
}

/* (a >> 1) + (b >> 1) + ((a op b) & 1): floor((a + b) / 2) with op = and, ceil with op = or,
 * without the carry out of the top bit */
static LLVMValueRef halving_add(const int_ops *o, LLVMValueRef a, LLVMValueRef b, bool is_signed, bool round_up) {
  LLVMBuilderRef B = o->g->b;
  LLVMValueRef one = k_of(o, 1);
  LLVMValueRef ha = is_signed ? LLVMBuildAShr(B, a, one, "") : LLVMBuildLShr(B, a, one, "");
  LLVMValueRef hb = is_signed ? LLVMBuildAShr(B, b, one, "") : LLVMBuildLShr(B, b, one, "");
  LLVMValueRef low = LLVMBuildAnd(B, round_up ? LLVMBuildOr(B, a, b, "") : LLVMBuildAnd(B, a, b, ""), one, "");
  return LLVMBuildAdd(B, LLVMBuildAdd(B, ha, hb, ""), low, "");
}

/* the high half of the 2N-bit product (N <= 32) */
static LLVMValueRef mul_high(const int_ops *o, LLVMValueRef a, LLVMValueRef b, bool is_signed) {
  LLVMBuilderRef B = o->g->b;
  bool vec = LLVMGetTypeKind(o->t) == LLVMVectorTypeKind;
  LLVMTypeRef wide_e = LLVMIntTypeInContext(LLVMGetTypeContext(o->t), 2 * o->bits);
  LLVMTypeRef wide = vec ? LLVMVectorType(wide_e, LLVMGetVectorSize(o->t)) : wide_e;
  LLVMValueRef wa = is_signed ? LLVMBuildSExt(B, a, wide, "") : LLVMBuildZExt(B, a, wide, "");
  LLVMValueRef wb = is_signed ? LLVMBuildSExt(B, b, wide, "") : LLVMBuildZExt(B, b, wide, "");
  LLVMValueRef shift = LLVMConstInt(wide_e, o->bits, 0);
  LLVMValueRef p = LLVMBuildLShr(B, LLVMBuildMul(B, wa, wb, ""), vec ? wcg_splat(o->g, shift) : shift, "");
  return LLVMBuildTrunc(B, p, o->t, "");
}

/* the operand's low 24 bits, sign- or zero-extended (below 24 bits: the operand itself, which the
 * interpreter's zero-extension to 24 bits keeps positive: the product's low bits are the same) */
static LLVMValueRef low24(const int_ops *o, LLVMValueRef a, bool is_signed) {
  if (o->bits <= 24) return a;
  LLVMBuilderRef B = o->g->b;
  if (!is_signed) return LLVMBuildAnd(B, a, k_of(o, 0xffffff), "");
  LLVMValueRef s = k_of(o, o->bits - 24);
  return LLVMBuildAShr(B, LLVMBuildShl(B, a, s, ""), s, "");
}

LLVMValueRef wcg_integer_builtin(wcg *g, const rc_instr *i, bool vec) {
  rc_builtin f = (rc_builtin)i->pred;
  rc_type t = (rc_type)i->v.type;
  if (!rc_type_is_int(t) || rc_type_bits(t) < 2 || rc_type_bits(t) > 64 || i->nops < 2 || i->nops > 3) return NULL;
  for (uint32_t o = 0; o < i->nops; o++)
    if (i->ops[o]->type != t) return NULL;
  int_ops o = {g, vec ? wcg_vtype(g, t) : wcg_type(g, t), rc_type_bits(t)};
  LLVMBuilderRef B = g->b;
  LLVMValueRef a = wcg_operand(g, i->ops[0], vec), b = wcg_operand(g, i->ops[1], vec);
  LLVMValueRef c = i->nops > 2 ? wcg_operand(g, i->ops[2], vec) : NULL;
  LLVMValueRef ab[2] = {a, b};
  switch (f) {
  case RC_BI_ABS_DIFF_S: case RC_BI_ABS_DIFF_U: { /* the difference is below 2^N: its low bits */
    LLVMValueRef gt = LLVMBuildICmp(B, f == RC_BI_ABS_DIFF_S ? LLVMIntSGT : LLVMIntUGT, a, b, "");
    return LLVMBuildSelect(B, gt, LLVMBuildSub(B, a, b, ""), LLVMBuildSub(B, b, a, ""), "");
  }
  case RC_BI_ADD_SAT_S: return wcg_intrinsic(g, "llvm.sadd.sat", &o.t, 1, ab, 2);
  case RC_BI_ADD_SAT_U: return wcg_intrinsic(g, "llvm.uadd.sat", &o.t, 1, ab, 2);
  case RC_BI_SUB_SAT_S: return wcg_intrinsic(g, "llvm.ssub.sat", &o.t, 1, ab, 2);
  case RC_BI_SUB_SAT_U: return wcg_intrinsic(g, "llvm.usub.sat", &o.t, 1, ab, 2);
  case RC_BI_HADD_S: return halving_add(&o, a, b, true, false);
  case RC_BI_HADD_U: return halving_add(&o, a, b, false, false);
  case RC_BI_RHADD_S: return halving_add(&o, a, b, true, true);
  case RC_BI_RHADD_U: return halving_add(&o, a, b, false, true);
  case RC_BI_CLAMP_S: case RC_BI_CLAMP_U: { /* x < lo ? lo : x > hi ? hi : x, also when lo > hi */
    bool s = f == RC_BI_CLAMP_S;
    LLVMValueRef above = LLVMBuildSelect(B, LLVMBuildICmp(B, s ? LLVMIntSGT : LLVMIntUGT, a, c, ""), c, a, "");
    return LLVMBuildSelect(B, LLVMBuildICmp(B, s ? LLVMIntSLT : LLVMIntULT, a, b, ""), b, above, "");
  }
  case RC_BI_MUL_HI_S: case RC_BI_MUL_HI_U: case RC_BI_MAD_HI_S: case RC_BI_MAD_HI_U: {
    if (o.bits > 32) return NULL;
    LLVMValueRef h = mul_high(&o, a, b, f == RC_BI_MUL_HI_S || f == RC_BI_MAD_HI_S);
    return c ? LLVMBuildAdd(B, h, c, "") : h;
  }
  case RC_BI_MUL24_S: case RC_BI_MAD24_S: case RC_BI_MUL24_U: case RC_BI_MAD24_U: {
    bool s = f == RC_BI_MUL24_S || f == RC_BI_MAD24_S;
    LLVMValueRef p = LLVMBuildMul(B, low24(&o, a, s), low24(&o, b, s), "");
    return c ? LLVMBuildAdd(B, p, c, "") : p;
  }
  case RC_BI_ROTATE: { /* llvm.fshl takes the amount modulo N, as the interpreter does */
    LLVMValueRef args[3] = {a, a, b};
    return wcg_intrinsic(g, "llvm.fshl", &o.t, 1, args, 3);
  }
  default: return NULL;
  }
}

/* ---- convert ------------------------------------------------------------------------------------ */

static bool convertible(rc_type t) {
  return t == RC_F32 || t == RC_F64 || (rc_type_is_int(t) && rc_type_bits(t) >= 8 && rc_type_bits(t) <= 64);
}

/* An integer conversion with saturation: the value extended by its kind to one bit more than both
 * widths, clamped to the destination's range ([-2^(tb-1), 2^(tb-1) - 1] or [0, 2^tb - 1]), truncated. */
static LLVMValueRef saturate_int(wcg *g, LLVMValueRef x, unsigned fb, bool from_signed, unsigned tb, bool to_signed,
                                 bool vec) {
  LLVMBuilderRef B = g->b;
  unsigned wb = (fb > tb ? fb : tb) + 1;
  LLVMTypeRef we = LLVMIntTypeInContext(g->lc, wb), wt = vec ? LLVMVectorType(we, g->W) : we;
  LLVMTypeRef te = LLVMIntTypeInContext(g->lc, tb), tt = vec ? LLVMVectorType(te, g->W) : te;
  LLVMValueRef v = from_signed ? LLVMBuildSExt(B, x, wt, "") : LLVMBuildZExt(B, x, wt, "");
  LLVMValueRef one = LLVMConstInt(we, 1, 0);
  /* 2^(tb-1) or 2^tb from its words: wb may be 65 bits, beyond LLVMConstInt's one word */
  unsigned top_bit = to_signed ? tb - 1 : tb;
  uint64_t top_words[2] = {top_bit < 64 ? (uint64_t)1 << top_bit : 0, top_bit >= 64 ? (uint64_t)1 << (top_bit - 64) : 0};
  LLVMValueRef top = LLVMConstIntOfArbitraryPrecision(we, 2, top_words);
  LLVMValueRef bound[2] = {to_signed ? LLVMConstNeg(top) : LLVMConstNull(we), LLVMConstSub(top, one)};
  const char *clamp[2] = {"llvm.smax", "llvm.smin"};
  for (int side = 0; side < 2; side++) {
    LLVMValueRef args[2] = {v, vec ? wcg_splat(g, bound[side]) : bound[side]};
    v = wcg_intrinsic(g, clamp[side], &wt, 1, args, 2);
  }
  return LLVMBuildTrunc(B, v, tt, "");
}

LLVMValueRef wcg_convert_builtin(wcg *g, const rc_instr *i, bool vec) {
  if (i->pred != RC_BI_CONVERT || i->nops != 1) return NULL;
  rc_type from = (rc_type)i->ops[0]->type, to = (rc_type)i->v.type;
  if (!convertible(from) || !convertible(to)) return NULL;
  int64_t imm = i->imm;
  unsigned sk = (unsigned)(imm >> RC_BM_SRC_SHIFT) & RC_BM_KIND_MASK, dk = (unsigned)(imm >> RC_BM_DST_SHIFT) & RC_BM_KIND_MASK;
  bool sat = (imm & RC_BM_SAT) != 0;
  int mode = (int)(imm & RC_BM_RND_MASK);
  if ((sk == RC_BM_FLOAT) != rc_type_is_float(from) || (dk == RC_BM_FLOAT) != rc_type_is_float(to)) return NULL;
  LLVMBuilderRef B = g->b;
  LLVMValueRef x = wcg_operand(g, i->ops[0], vec);
  LLVMTypeRef lt = vec ? wcg_vtype(g, to) : wcg_type(g, to);
  unsigned fb = rc_type_bits(from), tb = rc_type_bits(to);
  if (sk != RC_BM_FLOAT && dk != RC_BM_FLOAT) { /* integer to integer */
    if (sat) return saturate_int(g, x, fb, sk == RC_BM_SIGNED, tb, dk == RC_BM_SIGNED, vec);
    if (tb < fb) return LLVMBuildTrunc(B, x, lt, "");
    if (tb == fb) return x;
    return sk == RC_BM_SIGNED ? LLVMBuildSExt(B, x, lt, "") : LLVMBuildZExt(B, x, lt, "");
  }
  if (sk == RC_BM_FLOAT && dk != RC_BM_FLOAT) { /* round, then saturate (NaN: 0), as without _sat */
    LLVMTypeRef ft = LLVMTypeOf(x);
    const char *round = mode == RC_BM_RTE ? "llvm.roundeven" : mode == RC_BM_RTP ? "llvm.ceil" : mode == RC_BM_RTN ? "llvm.floor" : NULL;
    if (round) x = wcg_intrinsic(g, round, &ft, 1, &x, 1);
    LLVMTypeRef ov[2] = {lt, ft};
    return wcg_intrinsic(g, dk == RC_BM_SIGNED ? "llvm.fptosi.sat" : "llvm.fptoui.sat", ov, 2, &x, 1);
  }
  if (mode != RC_BM_RND_DEFAULT && mode != RC_BM_RTE) return NULL; /* a directed rounding */
  if (sk != RC_BM_FLOAT) /* integer to float, to nearest even */
    return sk == RC_BM_SIGNED ? LLVMBuildSIToFP(B, x, lt, "") : LLVMBuildUIToFP(B, x, lt, "");
  if (from == to) return x;
  return to == RC_F64 ? LLVMBuildFPExt(B, x, lt, "") : LLVMBuildFPTrunc(B, x, lt, "");
}
