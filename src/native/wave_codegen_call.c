/* The SIMD wave backend: builtin calls (wave_codegen.h).
 *
 * - Work-item queries: ids are lane vectors read from the wave's context (lane l of the wave is the
 *   thread with local linear id wave * W + l); sizes and group ids are scalars. A scalar query of a
 *   per-thread value gives lane 0's, as docs/ir.md says.
 * - Math: by default every lane calls the interpreter's own function for the builtin (sim_math,
 *   through rc_wave_rt_math), so that the results are bit-identical to the interpreter's; the
 *   correctly rounded ones (sqrt, fabs, floor, ceil, trunc, round, rint, fma, copysign) and
 *   fmuladd (a multiply rounded, then an add rounded: what the interpreter computes) are LLVM's
 *   vector instructions instead, which round the same. f16 takes that path only where no rounding
 *   happens (fabs, copysign, floor, ceil, trunc, round, rint): LLVM computes f16 in float, which is
 *   not the simulators' double for sqrt, rsqrt and fma.
 * - Integer math (min, max, abs, popcount, clz, ctz) is exact in LLVM's intrinsics.
 * - OpenCL's integer functions of the long tail (add_sat, hadd, rotate, mul_hi ...) are vector
 *   instructions (wave_codegen_int.c).
 * - The rest of the long tail (class OTHER) calls rc_wave_rt_builtin per active lane, with a constant that
 *   describes the call; the runtime runs the interpreter's sim_builtin_other.
 * - With --vector-math (rc_native_wave_opts.vector_math) the transcendental functions go to glibc's
 *   vector math library, libmvec (_ZGVeN16v_sinf: 16 floats in a zmm register), whose results are
 *   within OpenCL's error bounds but not the interpreter's bits; the check then compares floats
 *   within those bounds.
 * - barrier: every lane must be active (else a fault, as in the simulators), then the runtime
 *   switches to the next wave of the group. */
#include "wave_codegen.h"

#include <stdio.h>
#include <string.h>

/* ---- queries ---------------------------------------------------------------------------------- */

static LLVMValueRef ctx_elem(wcg *g, unsigned field, unsigned d) {
  LLVMValueRef idx[2] = {wcg_const_i64(g, 0), wcg_const_i64(g, d)};
  LLVMValueRef p = LLVMBuildGEP2(g->b, LLVMArrayType(g->i64, 3), wcg_ctx_field(g, field), idx, 2, "");
  return LLVMBuildLoad2(g->b, g->i64, p, "");
}

/* The lanes' ids in dimension d (i32: a launch has at most 2^24 work-items), zero-extended. A wave
 * whose lanes are consecutive in x has only lane 0's filled in (wave_runtime.c): lane 0's plus the
 * lane number in x, lane 0's in y and z. */
static LLVMValueRef lane_ids(wcg *g, unsigned field, unsigned d, bool vec) {
  LLVMTypeRef lanes = LLVMArrayType(g->i32, RC_WAVE_MAX_LANES);
  LLVMValueRef idx[3] = {wcg_const_i64(g, 0), wcg_const_i64(g, d), wcg_const_i64(g, 0)};
  LLVMValueRef p = LLVMBuildGEP2(g->b, LLVMArrayType(lanes, 3), wcg_ctx_field(g, field), idx, 3, "");
  LLVMValueRef lane0 = LLVMBuildLoad2(g->b, g->i32, p, "");
  if (!vec) return LLVMBuildZExt(g->b, lane0, g->i64, "");
  LLVMTypeRef vt = LLVMVectorType(g->i32, g->W);
  LLVMValueRef all = LLVMBuildLoad2(g->b, vt, LLVMBuildBitCast(g->b, p, LLVMPointerType(vt, 0), ""), "");
  LLVMSetAlignment(all, 4);
  LLVMValueRef from0 = wcg_splat(g, lane0);
  if (d == 0) from0 = LLVMBuildAdd(g->b, from0, LLVMBuildTrunc(g->b, wcg_iota(g), vt, ""), "");
  LLVMValueRef flags = LLVMBuildLoad2(g->b, g->i64, wcg_ctx_field(g, CTX_FLAGS), "");
  LLVMValueRef consecutive = LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildAnd(g->b, flags, wcg_const_i64(g, RC_WAVE_CONSECUTIVE_X), ""),
                                           wcg_const_i64(g, 0), "");
  return LLVMBuildZExt(g->b, LLVMBuildSelect(g->b, consecutive, from0, all, ""), LLVMVectorType(g->i64, g->W), "");
}

