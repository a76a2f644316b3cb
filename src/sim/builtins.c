/* The long tail of the builtins (include/reconv/builtins.def, class RC_SIG_OTHER): one entry point,
 * sim_builtin_other, computes one scalar call for every machine (the thread-level interpreter per
 * thread, the wave machines per lane), so the three agree by construction. The hot classes (F1 ..
 * I2, queries, atomics, memcpy/memset) stay inline in the machines (scalar.h).
 *
 * Meanings: the OpenCL C 1.2 specification, section 6.12 (math 6.12.2, integer 6.12.3, common
 * 6.12.4, relational 6.12.6, async copies 6.12.10, atomics 6.12.11) and conversions (6.2.3), for
 * f16, f32 and f64; LLVM's LangRef for the intrinsics; the AMDGPU backend's documentation
 * (AMDGPUUsage, IntrinsicsAMDGPU.td) for the amdgcn ones. Rules that hold throughout:
 * - f32 math uses the f-suffixed C functions (atanf, not atan rounded), so a result is what a C
 *   program computing in float gets; f64 the plain ones; f16 computes in double and the caller's
 *   sim_fput rounds once to half (more accurate than OpenCL's half precision asks);
 * - formulas the specification gives as expressions (mix, smoothstep, degrees ...) round after
 *   every operation in the builtin's type, as the expression would;
 * - values are scalars: scalarize.c splits vectors before anything runs (docs/llvm.md), and run_form.c
 *   refuses a vector-typed call with its name. */
#include "decode.h"

#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

__extension__ typedef __int128 sim_i128;
__extension__ typedef unsigned __int128 sim_u128;

#define SIM_PI 3.14159265358979323846

/* ---- floats ------------------------------------------------------------------------------------- */

/* A value rounded to type t (f32, f16: rounded; f64: itself). */
static double rnd(double v, rc_type t) {
  return sim_fget(sim_fput(v, t), t);
}

/* The neighbour of v in type t toward +inf (up) or -inf. */
static double step_toward(double v, bool up, rc_type t) {
  if (t == RC_F32) return nextafterf((float)v, up ? INFINITY : -INFINITY);
  if (t == RC_F64) return nextafter(v, up ? INFINITY : -INFINITY);
  /* f16: neighbouring bit patterns of the same sign are neighbouring values */
  if (isnan(v)) return v;
  if (v == 0) return up ? rc_f16_to_double(1) : -rc_f16_to_double(1);
  uint16_t h = rc_f16_from_double(v);
  bool away = (v > 0) == up; /* moving away from zero */
  if (isinf(v) && away) return v;
  return rc_f16_to_double((uint16_t)(away ? h + 1 : h - 1));
}

/* The smallest positive normal number of type t. */
static double min_normal(rc_type t) {
  return t == RC_F32 ? FLT_MIN : t == RC_F64 ? DBL_MIN : ldexp(1.0, -14);
}

/* sin(pi x), cos(pi x) with the argument reduced exactly (x - 2k is exact in binary floating
 * point), so sinpi(n) is exactly 0 and cospi(n + 0.5) exactly 0 for large n too. */
static double sinpi_d(double x) {
  if (!isfinite(x)) return NAN;
  double r = fmod(x, 2.0); /* exact, in (-2, 2) */
  if (r == 0 || r == 1 || r == -1) return copysign(0.0, x);
  if (r > 1) r -= 2;
  else if (r < -1) r += 2; /* (-1, 1) */
  if (r > 0.5) r = 1 - r;
  else if (r < -0.5) r = -1 - r; /* sin(pi r) = sin(pi (1 - r)) */
  return sin(SIM_PI * r);
}
static double cospi_d(double x) {
  if (!isfinite(x)) return NAN;
  double r = fabs(fmod(x, 2.0)); /* [0, 2) */
  if (r == 0.5 || r == 1.5) return 0.0;
  if (r > 1) r = 2 - r;           /* [0, 1] */
  if (r > 0.5) return -sin(SIM_PI * (r - 0.5));
  return sin(SIM_PI * (0.5 - r));
}

/* The sign of gamma(x) for lgamma_r: positive for x > 0; for negative non-integers it alternates
 * between the poles; at the poles (0, negative integers) gamma has no sign: +1 (C's lgamma_r on
 * glibc gives the sign of a zero's bit there, reconv +1 for poles of negative integers). */
static int gamma_sign(double x) {
  if (isnan(x) || x > 0) return 1;
  if (x == 0) return signbit(x) ? -1 : 1;
  double f = floor(x);
  if (f == x) return 1;
  return fmod(f, 2.0) == 0 ? 1 : -1;
}

static double powr_d(double x, double y, rc_type t) {
  /* OpenCL 1.2 section 7.5.1: powr is pow for x >= 0 with these special cases */
  if (isnan(x) || isnan(y) || x < 0) return NAN;
  if (x == 0 && y == 0) return NAN;
  if (isinf(x) && y == 0) return NAN;
  if (x == 1 && isinf(y)) return NAN;
  return t == RC_F32 ? (double)powf((float)x, (float)y) : pow(x, y);
}

