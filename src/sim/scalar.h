/* The value semantics of one thread (one lane), shared by the simulators: how a value sits in a
 * slot, integer wrap-around, shifts, division faults, comparisons, casts, memory images, math
 * builtins. docs/ir.md is normative; in brief:
 * - an integer slot holds the value truncated to its width and sign-extended (i1: 0 or 1), as
 *   rc_int_canon does for constants, so signed uses read it directly and unsigned uses mask it;
 * - f32 lives in the slot's float member and every f32 operation rounds to float; f16 lives there
 *   too, as the float holding the half's value, and every f16 operation rounds to half (a result
 *   computed in double and rounded once to half is the correctly rounded half for + - * / and sqrt:
 *   53 >= 2 * 11 + 2 bits, so the double rounding is innocuous);
 * - shift amounts are taken modulo the bit width; sdiv/udiv/srem/urem by zero and sdiv/srem of
 *   the smallest integer by -1 are faults (the caller reports them);
 * - fptosi/fptoui saturate to the destination range and map NaN to 0;
 * - in memory, values are little-endian in rc_type_size bytes (i33: 5, f16: 2); i1 is one byte (0 or
 *   1; any non-zero byte loads as 1).
 * Everything is static inline so that a simulator's dispatch loop specialises it per opcode. */
#ifndef RECONV_SIM_SCALAR_H
#define RECONV_SIM_SCALAR_H

#include "reconv/ir.h"

#include <math.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the simulators assume a little-endian host"
#endif

typedef union sim_slot {
  int64_t i;
  uint64_t u;
  double d;
  float f;
} sim_slot;

/* Truncate to `bits` and sign-extend (i1: keep bit 0). */
static inline int64_t sim_canon(uint64_t r, unsigned bits) {
  if (bits >= 64) return (int64_t)r;
  if (bits == 1) return (int64_t)(r & 1);
  unsigned sh = 64 - bits;
  return (int64_t)(r << sh) >> sh;
}
/* The value as a signed integer of its width (i1 true is -1). */
static inline int64_t sim_sval(int64_t v, unsigned bits) {
  return bits == 1 ? -(v & 1) : v;
}
/* The value as an unsigned integer of its width. */
static inline uint64_t sim_uval(int64_t v, unsigned bits) {
  return bits >= 64 ? (uint64_t)v : (uint64_t)v & (((uint64_t)1 << bits) - 1);
}
static inline int64_t sim_smin_of(unsigned bits) {
  return bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
}

/* Integer binary operations. Division faults leave *fault set (1: by zero, 2: overflow). */
static inline int64_t sim_int_binop(rc_opcode op, unsigned bits, int64_t a, int64_t b, int *fault) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  /* shift amounts modulo the width (a shift by the width or more is poison in LLVM: any value
   * would do, this one is deterministic); widths such as i33 are not powers of two */
  unsigned amt = (unsigned)((bits & (bits - 1)) == 0 ? ub & (bits - 1) : ub % bits);
  switch (op) {
  case RC_OP_ADD: return sim_canon(ua + ub, bits);
  case RC_OP_SUB: return sim_canon(ua - ub, bits);
  case RC_OP_MUL: return sim_canon(ua * ub, bits);
  case RC_OP_AND: return a & b;
  case RC_OP_OR: return a | b;
  case RC_OP_XOR: return a ^ b;
  case RC_OP_ANDN: return a & ~b & (bits == 1 ? 1 : -1);
  case RC_OP_SHL: return sim_canon(ua << amt, bits);
  case RC_OP_LSHR: return sim_canon(sim_uval(a, bits) >> amt, bits);
  case RC_OP_ASHR: return sim_canon((uint64_t)(sim_sval(a, bits) >> amt), bits);
  case RC_OP_UDIV:
  case RC_OP_UREM: {
    uint64_t x = sim_uval(a, bits), y = sim_uval(b, bits);
    if (y == 0) {
      *fault = 1;
      return 0;
    }
    return sim_canon(op == RC_OP_UDIV ? x / y : x % y, bits);
  }
  case RC_OP_SDIV:
  case RC_OP_SREM: {
    int64_t x = sim_sval(a, bits), y = sim_sval(b, bits);
    if (y == 0) {
      *fault = 1;
      return 0;
    }
    if (y == -1 && x == sim_smin_of(bits)) {
      *fault = 2;
      return 0;
    }
    return sim_canon((uint64_t)(op == RC_OP_SDIV ? x / y : x % y), bits);
  }
  default: return 0;
  }
}