static LLVMValueRef query(wcg *g, const rc_instr *i, bool vec) {
  rc_builtin f = (rc_builtin)i->pred;
  unsigned d = i->nops ? (unsigned)rc_const_ival(i->ops[0]) : 0;
  LLVMValueRef v;
  switch (f) {
  case RC_BI_GLOBAL_ID: v = lane_ids(g, CTX_GLOBAL_ID, d, vec); break;
  case RC_BI_LOCAL_ID: v = lane_ids(g, CTX_LOCAL_ID, d, vec); break;
  case RC_BI_LANE_ID: v = vec ? wcg_iota(g) : wcg_const_i64(g, 0); break;
  case RC_BI_WAVE_SIZE: v = wcg_const_i64(g, g->W); break;
  case RC_BI_GROUP_ID: v = ctx_elem(g, CTX_GROUP_ID, d); break;
  case RC_BI_GLOBAL_SIZE: v = ctx_elem(g, CTX_GLOBAL_SIZE, d); break;
  case RC_BI_LOCAL_SIZE: v = ctx_elem(g, CTX_LOCAL_SIZE, d); break;
  default: v = ctx_elem(g, CTX_NUM_GROUPS, d); break;
  }
  LLVMTypeRef t = wcg_type(g, (rc_type)i->v.type);
  bool lanes = LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind;
  if (vec && !lanes) v = wcg_splat(g, v);
  return LLVMBuildTrunc(g->b, v, vec ? LLVMVectorType(t, g->W) : t, "");
}

/* ---- vector math (libmvec) ------------------------------------------------------------------------ */

typedef struct vector_math_fn vector_math_fn;
struct vector_math_fn {
  rc_builtin bi;
  const char *name; /* libmvec's name of the double form; the float form adds 'f' */
  unsigned nargs;
  unsigned ulps;    /* OpenCL 1.2, tables 7.1 and 7.2 (the same for float and double) */
};

/* Only the functions whose OpenCL bound is at least glibc's for libmvec (4 ulp for every function,
 * glibc's manual, "Known Maximum Errors"): exp, exp2, exp10, expm1, log, log2, log10 (OpenCL: 3 ulp),
 * log1p and cbrt (2 ulp) stay the interpreter's, lane by lane. (check_math caught libmvec's exp10f
 * 4 ulp away at 0.2247678 on tests/corpus/misc/math_float.cl.) */
static const vector_math_fn vector_math_fns[] = {
    {RC_BI_SIN, "sin", 1, 4},     {RC_BI_COS, "cos", 1, 4},     {RC_BI_TAN, "tan", 1, 5},
    {RC_BI_POW, "pow", 2, 16},    {RC_BI_ATAN2, "atan2", 2, 6}, {RC_BI_HYPOT, "hypot", 2, 4},
    {RC_BI_ACOS, "acos", 1, 4},   {RC_BI_ASIN, "asin", 1, 4},   {RC_BI_ATAN, "atan", 1, 5},
    {RC_BI_ACOSH, "acosh", 1, 4}, {RC_BI_ASINH, "asinh", 1, 4}, {RC_BI_ATANH, "atanh", 1, 5},
    {RC_BI_SINH, "sinh", 1, 4},   {RC_BI_COSH, "cosh", 1, 4},   {RC_BI_TANH, "tanh", 1, 5},
    {RC_BI_ERF, "erf", 1, 16},    {RC_BI_ERFC, "erfc", 1, 16},
};