static double rootn_d(double x, int64_t n, rc_type t) {
  /* OpenCL 1.2 section 7.5.1: rootn(x, 0) is NaN; a negative x has a root for odd n only */
  if (n == 0 || isnan(x)) return NAN;
  if (x < 0 && n % 2 == 0) return NAN;
  if (x == 0) {
    if (n > 0) return n % 2 ? x : 0.0;
    return n % 2 ? copysign(INFINITY, x) : INFINITY;
  }
  double m = fabs(x), r = pow(m, 1.0 / (double)n);
  (void)t;
  return x < 0 ? -r : r;
}

static double fract_d(double x, double *ip, rc_type t) {
  /* OpenCL 1.2 section 6.12.2: fmin(x - floor(x), 0x1.fffffep-1f) (largest value below 1 of
   * the type), *iptr = floor(x); section 7.5.1: fract(+-inf) = +-0, NaN gives NaN */
  double fl = floor(x);
  *ip = fl;
  if (isnan(x)) return x;
  if (isinf(x)) return copysign(0.0, x);
  double below1 = step_toward(1.0, false, t);
  double d = rnd(x - fl, t);
  return d < below1 ? d : below1;
}

/* llvm.amdgcn.class mask bits (IntrinsicsAMDGPU.td, V_CMP_CLASS): 0 signaling NaN, 1 quiet NaN,
 * 2 -inf, 3 -normal, 4 -subnormal, 5 -0, 6 +0, 7 +subnormal, 8 +normal, 9 +inf. */
static unsigned fp_class_bit(sim_slot s, rc_type t) {
  double v = sim_fget(s, t);
  if (isnan(v)) {
    bool quiet = true;
    if (t == RC_F32) quiet = (sim_to_bits(s, t) >> 22) & 1;
    else if (t == RC_F64) quiet = (sim_to_bits(s, t) >> 51) & 1;
    return quiet ? 1 : 0;
  }
  bool neg = signbit(v) != 0;
  if (isinf(v)) return neg ? 2 : 9;
  if (v == 0) return neg ? 5 : 6;
  bool sub = fabs(v) < min_normal(t);
  return neg ? (sub ? 4 : 3) : (sub ? 7 : 8);
}

static double fmed3_d(double a, double b, double c) {
  /* the AMDGPU backend's expansion: fmin(fmax(a, b), fmax(fmin(a, b), c)) with minnum/maxnum */
  return fmin(fmax(a, b), fmax(fmin(a, b), c));
}

/* One-argument float math of the long tail, in type t. */
static bool float1(rc_builtin f, rc_type t, double a, double *r) {
  bool s = t == RC_F32;
  float x = (float)a;
#define M1(cf, cd) *r = s ? (double)cf(x) : cd(a); return true
  switch (f) {
  case RC_BI_ACOS: M1(acosf, acos);
  case RC_BI_ACOSH: M1(acoshf, acosh);
  case RC_BI_ASIN: M1(asinf, asin);
  case RC_BI_ASINH: M1(asinhf, asinh);
  case RC_BI_ATAN: M1(atanf, atan);
  case RC_BI_ATANH: M1(atanhf, atanh);
  case RC_BI_CBRT: M1(cbrtf, cbrt);
  case RC_BI_COSH: M1(coshf, cosh);
  case RC_BI_ERF: M1(erff, erf);
  case RC_BI_ERFC: M1(erfcf, erfc);
  case RC_BI_EXPM1: M1(expm1f, expm1);
  case RC_BI_LGAMMA: M1(lgammaf, lgamma);
  case RC_BI_LOG10: M1(log10f, log10);
  case RC_BI_LOG1P: M1(log1pf, log1p);
  case RC_BI_LOGB: M1(logbf, logb);
  case RC_BI_SINH: M1(sinhf, sinh);
  case RC_BI_TAN: M1(tanf, tan);
  case RC_BI_TANH: M1(tanhf, tanh);
  case RC_BI_TGAMMA: M1(tgammaf, tgamma);
#undef M1
  /* x / pi and pi x: the double result rounded to the type (OpenCL names no C function) */
  case RC_BI_ACOSPI: *r = acos(a) / SIM_PI; return true;
  case RC_BI_ASINPI: *r = asin(a) / SIM_PI; return true;
  case RC_BI_ATANPI: *r = atan(a) / SIM_PI; return true;
  case RC_BI_COSPI: *r = cospi_d(a); return true;
  case RC_BI_SINPI: *r = sinpi_d(a); return true;
  case RC_BI_TANPI: {
    double sn = sinpi_d(a), cs = cospi_d(a);
    *r = cs == 0 ? copysign(INFINITY, sn) : sn / cs;
    return true;
  }
  case RC_BI_EXP10: *r = s ? (double)powf(10.0f, x) : pow(10.0, a); return true;
  case RC_BI_RECIP: *r = s ? (double)(1.0f / x) : 1.0 / a; return true;
  case RC_BI_AMDGCN_FRACT: { /* V_FRACT: x - floor(x) below 1; infinities give NaN */
    double ip;
    *r = isinf(a) ? NAN : fract_d(a, &ip, t);
    return true;
  }
  case RC_BI_FREXP_MANT: { /* V_FREXP_MANT: the mantissa in [0.5, 1); inf and NaN as they are */
    int e;
    *r = isfinite(a) ? frexp(a, &e) : a;
    return true;
  }
  case RC_BI_AMDGCN_SIN: *r = sinpi_d(2 * a); return true; /* the argument is in revolutions */
  case RC_BI_AMDGCN_COS: *r = cospi_d(2 * a); return true;
  case RC_BI_DEGREES: *r = rnd(a * rnd(180.0 / SIM_PI, t), t); return true;
  case RC_BI_RADIANS: *r = rnd(a * rnd(SIM_PI / 180.0, t), t); return true;
  case RC_BI_SIGN: /* 1.0, -1.0, the zero itself, 0.0 for NaN */
    *r = isnan(a) ? 0.0 : a > 0 ? 1.0 : a < 0 ? -1.0 : a;
    return true;
  default: return false;
  }
}