static inline bool sim_icmp(rc_cmp c, unsigned bits, int64_t a, int64_t b) {
  switch (c) {
  case RC_CMP_EQ: return a == b;
  case RC_CMP_NE: return a != b;
  case RC_CMP_SLT: return sim_sval(a, bits) < sim_sval(b, bits);
  case RC_CMP_SLE: return sim_sval(a, bits) <= sim_sval(b, bits);
  case RC_CMP_SGT: return sim_sval(a, bits) > sim_sval(b, bits);
  case RC_CMP_SGE: return sim_sval(a, bits) >= sim_sval(b, bits);
  case RC_CMP_ULT: return sim_uval(a, bits) < sim_uval(b, bits);
  case RC_CMP_ULE: return sim_uval(a, bits) <= sim_uval(b, bits);
  case RC_CMP_UGT: return sim_uval(a, bits) > sim_uval(b, bits);
  case RC_CMP_UGE: return sim_uval(a, bits) >= sim_uval(b, bits);
  default: return false;
  }
}

static inline bool sim_fcmp(rc_cmp c, double a, double b) {
  bool uno = isnan(a) || isnan(b);
  switch (c) {
  case RC_CMP_OEQ: return !uno && a == b;
  case RC_CMP_ONE: return !uno && a != b;
  case RC_CMP_OLT: return !uno && a < b;
  case RC_CMP_OLE: return !uno && a <= b;
  case RC_CMP_OGT: return !uno && a > b;
  case RC_CMP_OGE: return !uno && a >= b;
  case RC_CMP_ORD: return !uno;
  case RC_CMP_UEQ: return uno || a == b;
  case RC_CMP_UNE: return uno || a != b;
  case RC_CMP_FULT: return uno || a < b;
  case RC_CMP_FULE: return uno || a <= b;
  case RC_CMP_FUGT: return uno || a > b;
  case RC_CMP_FUGE: return uno || a >= b;
  case RC_CMP_UNO: return uno;
  case RC_CMP_FTRUE: return true;
  default: return false; /* RC_CMP_FFALSE */
  }
}

/* A float slot as double, and a double stored into a float slot of type t (f32 and f16 round). */
static inline double sim_fget(sim_slot s, rc_type t) {
  return t == RC_F32 || t == RC_F16 ? (double)s.f : s.d;
}
static inline sim_slot sim_fput(double v, rc_type t) {
  sim_slot s;
  s.u = 0;
  if (t == RC_F32) s.f = (float)v;
  else if (t == RC_F16) s.f = (float)rc_round_f16(v);
  else s.d = v;
  return s;
}

static inline double sim_float_binop(rc_opcode op, rc_type t, double a, double b) {
  if (t == RC_F32) {
    float x = (float)a, y = (float)b;
    switch (op) {
    case RC_OP_FADD: return x + y;
    case RC_OP_FSUB: return x - y;
    case RC_OP_FMUL: return x * y;
    case RC_OP_FDIV: return x / y;
    default: return fmodf(x, y); /* frem */
    }
  }
  switch (op) {
  case RC_OP_FADD: return a + b;
  case RC_OP_FSUB: return a - b;
  case RC_OP_FMUL: return a * b;
  case RC_OP_FDIV: return a / b;
  default: return fmod(a, b);
  }
}

/* fptosi / fptoui: saturating, NaN -> 0. */
static inline int64_t sim_fptoi(double v, unsigned bits, bool is_signed) {
  if (isnan(v)) return 0;
  if (is_signed) {
    double lo = -ldexp(1.0, (int)bits - 1), hi = ldexp(1.0, (int)bits - 1); /* [lo, hi) */
    if (v <= lo) return sim_canon((uint64_t)sim_smin_of(bits), bits);
    if (v >= hi) return sim_canon((uint64_t)(bits >= 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1), bits);
    return sim_canon((uint64_t)(int64_t)v, bits);
  }
  double hi = ldexp(1.0, (int)bits);
  if (v <= 0) return 0;
  if (v >= hi) return sim_canon(UINT64_MAX, bits);
  return sim_canon((uint64_t)v, bits);
}

/* The raw bits of a value of type t (zero-extended), as stored in memory and used by bitcast. */
static inline uint64_t sim_to_bits(sim_slot s, rc_type t) {
  switch (t) {
  case RC_F32: {
    uint32_t u;
    memcpy(&u, &s.f, 4);
    return u;
  }
  case RC_F64: return s.u;
  case RC_F16: return rc_f16_from_double((double)s.f);
  default: return sim_uval(s.i, rc_type_bits(t));
  }
}
static inline sim_slot sim_from_bits(uint64_t bits, rc_type t) {
  sim_slot s;
  s.u = 0;
  switch (t) {
  case RC_F32: {
    uint32_t u = (uint32_t)bits;
    memcpy(&s.f, &u, 4);
    return s;
  }
  case RC_F64: s.u = bits; return s;
  case RC_F16: s.f = (float)rc_f16_to_double((uint16_t)bits); return s;
  case RC_I1: s.i = bits != 0; return s;
  default: s.i = sim_canon(bits, rc_type_bits(t)); return s;
  }
}

