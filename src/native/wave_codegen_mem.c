/* The SIMD wave backend: addresses and memory (wave_codegen.h).
 *
 * Inactive lanes never touch memory and never fault (docs/ir.md, "Wave level"). An access takes
 * the cheapest form its address allows:
 * - a uniform address (a scalar, or the same in every lane): one access, only when a lane is
 *   active; a store writes the value of the highest active lane (the lanes store in lane order);
 * - consecutive lanes (lane l at base + l * size): llvm.masked.load / llvm.masked.store, one
 *   vector access whose inactive lanes AVX-512 and AVX2 suppress (faults included);
 * - strided lanes (lane l at base + l * k * size, k = 2 .. 8: a component of an OpenCL vector
 *   type, float4's .y, which the simulators' form splits into its elements): one masked access of
 *   W * k elements in which only lane l's element l * k is enabled, the lanes picked out (or put
 *   in) by a shuffle: k vector loads or stores where a gather or scatter would access memory W
 *   times (triad's float4 C = A + s * B: 4 gathers per operand before);
 * - anything else: llvm.masked.gather / llvm.masked.scatter (scatter stores overlapping lanes in
 *   lane order, as the lanes would).
 * Which addresses are uniform or consecutive is known from their affine forms (wcg_affine_of): lane
 * ids are consecutive in dimension 0 when the work-group's rows are multiples of W (or the launch
 * has one dimension), which the runtime says in the context's flags, so the fast form is guarded
 * by that test at run time and the gather is the fallback.
 *
 * i1 is stored as one byte 0 or 1 and any non-zero byte loads as true; integers whose width is not
 * a multiple of 8 are stored in their store size with the bits above zero. Atomics run per active
 * lane in lane order (atomicrmw: waves of other work-groups may run on other threads). */
#include "wave_codegen.h"

#include <string.h>

/* ---- affine forms -------------------------------------------------------------------------------- */

static wave_affine affine(wcg *g, const rc_value *v) {
  wave_affine a = {NULL, 0, NULL};
  if (wave_value_is_scalar(v)) {
    a.base = wcg_scalar(g, v);
    return a;
  }
  return g->aff[v->id];
}

static LLVMValueRef and_valid(wcg *g, LLVMValueRef a, LLVMValueRef b) {
  if (!a) return b;
  if (!b) return a;
  return LLVMBuildAnd(g->b, a, b, "");
}

/* Is base + l * stride (l < W) free of wrap-around as an N-bit integer, signed or not? Then its
 * extension is ext(base) + l * stride. The condition on base, as an i1 (NULL: never). */
static LLVMValueRef no_wrap(wcg *g, LLVMValueRef base, int64_t stride, unsigned bits, bool is_signed,
                            bool *never) {
  *never = false;
  if (stride == 0) return NULL;
  __int128 span = (__int128)stride * (g->W - 1);
  __int128 lo = is_signed ? -((__int128)1 << (bits - 1)) : 0;
  __int128 hi = is_signed ? ((__int128)1 << (bits - 1)) - 1 : ((__int128)1 << bits) - 1;
  LLVMTypeRef t = LLVMTypeOf(base);
  if (span > hi - lo) {
    *never = true;
    return NULL;
  }
  /* stride > 0: base <= hi - span; stride < 0: base >= lo - span */
  if (span > 0)
    return LLVMBuildICmp(g->b, is_signed ? LLVMIntSLE : LLVMIntULE, base,
                         LLVMConstInt(t, (unsigned long long)(hi - span), 0), "");
  return LLVMBuildICmp(g->b, is_signed ? LLVMIntSGE : LLVMIntUGE, base,
                       LLVMConstInt(t, (unsigned long long)(lo - span), 0), "");
}

/* Extend an affine form from its integer type to `to` (sext or zext). */
static wave_affine extend(wcg *g, wave_affine a, LLVMTypeRef to, unsigned bits, bool is_signed) {
  wave_affine r = {NULL, 0, NULL};
  if (!a.base) return r;
  bool never;
  LLVMValueRef ok = no_wrap(g, a.base, a.stride, bits, is_signed, &never);
  if (never) return r;
  r.base = is_signed ? LLVMBuildSExt(g->b, a.base, to, "") : LLVMBuildZExt(g->b, a.base, to, "");
  r.stride = a.stride;
  r.valid = and_valid(g, a.valid, ok);
  return r;
}

