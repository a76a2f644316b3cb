/* The native oracle's runtime library (docs/native.md): the OpenCL 1.2 built-ins (section 6.12) for
 * kernels that run on the host's CPU. reconv compiles this file with clang for the kernel module's
 * own target (spir64), so that the mangled names and the way vectors are passed are exactly those of
 * the kernel's calls, and links it into the kernel's module before the JIT compiles both for the host.
 *
 * Everything here is ordinary OpenCL C: arithmetic, the C library's math functions (declared below
 * under their C names with asm labels, since `sin` itself is the overloaded OpenCL built-in), and
 * what the host provides (src/llvm/native.c, native_launch.c):
 *   __reconv_native_self()       the running work-item's ids and sizes (reconv defines its body in
 *                                IR: a load of a slot the scheduler sets at every switch)
 *   __reconv_native_site()       which barrier call of the kernel is being made (reconv stores its
 *                                number before each call, in IR)
 *   __reconv_native_barrier()    waits for the work-group (a coroutine switch)
 * Work-items of a group run one at a time and switch only at barriers, so an atomic operation is an
 * ordinary read-modify-write and memory fences are no-ops.
 *
 * Vector forms are built by macros from the next smaller forms (n = 2, 3 from scalars; 4, 8, 16 from
 * halves), so every built-in has one scalar definition that says what it computes. */

#define OVL __attribute__((overloadable))

/* ---- the host's side ----------------------------------------------------------------------------- */

/* Layout shared with native_wi in src/llvm/native_internal.h. */
struct __reconv_native_wi {
  ulong global_id[3], local_id[3], group_id[3], global_size[3], local_size[3], enqueued_local_size[3],
      num_groups[3];
  ulong work_dim, local_linear_id, local_linear_size, global_linear_id;
};
__global struct __reconv_native_wi *__reconv_native_self(void);
ulong __reconv_native_site(void);
void __reconv_native_barrier(__global struct __reconv_native_wi *self, ulong site);

/* ---- the C library's math ------------------------------------------------------------------------ */

#define LIBM1(n) float f_##n(float) __asm__(#n "f"); double d_##n(double) __asm__(#n);
#define LIBM2(n) float f_##n(float, float) __asm__(#n "f"); double d_##n(double, double) __asm__(#n);
LIBM1(acos) LIBM1(acosh) LIBM1(asin) LIBM1(asinh) LIBM1(atan) LIBM1(atanh) LIBM1(cbrt) LIBM1(ceil)
LIBM1(cos) LIBM1(cosh) LIBM1(erf) LIBM1(erfc) LIBM1(exp) LIBM1(exp2) LIBM1(exp10) LIBM1(expm1)
LIBM1(fabs) LIBM1(floor) LIBM1(lgamma) LIBM1(log) LIBM1(log10) LIBM1(log1p) LIBM1(log2) LIBM1(logb)
LIBM1(rint) LIBM1(round) LIBM1(sin) LIBM1(sinh) LIBM1(sqrt) LIBM1(tan) LIBM1(tanh) LIBM1(tgamma)
LIBM1(trunc)
LIBM2(atan2) LIBM2(copysign) LIBM2(fdim) LIBM2(fmax) LIBM2(fmin) LIBM2(fmod) LIBM2(hypot)
LIBM2(nextafter) LIBM2(pow) LIBM2(remainder)
float f_fma(float, float, float) __asm__("fmaf");
double d_fma(double, double, double) __asm__("fma");
float f_frexp(float, int *) __asm__("frexpf");
double d_frexp(double, int *) __asm__("frexp");
float f_ldexp(float, int) __asm__("ldexpf");
double d_ldexp(double, int) __asm__("ldexp");
int f_ilogb(float) __asm__("ilogbf");
int d_ilogb(double) __asm__("ilogb");
float f_modf(float, float *) __asm__("modff");
double d_modf(double, double *) __asm__("modf");
float f_remquo(float, float, int *) __asm__("remquof");
double d_remquo(double, double, int *) __asm__("remquo");
float f_lgamma_r(float, int *) __asm__("lgammaf_r");
double d_lgamma_r(double, int *) __asm__("lgamma_r");

/* ---- vector forms ------------------------------------------------------------------------------------ */

/* R F(A a), R F(A a, B b), R F(A a, B b, C c) componentwise for n = 2, 3, 4, 8, 16. */
#define VEC1(R, F, A)                                                                                 \
  OVL R##2 F(A##2 a) { return (R##2)(F(a.s0), F(a.s1)); }                                              \
  OVL R##3 F(A##3 a) { return (R##3)(F(a.s0), F(a.s1), F(a.s2)); }                                     \
  OVL R##4 F(A##4 a) { return (R##4)(F(a.lo), F(a.hi)); }                                              \
  OVL R##8 F(A##8 a) { return (R##8)(F(a.lo), F(a.hi)); }                                              \
  OVL R##16 F(A##16 a) { return (R##16)(F(a.lo), F(a.hi)); }
#define VEC2(R, F, A, B)                                                                              \
  OVL R##2 F(A##2 a, B##2 b) { return (R##2)(F(a.s0, b.s0), F(a.s1, b.s1)); }                          \
  OVL R##3 F(A##3 a, B##3 b) { return (R##3)(F(a.s0, b.s0), F(a.s1, b.s1), F(a.s2, b.s2)); }           \
  OVL R##4 F(A##4 a, B##4 b) { return (R##4)(F(a.lo, b.lo), F(a.hi, b.hi)); }                          \
  OVL R##8 F(A##8 a, B##8 b) { return (R##8)(F(a.lo, b.lo), F(a.hi, b.hi)); }                          \
  OVL R##16 F(A##16 a, B##16 b) { return (R##16)(F(a.lo, b.lo), F(a.hi, b.hi)); }