/* Two-argument float math of the long tail. */
static bool float2(rc_builtin f, rc_type t, double a, double b, double *r) {
  bool s = t == RC_F32;
  float x = (float)a, y = (float)b;
#define M2(cf, cd) *r = s ? (double)cf(x, y) : cd(a, b); return true
  switch (f) {
  case RC_BI_ATAN2: M2(atan2f, atan2);
  case RC_BI_FDIM: M2(fdimf, fdim);
  case RC_BI_FMOD: M2(fmodf, fmod);
  case RC_BI_HYPOT: M2(hypotf, hypot);
  case RC_BI_NEXTAFTER:
    if (t == RC_F16) { /* one half step toward b */
      *r = isnan(a) || isnan(b) ? NAN : a == b ? b : step_toward(a, b > a, t);
      return true;
    }
    M2(nextafterf, nextafter);
  case RC_BI_REMAINDER: M2(remainderf, remainder);
#undef M2
  case RC_BI_ATAN2PI: *r = atan2(a, b) / SIM_PI; return true;
  case RC_BI_MAXMAG: /* the one of larger magnitude; fmax when equal or unordered */
    *r = fabs(a) > fabs(b) ? a : fabs(b) > fabs(a) ? b : fmax(a, b);
    return true;
  case RC_BI_MINMAG:
    *r = fabs(a) < fabs(b) ? a : fabs(b) < fabs(a) ? b : fmin(a, b);
    return true;
  case RC_BI_POWR: *r = powr_d(a, b, t); return true;
  case RC_BI_DIVIDE: *r = s ? (double)(x / y) : a / b; return true;
  case RC_BI_STEP: *r = b < a ? 0.0 : 1.0; return true; /* step(edge, x) */
  default: return false;
  }
}

/* ---- integers -------------------------------------------------------------------------------------- */

static int64_t smax_of(unsigned bits) {
  return bits >= 64 ? INT64_MAX : (int64_t)(((uint64_t)1 << (bits - 1)) - 1);
}
static uint64_t umax_of(unsigned bits) {
  return bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
}
/* A 128-bit value clamped to the signed or unsigned range of iN, canonical. */
static int64_t sat128(sim_i128 v, unsigned bits, bool is_signed) {
  if (is_signed) {
    if (v > (sim_i128)smax_of(bits)) v = smax_of(bits);
    if (v < (sim_i128)sim_smin_of(bits)) v = sim_smin_of(bits);
    return sim_canon((uint64_t)(int64_t)v, bits);
  }
  if (v < 0) v = 0;
  if (v > (sim_i128)umax_of(bits)) return sim_canon(umax_of(bits), bits);
  return sim_canon((uint64_t)v, bits);
}
/* Does v fit in iN read as signed (unsigned)? */
static bool fits128(sim_i128 v, unsigned bits, bool is_signed) {
  if (is_signed) return v >= (sim_i128)sim_smin_of(bits) && v <= (sim_i128)smax_of(bits);
  return v >= 0 && v <= (sim_i128)umax_of(bits);
}

static uint64_t rotl(uint64_t x, unsigned amt, unsigned bits) {
  x = x & umax_of(bits);
  if (amt == 0) return x;
  return ((x << amt) | (x >> (bits - amt))) & umax_of(bits);
}

static int64_t bit_extract(int64_t src, unsigned off, unsigned w, unsigned bits, bool is_signed) {
  /* V_BFE_U32 / V_BFE_I32 as LLVM folds llvm.amdgcn.ubfe/sbfe: offset and width modulo the width;
   * width 0 gives 0; a field running past the top is the shift alone */
  if (w == 0) return 0;
  if (off + w < bits) {
    uint64_t field = (sim_uval(src, bits) >> off) & (((uint64_t)1 << w) - 1);
    return is_signed ? sim_canon((uint64_t)sim_canon(field, w), bits) : sim_canon(field, bits);
  }
  return is_signed ? sim_canon((uint64_t)(sim_sval(src, bits) >> off), bits)
                   : sim_canon(sim_uval(src, bits) >> off, bits);
}