static wave_affine query_affine(wcg *g, const rc_instr *i) {
  wave_affine a = {NULL, 0, NULL};
  rc_builtin f = (rc_builtin)i->pred;
  if (f == RC_BI_LANE_ID) {
    a.base = LLVMConstNull(wcg_type(g, (rc_type)i->v.type));
    a.stride = 1;
    return a;
  }
  if (f != RC_BI_GLOBAL_ID && f != RC_BI_LOCAL_ID) return a;
  unsigned d = (unsigned)rc_const_ival(i->ops[0]);
  LLVMValueRef idx[3] = {wcg_const_i64(g, 0), wcg_const_i64(g, d), wcg_const_i64(g, 0)};
  LLVMTypeRef lanes3 = LLVMArrayType(LLVMArrayType(g->i32, RC_WAVE_MAX_LANES), 3);
  LLVMValueRef p = LLVMBuildGEP2(g->b, lanes3, wcg_ctx_field(g, f == RC_BI_GLOBAL_ID ? CTX_GLOBAL_ID : CTX_LOCAL_ID),
                                 idx, 3, "");
  LLVMValueRef lane0 = LLVMBuildZExt(g->b, LLVMBuildLoad2(g->b, g->i32, p, ""), g->i64, "");
  a.base = LLVMBuildTrunc(g->b, lane0, wcg_type(g, (rc_type)i->v.type), "");
  uint64_t flag = d == 0 ? RC_WAVE_CONSECUTIVE_X : d == 1 ? RC_WAVE_UNIFORM_Y : RC_WAVE_UNIFORM_Z;
  LLVMValueRef flags = LLVMBuildLoad2(g->b, g->i64, wcg_ctx_field(g, CTX_FLAGS), "");
  a.valid = LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildAnd(g->b, flags, wcg_const_i64(g, flag), ""),
                          wcg_const_i64(g, 0), "");
  a.stride = d == 0 ? 1 : 0;
  return a;
}

static int64_t const_int(const rc_value *v, bool *ok) {
  *ok = v->kind == RC_V_CONST && rc_type_is_int((rc_type)v->type);
  return *ok ? rc_const_ival(v) : 0;
}

void wcg_affine_of(wcg *g, const rc_instr *i, bool scalar) {
  if (scalar || i->v.type == RC_VOID || g->merge[i->v.id]) return; /* a merged value's lanes may
                                                                       be older than its base */
  wave_affine r = {NULL, 0, NULL};
  rc_opcode op = (rc_opcode)i->op;
  rc_type t = (rc_type)i->v.type;
  bool ok;
  switch (op) {
  case RC_OP_CALL: r = query_affine(g, i); break;
  case RC_OP_ADD: case RC_OP_SUB: {
    wave_affine a = affine(g, i->ops[0]), b = affine(g, i->ops[1]);
    if (!a.base || !b.base || !rc_type_is_int(t)) break;
    r.base = op == RC_OP_ADD ? LLVMBuildAdd(g->b, a.base, b.base, "") : LLVMBuildSub(g->b, a.base, b.base, "");
    r.stride = op == RC_OP_ADD ? a.stride + b.stride : a.stride - b.stride;
    r.valid = and_valid(g, a.valid, b.valid);
    break;
  }
  case RC_OP_MUL: case RC_OP_SHL: {
    int64_t c = const_int(i->ops[1], &ok);
    const rc_value *x = i->ops[0];
    if (!ok && op == RC_OP_MUL) c = const_int(i->ops[0], &ok), x = i->ops[1];
    wave_affine a = affine(g, x);
    unsigned bits = rc_type_bits(t);
    if (!ok || !a.base || (op == RC_OP_SHL && (c < 0 || c >= (int64_t)bits || c > 32))) break;
    int64_t m = op == RC_OP_MUL ? c : (int64_t)1 << c;
    r.base = LLVMBuildMul(g->b, a.base, LLVMConstInt(LLVMTypeOf(a.base), (unsigned long long)m, 1), "");
    r.stride = (int64_t)((uint64_t)a.stride * (uint64_t)m);
    r.valid = a.valid;
    break;
  }
  case RC_OP_SEXT: case RC_OP_ZEXT: {
    wave_affine a = affine(g, i->ops[0]);
    unsigned from = rc_type_bits((rc_type)i->ops[0]->type);
    if (from < 2) break;
    r = extend(g, a, wcg_type(g, t), from, op == RC_OP_SEXT);
    break;
  }
  case RC_OP_ASHR: case RC_OP_LSHR: {
    /* (x << c) >> c: x's low bits extended (clang's sign extension of an int index), affine
     * when x is and the low bits do not wrap across the lanes */
    int64_t c = const_int(i->ops[1], &ok);
    const rc_value *x = i->ops[0];
    unsigned bits = rc_type_bits(t);
    if (!ok || c <= 0 || c >= (int64_t)bits || x->kind != RC_V_INSTR) break;
    const rc_instr *shl = (const rc_instr *)x;
    bool same = false;
    if (shl->op == RC_OP_SHL) {
      int64_t c2 = const_int(shl->ops[1], &same);
      same = same && c2 == c;
    }
    wave_affine a = same ? affine(g, shl->ops[0]) : (wave_affine){NULL, 0, NULL};
    if (!a.base) break;
    unsigned low = bits - (unsigned)c;
    LLVMValueRef narrow = LLVMBuildTrunc(g->b, a.base, LLVMIntTypeInContext(g->lc, low), "");
    r = extend(g, (wave_affine){narrow, a.stride, a.valid}, wcg_type(g, t), low, op == RC_OP_ASHR);
    break;
  }
  case RC_OP_TRUNC: {
    wave_affine a = affine(g, i->ops[0]);
    if (!a.base) break;
    r.base = LLVMBuildTrunc(g->b, a.base, wcg_type(g, t), "");
    r.stride = a.stride; /* modulo the narrower width: the same lanes' values */
    r.valid = a.valid;
    break;
  }
  case RC_OP_GEP: {
    wave_affine p = affine(g, i->ops[0]);
    if (!p.base) break;
    int64_t stride = p.stride;
    LLVMValueRef valid = p.valid, off = wcg_const_i64(g, (uint64_t)i->imm);
    bool known = true;
    for (uint32_t o = 1; o < i->nops && known; o++) {
      wave_affine x = affine(g, i->ops[o]);
      unsigned bits = rc_type_bits((rc_type)i->ops[o]->type);
      if (x.base && bits < 64) x = extend(g, x, g->i64, bits, true);
      if (!x.base) {
        known = false;
        break;
      }
      int64_t s = i->cases[o - 1];
      off = LLVMBuildAdd(g->b, off, LLVMBuildMul(g->b, x.base, wcg_const_i64(g, (uint64_t)s), ""), "");
      stride += x.stride * s;
      valid = and_valid(g, valid, x.valid);
    }
    if (!known) break;
    r.base = LLVMBuildGEP2(g->b, g->i8, p.base, &off, 1, "");
    r.stride = stride;
    r.valid = valid;
    break;
  }
  default: break;
  }
  g->aff[i->v.id] = r;
}