#define VEC3(R, F, A, B, C)                                                                           \
  OVL R##2 F(A##2 a, B##2 b, C##2 c) { return (R##2)(F(a.s0, b.s0, c.s0), F(a.s1, b.s1, c.s1)); }      \
  OVL R##3 F(A##3 a, B##3 b, C##3 c) {                                                                \
    return (R##3)(F(a.s0, b.s0, c.s0), F(a.s1, b.s1, c.s1), F(a.s2, b.s2, c.s2));                      \
  }                                                                                                   \
  OVL R##4 F(A##4 a, B##4 b, C##4 c) { return (R##4)(F(a.lo, b.lo, c.lo), F(a.hi, b.hi, c.hi)); }      \
  OVL R##8 F(A##8 a, B##8 b, C##8 c) { return (R##8)(F(a.lo, b.lo, c.lo), F(a.hi, b.hi, c.hi)); }      \
  OVL R##16 F(A##16 a, B##16 b, C##16 c) { return (R##16)(F(a.lo, b.lo, c.lo), F(a.hi, b.hi, c.hi)); }

/* The forms with a scalar second (or third) argument: the scalar is broadcast. */
#define EACH_N(M, ...) M(2, __VA_ARGS__) M(3, __VA_ARGS__) M(4, __VA_ARGS__) M(8, __VA_ARGS__) M(16, __VA_ARGS__)
#define BCAST_B_(n, R, F, A, B) OVL R##n F(A##n a, B b) { return F(a, (B##n)(b)); }
#define BCAST_B(R, F, A, B) EACH_N(BCAST_B_, R, F, A, B)
#define BCAST_BC_(n, R, F, A, B) OVL R##n F(A##n a, B b, B c) { return F(a, (B##n)(b), (B##n)(c)); }
#define BCAST_BC(R, F, A, B) EACH_N(BCAST_BC_, R, F, A, B)

/* R F(A a, __private P *p) componentwise; the pointer receives a vector of the scalar results. */
#define VECP(R, F, A, P)                                                                              \
  OVL R##2 F(A##2 a, __private P##2 *p) {                                                             \
    P s0, s1;                                                                                         \
    R##2 r = (R##2)(F(a.s0, &s0), F(a.s1, &s1));                                                      \
    *p = (P##2)(s0, s1);                                                                              \
    return r;                                                                                         \
  }                                                                                                   \
  OVL R##3 F(A##3 a, __private P##3 *p) {                                                             \
    P s0, s1, s2;                                                                                     \
    R##3 r = (R##3)(F(a.s0, &s0), F(a.s1, &s1), F(a.s2, &s2));                                        \
    *p = (P##3)(s0, s1, s2);                                                                          \
    return r;                                                                                         \
  }                                                                                                   \
  VECP_HALVES(4, 2, R, F, A, P) VECP_HALVES(8, 4, R, F, A, P) VECP_HALVES(16, 8, R, F, A, P)
#define VECP_HALVES(n, h, R, F, A, P)                                                                 \
  OVL R##n F(A##n a, __private P##n *p) {                                                             \
    P##h l, u;                                                                                        \
    R##n r = (R##n)(F(a.lo, &l), F(a.hi, &u));                                                        \
    *p = (P##n)(l, u);                                                                                \
    return r;                                                                                         \
  }
/* The same with two value arguments (remquo). */
#define VECP2(R, F, A, P)                                                                             \
  OVL R##2 F(A##2 a, A##2 b, __private P##2 *p) {                                                     \
    P s0, s1;                                                                                         \
    R##2 r = (R##2)(F(a.s0, b.s0, &s0), F(a.s1, b.s1, &s1));                                          \
    *p = (P##2)(s0, s1);                                                                              \
    return r;                                                                                         \
  }                                                                                                   \
  OVL R##3 F(A##3 a, A##3 b, __private P##3 *p) {                                                     \
    P s0, s1, s2;                                                                                     \
    R##3 r = (R##3)(F(a.s0, b.s0, &s0), F(a.s1, b.s1, &s1), F(a.s2, b.s2, &s2));                      \
    *p = (P##3)(s0, s1, s2);                                                                          \
    return r;                                                                                         \
  }                                                                                                   \
  VECP2_HALVES(4, 2, R, F, A, P) VECP2_HALVES(8, 4, R, F, A, P) VECP2_HALVES(16, 8, R, F, A, P)
#define VECP2_HALVES(n, h, R, F, A, P)                                                                \
  OVL R##n F(A##n a, A##n b, __private P##n *p) {                                                     \
    P##h l, u;                                                                                        \
    R##n r = (R##n)(F(a.lo, b.lo, &l), F(a.hi, b.hi, &u));                                            \
    *p = (P##n)(l, u);                                                                                \
    return r;                                                                                         \
  }
/* The __global and __local forms of a pointer-result function call the __private one. */
#define ASP_(n, R, F, A, P, AS) \
  OVL R##n F(A##n a, AS P##n *p) { P##n t; R##n r = F(a, &t); *p = t; return r; }
#define ASP(R, F, A, P)                                                                               \
  ASP_(, R, F, A, P, __global) ASP_(, R, F, A, P, __local)                                            \
  EACH_N(ASP_, R, F, A, P, __global) EACH_N(ASP_, R, F, A, P, __local)
#define ASP2_(n, R, F, A, P, AS) \
  OVL R##n F(A##n a, A##n b, AS P##n *p) { P##n t; R##n r = F(a, b, &t); *p = t; return r; }
#define ASP2(R, F, A, P)                                                                              \
  ASP2_(, R, F, A, P, __global) ASP2_(, R, F, A, P, __local)                                          \
  EACH_N(ASP2_, R, F, A, P, __global) EACH_N(ASP2_, R, F, A, P, __local)

/* ---- work-item functions (6.12.1) ------------------------------------------------------------------ */

OVL uint get_work_dim(void) { return (uint)__reconv_native_self()->work_dim; }
/* Beyond the launch's dimensions the ids are 0 and the sizes 1; the host fills those entries. */
#define WI_QUERY(name, field, beyond)                                                                 \
  OVL size_t name(uint d) { return d < 3 ? __reconv_native_self()->field[d] : (beyond); }
