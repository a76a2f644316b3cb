/* The native oracle's conversions (OpenCL 1.2, 6.2.3): convert_T[_sat][_rte|_rtz|_rtp|_rtn] between
 * every pair of the ten scalar types, scalars and vectors. A part of the runtime library of its own
 * (docs/native.md), compiled only for modules that call one, and only for the destination types they
 * convert to: all of it has more functions than the rest of the library. */

#define OVL __attribute__((overloadable))

float f_rint(float) __asm__("rintf");
double d_rint(double) __asm__("rint");
float f_trunc(float) __asm__("truncf");
double d_trunc(double) __asm__("trunc");
float f_ceil(float) __asm__("ceilf");
double d_ceil(double) __asm__("ceil");
float f_floor(float) __asm__("floorf");
double d_floor(double) __asm__("floor");
float f_nextafter(float, float) __asm__("nextafterf");
double d_nextafter(double, double) __asm__("nextafter");

/* Rounding a floating-point value to an integral one; float -> integer rounds toward zero by default. */
static OVL float rnd(float x) { return f_trunc(x); }
static OVL double rnd(double x) { return d_trunc(x); }
static OVL float rnd_rtz(float x) { return f_trunc(x); }
static OVL double rnd_rtz(double x) { return d_trunc(x); }
static OVL float rnd_rte(float x) { return f_rint(x); }
static OVL double rnd_rte(double x) { return d_rint(x); }
static OVL float rnd_rtp(float x) { return f_ceil(x); }
static OVL double rnd_rtp(double x) { return d_ceil(x); }
static OVL float rnd_rtn(float x) { return f_floor(x); }
static OVL double rnd_rtn(double x) { return d_floor(x); }

/* The sign of r - x, exactly: x is an integer (as long or ulong) or a double. A float or double at
 * least 2^24 (2^53) in magnitude is an integer, below that the conversion of x was exact. */
static OVL int cmp_exact(float r, long x) {
  if (r >= 0x1p63f) return 1;
  if (r < -0x1p63f) return -1;
  long i = (long)r;
  return i < x ? -1 : i > x;
}
static OVL int cmp_exact(float r, ulong x) {
  if (r >= 0x1p64f) return 1;
  if (r < 0) return -1;
  ulong i = (ulong)r;
  return i < x ? -1 : i > x;
}
static OVL int cmp_exact(double r, long x) {
  if (r >= 0x1p63) return 1;
  if (r < -0x1p63) return -1;
  long i = (long)r;
  return i < x ? -1 : i > x;
}
static OVL int cmp_exact(double r, ulong x) {
  if (r >= 0x1p64) return 1;
  if (r < 0) return -1;
  ulong i = (ulong)r;
  return i < x ? -1 : i > x;
}
static OVL int cmp_exact(float r, double x) { return (double)r < x ? -1 : (double)r > x; }
static OVL int cmp_exact(double r, double x) { return r < x ? -1 : r > x; }

/* The nearest result r (rounded to nearest) moved one step when the mode wants the other neighbour;
 * c is the sign of r - x. */
static OVL float fix(float r, int c) { return r; }
static OVL double fix(double r, int c) { return r; }
static OVL float fix_rte(float r, int c) { return r; }
static OVL double fix_rte(double r, int c) { return r; }
static OVL float fix_rtz(float r, int c) {
  return (c > 0 && r > 0) || (c < 0 && r < 0) ? f_nextafter(r, 0) : r;
}
static OVL double fix_rtz(double r, int c) {
  return (c > 0 && r > 0) || (c < 0 && r < 0) ? d_nextafter(r, 0) : r;
}
static OVL float fix_rtp(float r, int c) { return c < 0 ? f_nextafter(r, INFINITY) : r; }
static OVL double fix_rtp(double r, int c) { return c < 0 ? d_nextafter(r, INFINITY) : r; }
static OVL float fix_rtn(float r, int c) { return c > 0 ? f_nextafter(r, -INFINITY) : r; }
static OVL double fix_rtn(double r, int c) { return c > 0 ? d_nextafter(r, -INFINITY) : r; }

/* Vector forms from the scalar (n = 2, 3) or half-size (4, 8, 16) ones. */
#define CONV_VEC(D, S, SAT, RND)                                                                      \
  OVL D##2 convert_##D##2##SAT##RND(S##2 x) {                                                         \
    return (D##2)(convert_##D##SAT##RND(x.s0), convert_##D##SAT##RND(x.s1));                          \
  }                                                                                                   \
  OVL D##3 convert_##D##3##SAT##RND(S##3 x) {                                                         \
    return (D##3)(convert_##D##SAT##RND(x.s0), convert_##D##SAT##RND(x.s1),                           \
                  convert_##D##SAT##RND(x.s2));                                                       \
  }                                                                                                   \
  OVL D##4 convert_##D##4##SAT##RND(S##4 x) {                                                         \
    return (D##4)(convert_##D##2##SAT##RND(x.lo), convert_##D##2##SAT##RND(x.hi));                    \
  }                                                                                                   \
  OVL D##8 convert_##D##8##SAT##RND(S##8 x) {                                                         \
    return (D##8)(convert_##D##4##SAT##RND(x.lo), convert_##D##4##SAT##RND(x.hi));                    \
  }                                                                                                   \
  OVL D##16 convert_##D##16##SAT##RND(S##16 x) {                                                      \
    return (D##16)(convert_##D##8##SAT##RND(x.lo), convert_##D##8##SAT##RND(x.hi));                   \
  }