/* ---- addresses -------------------------------------------------------------------------------------- */

/* p + sext(index) * scale: a GEP over elements of that size where the scale is 1, 2, 4 or 8 (so that
 * the code generator puts the scale into the address, and a gather keeps 32-bit indices: one
 * vpgatherdd for 16 lanes instead of two with 64-bit ones), over bytes otherwise. LLVM's GEP
 * sign-extends a narrower index itself and wraps, as reconv's gep. */
static bool is_vector_value(LLVMValueRef v) {
  return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind;
}

static LLVMValueRef scaled_index(wcg *g, LLVMValueRef p, LLVMValueRef idx, int64_t scale) {
  if (scale == 0) return p;
  bool vec = is_vector_value(p) || is_vector_value(idx);
  if (scale == 1 || scale == 2 || scale == 4 || scale == 8) {
    LLVMTypeRef et = LLVMIntTypeInContext(g->lc, (unsigned)(8 * scale));
    LLVMTypeRef pt = LLVMPointerType(et, 0);
    if (is_vector_value(p)) pt = LLVMVectorType(pt, g->W);
    LLVMValueRef q = LLVMBuildGEP2(g->b, et, LLVMBuildBitCast(g->b, p, pt, ""), &idx, 1, "");
    return LLVMBuildBitCast(g->b, q, vec ? LLVMVectorType(g->ptr, g->W) : g->ptr, "");
  }
  LLVMTypeRef t64 = is_vector_value(idx) ? LLVMVectorType(g->i64, g->W) : g->i64;
  if (LLVMGetIntTypeWidth(is_vector_value(idx) ? LLVMGetElementType(LLVMTypeOf(idx)) : LLVMTypeOf(idx)) < 64)
    idx = LLVMBuildSExt(g->b, idx, t64, "");
  LLVMValueRef s = LLVMConstInt(g->i64, (unsigned long long)scale, 1);
  LLVMValueRef off = LLVMBuildMul(g->b, idx, is_vector_value(idx) ? wcg_splat(g, s) : s, "");
  return LLVMBuildGEP2(g->b, g->i8, p, &off, 1, "");
}

/* An index as narrow as it is known to be: the operand of its sign extension (clang's `sext i32 to
 * i64` of an int index, or `ashr (shl x, 32), 32`, the same on x's low half), which the GEP extends
 * again itself. A vector of 32-bit indices is what x86's gathers take without splitting. */
static LLVMValueRef narrow_index(wcg *g, const rc_value *v, bool vec) {
  if (v->kind == RC_V_INSTR && !g->slot_only[v->id]) {
    const rc_instr *x = (const rc_instr *)v;
    bool ok;
    if (x->op == RC_OP_SEXT && rc_type_bits((rc_type)x->ops[0]->type) >= 8) return wcg_operand(g, x->ops[0], vec);
    if (x->op == RC_OP_ASHR && x->v.type == RC_I64 && const_int(x->ops[1], &ok) == 32 && ok &&
        x->ops[0]->kind == RC_V_INSTR) {
      const rc_instr *shl = (const rc_instr *)x->ops[0];
      bool ok2;
      if (shl->op == RC_OP_SHL && const_int(shl->ops[1], &ok2) == 32 && ok2 && !g->slot_only[shl->v.id]) {
        LLVMValueRef w = wcg_operand(g, shl->ops[0], vec);
        return LLVMBuildTrunc(g->b, w, vec ? LLVMVectorType(g->i32, g->W) : g->i32, "");
      }
    }
  }
  return wcg_operand(g, v, vec);
}