WI_QUERY(get_global_id, global_id, 0)
WI_QUERY(get_local_id, local_id, 0)
WI_QUERY(get_group_id, group_id, 0)
WI_QUERY(get_global_size, global_size, 1)
WI_QUERY(get_local_size, local_size, 1)
WI_QUERY(get_enqueued_local_size, enqueued_local_size, 1)
WI_QUERY(get_num_groups, num_groups, 1)
OVL size_t get_global_offset(uint d) { return 0; }
OVL size_t get_global_linear_id(void) { return __reconv_native_self()->global_linear_id; }
OVL size_t get_local_linear_id(void) { return __reconv_native_self()->local_linear_id; }

/* ---- synchronisation and fences (6.12.8, 6.12.9) ----------------------------------------------------- */

/* All work-items of a group must wait at the same barrier (else "barrier divergence"): the site
 * says which one. */
static void wait_for_group(void) { __reconv_native_barrier(__reconv_native_self(), __reconv_native_site()); }
OVL void barrier(cl_mem_fence_flags flags) { wait_for_group(); }
OVL void work_group_barrier(cl_mem_fence_flags flags) { wait_for_group(); }
OVL void mem_fence(cl_mem_fence_flags flags) {}
OVL void read_mem_fence(cl_mem_fence_flags flags) {}
OVL void write_mem_fence(cl_mem_fence_flags flags) {}

/* ---- math (6.12.2) --------------------------------------------------------------------------------------
 * FT(X) instantiates X for float and double: X(T, I, U, P) with the same-size signed and unsigned
 * integer types and the prefix of the C library's functions (f_, d_). */
#define FT(X) X(float, int, uint, f) X(double, long, ulong, d)