static const vector_math_fn *vector_math_of(rc_builtin f) {
  for (size_t i = 0; i < sizeof vector_math_fns / sizeof *vector_math_fns; i++)
    if (vector_math_fns[i].bi == f) return &vector_math_fns[i];
  return NULL;
}

/* The lanes of a vector as W slots in an alloca of the entry block (for the runtime to read). */
static LLVMValueRef lanes_in_memory(wcg *g, LLVMValueRef v, rc_type t) {
  LLVMTypeRef at = LLVMArrayType(g->i64, g->W), v64 = LLVMVectorType(g->i64, g->W);
  LLVMBasicBlockRef here = LLVMGetInsertBlock(g->b);
  LLVMPositionBuilderBefore(g->b, LLVMGetFirstInstruction(g->entry));
  LLVMValueRef a = LLVMBuildAlloca(g->b, at, "lanes.mem");
  LLVMPositionBuilderAtEnd(g->b, here);
  LLVMValueRef slots = t == RC_F64 ? LLVMBuildBitCast(g->b, v, v64, "")
                                   : LLVMBuildZExt(g->b, LLVMBuildBitCast(g->b, v, LLVMVectorType(g->i32, g->W), ""), v64, "");
  LLVMValueRef st = LLVMBuildStore(g->b, slots, LLVMBuildBitCast(g->b, a, LLVMPointerType(v64, 0), ""));
  LLVMSetAlignment(st, 8);
  return LLVMBuildBitCast(g->b, a, LLVMPointerType(g->i64, 0), "");
}

/* check_math: the runtime compares the active lanes with the interpreter's function. */
static void check_math(wcg *g, const rc_instr *i, const struct vector_math_fn *m, LLVMValueRef *args, LLVMValueRef got) {
  rc_type t = (rc_type)i->v.type;
  LLVMTypeRef p64 = LLVMPointerType(g->i64, 0);
  LLVMValueRef desc = wcg_call_desc(g, i);
  LLVMTypeRef pt[8] = {LLVMPointerType(g->ctx_t, 0), LLVMTypeOf(desc), g->i32, g->i64, g->i32, p64, p64, p64};
  LLVMValueRef a = lanes_in_memory(g, args[0], t);
  LLVMValueRef b = m->nargs == 2 ? lanes_in_memory(g, args[1], t) : a;
  LLVMValueRef cargs[8] = {g->ctxp, desc, wcg_const_i32(g, wcg_site(g, i)), wcg_exec(g), wcg_const_i32(g, m->ulps), a, b,
                           lanes_in_memory(g, got, t)};
  wcg_call(g, "rc_wave_rt_check_math", g->void_t, pt, 8, cargs);
}

/* Lanes [from, from + n) of a <W x T> vector. */
static LLVMValueRef lanes_of(wcg *g, LLVMValueRef v, unsigned from, unsigned n) {
  LLVMValueRef idx[RC_WAVE_MAX_LANES];
  for (unsigned l = 0; l < n; l++) idx[l] = wcg_const_i32(g, from + l);
  return LLVMBuildShuffleVector(g->b, v, LLVMGetUndef(LLVMTypeOf(v)), LLVMConstVector(idx, n), "");
}

/* The builtin through libmvec: the widest variant whose vectors the host's registers hold and that
 * does not exceed W lanes ('e' 512 bits, 'd' 256, 'b' 128: the vector function ABI of x86-64),
 * called on the wave's lanes in pieces of that many, the pieces put together again. NULL when the
 * type has no libmvec form (f16). */