/* A vector gep keeps a uniform base scalar (a scalar base with vector indices: the code generator
 * then gathers from base + index * scale) and only the indices that are vectors as vectors. */
static LLVMValueRef emit_gep(wcg *g, const rc_instr *i, bool vec) {
  LLVMValueRef p = wcg_operand(g, i->ops[0], vec && !wave_value_is_scalar(i->ops[0]));
  for (uint32_t o = 1; o < i->nops; o++)
    p = scaled_index(g, p, narrow_index(g, i->ops[o], vec && !wave_value_is_scalar(i->ops[o])), i->cases[o - 1]);
  if (i->imm) {
    LLVMValueRef off = LLVMConstInt(g->i64, (unsigned long long)i->imm, 1);
    p = LLVMBuildGEP2(g->b, g->i8, p, &off, 1, "");
  }
  return vec && !is_vector_value(p) ? wcg_splat(g, p) : p;
}

/* A lane's private memory, or the group's local memory, at a region's offset. */
static LLVMValueRef region_address(wcg *g, const rc_instr *i, bool vec) {
  bool priv = i->op == RC_OP_ALLOCA;
  LLVMValueRef base = LLVMBuildLoad2(g->b, g->ptr, wcg_ctx_field(g, priv ? CTX_PRIVATE : CTX_LOCAL), "");
  LLVMValueRef off = wcg_const_i64(g, g->region_offset[i->v.id]);
  base = LLVMBuildGEP2(g->b, g->i8, base, &off, 1, "");
  if (!priv || !vec) return vec ? wcg_splat(g, base) : base;
  LLVMValueRef stride = LLVMBuildLoad2(g->b, g->i64, wcg_ctx_field(g, CTX_PRIVATE_STRIDE), "");
  LLVMValueRef lanes = LLVMBuildMul(g->b, wcg_iota(g), wcg_splat(g, stride), "");
  return LLVMBuildGEP2(g->b, g->i8, base, &lanes, 1, "private");
}

/* How a value of type t sits in memory: the type LLVM loads and stores (i1 as i8, i33 as i40). */
static LLVMTypeRef memory_type(wcg *g, rc_type t) {
  if (t == RC_I1) return g->i8;
  if (rc_type_is_int(t) && rc_type_bits(t) % 8) return LLVMIntTypeInContext(g->lc, 8 * rc_type_size(t));
  return wcg_type(g, t);
}

static LLVMValueRef from_memory(wcg *g, LLVMValueRef v, rc_type t) {
  if (t == RC_I1) return LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  if (rc_type_is_int(t) && rc_type_bits(t) % 8)
    return LLVMBuildTrunc(g->b, v, LLVMTypeOf(v) == memory_type(g, t) ? wcg_type(g, t) : wcg_vtype(g, t), "");
  return v;
}

static LLVMValueRef to_memory(wcg *g, LLVMValueRef v, rc_type t, bool vec) {
  LLVMTypeRef mt = memory_type(g, t);
  if (mt == wcg_type(g, t)) return v;
  return LLVMBuildZExt(g->b, v, vec ? LLVMVectorType(mt, g->W) : mt, "");
}

static LLVMValueRef typed_ptr(wcg *g, LLVMValueRef p, LLVMTypeRef elem) {
  return LLVMBuildBitCast(g->b, p, LLVMPointerType(elem, 0), "");
}

static LLVMValueRef typed_ptrs(wcg *g, LLVMValueRef p, LLVMTypeRef elem) {
  return LLVMBuildBitCast(g->b, p, LLVMVectorType(LLVMPointerType(elem, 0), g->W), "");
}

/* The access's form: uniform (stride 0), consecutive (stride == its size), or per lane. */
typedef struct access {
  const rc_value *addr;
  wave_affine aff;
  LLVMTypeRef mt;  /* the memory type of one lane */
  uint64_t size;
} access;

static access access_of(wcg *g, const rc_value *addr, rc_type t) {
  access a;
  a.addr = addr;
  a.aff = affine(g, addr);
  a.mt = memory_type(g, t);
  a.size = rc_type_size(t);
  return a;
}

/* Two paths, the fast one where `valid` holds: the builder goes to the fast block, *slow is the other
 * block, *join where both end (each path branches there itself). */
static void split_on(wcg *g, LLVMValueRef valid, LLVMBasicBlockRef *slow, LLVMBasicBlockRef *join) {
  LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(g->lc, g->fn, "mem.fast");
  *slow = LLVMAppendBasicBlockInContext(g->lc, g->fn, "mem.lanes");
  *join = LLVMAppendBasicBlockInContext(g->lc, g->fn, "mem.done");
  LLVMBuildCondBr(g->b, valid, fast, *slow);
  LLVMPositionBuilderAtEnd(g->b, fast);
}