#define MATH1_(T, I, U, P, F, E) OVL T F(T x) { return (E); } VEC1(T, F, T)
#define MATH2_(T, I, U, P, F, E) OVL T F(T x, T y) { return (E); } VEC2(T, F, T, T)
#define LIB1(T, I, U, P, F) MATH1_(T, I, U, P, F, P##_##F(x))
#define LIB2(T, I, U, P, F) MATH2_(T, I, U, P, F, P##_##F(x, y))
#define LIBMATH(T, I, U, P)                                                                           \
  LIB1(T, I, U, P, acos) LIB1(T, I, U, P, acosh) LIB1(T, I, U, P, asin) LIB1(T, I, U, P, asinh)       \
  LIB1(T, I, U, P, atan) LIB1(T, I, U, P, atanh) LIB1(T, I, U, P, cbrt) LIB1(T, I, U, P, ceil)        \
  LIB1(T, I, U, P, cos) LIB1(T, I, U, P, cosh) LIB1(T, I, U, P, erf) LIB1(T, I, U, P, erfc)           \
  LIB1(T, I, U, P, exp) LIB1(T, I, U, P, exp2) LIB1(T, I, U, P, exp10) LIB1(T, I, U, P, expm1)        \
  LIB1(T, I, U, P, fabs) LIB1(T, I, U, P, floor) LIB1(T, I, U, P, lgamma) LIB1(T, I, U, P, log)       \
  LIB1(T, I, U, P, log10) LIB1(T, I, U, P, log1p) LIB1(T, I, U, P, log2) LIB1(T, I, U, P, logb)       \
  LIB1(T, I, U, P, rint) LIB1(T, I, U, P, round) LIB1(T, I, U, P, sin) LIB1(T, I, U, P, sinh)         \
  LIB1(T, I, U, P, sqrt) LIB1(T, I, U, P, tan) LIB1(T, I, U, P, tanh) LIB1(T, I, U, P, tgamma)        \
  LIB1(T, I, U, P, trunc)                                                                             \
  LIB2(T, I, U, P, atan2) LIB2(T, I, U, P, copysign) LIB2(T, I, U, P, fdim) LIB2(T, I, U, P, fmax)    \
  LIB2(T, I, U, P, fmin) LIB2(T, I, U, P, fmod) LIB2(T, I, U, P, hypot)                               \
  LIB2(T, I, U, P, nextafter) LIB2(T, I, U, P, pow) LIB2(T, I, U, P, remainder)                       \
  BCAST_B(T, fmax, T, T) BCAST_B(T, fmin, T, T)                                                       \
  OVL T fma(T a, T b, T c) { return P##_fma(a, b, c); }                                               \
  VEC3(T, fma, T, T, T)                                                                               \
  /* mad may be fused or not (6.12.2); it is a multiply and an add, which the host does not fuse */   \
  OVL T mad(T a, T b, T c) { return a * b + c; }                                                      \
  VEC3(T, mad, T, T, T)
FT(LIBMATH)

/* What the C library does not have, from what it has. */
#define MOREMATH(T, I, U, P)                                                                          \
  MATH1_(T, I, U, P, acospi, P##_acos(x) / (T)M_PI)                                                      \
  MATH1_(T, I, U, P, asinpi, P##_asin(x) / (T)M_PI)                                                      \
  MATH1_(T, I, U, P, atanpi, P##_atan(x) / (T)M_PI)                                                      \
  MATH2_(T, I, U, P, atan2pi, P##_atan2(x, y) / (T)M_PI)                                                 \
  /* x reduced to r in [-1, 1] (exactly), then to [-0.5, 0.5] by symmetry, before it is multiplied  \
   * by pi: so sinpi of an integer and cospi of an odd multiple of 0.5 are exactly 0 */               \
  static OVL T sinpi_r(T r) {                                                                         \
    if (r > (T)0.5) r = 1 - r;                                                                        \
    else if (r < (T)-0.5) r = -1 - r;                                                                 \
    return P##_sin((T)M_PI * r);                                                                      \
  }                                                                                                   \
  MATH1_(T, I, U, P, sinpi, sinpi_r(x - 2 * P##_rint(x / 2)))                                         \
  MATH1_(T, I, U, P, cospi, sinpi_r((T)0.5 - P##_fabs(x - 2 * P##_rint(x / 2))))                      \
  MATH1_(T, I, U, P, tanpi, sinpi(x) / cospi(x))                                                      \
  MATH1_(T, I, U, P, rsqrt, 1 / P##_sqrt(x))                                                          \
  MATH2_(T, I, U, P, maxmag,                                                                          \
         P##_fabs(x) > P##_fabs(y) ? x : P##_fabs(y) > P##_fabs(x) ? y : P##_fmax(x, y))              \
  MATH2_(T, I, U, P, minmag,                                                                          \
         P##_fabs(x) < P##_fabs(y) ? x : P##_fabs(y) < P##_fabs(x) ? y : P##_fmin(x, y))              \
  MATH2_(T, I, U, P, powr, P##_pow(x, y))                                                             \
  OVL int ilogb(T x) { return P##_ilogb(x); }                                                         \
  VEC1(int, ilogb, T)                                                                                 \
  OVL T ldexp(T x, int n) { return P##_ldexp(x, n); }                                                 \
  VEC2(T, ldexp, T, int) BCAST_B(T, ldexp, T, int)                                                    \
  OVL T pown(T x, int n) { return P##_pow(x, (T)n); }                                                 \
  VEC2(T, pown, T, int)                                                                               \
  OVL T rootn(T x, int n) {                                                                           \
    if (n == 0) return (T)NAN;                                                                        \
    /* odd roots of negative numbers are real */                                                      \
    if (x < 0 && (n & 1)) return -P##_pow(-x, (T)1 / (T)n);                                           \
    return P##_pow(x, (T)1 / (T)n);                                                                   \
  }                                                                                                   \
  VEC2(T, rootn, T, int)                                                                              \
  OVL T fract(T x, __private T *ip) {                                                                 \
    T f = P##_floor(x);                                                                               \
    *ip = f;                                                                                          \
    if (x != x) return x;                                                                             \
    if (P##_fabs(x) == (T)INFINITY) return 0;                                                         \
    return P##_fmin(x - f, (T)1 - (T)EPS_##T / 2);                                                    \
  }                                                                                                   \
  VECP(T, fract, T, T) ASP(T, fract, T, T)                                                            \
  OVL T frexp(T x, __private int *e) { return P##_frexp(x, e); }                                      \
  VECP(T, frexp, T, int) ASP(T, frexp, T, int)                                                        \
  OVL T modf(T x, __private T *ip) { return P##_modf(x, ip); }                                        \
  VECP(T, modf, T, T) ASP(T, modf, T, T)                                                              \
  OVL T lgamma_r(T x, __private int *s) { return P##_lgamma_r(x, s); }                                \
  VECP(T, lgamma_r, T, int) ASP(T, lgamma_r, T, int)                                                  \
  OVL T sincos(T x, __private T *c) { *c = P##_cos(x); return P##_sin(x); }                           \
  VECP(T, sincos, T, T) ASP(T, sincos, T, T)                                                          \
  OVL T remquo(T x, T y, __private int *q) { return P##_remquo(x, y, q); }                            \
  VECP2(T, remquo, T, int) ASP2(T, remquo, T, int)
#define EPS_float 0x1p-23f
#define EPS_double 0x1p-52
FT(MOREMATH)

OVL float nan(uint c) { return as_float(0x7fc00000u | c); }
VEC1(float, nan, uint)
OVL double nan(ulong c) { return as_double(0x7ff8000000000000ul | c); }
VEC1(double, nan, ulong)

/* half_ and native_ functions: the full-precision ones (their precision is the implementation's). */
#define FAST1(T, pre, F) OVL T pre##F(T x) { return F(x); } VEC1(T, pre##F, T)
#define FAST2(T, pre, F) OVL T pre##F(T x, T y) { return F(x, y); } VEC2(T, pre##F, T, T)
#define FASTMATH(T, pre)                                                                              \
  FAST1(T, pre, cos) FAST1(T, pre, exp) FAST1(T, pre, exp2) FAST1(T, pre, exp10) FAST1(T, pre, log)   \
  FAST1(T, pre, log2) FAST1(T, pre, log10) FAST1(T, pre, rsqrt) FAST1(T, pre, sin)                    \
  FAST1(T, pre, sqrt) FAST1(T, pre, tan) FAST2(T, pre, powr)                                          \
  OVL T pre##recip(T x) { return 1 / x; } VEC1(T, pre##recip, T)                                      \
  OVL T pre##divide(T x, T y) { return x / y; } VEC2(T, pre##divide, T, T)
FASTMATH(float, half_)
FASTMATH(float, native_)

/* ---- common functions (6.12.4) ------------------------------------------------------------------------- */

#define COMMON(T, I, U, P)                                                                            \
  OVL T clamp(T x, T lo, T hi) { return P##_fmin(P##_fmax(x, lo), hi); }                              \
  VEC3(T, clamp, T, T, T) BCAST_BC(T, clamp, T, T)                                                    \
  MATH1_(T, I, U, P, degrees, x * (T)(180 / M_PI))                                                    \
  MATH1_(T, I, U, P, radians, x * (T)(M_PI / 180))                                                    \
  MATH2_(T, I, U, P, max, x < y ? y : x) BCAST_B(T, max, T, T)                                        \
  MATH2_(T, I, U, P, min, y < x ? y : x) BCAST_B(T, min, T, T)                                        \
  OVL T mix(T x, T y, T a) { return x + (y - x) * a; }                                                \
  VEC3(T, mix, T, T, T) EACH_N(MIX_S_, T)                                                             \
  MATH2_(T, I, U, P, step, y < x ? 0 : 1)                                                             \
  EACH_N(STEP_S_, T)                                                                                  \
  OVL T smoothstep(T e0, T e1, T x) {                                                                 \
    T t = clamp((x - e0) / (e1 - e0), (T)0, (T)1);                                                    \
    return t * t * (3 - 2 * t);                                                                       \
  }                                                                                                   \
  VEC3(T, smoothstep, T, T, T) EACH_N(SMOOTH_S_, T)                                                   \
  MATH1_(T, I, U, P, sign, x > 0 ? 1 : x < 0 ? -1 : x == 0 ? x : 0)
#define MIX_S_(n, T) OVL T##n mix(T##n x, T##n y, T a) { return mix(x, y, (T##n)(a)); }
#define STEP_S_(n, T) OVL T##n step(T e, T##n x) { return step((T##n)(e), x); }
#define SMOOTH_S_(n, T) \
  OVL T##n smoothstep(T e0, T e1, T##n x) { return smoothstep((T##n)(e0), (T##n)(e1), x); }
FT(COMMON)

/* ---- geometric functions (6.12.5) ------------------------------------------------------------------------ */

#define GEOM_(n, T, P)                                                                                \
  OVL T length(T##n x) { return P##_sqrt(dot(x, x)); }                                                \
  OVL T distance(T##n x, T##n y) { return length(x - y); }                                            \
  OVL T##n normalize(T##n x) {                                                                        \
    T l = length(x);                                                                                  \
    return l == 0 ? x : x / l;                                                                        \
  }                                                                                                   \
  OVL T fast_length(T##n x) { return length(x); }                                                     \
  OVL T fast_distance(T##n x, T##n y) { return distance(x, y); }                                      \
  OVL T##n fast_normalize(T##n x) { return normalize(x); }
#define GEOM(T, I, U, P)                                                                              \
  OVL T dot(T x, T y) { return x * y; }                                                               \
  OVL T dot(T##2 x, T##2 y) { return x.s0 * y.s0 + x.s1 * y.s1; }                                     \
  OVL T dot(T##3 x, T##3 y) { return x.s0 * y.s0 + x.s1 * y.s1 + x.s2 * y.s2; }                       \
  OVL T dot(T##4 x, T##4 y) { return x.s0 * y.s0 + x.s1 * y.s1 + x.s2 * y.s2 + x.s3 * y.s3; }         \
  OVL T##3 cross(T##3 a, T##3 b) {                                                                    \
    return (T##3)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);               \
  }                                                                                                   \
  OVL T##4 cross(T##4 a, T##4 b) {                                                                    \
    return (T##4)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x, 0);            \
  }                                                                                                   \
  GEOM_(, T, P) GEOM_(2, T, P) GEOM_(3, T, P) GEOM_(4, T, P)
FT(GEOM)

/* ---- relational functions (6.12.6) -----------------------------------------------------------------------
 * Scalars answer 1 or 0, vectors -1 (all bits set) or 0 per component: OpenCL's comparison operators
 * already do that, so each is one expression for every width. */
#define EACH_W(M, ...) M(, __VA_ARGS__) EACH_N(M, __VA_ARGS__)
#define REL1_(n, T, R, F, E) OVL R##n F(T##n x) { return (E); }
#define REL2_(n, T, R, F, E) OVL R##n F(T##n x, T##n y) { return (E); }
#define REL1(T, R, F, E) OVL int F(T x) { return (E); } EACH_N(REL1_, T, R, F, E)
#define REL2(T, R, F, E) OVL int F(T x, T y) { return (E); } EACH_N(REL2_, T, R, F, E)
#define RELATIONAL(T, I, U, P)                                                                        \
  REL2(T, I, isequal, x == y) REL2(T, I, isnotequal, x != y) REL2(T, I, isgreater, x > y)             \
  REL2(T, I, isgreaterequal, x >= y) REL2(T, I, isless, x < y) REL2(T, I, islessequal, x <= y)        \
  REL2(T, I, islessgreater, x < y || x > y) REL2(T, I, isordered, x == x && y == y)                   \
  REL2(T, I, isunordered, x != x || y != y) REL1(T, I, isnan, x != x)                                 \
  REL1(T, I, isfinite, fabs(x) < (T)INFINITY) REL1(T, I, isinf, fabs(x) == (T)INFINITY)               \
  REL1(T, I, isnormal, fabs(x) >= MIN_##T && fabs(x) < (T)INFINITY)                                   \
  OVL int signbit(T x) { return as_##I(x) < 0; }                                                     \
  EACH_N(SIGNBIT_, T, I)
#define SIGNBIT_(n, T, I) OVL I##n signbit(T##n x) { return as_##I##n(x) < (I##n)(0); }
#define MIN_float 0x1p-126f
#define MIN_double 0x1p-1022
FT(RELATIONAL)

/* any, all: the sign bits of signed integers. */
#define ANYALL(T)                                                                                     \
  OVL int any(T x) { return x < 0; }                                                                  \
  OVL int any(T##2 x) { return (x.s0 | x.s1) < 0; }                                                   \
  OVL int any(T##3 x) { return (x.s0 | x.s1 | x.s2) < 0; }                                            \
  OVL int any(T##4 x) { return any(x.lo | x.hi); }                                                    \
  OVL int any(T##8 x) { return any(x.lo | x.hi); }                                                    \
  OVL int any(T##16 x) { return any(x.lo | x.hi); }                                                   \
  OVL int all(T x) { return x < 0; }                                                                  \
  OVL int all(T##2 x) { return (x.s0 & x.s1) < 0; }                                                   \
  OVL int all(T##3 x) { return (x.s0 & x.s1 & x.s2) < 0; }                                            \
  OVL int all(T##4 x) { return all(x.lo & x.hi); }                                                    \
  OVL int all(T##8 x) { return all(x.lo & x.hi); }                                                    \
  OVL int all(T##16 x) { return all(x.lo & x.hi); }
ANYALL(char) ANYALL(short) ANYALL(int) ANYALL(long)

/* bitselect and select for every type: G is the type, S and U the same-size signed and unsigned
 * integer types. select of vectors looks at the most significant bit of each component of c. */
#define SELECT_(n, G, S, U)                                                                           \
  OVL G##n bitselect(G##n a, G##n b, G##n c) {                                                        \
    return as_##G##n((as_##S##n(a) & ~as_##S##n(c)) | (as_##S##n(b) & as_##S##n(c)));                 \
  }                                                                                                   \
  OVL G##n select(G##n a, G##n b, S##n c) {                                                           \
    S##n m = c < (S##n)(0);                                                                           \
    return as_##G##n((as_##S##n(a) & ~m) | (as_##S##n(b) & m));                                      \
  }                                                                                                   \
  OVL G##n select(G##n a, G##n b, U##n c) { return select(a, b, as_##S##n(c)); }
#define SELECT(G, S, U)                                                                               \
  /* (scalars of char and short are promoted to int: back to S before reinterpreting) */            \
  OVL G bitselect(G a, G b, G c) {                                                                    \
    return as_##G((S)((as_##S(a) & ~as_##S(c)) | (as_##S(b) & as_##S(c))));                          \
  }                                                                                                   \
  OVL G select(G a, G b, S c) { return c ? b : a; }                                                   \
  OVL G select(G a, G b, U c) { return c ? b : a; }                                                   \
  EACH_N(SELECT_, G, S, U)
SELECT(char, char, uchar) SELECT(uchar, char, uchar) SELECT(short, short, ushort)
SELECT(ushort, short, ushort) SELECT(int, int, uint) SELECT(uint, int, uint) SELECT(long, long, ulong)
SELECT(ulong, long, ulong) SELECT(float, int, uint) SELECT(double, long, ulong)

/* ---- integer functions (6.12.3) ---------------------------------------------------------------------------
 * IT(X) instantiates X(T, U, BITS, MIN, MAX, SIGNED) for every integer type with its unsigned form.
 * Arithmetic that may overflow is done in U (signed overflow is undefined in OpenCL C too). */
#define IT(X)                                                                                         \
  X(char, uchar, 8, (-128), 127, 1) X(uchar, uchar, 8, 0, 255, 0)                                     \
  X(short, ushort, 16, (-32768), 32767, 1) X(ushort, ushort, 16, 0, 65535, 0)                         \
  X(int, uint, 32, (-2147483647 - 1), 2147483647, 1) X(uint, uint, 32, 0, 4294967295u, 0)             \
  X(long, ulong, 64, (-9223372036854775807L - 1), 9223372036854775807L, 1)                            \
  X(ulong, ulong, 64, 0, 18446744073709551615ul, 0)

/* The high half of a 64 x 64-bit product, from 32-bit pieces. */
static ulong umul_hi64(ulong a, ulong b) {
  ulong a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  ulong p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  ulong mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
/* Signed: the unsigned high half minus the corrections for negative factors. */
static long smul_hi64(long a, long b) {
  ulong h = umul_hi64((ulong)a, (ulong)b);
  return (long)(h - (a < 0 ? (ulong)b : 0) - (b < 0 ? (ulong)a : 0));
}
OVL long mul_hi(long a, long b) { return smul_hi64(a, b); }
OVL ulong mul_hi(ulong a, ulong b) { return umul_hi64(a, b); }
/* a * b + c saturated: the 128-bit value (hi, lo) fits in 64 bits when hi extends lo's sign (signed)
 * or is 0 (unsigned). */
OVL long mad_sat(long a, long b, long c) {
  ulong lo = (ulong)a * (ulong)b, hi = (ulong)smul_hi64(a, b);
  ulong sum = lo + (ulong)c;
  hi += (sum < lo) + (c < 0 ? ~0ul : 0);
  if (hi == ((long)sum < 0 ? ~0ul : 0)) return (long)sum;
  return (long)hi < 0 ? (-9223372036854775807L - 1) : 9223372036854775807L;
}
OVL ulong mad_sat(ulong a, ulong b, ulong c) {
  ulong lo = a * b, hi = umul_hi64(a, b);
  ulong sum = lo + c;
  hi += sum < lo;
  return hi ? 18446744073709551615ul : sum;
}

#define INTEGER(T, U, BITS, MIN, MAX, SIGNED)                                                         \
  OVL U abs(T x) { return SIGNED && x < 0 ? (U)((U)0 - (U)x) : (U)x; }                                \
  VEC1(U, abs, T)                                                                                     \
  OVL U abs_diff(T x, T y) { return x > y ? (U)((U)x - (U)y) : (U)((U)y - (U)x); }                    \
  VEC2(U, abs_diff, T, T)                                                                             \
  OVL T add_sat(T x, T y) {                                                                           \
    T r;                                                                                              \
    if (__builtin_add_overflow(x, y, &r)) return SIGNED && x < 0 ? MIN : MAX;                         \
    return r;                                                                                         \
  }                                                                                                   \
  VEC2(T, add_sat, T, T)                                                                              \
  OVL T sub_sat(T x, T y) {                                                                           \
    T r;                                                                                              \
    if (__builtin_sub_overflow(x, y, &r)) return SIGNED ? (x < 0 ? MIN : MAX) : 0;                    \
    return r;                                                                                         \
  }                                                                                                   \
  VEC2(T, sub_sat, T, T)                                                                              \
  /* floor((x + y) / 2) and ceil((x + y) / 2) without overflow */                                     \
  OVL T hadd(T x, T y) { return (T)((x >> 1) + (y >> 1) + (x & y & 1)); }                             \
  VEC2(T, hadd, T, T)                                                                                 \
  OVL T rhadd(T x, T y) { return (T)((x >> 1) + (y >> 1) + ((x | y) & 1)); }                          \
  VEC2(T, rhadd, T, T)                                                                                \
  OVL T max(T x, T y) { return x < y ? y : x; }                                                       \
  VEC2(T, max, T, T) BCAST_B(T, max, T, T)                                                            \
  OVL T min(T x, T y) { return y < x ? y : x; }                                                       \
  VEC2(T, min, T, T) BCAST_B(T, min, T, T)                                                            \
  OVL T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }                                        \
  VEC3(T, clamp, T, T, T) BCAST_BC(T, clamp, T, T)                                                    \
  OVL T clz(T x) { return x == 0 ? BITS : (T)(__builtin_clzl((ulong)(U)x) - (64 - BITS)); }           \
  VEC1(T, clz, T)                                                                                     \
  OVL T ctz(T x) { return x == 0 ? BITS : (T)__builtin_ctzl((ulong)(U)x); }                           \
  VEC1(T, ctz, T)                                                                                     \
  OVL T popcount(T x) { return (T)__builtin_popcountl((ulong)(U)x); }                                 \
  VEC1(T, popcount, T)                                                                                \
  OVL T rotate(T v, T i) {                                                                            \
    U s = (U)((U)i & (BITS - 1)), u = (U)v;                                                           \
    return s == 0 ? v : (T)(U)((U)(u << s) | (U)(u >> (BITS - s)));                                  \
  }                                                                                                   \
  VEC2(T, rotate, T, T)                                                                               \
  VEC2(T, mul_hi, T, T)                                                                               \
  OVL T mad_hi(T a, T b, T c) { return (T)((U)mul_hi(a, b) + (U)c); }                                 \
  VEC3(T, mad_hi, T, T, T)                                                                            \
  VEC3(T, mad_sat, T, T, T)
/* mul_hi and mad_sat of the types below 64 bits go through 64-bit products. */
#define NARROW(T, U, BITS, W)                                                                         \
  OVL T mul_hi(T a, T b) { return (T)(((W)a * (W)b) >> BITS); }                                       \
  OVL T mad_sat(T a, T b, T c) {                                                                      \
    long r = (long)a * (long)b + (long)c;                                                             \
    return r < (long)MIN_##T ? MIN_##T : r > (long)MAX_##T ? MAX_##T : (T)r;                          \
  }
#define MIN_char (-128)
#define MAX_char 127
#define MIN_uchar 0
#define MAX_uchar 255
#define MIN_short (-32768)
#define MAX_short 32767
#define MIN_ushort 0
#define MAX_ushort 65535
#define MIN_int (-2147483647 - 1)
#define MAX_int 2147483647
#define MIN_uint 0
#define MAX_uint 4294967295u
NARROW(char, uchar, 8, int) NARROW(uchar, uchar, 8, uint) NARROW(short, ushort, 16, int)
NARROW(ushort, ushort, 16, uint) NARROW(int, uint, 32, long) NARROW(uint, uint, 32, ulong)
IT(INTEGER)

/* upsample(hi, lo): hi in the upper half of the result, lo in the lower. */
#define UPSAMPLE(R, UR, H, UH, L, BITS)                                                               \
  OVL R upsample(H hi, L lo) { return (R)(UR)(((UR)(UH)hi << BITS) | (UR)lo); }                        \
  VEC2(R, upsample, H, L)
UPSAMPLE(short, ushort, char, uchar, uchar, 8) UPSAMPLE(ushort, ushort, uchar, uchar, uchar, 8)
UPSAMPLE(int, uint, short, ushort, ushort, 16) UPSAMPLE(uint, uint, ushort, ushort, ushort, 16)
UPSAMPLE(long, ulong, int, uint, uint, 32) UPSAMPLE(ulong, ulong, uint, uint, uint, 32)

/* mul24 and mad24 take 24-bit operands; for others the result is the implementation's: here the
 * full product (as reconv's importer maps them: a multiply and an add). */
OVL int mul24(int x, int y) { return (int)((uint)x * (uint)y); }
OVL uint mul24(uint x, uint y) { return x * y; }
OVL int mad24(int x, int y, int z) { return (int)((uint)x * (uint)y + (uint)z); }
OVL uint mad24(uint x, uint y, uint z) { return x * y + z; }
VEC2(int, mul24, int, int) VEC2(uint, mul24, uint, uint)
VEC3(int, mad24, int, int, int) VEC3(uint, mad24, uint, uint, uint)

/* ---- shuffle, shuffle2 (6.12.12) --------------------------------------------------------------------------
 * Only the low bits of each mask component count (log2 of the number of components selected from). */
#define SHUFFLE_(m, n, G, U)                                                                          \
  OVL G##m shuffle(G##n x, U##m mask) {                                                               \
    G##m r;                                                                                           \
    for (int i = 0; i < m; i++) r[i] = x[mask[i] & (n - 1)];                                          \
    return r;                                                                                         \
  }                                                                                                   \
  OVL G##m shuffle2(G##n x, G##n y, U##m mask) {                                                      \
    G##m r;                                                                                           \
    for (int i = 0; i < m; i++) {                                                                     \
      U k = mask[i] & (2 * n - 1);                                                                    \
      r[i] = k < n ? x[k] : y[k - n];                                                                 \
    }                                                                                                 \
    return r;                                                                                         \
  }
#define SHUFFLE_N(n, G, U) SHUFFLE_(2, n, G, U) SHUFFLE_(4, n, G, U) SHUFFLE_(8, n, G, U) SHUFFLE_(16, n, G, U)
#define SHUFFLE(G, U) SHUFFLE_N(2, G, U) SHUFFLE_N(4, G, U) SHUFFLE_N(8, G, U) SHUFFLE_N(16, G, U)
SHUFFLE(char, uchar) SHUFFLE(uchar, uchar) SHUFFLE(short, ushort) SHUFFLE(ushort, ushort)
SHUFFLE(int, uint) SHUFFLE(uint, uint) SHUFFLE(long, ulong) SHUFFLE(ulong, ulong) SHUFFLE(float, uint)
SHUFFLE(double, ulong)

/* ---- vload, vstore (6.12.7) -------------------------------------------------------------------------------
 * Element by element: the pointer need only be aligned to the element. */
#define VLOAD_AS(G, AS)                                                                               \
  OVL G##2 vload2(size_t i, const AS G *p) { return (G##2)(p[2 * i], p[2 * i + 1]); }                 \
  OVL G##3 vload3(size_t i, const AS G *p) { return (G##3)(p[3 * i], p[3 * i + 1], p[3 * i + 2]); }   \
  OVL G##4 vload4(size_t i, const AS G *p) { return (G##4)(vload2(2 * i, p), vload2(2 * i + 1, p)); } \
  OVL G##8 vload8(size_t i, const AS G *p) { return (G##8)(vload4(2 * i, p), vload4(2 * i + 1, p)); } \
  OVL G##16 vload16(size_t i, const AS G *p) {                                                        \
    return (G##16)(vload8(2 * i, p), vload8(2 * i + 1, p));                                           \
  }
#define VSTORE_AS(G, AS)                                                                              \
  OVL void vstore2(G##2 v, size_t i, AS G *p) { p[2 * i] = v.s0; p[2 * i + 1] = v.s1; }               \
  OVL void vstore3(G##3 v, size_t i, AS G *p) {                                                       \
    p[3 * i] = v.s0; p[3 * i + 1] = v.s1; p[3 * i + 2] = v.s2;                                        \
  }                                                                                                   \
  OVL void vstore4(G##4 v, size_t i, AS G *p) { vstore2(v.lo, 2 * i, p); vstore2(v.hi, 2 * i + 1, p); } \
  OVL void vstore8(G##8 v, size_t i, AS G *p) { vstore4(v.lo, 2 * i, p); vstore4(v.hi, 2 * i + 1, p); } \
  OVL void vstore16(G##16 v, size_t i, AS G *p) {                                                     \
    vstore8(v.lo, 2 * i, p);                                                                          \
    vstore8(v.hi, 2 * i + 1, p);                                                                      \
  }
#define VLOADSTORE(G)                                                                                 \
  VLOAD_AS(G, __global) VLOAD_AS(G, __local) VLOAD_AS(G, __constant) VLOAD_AS(G, __private)           \
  VSTORE_AS(G, __global) VSTORE_AS(G, __local) VSTORE_AS(G, __private)
VLOADSTORE(char) VLOADSTORE(uchar) VLOADSTORE(short) VLOADSTORE(ushort) VLOADSTORE(int)
VLOADSTORE(uint) VLOADSTORE(long) VLOADSTORE(ulong) VLOADSTORE(float) VLOADSTORE(double)

/* ---- atomic functions (6.12.11; atom_* of cl_khr_*_atomics) ------------------------------------------------
 * One work-item runs at a time and never in the middle of one of these, so a read-modify-write is
 * atomic. */
#define ATOMIC_OP(pre, name, T, AS, E)                                                                \
  OVL T pre##name(volatile AS T *p, T v) { T o = *p; *p = (E); return o; }
#define ATOMICS_AS(pre, T, U, AS)                                                                     \
  ATOMIC_OP(pre, add, T, AS, (T)((U)o + (U)v)) ATOMIC_OP(pre, sub, T, AS, (T)((U)o - (U)v))           \
  ATOMIC_OP(pre, xchg, T, AS, v) ATOMIC_OP(pre, min, T, AS, v < o ? v : o)                            \
  ATOMIC_OP(pre, max, T, AS, v > o ? v : o) ATOMIC_OP(pre, and, T, AS, o & v)                         \
  ATOMIC_OP(pre, or, T, AS, o | v) ATOMIC_OP(pre, xor, T, AS, o ^ v)                                  \
  OVL T pre##inc(volatile AS T *p) { T o = *p; *p = (T)((U)o + 1); return o; }                        \
  OVL T pre##dec(volatile AS T *p) { T o = *p; *p = (T)((U)o - 1); return o; }                        \
  OVL T pre##cmpxchg(volatile AS T *p, T cmp, T v) { T o = *p; *p = o == cmp ? v : o; return o; }
#define ATOMICS(pre, T, U) ATOMICS_AS(pre, T, U, __global) ATOMICS_AS(pre, T, U, __local)
ATOMICS(atomic_, int, uint) ATOMICS(atomic_, uint, uint) ATOMICS(atom_, int, uint)
ATOMICS(atom_, uint, uint) ATOMICS(atom_, long, ulong) ATOMICS(atom_, ulong, ulong)
#define ATOMIC_XCHG_F(AS)                                                                             \
  OVL float atomic_xchg(volatile AS float *p, float v) { float o = *p; *p = v; return o; }
ATOMIC_XCHG_F(__global) ATOMIC_XCHG_F(__local)

/* ---- async copies (6.12.10) ------------------------------------------------------------------------------
 * Every work-item of the group copies its share (every local_linear_size-th element from its own
 * local id on); wait_group_events, which the whole group must reach, is a barrier, after which the
 * copy is complete. */
static ulong group_lid(void) { return __reconv_native_self()->local_linear_id; }
static ulong group_size(void) { return __reconv_native_self()->local_linear_size; }
#define ASYNC_(n, G)                                                                                  \
  OVL event_t async_work_group_copy(__local G##n *dst, const __global G##n *src, size_t num,           \
                                    event_t e) {                                                      \
    for (size_t i = group_lid(); i < num; i += group_size()) dst[i] = src[i];                         \
    return e;                                                                                         \
  }                                                                                                   \
  OVL event_t async_work_group_copy(__global G##n *dst, const __local G##n *src, size_t num,           \
                                    event_t e) {                                                      \
    for (size_t i = group_lid(); i < num; i += group_size()) dst[i] = src[i];                         \
    return e;                                                                                         \
  }                                                                                                   \
  OVL event_t async_work_group_strided_copy(__local G##n *dst, const __global G##n *src, size_t num,  \
                                            size_t stride, event_t e) {                               \
    for (size_t i = group_lid(); i < num; i += group_size()) dst[i] = src[i * stride];                \
    return e;                                                                                         \
  }                                                                                                   \
  OVL event_t async_work_group_strided_copy(__global G##n *dst, const __local G##n *src, size_t num,  \
                                            size_t stride, event_t e) {                               \
    for (size_t i = group_lid(); i < num; i += group_size()) dst[i * stride] = src[i];                \
    return e;                                                                                         \
  }                                                                                                   \
  OVL void prefetch(const __global G##n *p, size_t num) {}
#define ASYNC(G) EACH_W(ASYNC_, G)
ASYNC(char) ASYNC(uchar) ASYNC(short) ASYNC(ushort) ASYNC(int) ASYNC(uint) ASYNC(long) ASYNC(ulong)
ASYNC(float) ASYNC(double)
OVL void wait_group_events(int n, event_t *events) { wait_for_group(); }
/* clang 14 declares it with a generic pointer even for OpenCL 1.2 */
OVL void wait_group_events(int n, __attribute__((address_space(4))) event_t *events) { wait_for_group(); }