/* Integer functions of the long tail (t: the integer type of the operands; result in *r). */
static bool integer(rc_builtin f, rc_type t, const sim_slot *A, rc_type rt, sim_slot *r) {
  unsigned bits = rc_type_bits(t);
  int64_t a = A[0].i, b = A[1].i, c = A[2].i;
  sim_i128 sa = sim_sval(a, bits), sb = sim_sval(b, bits), sc = sim_sval(c, bits);
  sim_i128 ua = sim_uval(a, bits), ub = sim_uval(b, bits), uc = sim_uval(c, bits);
  unsigned amt = bits ? (unsigned)(sim_uval(b, bits) % bits) : 0;
  r->u = 0;
  switch (f) {
  case RC_BI_ABS_DIFF_S: r->i = sim_canon((uint64_t)(sa > sb ? sa - sb : sb - sa), bits); return true;
  case RC_BI_ABS_DIFF_U: r->i = sim_canon((uint64_t)(ua > ub ? ua - ub : ub - ua), bits); return true;
  case RC_BI_ADD_SAT_S: r->i = sat128(sa + sb, bits, true); return true;
  case RC_BI_ADD_SAT_U: r->i = sat128(ua + ub, bits, false); return true;
  case RC_BI_SUB_SAT_S: r->i = sat128(sa - sb, bits, true); return true;
  case RC_BI_SUB_SAT_U: r->i = sat128(ua - ub, bits, false); return true;
  /* (x + y) >> 1 and (x + y + 1) >> 1 without overflow: exact in 128 bits */
  case RC_BI_HADD_S: r->i = sim_canon((uint64_t)((sa + sb) >> 1), bits); return true;
  case RC_BI_HADD_U: r->i = sim_canon((uint64_t)((ua + ub) >> 1), bits); return true;
  case RC_BI_RHADD_S: r->i = sim_canon((uint64_t)((sa + sb + 1) >> 1), bits); return true;
  case RC_BI_RHADD_U: r->i = sim_canon((uint64_t)((ua + ub + 1) >> 1), bits); return true;
  /* min(max(x, lo), hi) (OpenCL: undefined when lo > hi) */
  case RC_BI_CLAMP_S: r->i = sim_canon((uint64_t)(int64_t)(sa < sb ? sb : sa > sc ? sc : sa), bits); return true;
  case RC_BI_CLAMP_U: r->i = sim_canon((uint64_t)(ua < ub ? ub : ua > uc ? uc : ua), bits); return true;
  case RC_BI_MUL_HI_S: r->i = sim_canon((uint64_t)(int64_t)((sa * sb) >> bits), bits); return true;
  case RC_BI_MUL_HI_U: r->i = sim_canon((uint64_t)(((sim_u128)ua * (sim_u128)ub) >> bits), bits); return true;
  case RC_BI_MAD_HI_S:
    r->i = sim_canon((uint64_t)(int64_t)((sa * sb) >> bits) + (uint64_t)c, bits);
    return true;
  case RC_BI_MAD_HI_U:
    r->i = sim_canon((uint64_t)(((sim_u128)ua * (sim_u128)ub) >> bits) + (uint64_t)c, bits);
    return true;
  case RC_BI_MAD_SAT_S: { /* |a b| < 2^126: exact; + c may not be, but then it saturates anyway */
    sim_i128 p = sa * sb;
    if (!fits128(p, bits, true)) { r->i = sat128(p, bits, true); return true; }
    r->i = sat128(p + sc, bits, true);
    return true;
  }
  case RC_BI_MAD_SAT_U: {
    sim_u128 p = (sim_u128)ua * (sim_u128)ub;
    if (p > umax_of(bits)) { r->i = sim_canon(umax_of(bits), bits); return true; }
    r->i = sat128((sim_i128)p + uc, bits, false);
    return true;
  }
  /* mul24: the low 24 bits of each operand (OpenCL: undefined beyond them; reconv uses them) */
  case RC_BI_MUL24_S:
  case RC_BI_MAD24_S: {
    int64_t p = sim_canon(sim_uval(a, bits), 24) * sim_canon(sim_uval(b, bits), 24);
    if (f == RC_BI_MAD24_S) p = (int64_t)((uint64_t)p + (uint64_t)c);
    r->i = sim_canon((uint64_t)p, bits);
    return true;
  }
  case RC_BI_MUL24_U:
  case RC_BI_MAD24_U: {
    uint64_t p = (sim_uval(a, bits) & 0xffffff) * (sim_uval(b, bits) & 0xffffff);
    if (f == RC_BI_MAD24_U) p += (uint64_t)c;
    r->i = sim_canon(p, bits);
    return true;
  }
  case RC_BI_ROTATE: r->i = sim_canon(rotl((uint64_t)a, amt, bits), bits); return true;
  case RC_BI_UPSAMPLE: { /* (hi << N) | lo, in the result's 2N bits */
    unsigned rb = rc_type_bits(rt);
    r->i = sim_canon(((uint64_t)sim_sval(a, bits) << bits) | sim_uval(b, bits), rb);
    return true;
  }
  case RC_BI_BSWAP: {
    uint64_t x = sim_uval(a, bits), y = 0;
    for (unsigned i = 0; i < bits / 8; i++) y = y << 8 | ((x >> (8 * i)) & 0xff);
    r->i = sim_canon(y, bits);
    return true;
  }
  case RC_BI_BITREVERSE: {
    uint64_t x = sim_uval(a, bits), y = 0;
    for (unsigned i = 0; i < bits; i++) y = y << 1 | ((x >> i) & 1);
    r->i = sim_canon(y, bits);
    return true;
  }
  case RC_BI_FSHL:
  case RC_BI_FSHR: { /* LLVM: concatenate a (high) and b, shift by c mod N, take the high (low) N */
    unsigned s = (unsigned)(sim_uval(c, bits) % bits);
    sim_u128 cat = ((sim_u128)sim_uval(a, bits) << bits) | sim_uval(b, bits);
    uint64_t v = f == RC_BI_FSHL ? (uint64_t)((cat << s) >> bits) : (uint64_t)(cat >> s);
    r->i = sim_canon(v, bits);
    return true;
  }
  case RC_BI_UBFE:
  case RC_BI_SBFE:
    r->i = bit_extract(a, (unsigned)(sim_uval(b, 32) % bits), (unsigned)(sim_uval(c, 32) % bits), bits,
                       f == RC_BI_SBFE);
    return true;
  /* do the operations overflow iN, read as signed (unsigned)? */
  case RC_BI_SADD_OV: r->i = !fits128(sa + sb, bits, true); return true;
  case RC_BI_UADD_OV: r->i = !fits128(ua + ub, bits, false); return true;
  case RC_BI_SSUB_OV: r->i = !fits128(sa - sb, bits, true); return true;
  case RC_BI_USUB_OV: r->i = !fits128(ua - ub, bits, false); return true;
  case RC_BI_SMUL_OV: r->i = !fits128(sa * sb, bits, true); return true;
  case RC_BI_UMUL_OV: r->i = (sim_u128)ua * (sim_u128)ub > umax_of(bits); return true;
  default: return false;
  }
}