static LLVMValueRef gather(wcg *g, const access *a, LLVMValueRef lanes) {
  LLVMTypeRef vt = LLVMVectorType(a->mt, g->W);
  LLVMValueRef ptrs = typed_ptrs(g, wcg_vector(g, a->addr), a->mt);
  LLVMTypeRef ov[2] = {vt, LLVMTypeOf(ptrs)};
  LLVMValueRef args[4] = {ptrs, wcg_const_i32(g, 1), lanes, LLVMGetUndef(vt)};
  return wcg_intrinsic(g, "llvm.masked.gather", ov, 2, args, 4);
}

/* The lanes of a strided access: k elements per lane (1: consecutive), or 0 when it is neither. */
static unsigned stride_elements(wcg *g, const access *a) {
  if (!a->aff.base || a->aff.stride <= 0 || a->size == 0 ||
      a->size != (uint64_t)LLVMABISizeOfType(LLVMGetModuleDataLayout(g->mod), a->mt))
    return 0;
  uint64_t k = (uint64_t)a->aff.stride / a->size;
  if ((uint64_t)a->aff.stride % a->size || k > 8 || g->W * k > 256) return 0;
  return (unsigned)k;
}

/* <W * k x i1>: lane l's bit at l * k, the other elements off. */
static LLVMValueRef spread_lanes(wcg *g, LLVMValueRef lanes, unsigned k) {
  LLVMValueRef idx[256];
  for (unsigned p = 0; p < g->W * k; p++) idx[p] = wcg_const_i32(g, p % k ? g->W : p / k);
  LLVMValueRef off = LLVMConstNull(LLVMVectorType(g->i1, g->W));
  return LLVMBuildShuffleVector(g->b, lanes, off, LLVMConstVector(idx, g->W * k), "");
}

/* the shuffle mask picking element l * k into lane l (into: lane l into element l * k) */
static LLVMValueRef strided_picks(wcg *g, unsigned k, bool into) {
  LLVMValueRef idx[256];
  unsigned n = into ? g->W * k : g->W;
  for (unsigned p = 0; p < n; p++)
    idx[p] = into ? (p % k ? LLVMGetUndef(g->i32) : wcg_const_i32(g, p / k)) : wcg_const_i32(g, p * k);
  return LLVMConstVector(idx, n);
}

static LLVMValueRef load_strided(wcg *g, const access *a, LLVMValueRef lanes, unsigned k) {
  LLVMTypeRef vt = LLVMVectorType(a->mt, g->W * k);
  LLVMValueRef p = typed_ptr(g, a->aff.base, vt);
  LLVMTypeRef ov[2] = {vt, LLVMTypeOf(p)};
  LLVMValueRef args[4] = {p, wcg_const_i32(g, 1), spread_lanes(g, lanes, k), LLVMGetUndef(vt)};
  LLVMValueRef all = wcg_intrinsic(g, "llvm.masked.load", ov, 2, args, 4);
  return LLVMBuildShuffleVector(g->b, all, LLVMGetUndef(vt), strided_picks(g, k, false), "");
}

static void store_strided(wcg *g, const access *a, LLVMValueRef val, LLVMValueRef lanes, unsigned k) {
  LLVMValueRef spread = LLVMBuildShuffleVector(g->b, val, LLVMGetUndef(LLVMTypeOf(val)), strided_picks(g, k, true), "");
  LLVMValueRef p = typed_ptr(g, a->aff.base, LLVMTypeOf(spread));
  LLVMTypeRef ov[2] = {LLVMTypeOf(spread), LLVMTypeOf(p)};
  LLVMValueRef args[4] = {spread, p, wcg_const_i32(g, 1), spread_lanes(g, lanes, k)};
  wcg_intrinsic(g, "llvm.masked.store", ov, 2, args, 4);
}

static LLVMValueRef load_consecutive(wcg *g, const access *a, LLVMValueRef lanes) {
  LLVMTypeRef vt = LLVMVectorType(a->mt, g->W);
  LLVMValueRef p = typed_ptr(g, a->aff.base, vt);
  LLVMTypeRef ov[2] = {vt, LLVMTypeOf(p)};
  LLVMValueRef args[4] = {p, wcg_const_i32(g, 1), lanes, LLVMGetUndef(vt)};
  return wcg_intrinsic(g, "llvm.masked.load", ov, 2, args, 4);
}

