/* The value semantics the three machines share: scalar.h (f16 slots, iN memory images, casts) and
 * the long tail of the builtins (src/sim/builtins.c), called directly with exact expected values
 * worked out from the specifications (OpenCL C 1.2 sections 6.2.3 and 6.12, LLVM's LangRef). */
#include "../../src/sim/decode.h"
#include "test.h"

#include <float.h>
#include <math.h>

/* Call builtin f (modifiers imm) on up to three scalar arguments of the given types. */
static sim_slot call3(rc_builtin f, int64_t imm, rc_type ty, rc_type t0, sim_slot a, rc_type t1, sim_slot b,
                      rc_type t2, sim_slot c, int *rc) {
  sim_bcall k;
  memset(&k, 0, sizeof k);
  sim_slot args[4] = {a, b, c, {0}};
  k.f = f;
  k.imm = imm;
  k.ty = ty;
  k.atys[0] = t0;
  k.atys[1] = t1;
  k.atys[2] = t2;
  k.nargs = t2 != RC_VOID ? 3 : t1 != RC_VOID ? 2 : t0 != RC_VOID ? 1 : 0;
  k.args = args;
  k.dims = 1;
  rc_addr_map map;
  memset(&map, 0, sizeof map);
  k.map = &map;
  sim_slot out;
  char why[300];
  *rc = sim_builtin_other(&k, &out, why, sizeof why);
  return out;
}

static sim_slot fv(double v, rc_type t) { return sim_fput(v, t); }
static sim_slot iv(int64_t v, rc_type t) {
  sim_slot s;
  s.i = rc_int_canon(t, v);
  return s;
}
static sim_slot none(void) {
  sim_slot s;
  s.u = 0;
  return s;
}

/* A float builtin of one or two arguments of type t. */
static double f1(rc_builtin f, rc_type t, double a) {
  int rc;
  sim_slot r = call3(f, 0, t, t, fv(a, t), RC_VOID, none(), RC_VOID, none(), &rc);
  CHECK_EQ_INT(rc, 0);
  return sim_fget(r, t);
}
static double f2(rc_builtin f, rc_type t, double a, double b) {
  int rc;
  sim_slot r = call3(f, 0, t, t, fv(a, t), t, fv(b, t), RC_VOID, none(), &rc);
  CHECK_EQ_INT(rc, 0);
  return sim_fget(r, t);
}
static int64_t i2(rc_builtin f, rc_type t, int64_t a, int64_t b) {
  int rc;
  sim_slot r = call3(f, 0, t, t, iv(a, t), t, iv(b, t), RC_VOID, none(), &rc);
  CHECK_EQ_INT(rc, 0);
  return r.i;
}
static int64_t i3(rc_builtin f, rc_type t, int64_t a, int64_t b, int64_t c) {
  int rc;
  sim_slot r = call3(f, 0, t, t, iv(a, t), t, iv(b, t), t, iv(c, t), &rc);
  CHECK_EQ_INT(rc, 0);
  return r.i;
}
/* convert with modifiers imm from (type, slot) to type `to`. */
static sim_slot conv(int64_t imm, rc_type from, sim_slot x, rc_type to) {
  int rc;
  sim_slot r = call3(RC_BI_CONVERT, imm, to, from, x, RC_VOID, none(), RC_VOID, none(), &rc);
  CHECK_EQ_INT(rc, 0);
  return r;
}
#define KIND(src, dst) ((int64_t)(src) << RC_BM_SRC_SHIFT | (int64_t)(dst) << RC_BM_DST_SHIFT)

TEST(f16_slots_round_to_half) {
  /* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even give 1 */
  CHECK(sim_fget(fv(1.0 + ldexp(1, -11), RC_F16), RC_F16) == 1.0);
  CHECK(sim_fget(fv(1.0 + 3 * ldexp(1, -11), RC_F16), RC_F16) == 1.0 + ldexp(1, -9));
  CHECK(isinf(sim_fget(fv(65520.0, RC_F16), RC_F16)));
  CHECK(sim_fget(fv(65519.0, RC_F16), RC_F16) == 65504.0);
  /* memory images: 2 bytes */
  CHECK_EQ_INT(sim_to_bits(fv(1.5, RC_F16), RC_F16), 0x3e00);
  CHECK(sim_fget(sim_from_bits(0x0001, RC_F16), RC_F16) == ldexp(1, -24));
  /* fptrunc from f64 rounds once: 1 + 2^-11 + 2^-40 is above the tie, so it rounds up (via f32
     it would first become 1 + 2^-11 and then tie to 1) */
  sim_slot d;
  d.d = 1.0 + ldexp(1, -11) + ldexp(1, -40);
  CHECK(sim_fget(sim_cast(RC_OP_FPTRUNC, RC_F64, RC_F16, d), RC_F16) == 1.0 + ldexp(1, -10));
  /* f16 arithmetic */
  CHECK(sim_fget(fv(sim_float_binop(RC_OP_FADD, RC_F16, 2048.0, 1.0), RC_F16), RC_F16) == 2048.0);
  CHECK(sim_fget(sim_cast(RC_OP_SITOFP, RC_I32, RC_F16, iv(70000, RC_I32)), RC_F16) == INFINITY);
}