/* Little-endian memory images of 1 to 8 bytes (the store size of iN is ceil(N / 8) bytes: an i33
 * takes 5, its upper 7 bits zero). */
static inline uint64_t sim_read_le(const uint8_t *p, unsigned size) {
  switch (size) {
  case 1: return p[0];
  case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
  case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
  case 8: { uint64_t v; memcpy(&v, p, 8); return v; }
  default: { uint64_t v = 0; memcpy(&v, p, size < 8 ? size : 8); return v; }
  }
}
static inline void sim_write_le(uint8_t *p, unsigned size, uint64_t v) {
  switch (size) {
  case 1: p[0] = (uint8_t)v; break;
  case 2: { uint16_t w = (uint16_t)v; memcpy(p, &w, 2); break; }
  case 4: { uint32_t w = (uint32_t)v; memcpy(p, &w, 4); break; }
  case 8: memcpy(p, &v, 8); break;
  default: memcpy(p, &v, size < 8 ? size : 8); break;
  }
}

/* Casts other than the ones touching memory. */
static inline sim_slot sim_cast(rc_opcode op, rc_type from, rc_type to, sim_slot x) {
  sim_slot r;
  r.u = 0;
  unsigned fb = rc_type_bits(from), tb = rc_type_bits(to);
  switch (op) {
  case RC_OP_TRUNC: r.i = sim_canon((uint64_t)x.i, tb); break;
  case RC_OP_ZEXT: r.i = (int64_t)sim_uval(x.i, fb); r.i = sim_canon((uint64_t)r.i, tb); break;
  case RC_OP_SEXT: r.i = sim_canon((uint64_t)sim_sval(x.i, fb), tb); break;
  case RC_OP_FPTRUNC: /* f64 -> f32 / f16, f32 -> f16: one rounding from the exact source */
  case RC_OP_FPEXT: r = sim_fput(sim_fget(x, from), to); break;
  case RC_OP_FPTOSI: r.i = sim_fptoi(sim_fget(x, from), tb, true); break;
  case RC_OP_FPTOUI: r.i = sim_fptoi(sim_fget(x, from), tb, false); break;
  /* to f16 through double: only integers beyond 2^53 round twice, and they are far beyond the
     largest half (65504), so both roundings give infinity */
  case RC_OP_SITOFP:
    if (to == RC_F32) r.f = (float)sim_sval(x.i, fb); else r = sim_fput((double)sim_sval(x.i, fb), to);
    break;
  case RC_OP_UITOFP:
    if (to == RC_F32) r.f = (float)sim_uval(x.i, fb); else r = sim_fput((double)sim_uval(x.i, fb), to);
    break;
  case RC_OP_PTRTOINT: r.i = sim_canon(x.u, tb); break;
  case RC_OP_INTTOPTR: r.u = sim_uval(x.i, fb); break;
  default: r = sim_from_bits(sim_to_bits(x, from), to); break; /* bitcast */
  }
  return r;
}

/* fma of three halves with one rounding to half: the product is exact in double, the sum's error
 * is recovered exactly (two-sum), and the double sum rounded to odd then rounded to half is the
 * correctly rounded result (rounding to odd with 53 >= 11 + 2 bits never rounds twice wrongly). */
static inline double sim_fma_f16(double a, double b, double c) {
  double p = a * b, s = p + c;
  if (!isfinite(s)) return s;
  double bb = s - p, err = (p - (s - bb)) + (c - bb);
  uint64_t u;
  memcpy(&u, &s, 8);
  if (err != 0 && (u & 1) == 0) s = nextafter(s, err > 0 ? INFINITY : -INFINITY);
  return s;
}

/* Float math builtins (OpenCL meanings; round is half away from zero). f16 computes in double; the
 * caller's sim_fput rounds to half. */