static LLVMValueRef vector_math(wcg *g, const rc_instr *i, const vector_math_fn *m) {
  rc_type t = (rc_type)i->v.type;
  if (t != RC_F32 && t != RC_F64) return NULL;
  unsigned bits = g->vector_bits, elem = t == RC_F32 ? 32 : 64, vl = bits / elem;
  while (vl > g->W && bits > 128) bits /= 2, vl /= 2;
  if (vl > g->W) return NULL;
  char isa = bits == 512 ? 'e' : bits == 256 ? 'd' : 'b';
  char name[64];
  snprintf(name, sizeof name, "_ZGV%cN%u%s_%s%s", isa, vl, m->nargs == 2 ? "vv" : "v", m->name, t == RC_F32 ? "f" : "");
  bool seen = false;
  for (uint32_t f = 0; f < g->math_fns.len && !seen; f++) seen = strcmp(g->math_fns.data[f], name) == 0;
  if (!seen) rc_vec_push(&g->math_fns, rc_xstrdup(name));
  if (m->ulps > g->math_ulps) g->math_ulps = m->ulps;
  LLVMValueRef args[2] = {wcg_vector(g, i->ops[0]), m->nargs == 2 ? wcg_vector(g, i->ops[1]) : NULL};
  LLVMTypeRef vt = LLVMVectorType(wcg_type(g, t), vl), pt[2] = {vt, vt};
  LLVMValueRef parts[RC_WAVE_MAX_LANES];
  unsigned np = g->W / vl;
  for (unsigned p = 0; p < np; p++) {
    LLVMValueRef a[2] = {lanes_of(g, args[0], p * vl, vl), m->nargs == 2 ? lanes_of(g, args[1], p * vl, vl) : NULL};
    parts[p] = wcg_call(g, name, vt, pt, m->nargs, a);
  }
  /* put the pieces together, pairwise: shufflevector concatenates two vectors of one type */
  for (unsigned width = vl; np > 1; np /= 2, width *= 2)
    for (unsigned p = 0; p < np / 2; p++) {
      LLVMValueRef idx[RC_WAVE_MAX_LANES];
      for (unsigned l = 0; l < 2 * width; l++) idx[l] = wcg_const_i32(g, l);
      parts[p] = LLVMBuildShuffleVector(g->b, parts[2 * p], parts[2 * p + 1], LLVMConstVector(idx, 2 * width), "");
    }
  if (g->check_math) check_math(g, i, m, args, parts[0]);
  return parts[0];
}

/* ---- math --------------------------------------------------------------------------------------- */

/* The LLVM intrinsic that computes builtin f in type t exactly as the interpreter does, or NULL. */
static const char *exact_intrinsic(rc_builtin f, rc_type t) {
  bool half = t == RC_F16;
  switch (f) {
  case RC_BI_FABS: return "llvm.fabs";
  case RC_BI_COPYSIGN: return "llvm.copysign";
  case RC_BI_FLOOR: return "llvm.floor";
  case RC_BI_CEIL: return "llvm.ceil";
  case RC_BI_FTRUNC: return "llvm.trunc";
  case RC_BI_ROUND: return "llvm.round";
  case RC_BI_RINT: return "llvm.rint";
  case RC_BI_SQRT: return half ? NULL : "llvm.sqrt";
  case RC_BI_FMA: return half ? NULL : "llvm.fma";
  case RC_BI_SMIN: return "llvm.smin";
  case RC_BI_SMAX: return "llvm.smax";
  case RC_BI_UMIN: return "llvm.umin";
  case RC_BI_UMAX: return "llvm.umax";
  case RC_BI_CTPOP: return "llvm.ctpop";
  default: return NULL;
  }
}

typedef struct math_lane {
  rc_builtin f;
  rc_type t;
  LLVMValueRef a[3];
  bool vec[3];
  unsigned n;
} math_lane;