TEST(fma_fused_fmuladd_unfused) {
  /* f32: a = b = 1 + 2^-12, c = -(1 + 2^-11): fused 2^-24, unfused 0 */
  double a = 1.0 + ldexp(1, -12), c = -(1.0 + ldexp(1, -11));
  CHECK(sim_math(RC_BI_FMA, RC_F32, a, a, c) == ldexp(1, -24));
  CHECK(sim_math(RC_BI_FMULADD, RC_F32, a, a, c) == 0.0);
  /* f64: a = 1 + 2^-30, c = -(1 + 2^-29): fused 2^-60, unfused 0 */
  a = 1.0 + ldexp(1, -30), c = -(1.0 + ldexp(1, -29));
  CHECK(sim_math(RC_BI_FMA, RC_F64, a, a, c) == ldexp(1, -60));
  CHECK(sim_math(RC_BI_FMULADD, RC_F64, a, a, c) == 0.0);
  /* f16: a = 1 + 2^-6, c = -(1 + 2^-5) */
  a = 1.0 + ldexp(1, -6), c = -(1.0 + ldexp(1, -5));
  CHECK(sim_fget(fv(sim_math(RC_BI_FMA, RC_F16, a, a, c), RC_F16), RC_F16) == ldexp(1, -12));
  CHECK(sim_fget(fv(sim_math(RC_BI_FMULADD, RC_F16, a, a, c), RC_F16), RC_F16) == 0.0);
  /* f16 fma whose exact sum needs more than double's 53 bits: 2^-24 * 2^-24 + 2049 = 2049 + 2^-48
     is just above the tie between the halves 2048 and 2050 (ulp 2 there), so it rounds to 2050; a
     sum rounded to double first would be the tie 2049 itself and round to even, 2048 */
  CHECK(sim_fget(fv(sim_math(RC_BI_FMA, RC_F16, ldexp(1, -24), ldexp(1, -24), 2049.0), RC_F16), RC_F16) ==
        2050.0);
  CHECK(sim_fget(fv(sim_math(RC_BI_FMA, RC_F16, ldexp(1, -24), -ldexp(1, -24), 2049.0), RC_F16), RC_F16) ==
        2048.0);
}

TEST(long_tail_float_math) {
  CHECK(f1(RC_BI_ATAN, RC_F32, 1.0) == (double)atanf(1.0f));
  CHECK(f1(RC_BI_SINPI, RC_F64, 1e15 + 1) == 0.0); /* an integer: exactly 0 */
  CHECK(f1(RC_BI_COSPI, RC_F32, 1001.5) == 0.0);
  CHECK(f1(RC_BI_SINPI, RC_F32, -0.5) == -1.0);
  CHECK(f1(RC_BI_COSPI, RC_F64, 1.0) == -1.0);
  CHECK(f2(RC_BI_NEXTAFTER, RC_F16, 1.0, 2.0) == 1.0 + ldexp(1, -10));
  CHECK(f2(RC_BI_NEXTAFTER, RC_F16, 0.0, -1.0) == -ldexp(1, -24));
  CHECK(isnan(f2(RC_BI_POWR, RC_F32, -2.0, 2.0)));
  CHECK(f2(RC_BI_MAXMAG, RC_F64, -3.0, 3.0) == 3.0); /* equal magnitudes: fmax */
  CHECK(f2(RC_BI_STEP, RC_F32, 1.0, 1.0) == 1.0);     /* x < edge ? 0 : 1 */
  CHECK(f1(RC_BI_SIGN, RC_F32, -0.0) == 0.0 && signbit(f1(RC_BI_SIGN, RC_F32, -0.0)));
  CHECK(f1(RC_BI_SIGN, RC_F64, NAN) == 0.0);
  CHECK(isnan(f1(RC_BI_AMDGCN_FRACT, RC_F32, INFINITY)));
  CHECK(f1(RC_BI_FREXP_MANT, RC_F64, -12.0) == -0.75);
}