/* One load when a lane is active, its value in every lane. */
static LLVMValueRef load_uniform(wcg *g, const access *a, LLVMValueRef base) {
  LLVMBasicBlockRef from = LLVMGetInsertBlock(g->b);
  LLVMBasicBlockRef once = LLVMAppendBasicBlockInContext(g->lc, g->fn, "load.once");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->lc, g->fn, "load.done");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, wcg_exec(g), wcg_const_i64(g, 0), ""), once, done);
  LLVMPositionBuilderAtEnd(g->b, once);
  LLVMValueRef v = LLVMBuildLoad2(g->b, a->mt, typed_ptr(g, base, a->mt), "");
  LLVMSetAlignment(v, 1);
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
  LLVMValueRef phi = LLVMBuildPhi(g->b, a->mt, "");
  LLVMValueRef in[2] = {LLVMConstNull(a->mt), v};
  LLVMBasicBlockRef bb[2] = {from, once};
  LLVMAddIncoming(phi, in, bb, 2);
  return wcg_splat(g, phi);
}

static LLVMValueRef phi2(wcg *g, LLVMValueRef a, LLVMBasicBlockRef ba, LLVMValueRef b, LLVMBasicBlockRef bb) {
  LLVMValueRef phi = LLVMBuildPhi(g->b, LLVMTypeOf(a), "");
  LLVMValueRef in[2] = {a, b};
  LLVMBasicBlockRef from[2] = {ba, bb};
  LLVMAddIncoming(phi, in, from, 2);
  return phi;
}

static LLVMValueRef emit_load(wcg *g, const rc_instr *i, bool scalar) {
  rc_type t = (rc_type)i->v.type;
  access a = access_of(g, i->ops[0], t);
  if (scalar) { /* a scalar load runs once per wave */
    LLVMValueRef v = LLVMBuildLoad2(g->b, a.mt, typed_ptr(g, wcg_scalar(g, i->ops[0]), a.mt), "");
    LLVMSetAlignment(v, 1);
    return from_memory(g, v, t);
  }
  LLVMValueRef v;
  if (a.aff.base && a.aff.stride == 0 && !a.aff.valid) {
    v = load_uniform(g, &a, a.aff.base);
  } else {
    /* uniform, consecutive (k = 1) or strided (k > 1) where the address's form holds, guarded by
     * its validity with the gather as the other path; per lane otherwise */
    unsigned k = stride_elements(g, &a);
    bool uniform = a.aff.base && a.aff.stride == 0 &&
                   a.size == (uint64_t)LLVMABISizeOfType(LLVMGetModuleDataLayout(g->mod), a.mt);
    if (!uniform && k == 0) {
      v = gather(g, &a, wcg_exec_lanes(g));
    } else {
      LLVMBasicBlockRef slow = NULL, join = NULL;
      if (a.aff.valid) split_on(g, a.aff.valid, &slow, &join);
      v = uniform ? load_uniform(g, &a, a.aff.base)
          : k == 1 ? load_consecutive(g, &a, wcg_exec_lanes(g))
                   : load_strided(g, &a, wcg_exec_lanes(g), k);
      if (a.aff.valid) {
        LLVMBasicBlockRef fast_end = LLVMGetInsertBlock(g->b);
        LLVMBuildBr(g->b, join);
        LLVMPositionBuilderAtEnd(g->b, slow);
        LLVMValueRef lanes = gather(g, &a, wcg_exec_lanes(g));
        LLVMBuildBr(g->b, join);
        LLVMPositionBuilderAtEnd(g->b, join);
        v = phi2(g, v, fast_end, lanes, slow);
      }
    }
  }
  return from_memory(g, v, t);
}

static void scatter(wcg *g, const access *a, LLVMValueRef val, LLVMValueRef lanes) {
  LLVMValueRef ptrs = typed_ptrs(g, wcg_vector(g, a->addr), a->mt);
  LLVMTypeRef ov[2] = {LLVMTypeOf(val), LLVMTypeOf(ptrs)};
  LLVMValueRef args[4] = {val, ptrs, wcg_const_i32(g, 1), lanes};
  wcg_intrinsic(g, "llvm.masked.scatter", ov, 2, args, 4);
}

static void store_consecutive(wcg *g, const access *a, LLVMValueRef val, LLVMValueRef lanes) {
  LLVMValueRef p = typed_ptr(g, a->aff.base, LLVMTypeOf(val));
  LLVMTypeRef ov[2] = {LLVMTypeOf(val), LLVMTypeOf(p)};
  LLVMValueRef args[4] = {val, p, wcg_const_i32(g, 1), lanes};
  wcg_intrinsic(g, "llvm.masked.store", ov, 2, args, 4);
}

/* One store of the highest active lane's value (the lanes store in lane order), when one is active. */
static void store_uniform(wcg *g, const access *a, LLVMValueRef base, const rc_value *value, rc_type t) {
  LLVMValueRef e = wcg_exec(g);
  LLVMBasicBlockRef once = LLVMAppendBasicBlockInContext(g->lc, g->fn, "store.once");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->lc, g->fn, "store.done");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, e, wcg_const_i64(g, 0), ""), once, done);
  LLVMPositionBuilderAtEnd(g->b, once);
  LLVMValueRef v;
  if (wave_value_is_scalar(value)) {
    v = wcg_scalar(g, value);
  } else {
    LLVMValueRef args[2] = {e, LLVMConstInt(g->i1, 0, 0)};
    LLVMValueRef lz = wcg_intrinsic(g, "llvm.ctlz", &g->i64, 1, args, 2);
    LLVMValueRef last = LLVMBuildTrunc(g->b, LLVMBuildSub(g->b, wcg_const_i64(g, 63), lz, ""), g->i32, "");
    v = LLVMBuildExtractElement(g->b, wcg_scalar(g, value), last, "");
  }
  LLVMValueRef st = LLVMBuildStore(g->b, to_memory(g, v, t, false), typed_ptr(g, base, a->mt));
  LLVMSetAlignment(st, 1);
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