static inline double sim_math(rc_builtin f, rc_type t, double a, double b, double c) {
  bool s = t == RC_F32;
  float x = (float)a, y = (float)b, z = (float)c;
  switch (f) {
  case RC_BI_SQRT: return s ? sqrtf(x) : sqrt(a);
  case RC_BI_FABS: return s ? fabsf(x) : fabs(a);
  case RC_BI_FLOOR: return s ? floorf(x) : floor(a);
  case RC_BI_CEIL: return s ? ceilf(x) : ceil(a);
  case RC_BI_FTRUNC: return s ? truncf(x) : trunc(a);
  case RC_BI_ROUND: return s ? roundf(x) : round(a);
  case RC_BI_EXP: return s ? expf(x) : exp(a);
  case RC_BI_EXP2: return s ? exp2f(x) : exp2(a);
  case RC_BI_LOG: return s ? logf(x) : log(a);
  case RC_BI_LOG2: return s ? log2f(x) : log2(a);
  case RC_BI_SIN: return s ? sinf(x) : sin(a);
  case RC_BI_COS: return s ? cosf(x) : cos(a);
  case RC_BI_RSQRT: return s ? 1.0f / sqrtf(x) : 1.0 / sqrt(a);
  case RC_BI_FMIN: return s ? fminf(x, y) : fmin(a, b);
  case RC_BI_FMAX: return s ? fmaxf(x, y) : fmax(a, b);
  case RC_BI_POW: return s ? powf(x, y) : pow(a, b);
  case RC_BI_COPYSIGN: return s ? copysignf(x, y) : copysign(a, b);
  case RC_BI_FMA: return s ? fmaf(x, y, z) : t == RC_F16 ? sim_fma_f16(a, b, c) : fma(a, b, c);
  case RC_BI_FMULADD: { /* llvm.fmuladd and OpenCL's mad, as LLVM computes them on a host without
                           fused multiply-add: the product rounded, then the sum rounded (volatile
                           keeps the C compiler from contracting the two into one fma) */
    if (s) {
      volatile float p = x * y;
      return p + z;
    }
    if (t == RC_F16) return rc_round_f16(a * b) + c; /* both exact in double; the caller rounds */
    volatile double p = a * b;
    return p + c;
  }
  case RC_BI_RINT: return s ? rintf(x) : rint(a);
  case RC_BI_FMINIMUM: /* LLVM's minimum/maximum: NaN if either is, -0 below +0 */
  case RC_BI_FMAXIMUM: {
    if (isnan(a) || isnan(b)) return NAN;
    if (a == b) return (f == RC_BI_FMINIMUM) == (signbit(a) != 0) ? a : b;
    return (f == RC_BI_FMINIMUM) == (a < b) ? a : b;
  }
  default: return 0;
  }
}

/* Integer math builtins; clz/ctz of 0 give the bit width, abs of the smallest integer wraps. */
static inline int64_t sim_int_math(rc_builtin f, unsigned bits, int64_t a, int64_t b) {
  uint64_t ua = sim_uval(a, bits), ub = sim_uval(b, bits);
  int64_t sa = sim_sval(a, bits), sb = sim_sval(b, bits);
  switch (f) {
  case RC_BI_SMIN: return sa < sb ? a : b;
  case RC_BI_SMAX: return sa > sb ? a : b;
  case RC_BI_UMIN: return ua < ub ? a : b;
  case RC_BI_UMAX: return ua > ub ? a : b;
  case RC_BI_ABS: return sim_canon(sa < 0 ? 0 - (uint64_t)sa : (uint64_t)sa, bits);
  case RC_BI_CTPOP: return __builtin_popcountll(ua);
  case RC_BI_CLZ: return ua ? __builtin_clzll(ua) - (64 - (int)bits) : (int64_t)bits;
  case RC_BI_CTZ: return ua ? __builtin_ctzll(ua) : (int64_t)bits;
  default: return 0;
  }
}

/* The new memory value of an atomic read-modify-write (old value `a`, operand `b`). */
static inline int64_t sim_atomic_op(rc_builtin f, unsigned bits, int64_t a, int64_t b) {
  switch (f) {
  case RC_BI_ATOMIC_ADD: return sim_canon((uint64_t)a + (uint64_t)b, bits);
  case RC_BI_ATOMIC_SUB: return sim_canon((uint64_t)a - (uint64_t)b, bits);
  case RC_BI_ATOMIC_XCHG: return b;
  case RC_BI_ATOMIC_SMIN: return sim_int_math(RC_BI_SMIN, bits, a, b);
  case RC_BI_ATOMIC_SMAX: return sim_int_math(RC_BI_SMAX, bits, a, b);
  case RC_BI_ATOMIC_UMIN: return sim_int_math(RC_BI_UMIN, bits, a, b);
  case RC_BI_ATOMIC_UMAX: return sim_int_math(RC_BI_UMAX, bits, a, b);
  case RC_BI_ATOMIC_AND: return a & b;
  case RC_BI_ATOMIC_OR: return a | b;
  case RC_BI_ATOMIC_XOR: return a ^ b;
  default: return b;
  }
}

#endif