static LLVMValueRef math_lane_body(wcg *g, LLVMValueRef lane, void *state, LLVMValueRef acc) {
  const math_lane *s = state;
  LLVMValueRef args[5] = {wcg_const_i32(g, s->f), wcg_const_i32(g, s->t), wcg_const_i64(g, 0), wcg_const_i64(g, 0),
                          wcg_const_i64(g, 0)};
  for (unsigned o = 0; o < s->n; o++) {
    LLVMValueRef x = s->vec[o] ? LLVMBuildExtractElement(g->b, s->a[o], lane, "") : s->a[o];
    args[2 + o] = wcg_to_slot(g, x, s->t);
  }
  LLVMTypeRef pt[5] = {g->i32, g->i32, g->i64, g->i64, g->i64};
  LLVMValueRef r = wcg_from_slot(g, wcg_call(g, "rc_wave_rt_math", g->i64, pt, 5, args), s->t);
  return acc ? LLVMBuildInsertElement(g->b, acc, r, lane, "") : r;
}

static LLVMValueRef math(wcg *g, const rc_instr *i, bool vec) {
  rc_builtin f = (rc_builtin)i->pred;
  rc_type t = (rc_type)i->v.type;
  const rc_builtin_info *bi = rc_builtin_get(f);
  const char *intr = exact_intrinsic(f, t);
  unsigned n = i->nops;
  LLVMTypeRef lt = vec ? wcg_vtype(g, t) : wcg_type(g, t);
  if (f == RC_BI_FMULADD && t != RC_F16) { /* rounded product, rounded sum: never fused */
    LLVMValueRef p = LLVMBuildFMul(g->b, wcg_operand(g, i->ops[0], vec), wcg_operand(g, i->ops[1], vec), "");
    return LLVMBuildFAdd(g->b, p, wcg_operand(g, i->ops[2], vec), "");
  }
  if (f == RC_BI_RSQRT && t != RC_F16) { /* 1 / sqrt(x), each correctly rounded */
    LLVMValueRef x = wcg_operand(g, i->ops[0], vec);
    LLVMValueRef s = wcg_intrinsic(g, "llvm.sqrt", &lt, 1, &x, 1);
    LLVMValueRef one = LLVMConstReal(wcg_type(g, t), 1.0);
    return LLVMBuildFDiv(g->b, vec ? wcg_splat(g, one) : one, s, "");
  }
  const vector_math_fn *vm = vec && g->vector_math ? vector_math_of(f) : NULL;
  LLVMValueRef v = vm ? vector_math(g, i, vm) : NULL;
  if (v) return v;
  if (bi->sig == RC_SIG_I1 || bi->sig == RC_SIG_I2) {
    LLVMValueRef args[2] = {wcg_operand(g, i->ops[0], vec), n > 1 ? wcg_operand(g, i->ops[1], vec) : NULL};
    switch (f) { /* 0 gives the width, the smallest integer's abs wraps: the flags say so */
    case RC_BI_ABS: args[1] = LLVMConstInt(g->i1, 0, 0); return wcg_intrinsic(g, "llvm.abs", &lt, 1, args, 2);
    case RC_BI_CLZ: args[1] = LLVMConstInt(g->i1, 0, 0); return wcg_intrinsic(g, "llvm.ctlz", &lt, 1, args, 2);
    case RC_BI_CTZ: args[1] = LLVMConstInt(g->i1, 0, 0); return wcg_intrinsic(g, "llvm.cttz", &lt, 1, args, 2);
    default: return wcg_intrinsic(g, intr, &lt, 1, args, n);
    }
  }
  if (intr) {
    LLVMValueRef args[3];
    for (unsigned o = 0; o < n; o++) args[o] = wcg_operand(g, i->ops[o], vec);
    return wcg_intrinsic(g, intr, &lt, 1, args, n);
  }
  math_lane s = {f, t, {NULL, NULL, NULL}, {false, false, false}, n};
  for (unsigned o = 0; o < n; o++) s.a[o] = wcg_scalar(g, i->ops[o]), s.vec[o] = !wave_value_is_scalar(i->ops[o]);
  if (!vec) return math_lane_body(g, wcg_const_i32(g, 0), &s, NULL);
  return wcg_lane_loop(g, wcg_exec(g), LLVMGetUndef(lt), math_lane_body, &s);
}

/* ---- the long tail ----------------------------------------------------------------------------------- */