static void emit_store(wcg *g, const rc_instr *i, bool scalar) {
  const rc_value *value = i->ops[0];
  rc_type t = (rc_type)value->type;
  access a = access_of(g, i->ops[1], t);
  if (scalar) {
    LLVMValueRef st = LLVMBuildStore(g->b, to_memory(g, wcg_scalar(g, value), t, false),
                                     typed_ptr(g, wcg_scalar(g, i->ops[1]), a.mt));
    LLVMSetAlignment(st, 1);
    return;
  }
  bool fits = a.size == (uint64_t)LLVMABISizeOfType(LLVMGetModuleDataLayout(g->mod), a.mt);
  if (a.aff.base && a.aff.stride == 0 && !a.aff.valid) {
    store_uniform(g, &a, a.aff.base, value, t);
    return;
  }
  /* uniform, consecutive (k = 1) or strided (k > 1: the lanes never overlap, so the order of
   * their stores does not matter) where the address's form holds, the scatter otherwise */
  unsigned k = stride_elements(g, &a);
  bool uniform = a.aff.base && a.aff.stride == 0 && fits;
  if (!uniform && k == 0) {
    scatter(g, &a, to_memory(g, wcg_vector(g, value), t, true), wcg_exec_lanes(g));
    return;
  }
  LLVMBasicBlockRef slow = NULL, join = NULL;
  if (a.aff.valid) split_on(g, a.aff.valid, &slow, &join);
  if (uniform) store_uniform(g, &a, a.aff.base, value, t);
  else if (k == 1) store_consecutive(g, &a, to_memory(g, wcg_vector(g, value), t, true), wcg_exec_lanes(g));
  else store_strided(g, &a, to_memory(g, wcg_vector(g, value), t, true), wcg_exec_lanes(g), k);
  if (!a.aff.valid) return;
  LLVMBuildBr(g->b, join);
  LLVMPositionBuilderAtEnd(g->b, slow);
  scatter(g, &a, to_memory(g, wcg_vector(g, value), t, true), wcg_exec_lanes(g));
  LLVMBuildBr(g->b, join);
  LLVMPositionBuilderAtEnd(g->b, join);
}

/* ---- atomics and bulk memory, lane by lane ---------------------------------------------------------- */

typedef struct atomic_lane {
  const rc_instr *i;
  rc_builtin op;
  LLVMValueRef ptr, val, val2; /* vectors, or scalars */
  bool vec_ptr, vec_val, vec_val2;
  rc_type t;
} atomic_lane;

static LLVMValueRef lane_of(wcg *g, LLVMValueRef v, bool vec, LLVMValueRef lane) {
  return vec ? LLVMBuildExtractElement(g->b, v, lane, "") : v;
}

static LLVMAtomicRMWBinOp rmw_op(rc_builtin op) {
  switch (op) {
  case RC_BI_ATOMIC_ADD: case RC_BI_ATOMIC_INC: case RC_BI_ATOMIC_DEC: return LLVMAtomicRMWBinOpAdd;
  case RC_BI_ATOMIC_SUB: return LLVMAtomicRMWBinOpSub;
  case RC_BI_ATOMIC_XCHG: return LLVMAtomicRMWBinOpXchg;
  case RC_BI_ATOMIC_SMIN: return LLVMAtomicRMWBinOpMin;
  case RC_BI_ATOMIC_SMAX: return LLVMAtomicRMWBinOpMax;
  case RC_BI_ATOMIC_UMIN: return LLVMAtomicRMWBinOpUMin;
  case RC_BI_ATOMIC_UMAX: return LLVMAtomicRMWBinOpUMax;
  case RC_BI_ATOMIC_AND: return LLVMAtomicRMWBinOpAnd;
  case RC_BI_ATOMIC_OR: return LLVMAtomicRMWBinOpOr;
  default: return LLVMAtomicRMWBinOpXor;
  }
}