TEST(long_tail_integers) {
  CHECK_EQ_INT(i2(RC_BI_MUL_HI_S, RC_I64, INT64_MIN, INT64_MIN), (int64_t)1 << 62);
  CHECK_EQ_INT(i2(RC_BI_MUL_HI_S, RC_I64, -1, 1), -1);
  CHECK_EQ_INT(i2(RC_BI_ADD_SAT_U, RC_I64, -1, 1), -1); /* saturates at 2^64 - 1 */
  CHECK_EQ_INT(i2(RC_BI_SUB_SAT_S, RC_I8, -100, 100), -128);
  CHECK_EQ_INT(i2(RC_BI_ABS_DIFF_S, RC_I8, -128, 127), -1); /* 255 as uchar */
  CHECK_EQ_INT(i2(RC_BI_HADD_U, RC_I32, -1, 1), (int32_t)0x80000000);
  CHECK_EQ_INT(i2(RC_BI_RHADD_S, RC_I32, -3, 0), -1); /* (-3 + 0 + 1) >> 1 */
  CHECK_EQ_INT(i2(RC_BI_ROTATE, RC_I8, 0x81, 9), 3); /* by 9 mod 8 */
  CHECK_EQ_INT(i2(RC_BI_ROTATE, RC_TYPE_INT_BASE + 33, 1, 33), 1);
  CHECK_EQ_INT(i2(RC_BI_BITREVERSE, RC_I8, 1, 0), -128);
  CHECK_EQ_INT(i2(RC_BI_BSWAP, RC_I16, 0x1234, 0), 0x3412);
  CHECK_EQ_INT(i3(RC_BI_FSHL, RC_I8, 0x12, 0x34, 12), 0x23); /* shift by 12 mod 8 = 4 */
  CHECK_EQ_INT(i3(RC_BI_FSHR, RC_I8, 0x12, 0x34, 0), 0x34);
  CHECK_EQ_INT(i3(RC_BI_SBFE, RC_I32, 0x80000000, 31, 1), -1);
  CHECK_EQ_INT(i3(RC_BI_UBFE, RC_I32, 0x12345678, 8, 0), 0);  /* width 0 */
  CHECK_EQ_INT(i3(RC_BI_UBFE, RC_I32, 0x12345678, 28, 8), 1); /* runs past the top: the shift */
  CHECK_EQ_INT(i3(RC_BI_MAD_SAT_U, RC_I16, 300, 300, 1), -1); /* 65535 */
  CHECK_EQ_INT(i3(RC_BI_MAD_SAT_S, RC_I64, INT64_MAX, 2, INT64_MIN), INT64_MAX);
  CHECK_EQ_INT(i3(RC_BI_MAD_HI_U, RC_I32, -1, -1, 1), -1); /* 0xfffffffe + 1 */
  CHECK_EQ_INT(i2(RC_BI_SMUL_OV, RC_I64, INT64_MIN, -1), 1);
  CHECK_EQ_INT(i2(RC_BI_USUB_OV, RC_TYPE_INT_BASE + 33, 0, 1), 1);
}