/* ---- conversions (OpenCL 1.2 section 6.2.3) ------------------------------------------------------ */

/* x rounded to float type t by mode (RC_BM_RTE ... RTN; default: to nearest even). `exact` tells
 * how the nearest value compares with the source: -1 below, 0 equal, 1 above. */
static double round_dir(double nearest, int cmp_nearest_to_src, int mode, bool src_negative, rc_type t) {
  if (cmp_nearest_to_src == 0) return nearest;
  bool above = cmp_nearest_to_src > 0;
  switch (mode) {
  case RC_BM_RTP: return above ? nearest : step_toward(nearest, true, t);
  case RC_BM_RTN: return above ? step_toward(nearest, false, t) : nearest;
  case RC_BM_RTZ:
    if (src_negative) return above ? nearest : step_toward(nearest, true, t);
    return above ? step_toward(nearest, false, t) : nearest;
  default: return nearest;
  }
}

static sim_slot convert(int64_t imm, rc_type from, rc_type to, sim_slot x) {
  unsigned sk = (unsigned)(imm >> RC_BM_SRC_SHIFT) & RC_BM_KIND_MASK;
  unsigned dk = (unsigned)(imm >> RC_BM_DST_SHIFT) & RC_BM_KIND_MASK;
  bool sat = (imm & RC_BM_SAT) != 0;
  int mode = (int)(imm & RC_BM_RND_MASK);
  sim_slot r;
  r.u = 0;
  if (sk != RC_BM_FLOAT && dk != RC_BM_FLOAT) { /* integer to integer */
    unsigned fb = rc_type_bits(from), tb = rc_type_bits(to);
    sim_i128 v = sk == RC_BM_SIGNED ? (sim_i128)sim_sval(x.i, fb) : (sim_i128)sim_uval(x.i, fb);
    r.i = sat ? sat128(v, tb, dk == RC_BM_SIGNED) : sim_canon((uint64_t)v, tb);
    return r;
  }
  if (sk == RC_BM_FLOAT && dk != RC_BM_FLOAT) { /* float to integer: round, then saturate */
    double v = sim_fget(x, from);
    switch (mode) {
    case RC_BM_RTE: v = nearbyint(v); break; /* the host's default mode: to nearest even */
    case RC_BM_RTP: v = ceil(v); break;
    case RC_BM_RTN: v = floor(v); break;
    default: v = trunc(v); break; /* the default for integer results: toward zero */
    }
    /* without _sat the result of an out-of-range value is undefined; reconv saturates (as its
       fptosi) so that every machine gives the same */
    r.i = sim_fptoi(v, rc_type_bits(to), dk == RC_BM_SIGNED);
    return r;
  }
  if (sk != RC_BM_FLOAT) { /* integer to float */
    unsigned fb = rc_type_bits(from);
    bool neg = sk == RC_BM_SIGNED && sim_sval(x.i, fb) < 0;
    /* the magnitude, exact in 64 bits unsigned */
    uint64_t mag = sk == RC_BM_SIGNED ? (neg ? 0 - (uint64_t)sim_sval(x.i, fb) : (uint64_t)sim_sval(x.i, fb))
                                      : sim_uval(x.i, fb);
    double nearest;
    if (to == RC_F32) nearest = (float)mag;
    else if (to == RC_F64) nearest = (double)mag;
    else nearest = rc_round_f16((double)mag); /* beyond 2^53 both give inf */
    /* compare nearest (a float value >= 0) with mag exactly */
    int cmp;
    if (isinf(nearest) || nearest >= 18446744073709551616.0) cmp = 1;
    else {
      uint64_t n = (uint64_t)nearest;
      cmp = n > mag ? 1 : n < mag ? -1 : 0;
    }
    if (neg) {
      nearest = -nearest;
      cmp = -cmp;
    }
    return sim_fput(round_dir(nearest, cmp, mode, neg, to), to);
  }
  /* float to float */
  double v = sim_fget(x, from), nearest = rnd(v, to);
  int cmp = isnan(v) || nearest == v ? 0 : nearest > v ? 1 : -1;
  return sim_fput(round_dir(nearest, cmp, mode, v < 0, to), to);
}

/* ---- memory ------------------------------------------------------------------------------------------- */