/* One lane's atomic on an integer of the value's width (floats go through their bits). */
static LLVMValueRef atomic_one(wcg *g, const atomic_lane *s, LLVMValueRef lane) {
  LLVMTypeRef vt = wcg_type(g, s->t);
  bool is_float = rc_type_is_float(s->t);
  LLVMTypeRef it = is_float ? LLVMIntTypeInContext(g->lc, rc_type_bits(s->t)) : vt;
  LLVMValueRef p = typed_ptr(g, lane_of(g, s->ptr, s->vec_ptr, lane), it), old;
  if (s->op == RC_BI_ATOMIC_CMPXCHG) {
    LLVMValueRef e = lane_of(g, s->val, s->vec_val, lane), n = lane_of(g, s->val2, s->vec_val2, lane);
    if (is_float) e = LLVMBuildBitCast(g->b, e, it, ""), n = LLVMBuildBitCast(g->b, n, it, "");
    LLVMValueRef pair = LLVMBuildAtomicCmpXchg(g->b, p, e, n, LLVMAtomicOrderingSequentiallyConsistent,
                                               LLVMAtomicOrderingSequentiallyConsistent, 0);
    old = LLVMBuildExtractValue(g->b, pair, 0, "");
  } else {
    LLVMValueRef v = s->op == RC_BI_ATOMIC_INC   ? LLVMConstInt(it, 1, 0)
                     : s->op == RC_BI_ATOMIC_DEC ? LLVMConstAllOnes(it)
                                                 : lane_of(g, s->val, s->vec_val, lane);
    if (is_float) v = LLVMBuildBitCast(g->b, v, it, "");
    old = LLVMBuildAtomicRMW(g->b, rmw_op(s->op), p, v, LLVMAtomicOrderingSequentiallyConsistent, 0);
  }
  return is_float ? LLVMBuildBitCast(g->b, old, vt, "") : old;
}

static LLVMValueRef atomic_lane_body(wcg *g, LLVMValueRef lane, void *state, LLVMValueRef acc) {
  const atomic_lane *s = state;
  return LLVMBuildInsertElement(g->b, acc, atomic_one(g, s, lane), lane, "");
}

LLVMValueRef wcg_emit_atomic(wcg *g, const rc_instr *i, rc_builtin op, const rc_value *ptr,
                             const rc_value *val, const rc_value *val2, bool scalar) {
  atomic_lane s = {i, op, NULL, NULL, NULL, false, false, false, (rc_type)i->v.type};
  s.ptr = wcg_scalar(g, ptr);
  s.vec_ptr = !wave_value_is_scalar(ptr);
  if (val) s.val = wcg_scalar(g, val), s.vec_val = !wave_value_is_scalar(val);
  if (val2) s.val2 = wcg_scalar(g, val2), s.vec_val2 = !wave_value_is_scalar(val2);
  if (scalar) return atomic_one(g, &s, wcg_const_i32(g, 0));
  return wcg_lane_loop(g, wcg_exec(g), LLVMGetUndef(wcg_vtype(g, s.t)), atomic_lane_body, &s);
}

typedef struct bulk_lane {
  bool is_memset;
  LLVMValueRef dst, src, n;
  bool vd, vs, vn;
} bulk_lane;

static LLVMValueRef bulk_lane_body(wcg *g, LLVMValueRef lane, void *state, LLVMValueRef acc) {
  const bulk_lane *s = state;
  LLVMValueRef d = lane_of(g, s->dst, s->vd, lane), x = lane_of(g, s->src, s->vs, lane);
  LLVMValueRef n = LLVMBuildZExtOrBitCast(g->b, lane_of(g, s->n, s->vn, lane), g->i64, "");
  if (s->is_memset) LLVMBuildMemSet(g->b, d, x, n, 1);
  else LLVMBuildMemMove(g->b, d, 1, x, 1, n); /* overlapping ranges: as if through a buffer */
  return acc;
}

static LLVMValueRef emit_bulk(wcg *g, const rc_instr *i, bool scalar) {
  bulk_lane s;
  s.is_memset = i->pred == RC_BI_MEMSET;
  s.dst = wcg_scalar(g, i->ops[0]), s.vd = !wave_value_is_scalar(i->ops[0]);
  s.src = wcg_scalar(g, i->ops[1]), s.vs = !wave_value_is_scalar(i->ops[1]);
  s.n = wcg_scalar(g, i->ops[2]), s.vn = !wave_value_is_scalar(i->ops[2]);
  if (scalar) bulk_lane_body(g, wcg_const_i32(g, 0), &s, NULL);
  else wcg_lane_loop(g, wcg_exec(g), NULL, bulk_lane_body, &s);
  return NULL;
}

/* ---- the entry point --------------------------------------------------------------------------------- */

LLVMValueRef wcg_emit_mem(wcg *g, const rc_instr *i, bool scalar) {
  switch ((rc_opcode)i->op) {
  case RC_OP_GEP: return emit_gep(g, i, !scalar);
  case RC_OP_ALLOCA: case RC_OP_LOCALMEM: return region_address(g, i, !scalar);
  case RC_OP_LOAD: return emit_load(g, i, scalar);
  case RC_OP_STORE: emit_store(g, i, scalar); return NULL;
  case RC_OP_CALL: return emit_bulk(g, i, scalar); /* memcpy, memset */
  default: return NULL;
  }
}