TEST(conversions_round_and_saturate) {
  /* int to float by mode */
  sim_slot x = iv(-16777217, RC_I32);
  CHECK(sim_fget(conv(KIND(RC_BM_SIGNED, RC_BM_FLOAT) | RC_BM_RTZ, RC_I32, x, RC_F32), RC_F32) == -16777216.0);
  CHECK(sim_fget(conv(KIND(RC_BM_SIGNED, RC_BM_FLOAT) | RC_BM_RTN, RC_I32, x, RC_F32), RC_F32) == -16777218.0);
  CHECK(sim_fget(conv(KIND(RC_BM_SIGNED, RC_BM_FLOAT) | RC_BM_RTP, RC_I32, x, RC_F32), RC_F32) == -16777216.0);
  CHECK(sim_fget(conv(KIND(RC_BM_SIGNED, RC_BM_FLOAT), RC_I32, x, RC_F32), RC_F32) == -16777216.0);
  x = iv(-1, RC_I64); /* unsigned: 2^64 - 1 */
  CHECK(sim_fget(conv(KIND(RC_BM_UNSIGNED, RC_BM_FLOAT) | RC_BM_RTZ, RC_I64, x, RC_F64), RC_F64) ==
        18446744073709549568.0);
  CHECK(sim_fget(conv(KIND(RC_BM_UNSIGNED, RC_BM_FLOAT), RC_I64, x, RC_F64), RC_F64) == 18446744073709551616.0);
  /* to half: 70000 is beyond the largest half; toward zero it is 65504 */
  x = iv(70000, RC_I32);
  CHECK(sim_fget(conv(KIND(RC_BM_SIGNED, RC_BM_FLOAT) | RC_BM_RTZ, RC_I32, x, RC_F16), RC_F16) == 65504.0);
  CHECK(isinf(sim_fget(conv(KIND(RC_BM_SIGNED, RC_BM_FLOAT), RC_I32, x, RC_F16), RC_F16)));
  /* float to float by mode */
  sim_slot d;
  d.d = -0.1;
  CHECK(sim_fget(conv(KIND(RC_BM_FLOAT, RC_BM_FLOAT) | RC_BM_RTZ, RC_F64, d, RC_F32), RC_F32) == (double)-0.099999994f);
  CHECK(sim_fget(conv(KIND(RC_BM_FLOAT, RC_BM_FLOAT) | RC_BM_RTN, RC_F64, d, RC_F32), RC_F32) == (double)-0.1f);
  d.d = 1e300;
  CHECK(sim_fget(conv(KIND(RC_BM_FLOAT, RC_BM_FLOAT) | RC_BM_RTZ, RC_F64, d, RC_F32), RC_F32) == FLT_MAX);
  /* float to int: rounding, saturation, NaN */
  sim_slot f = fv(-2.5, RC_F32);
  CHECK_EQ_INT(conv(KIND(RC_BM_FLOAT, RC_BM_SIGNED), RC_F32, f, RC_I32).i, -2);
  CHECK_EQ_INT(conv(KIND(RC_BM_FLOAT, RC_BM_SIGNED) | RC_BM_RTE, RC_F32, f, RC_I32).i, -2);
  CHECK_EQ_INT(conv(KIND(RC_BM_FLOAT, RC_BM_SIGNED) | RC_BM_RTN, RC_F32, f, RC_I32).i, -3);
  CHECK_EQ_INT(conv(KIND(RC_BM_FLOAT, RC_BM_SIGNED) | RC_BM_RTP, RC_F32, f, RC_I32).i, -2);
  f = fv(NAN, RC_F32);
  CHECK_EQ_INT(conv(KIND(RC_BM_FLOAT, RC_BM_SIGNED) | RC_BM_SAT, RC_F32, f, RC_I8).i, 0);
  f = fv(1e10, RC_F32);
  CHECK_EQ_INT(conv(KIND(RC_BM_FLOAT, RC_BM_UNSIGNED) | RC_BM_SAT, RC_F32, f, RC_I16).i, -1);
  /* int to int: the source's signedness, saturation to the destination's range */
  CHECK_EQ_INT(conv(KIND(RC_BM_UNSIGNED, RC_BM_SIGNED) | RC_BM_SAT, RC_I32, iv(-1, RC_I32), RC_I64).i, 4294967295);
  CHECK_EQ_INT(conv(KIND(RC_BM_SIGNED, RC_BM_UNSIGNED) | RC_BM_SAT, RC_I32, iv(-1, RC_I32), RC_I8).i, 0);
  CHECK_EQ_INT(conv(KIND(RC_BM_SIGNED, RC_BM_UNSIGNED), RC_I32, iv(-1, RC_I32), RC_I8).i, -1);
}

TEST(builtins_fault_and_refuse_clearly) {
  int rc;
  call3(RC_BI_DISPATCH_PTR, 0, RC_PTR, RC_VOID, none(), RC_VOID, none(), RC_VOID, none(), &rc);
  CHECK_EQ_INT(rc, -1);
  /* a pointer result through a bad address faults (fract's integral part) */
  call3(RC_BI_FRACT, 0, RC_F32, RC_F32, fv(1.5, RC_F32), RC_PTR, iv(8, RC_I64), RC_VOID, none(), &rc);
  CHECK_EQ_INT(rc, -1);
  /* the machines give every legal builtin of the long tail its meaning */
  for (int b = 0; b < RC_BI_COUNT; b++) {
    const rc_builtin_info *bi = rc_builtin_get((rc_builtin)b);
    if (bi->sig == RC_SIG_OTHER) CHECK(sim_builtin_other_runs((rc_builtin)b) == ((bi->flags & RC_BF_LEGAL) != 0));
  }
}

TEST(memory_images_of_odd_widths) {
  uint8_t buf[8] = {0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa};
  rc_type i33 = (rc_type)(RC_TYPE_INT_BASE + 33);
  sim_slot v = iv(-1, i33);
  sim_write_le(buf, rc_type_size(i33), sim_to_bits(v, i33));
  CHECK_EQ_INT(buf[4], 0x01); /* 33 bits: the top byte holds one */
  CHECK_EQ_INT(buf[5], 0xaa); /* untouched past the 5 bytes */
  CHECK_EQ_INT(sim_from_bits(sim_read_le(buf, 5), i33).i, -1);
  rc_type i24 = (rc_type)(RC_TYPE_INT_BASE + 24);
  sim_write_le(buf, rc_type_size(i24), sim_to_bits(iv(0x123456, i24), i24));
  CHECK_EQ_INT(sim_read_le(buf, 4), 0xff123456); /* byte 3 is still the i33 store's */
}