/* Integer to integer: modulo, or clamped (_sat); the rounding mode changes nothing. A negative x is
 * compared as a long, a non-negative one as a ulong, so that every pair of types compares exactly. */
#define II_(D, DSG, DMIN, DMAX, S, SSG, RND)                                                          \
  OVL D convert_##D##RND(S x) { return (D)x; }                                                        \
  OVL D convert_##D##_sat##RND(S x) {                                                                 \
    if (SSG && (long)x < 0) return !DSG ? 0 : (long)x < (long)DMIN ? DMIN : (D)x;                     \
    return (ulong)x > (ulong)DMAX ? DMAX : (D)x;                                                      \
  }                                                                                                   \
  CONV_VEC(D, S, , RND) CONV_VEC(D, S, _sat, RND)
/* Floating point to integer: round as the mode says (default: toward zero); _sat clamps, NaN is 0. */
#define IF_(D, DSG, DMIN, DMAX, S, SSG, RND)                                                          \
  OVL D convert_##D##RND(S x) { return (D)rnd##RND(x); }                                              \
  OVL D convert_##D##_sat##RND(S x) {                                                                 \
    if (x != x) return 0;                                                                             \
    S r = rnd##RND(x);                                                                                \
    return r <= (S)DMIN ? DMIN : r >= (S)DMAX ? DMAX : (D)r;                                          \
  }                                                                                                   \
  CONV_VEC(D, S, , RND) CONV_VEC(D, S, _sat, RND)
/* To floating point: the nearest value, moved to its neighbour for directed rounding. */
#define FX_(D, S, CX, RND)                                                                            \
  OVL D convert_##D##RND(S x) {                                                                       \
    D r = (D)x;                                                                                       \
    return fix##RND(r, cmp_exact(r, (CX)x));                                                          \
  }                                                                                                   \
  CONV_VEC(D, S, , RND)
#define EACH_RND(M, ...) M(__VA_ARGS__, ) M(__VA_ARGS__, _rte) M(__VA_ARGS__, _rtz) M(__VA_ARGS__, _rtp) M(__VA_ARGS__, _rtn)

/* The ten source types: X(T, kind, signed, exact comparison type, the destination's arguments). */
#define TYPES_S(X, ...)                                                                               \
  X(char, I, 1, long, __VA_ARGS__) X(uchar, I, 0, ulong, __VA_ARGS__) X(short, I, 1, long, __VA_ARGS__) \
  X(ushort, I, 0, ulong, __VA_ARGS__) X(int, I, 1, long, __VA_ARGS__)                                 \
  X(uint, I, 0, ulong, __VA_ARGS__) X(long, I, 1, long, __VA_ARGS__)                                  \
  X(ulong, I, 0, ulong, __VA_ARGS__) X(float, F, 1, double, __VA_ARGS__)                              \
  X(double, F, 1, double, __VA_ARGS__)
#define PAIR(S, SK, SSG, SCX, D, DK, DSG, DMIN, DMAX) PAIR_##DK##SK(D, DSG, DMIN, DMAX, S, SSG, SCX)
#define PAIR_II(D, DSG, DMIN, DMAX, S, SSG, SCX) EACH_RND(II_, D, DSG, DMIN, DMAX, S, SSG)
#define PAIR_IF(D, DSG, DMIN, DMAX, S, SSG, SCX) EACH_RND(IF_, D, DSG, DMIN, DMAX, S, SSG)
#define PAIR_FI(D, DSG, DMIN, DMAX, S, SSG, SCX) EACH_RND(FX_, D, S, SCX)
#define PAIR_FF(D, DSG, DMIN, DMAX, S, SSG, SCX) EACH_RND(FX_, D, S, SCX)
#define FROM_ALL(D, DK, DSG, DMIN, DMAX) TYPES_S(PAIR, D, DK, DSG, DMIN, DMAX)

/* Only the destination types the host asks for (-DTO_int ...; src/llvm/native_runtime.c), since
 * all of them take clang longer than the rest of the runtime library. */
#ifdef TO_char
FROM_ALL(char, I, 1, (-128), 127)
#endif
#ifdef TO_uchar
FROM_ALL(uchar, I, 0, 0, 255)
#endif
#ifdef TO_short
FROM_ALL(short, I, 1, (-32768), 32767)
#endif
#ifdef TO_ushort
FROM_ALL(ushort, I, 0, 0, 65535)
#endif
#ifdef TO_int
FROM_ALL(int, I, 1, (-2147483647 - 1), 2147483647)
#endif
#ifdef TO_uint
FROM_ALL(uint, I, 0, 0, 4294967295u)
#endif
#ifdef TO_long
FROM_ALL(long, I, 1, (-9223372036854775807L - 1), 9223372036854775807L)
#endif
#ifdef TO_ulong
FROM_ALL(ulong, I, 0, 0, 18446744073709551615ul)
#endif
#ifdef TO_float
FROM_ALL(float, F, 1, 0, 0)
#endif
#ifdef TO_double
FROM_ALL(double, F, 1, 0, 0)
#endif