static int mem_fault(const sim_bcall *c, const char *what, uint64_t addr, uint64_t n, char *fault, size_t len) {
  sim_access_fault_text(c->map, c->buffer_names, what, addr, n, fault, len);
  return -1;
}

/* Write a value of type t (f16/f32/f64, or an i32) through a pointer argument. */
static int store_through(const sim_bcall *c, uint64_t addr, sim_slot v, rc_type t, char *fault, size_t len) {
  unsigned size = rc_type_size(t);
  uint8_t *p = rc_addr_resolve(c->map, addr, size);
  if (!p) return mem_fault(c, "store", addr, size, fault, len);
  sim_write_le(p, size, sim_to_bits(v, t));
  return 0;
}

static int async_copy(const sim_bcall *c, char *fault, size_t len) {
  /* section 6.12.10: num elements of the given size from src to dst; the strided form steps the
   * global side by stride elements. Every work-item copies (the specification lets the group share
   * the work; the bytes written are the same). The event is 0: the machines finish the copy here. */
  uint64_t dst = c->args[0].u, src = c->args[1].u;
  uint64_t esize = (uint64_t)(c->imm & RC_BM_ELEM_MASK);
  unsigned nb = rc_type_bits(c->atys[2]);
  uint64_t n = sim_uval(c->args[2].i, nb);
  uint64_t stride = 1;
  bool strided = c->f == RC_BI_ASYNC_COPY_STRIDED, at_dst = strided && (c->imm & RC_BM_STRIDE_DST);
  if (strided) stride = sim_uval(c->args[3].i, rc_type_bits(c->atys[3]));
  if (esize == 0) esize = 1;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t d = dst + (at_dst ? i * stride : i) * esize, s = src + (strided && !at_dst ? i * stride : i) * esize;
    uint8_t *pd = rc_addr_resolve(c->map, d, esize);
    if (!pd) return mem_fault(c, "async copy store", d, esize, fault, len);
    const uint8_t *ps = rc_addr_resolve(c->map, s, esize);
    if (!ps) return mem_fault(c, "async copy load", s, esize, fault, len);
    memmove(pd, ps, esize);
  }
  return 0;
}

/* ---- the entry point ------------------------------------------------------------------------------- */

void sim_bcall_init(sim_bcall *c, const rc_instr *i) {
  memset(c, 0, sizeof *c);
  c->f = (rc_builtin)i->pred;
  c->imm = i->imm;
  c->ty = (rc_type)i->v.type;
  c->nargs = i->nops < 4 ? i->nops : 4;
  for (uint32_t o = 0; o < c->nargs; o++) c->atys[o] = (rc_type)i->ops[o]->type;
}

bool sim_builtin_other_runs(rc_builtin f) {
  switch (f) {
  /* rewritten by run_form.c before a run (they never reach here) */
  case RC_BI_FENCE: case RC_BI_NOP: case RC_BI_IDENTITY: case RC_BI_GLOBAL_OFFSET:
  case RC_BI_LOCAL_ID_X: case RC_BI_LOCAL_ID_Y: case RC_BI_LOCAL_ID_Z:
  case RC_BI_GROUP_ID_X: case RC_BI_GROUP_ID_Y: case RC_BI_GROUP_ID_Z:
    return true;
  default: break;
  }
  const rc_builtin_info *b = rc_builtin_get(f);
  return b && b->sig == RC_SIG_OTHER && (b->flags & RC_BF_LEGAL);
}