/* The constant rc_wave_call of instruction i (see include/reconv/native_wave.h). */
LLVMValueRef wcg_call_desc(wcg *g, const rc_instr *i) {
  LLVMTypeRef i16 = g->i16, f[5] = {g->i32, g->i32, g->i64, i16, LLVMArrayType(i16, 4)};
  LLVMTypeRef t = LLVMGetTypeByName2(g->lc, "rc_wave_call");
  if (!t) {
    t = LLVMStructCreateNamed(g->lc, "rc_wave_call");
    LLVMStructSetBody(t, f, 5, 0);
  }
  LLVMValueRef at[4];
  for (unsigned o = 0; o < 4; o++)
    at[o] = LLVMConstInt(i16, o < i->nops ? (unsigned long long)i->ops[o]->type : 0, 0);
  LLVMValueRef fields[5] = {wcg_const_i32(g, i->pred), wcg_const_i32(g, i->nops < 4 ? i->nops : 4),
                            LLVMConstInt(g->i64, (unsigned long long)i->imm, 1),
                            LLVMConstInt(i16, i->v.type, 0), LLVMConstArray(i16, at, 4)};
  char name[64];
  snprintf(name, sizeof name, "rc_wave_call.%u", g->ncall_descs++);
  LLVMValueRef gv = LLVMAddGlobal(g->mod, t, name);
  LLVMSetInitializer(gv, LLVMConstNamedStruct(t, fields, 5));
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMPrivateLinkage);
  return gv;
}

typedef struct other_lane {
  const rc_instr *i;
  LLVMValueRef desc, args, site;
  LLVMValueRef a[4];
  bool vec[4];
  unsigned n;
  rc_type t;
} other_lane;

static LLVMValueRef other_lane_body(wcg *g, LLVMValueRef lane, void *state, LLVMValueRef acc) {
  const other_lane *s = state;
  LLVMTypeRef at = LLVMArrayType(g->i64, 4);
  for (unsigned o = 0; o < s->n; o++) {
    LLVMValueRef x = s->vec[o] ? LLVMBuildExtractElement(g->b, s->a[o], lane, "") : s->a[o];
    LLVMValueRef idx[2] = {wcg_const_i64(g, 0), wcg_const_i64(g, o)};
    LLVMBuildStore(g->b, wcg_to_slot(g, x, (rc_type)s->i->ops[o]->type), LLVMBuildGEP2(g->b, at, s->args, idx, 2, ""));
  }
  LLVMTypeRef pt[5] = {LLVMPointerType(g->ctx_t, 0), LLVMPointerType(LLVMTypeOf(LLVMGetInitializer(s->desc)), 0),
                       g->i32, g->i32, LLVMPointerType(g->i64, 0)};
  LLVMValueRef args[5] = {g->ctxp, s->desc, s->site, lane, LLVMBuildBitCast(g->b, s->args, pt[4], "")};
  LLVMValueRef r = wcg_call(g, "rc_wave_rt_builtin", g->i64, pt, 5, args);
  if (s->t == RC_VOID) return acc;
  r = wcg_from_slot(g, r, s->t);
  return acc ? LLVMBuildInsertElement(g->b, acc, r, lane, "") : r;
}

static LLVMValueRef other(wcg *g, const rc_instr *i, bool vec) {
  other_lane s;
  s.i = i;
  s.t = (rc_type)i->v.type;
  s.n = i->nops < 4 ? i->nops : 4;
  s.desc = wcg_call_desc(g, i);
  s.site = wcg_const_i32(g, wcg_site(g, i));
  for (unsigned o = 0; o < s.n; o++) s.a[o] = wcg_scalar(g, i->ops[o]), s.vec[o] = !wave_value_is_scalar(i->ops[o]);
  LLVMBasicBlockRef at = LLVMGetInsertBlock(g->b);
  LLVMPositionBuilderBefore(g->b, LLVMGetFirstInstruction(g->entry));
  s.args = LLVMBuildAlloca(g->b, LLVMArrayType(g->i64, 4), "call.args");
  LLVMPositionBuilderAtEnd(g->b, at);
  if (!vec) return other_lane_body(g, wcg_const_i32(g, 0), &s, NULL);
  LLVMValueRef init = s.t == RC_VOID ? NULL : LLVMGetUndef(wcg_vtype(g, s.t));
  return wcg_lane_loop(g, wcg_exec(g), init, other_lane_body, &s);
}

/* ---- barriers ------------------------------------------------------------------------------------- */

static void barrier(wcg *g, const rc_instr *i) {
  LLVMValueRef e = wcg_exec(g);
  wcg_fault_if(g, LLVMBuildICmp(g->b, LLVMIntNE, e, g->exists, ""), i, RC_WAVE_FAULT_BARRIER_DIVERGENT, NULL, e, NULL);
  LLVMTypeRef pt[2] = {LLVMPointerType(g->ctx_t, 0), g->i32};
  LLVMValueRef args[2] = {g->ctxp, wcg_const_i32(g, wcg_site(g, i))};
  wcg_call(g, "rc_wave_rt_barrier", g->void_t, pt, 2, args);
  g->has_barrier = true;
}

/* ---- the entry point -------------------------------------------------------------------------------- */

LLVMValueRef wcg_emit_call(wcg *g, const rc_instr *i, bool scalar) {
  rc_builtin f = (rc_builtin)i->pred;
  bool vec = !scalar;
  switch (f) {
  case RC_BI_BARRIER: barrier(g, i); return NULL;
  case RC_BI_ATOMIC_INC: case RC_BI_ATOMIC_DEC:
    return wcg_emit_atomic(g, i, f, i->ops[0], NULL, NULL, scalar);
  case RC_BI_READFIRSTLANE: { /* the first active lane's value, in every lane */
    const rc_value *x = i->ops[0];
    if (wave_value_is_scalar(x)) return wcg_operand(g, x, vec);
    LLVMValueRef e = wcg_exec(g);
    LLVMValueRef first = LLVMBuildExtractElement(g->b, wcg_scalar(g, x), wcg_first_lane(g, e), "");
    return vec ? wcg_splat(g, first) : first;
  }
  case RC_BI_WORK_DIM: {
    LLVMValueRef v = LLVMBuildTrunc(g->b, LLVMBuildLoad2(g->b, g->i64, wcg_ctx_field(g, CTX_WORK_DIM), ""),
                                    wcg_type(g, (rc_type)i->v.type), "");
    return vec ? wcg_splat(g, v) : v;
  }
  case RC_BI_NULL_PTR: return vec ? wcg_splat(g, LLVMConstNull(g->ptr)) : LLVMConstNull(g->ptr);
  default: break;
  }
  switch (rc_builtin_get(f)->sig) {
  case RC_SIG_QUERY_DIM: case RC_SIG_QUERY: return query(g, i, vec);
  case RC_SIG_F1: case RC_SIG_F2: case RC_SIG_F3: case RC_SIG_I1: case RC_SIG_I2: return math(g, i, vec);
  case RC_SIG_ATOMIC: return wcg_emit_atomic(g, i, f, i->ops[0], i->ops[1], NULL, scalar);
  case RC_SIG_CMPXCHG: return wcg_emit_atomic(g, i, f, i->ops[0], i->ops[1], i->ops[2], scalar);
  case RC_SIG_MEMCPY: case RC_SIG_MEMSET: return wcg_emit_mem(g, i, scalar);
  default: {
    const vector_math_fn *vm = vec && g->vector_math ? vector_math_of(f) : NULL;
    LLVMValueRef v = vm ? vector_math(g, i, vm) : f == RC_BI_CONVERT ? wcg_convert_builtin(g, i, vec)
                                                                      : wcg_integer_builtin(g, i, vec);
    return v ? v : other(g, i, vec);
  }
  }
}