int sim_builtin_other(const sim_bcall *c, sim_slot *out, char *fault, size_t len) {
  rc_builtin f = c->f;
  rc_type ty = c->ty, at = c->atys[0];
  const sim_slot *A = c->args;
  out->u = 0;
  double r;
  switch (f) {
  /* ---- queries and wave builtins ---- */
  case RC_BI_WORK_DIM: out->i = sim_canon(c->dims, rc_type_bits(ty)); return 0;
  case RC_BI_GLOBAL_OFFSET: return 0; /* OpenCL 1.2 launches without an offset */
  case RC_BI_MBCNT_LO:
  case RC_BI_MBCNT_HI: { /* llvm.amdgcn.mbcnt.lo/hi: acc + the bits of mask for the lanes below
                            this one, among lanes 0..31 (lo) or 32..63 (hi) */
    uint32_t mask = (uint32_t)A[0].u, lane = c->lane;
    unsigned below = f == RC_BI_MBCNT_LO ? (lane < 32 ? lane : 32) : (lane > 32 ? lane - 32 : 0);
    uint32_t m = below >= 32 ? mask : mask & (((uint32_t)1 << below) - 1);
    out->i = sim_canon((uint64_t)(uint32_t)A[1].u + (uint64_t)__builtin_popcount(m), 32);
    return 0;
  }
  case RC_BI_READFIRSTLANE: *out = A[0]; return 0; /* the wave machines read the first lane */
  case RC_BI_NULL_PTR: return 0;
  case RC_BI_DISPATCH_PTR:
  case RC_BI_IMPLICITARG_PTR:
    snprintf(fault, len, "reconv's simulators do not model amdgcn's %s (the HSA dispatch packet and "
                         "the kernel's implicit arguments)",
             f == RC_BI_DISPATCH_PTR ? "dispatch pointer (llvm.amdgcn.dispatch.ptr)"
                                     : "implicit argument pointer (llvm.amdgcn.implicitarg.ptr)");
    return -1;
  case RC_BI_FENCE:
  case RC_BI_NOP: return 0;
  case RC_BI_IDENTITY: *out = A[0]; return 0;
  case RC_BI_ASYNC_COPY:
  case RC_BI_ASYNC_COPY_STRIDED: return async_copy(c, fault, len);
  case RC_BI_ATOMIC_INC:
  case RC_BI_ATOMIC_DEC: { /* section 6.12.11: old = *p; *p = old +- 1; returns old */
    unsigned size = rc_type_size(ty);
    uint8_t *p = rc_addr_resolve(c->map, A[0].u, size);
    if (!p) return mem_fault(c, "atomic access", A[0].u, size, fault, len);
    sim_slot old = sim_from_bits(sim_read_le(p, size), ty), nw;
    nw.i = sim_canon((uint64_t)old.i + (f == RC_BI_ATOMIC_INC ? 1 : (uint64_t)-1), rc_type_bits(ty));
    sim_write_le(p, size, sim_to_bits(nw, ty));
    *out = old;
    return 0;
  }
  /* ---- math with a second result through a pointer ---- */
  case RC_BI_FRACT: {
    double ip, v = fract_d(sim_fget(A[0], ty), &ip, ty);
    if (store_through(c, A[1].u, sim_fput(ip, ty), ty, fault, len)) return -1;
    *out = sim_fput(v, ty);
    return 0;
  }
  case RC_BI_MODF: { /* the fractional part; the integral part through the pointer (C's modf:
                        inf gives +-0 and inf, NaN both NaN) */
    double x = sim_fget(A[0], ty), ip, v;
    if (ty == RC_F32) {
      float fi, fv = modff((float)x, &fi);
      v = fv, ip = fi;
    } else {
      v = modf(x, &ip);
    }
    if (store_through(c, A[1].u, sim_fput(ip, ty), ty, fault, len)) return -1;
    *out = sim_fput(v, ty);
    return 0;
  }
  case RC_BI_SINCOS: {
    double x = sim_fget(A[0], ty);
    double s = ty == RC_F32 ? (double)sinf((float)x) : sin(x), co = ty == RC_F32 ? (double)cosf((float)x) : cos(x);
    if (store_through(c, A[1].u, sim_fput(co, ty), ty, fault, len)) return -1;
    *out = sim_fput(s, ty);
    return 0;
  }
  case RC_BI_FREXP: {
    int e = 0;
    double x = sim_fget(A[0], ty), m = isfinite(x) ? frexp(x, &e) : x;
    sim_slot es;
    es.i = e;
    if (store_through(c, A[1].u, es, RC_I32, fault, len)) return -1;
    *out = sim_fput(m, ty);
    return 0;
  }
  case RC_BI_LGAMMA_R: {
    double x = sim_fget(A[0], ty);
    sim_slot sg;
    sg.i = gamma_sign(x);
    if (store_through(c, A[1].u, sg, RC_I32, fault, len)) return -1;
    *out = sim_fput(ty == RC_F32 ? (double)lgammaf((float)x) : lgamma(x), ty);
    return 0;
  }
  case RC_BI_REMQUO: { /* remainder, and at least the 7 low bits of the quotient with its sign */
    double x = sim_fget(A[0], ty), y = sim_fget(A[1], ty);
    int q = 0;
    double v = ty == RC_F32 ? (double)remquof((float)x, (float)y, &q) : remquo(x, y, &q);
    sim_slot qs;
    qs.i = q;
    if (store_through(c, A[2].u, qs, RC_I32, fault, len)) return -1;
    *out = sim_fput(v, ty);
    return 0;
  }
  /* ---- float math with integer parts ---- */
  case RC_BI_LDEXP:
  case RC_BI_POWN:
  case RC_BI_ROOTN: {
    double x = sim_fget(A[0], ty);
    int64_t n = sim_sval(A[1].i, rc_type_bits(c->atys[1]));
    if (f == RC_BI_LDEXP) r = ldexp(x, n > INT_MAX ? INT_MAX : n < INT_MIN ? INT_MIN : (int)n);
    else if (f == RC_BI_POWN) r = pow(x, (double)n); /* x^n: exact n, one rounding in double */
    else r = rootn_d(x, n, ty);
    *out = sim_fput(r, ty);
    return 0;
  }
  case RC_BI_ILOGB: {
    double x = sim_fget(A[0], at);
    out->i = sim_canon((uint64_t)(int64_t)(at == RC_F32 ? ilogbf((float)x) : ilogb(x)), rc_type_bits(ty));
    return 0;
  }
  case RC_BI_NAN: { /* a quiet NaN carrying nancode in its payload */
    uint64_t code = sim_uval(A[0].i, rc_type_bits(at));
    if (ty == RC_F32) *out = sim_from_bits(0x7fc00000u | (code & 0x3fffffu), ty);
    else if (ty == RC_F64) *out = sim_from_bits(0x7ff8000000000000ull | (code & 0x7ffffffffffffull), ty);
    else *out = sim_fput(NAN, ty);
    return 0;
  }
  case RC_BI_FREXP_EXP: { /* V_FREXP_EXP: frexp's exponent; 0 for inf and NaN */
    int e = 0;
    double x = sim_fget(A[0], at);
    if (isfinite(x)) frexp(x, &e);
    out->i = sim_canon((uint64_t)(int64_t)e, rc_type_bits(ty));
    return 0;
  }
  case RC_BI_FP_CLASS:
    out->i = (sim_uval(A[1].i, 32) >> fp_class_bit(A[0], at)) & 1;
    return 0;
  case RC_BI_FMED3:
    *out = sim_fput(fmed3_d(sim_fget(A[0], ty), sim_fget(A[1], ty), sim_fget(A[2], ty)), ty);
    return 0;
  /* ---- common functions (section 6.12.4), as their expressions in the type ---- */
  case RC_BI_FCLAMP: /* fmin(fmax(x, lo), hi) */
    *out = sim_fput(fmin(fmax(sim_fget(A[0], ty), sim_fget(A[1], ty)), sim_fget(A[2], ty)), ty);
    return 0;
  case RC_BI_MIX: { /* x + (y - x) * a */
    double x = sim_fget(A[0], ty), y = sim_fget(A[1], ty), a = sim_fget(A[2], ty);
    *out = sim_fput(x + rnd(rnd(y - x, ty) * a, ty), ty);
    return 0;
  }
  case RC_BI_SMOOTHSTEP: { /* t = clamp((x - e0) / (e1 - e0), 0, 1); t * t * (3 - 2 * t) */
    double e0 = sim_fget(A[0], ty), e1 = sim_fget(A[1], ty), x = sim_fget(A[2], ty);
    double t = rnd(rnd(x - e0, ty) / rnd(e1 - e0, ty), ty);
    t = fmin(fmax(t, 0.0), 1.0);
    *out = sim_fput(rnd(t * t, ty) * rnd(3.0 - rnd(2.0 * t, ty), ty), ty);
    return 0;
  }
  /* ---- relational functions (section 6.12.6): scalar forms give 1 or 0 ---- */
  case RC_BI_ISEQUAL: case RC_BI_ISNOTEQUAL: case RC_BI_ISGREATER: case RC_BI_ISGREATEREQUAL:
  case RC_BI_ISLESS: case RC_BI_ISLESSEQUAL: case RC_BI_ISLESSGREATER: case RC_BI_ISORDERED:
  case RC_BI_ISUNORDERED: {
    double x = sim_fget(A[0], at), y = sim_fget(A[1], at);
    bool v;
    switch (f) {
    case RC_BI_ISEQUAL: v = x == y; break;
    case RC_BI_ISNOTEQUAL: v = !(x == y); break; /* 1 when either is NaN */
    case RC_BI_ISGREATER: v = isgreater(x, y); break;
    case RC_BI_ISGREATEREQUAL: v = isgreaterequal(x, y); break;
    case RC_BI_ISLESS: v = isless(x, y); break;
    case RC_BI_ISLESSEQUAL: v = islessequal(x, y); break;
    case RC_BI_ISLESSGREATER: v = islessgreater(x, y); break;
    case RC_BI_ISORDERED: v = !isunordered(x, y); break;
    default: v = isunordered(x, y); break;
    }
    out->i = v;
    return 0;
  }
  case RC_BI_ISFINITE: out->i = isfinite(sim_fget(A[0], at)) != 0; return 0;
  case RC_BI_ISINF: out->i = isinf(sim_fget(A[0], at)) != 0; return 0;
  case RC_BI_ISNAN: out->i = isnan(sim_fget(A[0], at)) != 0; return 0;
  case RC_BI_ISNORMAL: { /* normal in its own type (an f16 subnormal is a normal double) */
    double x = fabs(sim_fget(A[0], at));
    out->i = isfinite(x) && x >= min_normal(at);
    return 0;
  }
  case RC_BI_SIGNBIT: out->i = signbit(sim_fget(A[0], at)) != 0; return 0;
  case RC_BI_ANY:
  case RC_BI_ALL: /* scalar: the most significant bit */
    out->i = (sim_uval(A[0].i, rc_type_bits(at)) >> (rc_type_bits(at) - 1)) & 1;
    return 0;
  case RC_BI_BITSELECT: { /* (a & ~c) | (b & c), on the bits of floats too */
    uint64_t a = sim_to_bits(A[0], ty), b = sim_to_bits(A[1], ty), m = sim_to_bits(A[2], ty);
    *out = sim_from_bits((a & ~m) | (b & m), ty);
    return 0;
  }
  case RC_BI_SELECT: /* scalar: c ? b : a */
    *out = A[2].i != 0 ? A[1] : A[0];
    return 0;
  case RC_BI_CONVERT: *out = convert(c->imm, at, ty, A[0]); return 0;
  default: break;
  }
  /* element-wise math on floats and integers */
  if (rc_type_is_float(ty)) {
    double x = sim_fget(A[0], ty), y = c->nargs > 1 ? sim_fget(A[1], ty) : 0;
    if ((c->nargs == 1 && float1(f, ty, x, &r)) || (c->nargs == 2 && float2(f, ty, x, y, &r))) {
      *out = sim_fput(r, ty);
      return 0;
    }
  } else if (rc_type_is_int(at) && integer(f, at, A, ty, out)) {
    return 0;
  }
  snprintf(fault, len, "reconv's simulators have no semantics for @%s on %s",
           rc_builtin_get(f) ? rc_builtin_get(f)->name : "?", rc_type_name(ty));
  return -1;
}
