/* The native oracle (src/native/native*.c, docs/native.md) through its library interface: what the
 * runtime library's built-ins compute (each case an OpenCL expression and the value OpenCL 1.2
 * defines for it), work-item functions in two dimensions, barriers with local memory and async
 * copies, and the faults and errors a run can end with. The equivalence checks of whole kernels are
 * golden tests (tests/golden/native). */
#include "test.h"

#ifdef RECONV_HAVE_LLVM

#include "reconv/llvm.h"
#include "reconv/native.h"
#include "reconv/sim.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

/* The first prepared kernel stays open, so that the others reuse its compiled runtime library. */
static rc_native *shared_runtime;

static char *temp_file(const char *ext, const char *text) {
  char *path = malloc(96);
  snprintf(path, 96, "/tmp/reconv-test-native-XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0) return NULL;
  close(fd);
  remove(path);
  strcat(path, ext);
  FILE *f = fopen(path, "wb");
  if (!f) return NULL;
  fputs(text, f);
  fclose(f);
  return path;
}

typedef struct native_case {
  test_diags d;
  rc_module *m;
  rc_run_spec s;
  rc_memory mem;
  rc_fault fault;
  int rc;     /* of rc_native_run; -2: preparing failed */
} native_case;

/* Compile OpenCL C `src` (ext ".cl") or LLVM IR (".ll") and run its kernel natively on `spec`. */
static void run_source(native_case *c, const char *ext, const char *src, const char *target,
                       const char *spec) {
  memset(c, 0, sizeof *c);
  test_diags_init(&c->d);
  rc_run_spec_init(&c->s);
  c->rc = -2;
  char *path = temp_file(ext, src);
  rc_llvm_import_opts o = {0};
  o.target = target;
  c->m = path ? rc_llvm_import_file(&c->d.ctx, path, &o) : NULL;
  rc_kernel *k = NULL;
  for (uint32_t i = 0; c->m && i < c->m->nkernels; i++)
    if (!c->m->kernels[i]->is_function) k = c->m->kernels[i];
  if (k && rc_run_spec_parse_string(&c->d.ctx, &c->s, spec) == 0 &&
      rc_memory_init(&c->d.ctx, &c->mem, &c->s, k) == 0) {
    rc_native *n = rc_native_open(&c->d.ctx, path, &o, k, NULL, shared_runtime);
    if (n) c->rc = rc_native_run(n, &c->s, &c->mem, &c->fault);
    if (n && !shared_runtime) shared_runtime = n;
    else rc_native_close(n);
  }
  if (path) remove(path);
  free(path);
}

static void run_cl(native_case *c, const char *src, const char *spec) {
  run_source(c, ".cl", src, "spir64", spec);
}

static void case_free(native_case *c) {
  rc_memory_free(&c->mem);
  rc_run_spec_free(&c->s);
  if (c->m) rc_module_free(c->m);
}

static const void *buffer(native_case *c, const char *name) {
  rc_buffer *b = rc_memory_find(&c->mem, name);
  return b ? b->data : NULL;
}

/* ---- the runtime library's built-ins ------------------------------------------------------------ */

typedef struct int_case {
  const char *expr;
  long long want;
} int_case;

static const int_case int_cases[] = {
    /* conversions: saturation, NaN, rounding modes, every pair of signednesses */
    {"convert_char_sat(300)", 127},
    {"convert_uchar_sat(-5)", 0},
    {"convert_int_sat(NAN)", 0},
    {"convert_int_sat(3e9f)", 2147483647},
    {"convert_int_sat(-3e9f)", -2147483647LL - 1},
    {"convert_int_rte(2.5f)", 2},
    {"convert_int_rte(3.5f)", 4},
    {"convert_int_rtp(2.1f)", 3},
    {"convert_int_rtn(-2.1f)", -3},
    {"convert_int(-2.7f)", -2},
    {"convert_uint_sat(-1.0f)", 0},
    {"convert_long_sat(1e30f)", 9223372036854775807LL},
    {"convert_ulong_sat((long)-1)", 0},
    {"convert_long_sat((ulong)18446744073709551615ul)", 9223372036854775807LL},
    {"convert_short_sat((uint)40000)", 32767},
    {"convert_uchar(257)", 1},
    {"convert_int4_sat((float4)(NAN, 1e10f, -1e10f, 7.9f)).y", 2147483647},
    {"convert_int4_sat((float4)(NAN, 1e10f, -1e10f, 7.9f)).w", 7},
    /* integer functions */
    {"rotate((uint)0x80000001u, 1u)", 3},
    {"rotate((uchar)0x81, (uchar)1)", 3},
    {"rotate((int)1, -1)", -2147483647LL - 1},
    {"clz((uint)1)", 31},
    {"clz((ushort)0)", 16},
    {"clz((long)-1)", 0},
    {"popcount((ulong)18446744073709551615ul)", 64},
    {"mul_hi((long)-3, (long)5)", -1},
    {"mul_hi((ulong)18446744073709551615ul, (ulong)2)", 1},
    {"mul_hi((int)0x40000000, 4)", 1},
    {"mul_hi((uchar)200, (uchar)200)", 156},
    /* 2^62 * 3 overflows 64 bits, adding -2^63 brings it back: 2^62 */
    {"mad_sat((long)0x4000000000000000L, (long)3, (long)(-9223372036854775807L - 1))", 4611686018427387904LL},
    {"mad_sat((long)9223372036854775807L, (long)2, (long)0)", 9223372036854775807LL},
    {"mad_sat((long)(-9223372036854775807L - 1), (long)2, (long)5)", -9223372036854775807LL - 1},
    {"mad_sat((int)65536, 65536, -5)", 2147483647},
    {"add_sat((char)100, (char)100)", 127},
    {"add_sat((int)(-2147483647 - 1), -1)", -2147483647LL - 1},
    {"add_sat((ulong)18446744073709551615ul, (ulong)1)", -1}, /* ULONG_MAX, as a long */
    {"sub_sat((uint)1, (uint)2)", 0},
    {"sub_sat((short)-30000, (short)10000)", -32768},
    {"hadd(-3, -4)", -4},
    {"rhadd(-3, -4)", -3},
    {"hadd((uint)4294967295u, (uint)4294967295u)", 4294967295LL},
    {"abs((int)(-2147483647 - 1))", 2147483648LL},
    {"abs_diff((char)-128, (char)127)", 255},
    {"upsample((short)-1, (ushort)2)", -65534},
    {"max(-1, 5)", 5},
    {"clamp((uint)7, (uint)2, (uint)5)", 5},
    {"min((int4)(1, 9, 3, 4), 2).y", 2},
    /* select looks at the most significant bit of vector conditions, at non-zero for scalars */
    {"select((int4)(1, 2, 3, 4), (int4)(5, 6, 7, 8), (int4)(-1, 1, -2147483647 - 1, 0)).x", 5},
    {"select((int4)(1, 2, 3, 4), (int4)(5, 6, 7, 8), (int4)(-1, 1, -2147483647 - 1, 0)).y", 2},
    {"select((int4)(1, 2, 3, 4), (int4)(5, 6, 7, 8), (int4)(-1, 1, -2147483647 - 1, 0)).z", 7},
    {"select(1, 2, 1)", 2},
    {"as_int(select(1.5f, 2.5f, (uint)0x80000000u))", 0x40200000},
    {"bitselect(0xf0, 0x0f, 0x3c)", 0xcc},
    /* relational: 1 for scalars, -1 for vector components */
    {"isnan(NAN)", 1},
    {"isnan((float4)(NAN, 1, INFINITY, 0)).x", -1},
    {"isnan((float4)(NAN, 1, INFINITY, 0)).z", 0},
    {"isinf((double)INFINITY)", 1},
    {"isinf((double2)(INFINITY, 1)).x", -1},
    {"signbit(-0.0f)", 1},
    {"signbit((float2)(-0.0f, 1.0f)).x", -1},
    {"isfinite(INFINITY)", 0},
    {"isnormal(1e-40f)", 0},
    {"isordered(1.0f, NAN)", 0},
    {"islessgreater(1.0f, 2.0f)", 1},
    {"isequal((float2)(1, NAN), (float2)(1, NAN)).y", 0},
    {"any((int4)(0, 0, -1, 0))", 1},
    {"all((int4)(-1, -1, 1, -1))", 0},
    {"all((char3)(-1, -2, -128))", 1},
    /* shuffles take the low bits of the mask */
    {"shuffle((int4)(10, 20, 30, 40), (uint4)(3, 2, 1, 4)).x", 40},
    {"shuffle((int4)(10, 20, 30, 40), (uint4)(3, 2, 1, 4)).w", 10},
    {"shuffle2((int2)(1, 2), (int2)(3, 4), (uint4)(0, 3, 2, 5)).y", 4},
    {"shuffle2((int2)(1, 2), (int2)(3, 4), (uint4)(0, 3, 2, 5)).w", 2},
    /* vload/vstore of 3 components, from and to private memory */
    {"vload3(1, pv).z", 6},
    {"(vstore3((int3)(7, 8, 9), 1, pv), pv[5])", 9},
    {"vload4(1, in).w", 7},
    /* atomics return the old value */
    {"atomic_cmpxchg(ai, 0, 5)", 0},
    {"atomic_cmpxchg(ai, 0, 6)", 5},
    {"atomic_inc(ai)", 5},
    {"atomic_max(ai, 3)", 6},
    {"atomic_xchg(ai, 42)", 6},
    {"*ai", 42},
    {"atom_add((volatile __global long *)al, (long)1 << 40)", 0},
    {"*al", 1LL << 40},
    {"ilogb(8.0f)", 3},
    {"(frexp(8.0f, &ip), ip)", 4},
    {"(remquo(7.0f, 2.0f, &ip), ip)", 4},
};

typedef struct float_case {
  const char *expr;
  double want;
} float_case;

static const float_case float_cases[] = {
    {"convert_float_rtz(16777217)", 16777216.0},
    {"convert_float_rtp(16777217)", 16777218.0},
    {"convert_float_rtn(-16777217)", -16777218.0},
    {"convert_float(16777217)", 16777216.0},
    {"convert_float_rtz(1e300)", 3.4028234663852886e38},
    {"convert_float((ulong)18446744073709551615ul)", 18446744073709551616.0},
    {"convert_float_rtz((ulong)18446744073709551615ul)", 18446742974197923840.0},
    {"convert_double_rtp((long)9007199254740993L)", 9007199254740994.0},
    {"convert_float4_rtn((int4)(16777217, -16777217, 3, 0)).y", -16777218.0},
    {"sinpi(1.0f)", 0.0},
    {"sinpi(0.5f)", 1.0},
    {"cospi(0.5f)", 0.0},
    {"cospi(2.0)", 1.0},
    {"fract(-1.5f, &fp)", 0.5},
    {"(fract(-1.5f, &fp), fp)", -2.0},
    {"fract(-1e-10f, &fp)", 0.99999994039535522},
    {"frexp(8.0f, &ip)", 0.5},
    {"ldexp(1.0f, 3)", 8.0},
    {"ldexp((float2)(1.0f, 2.0f), 2).y", 8.0},
    {"remquo(7.0f, 2.0f, &ip)", -1.0},
    {"rootn(-8.0f, 3)", -2.0},
    {"pown(2.0, 10)", 1024.0},
    {"maxmag(-3.0f, 2.0f)", -3.0},
    {"minmag(-3.0f, 2.0f)", 2.0},
    {"fma(2.0f, 3.0f, 1.0f)", 7.0},
    {"mad(2.0f, 3.0f, 1.0f)", 7.0},
    {"fmax((float4)(1, 5, 3, 4), 4.0f).y", 5.0},
    {"clamp(7.5f, 1.0f, 2.0f)", 2.0},
    {"mix(1.0f, 3.0f, 0.25f)", 1.5},
    {"step(2.0f, 1.0f)", 0.0},
    {"smoothstep(0.0f, 1.0f, 0.5f)", 0.5},
    {"sign(-0.0f)", -0.0},
    {"sign(-7.0f)", -1.0},
    {"fabs(degrees(M_PI_F) - 180.0f) < 1e-4f", 1.0},
    {"dot((float4)(1, 2, 3, 4), (float4)(5, 6, 7, 8))", 70.0},
    {"cross((float3)(1, 0, 0), (float3)(0, 1, 0)).z", 1.0},
    {"length((float2)(3, 4))", 5.0},
    {"distance((float3)(1, 1, 1), (float3)(1, 4, 5))", 5.0},
    {"normalize((float2)(0, 0)).x", 0.0},
    {"normalize((float2)(0, 2)).y", 1.0},
    {"sqrt(2.25f)", 1.5},
    {"native_divide(1.0f, 4.0f)", 0.25},
    {"half_recip(4.0f)", 0.25},
    {"pow(2.0f, 0.5f) * pow(2.0f, 0.5f) > 1.99f", 1.0},
    {"hypot(3.0, 4.0)", 5.0},
    {"atan2pi(0.0, -1.0)", 1.0},
    {"fabs(exp10(2.0f) - 100.0f) < 1e-4f", 1.0},
    {"erf(0.0f)", 0.0},
    {"isnan(nan(0u))", 1.0},
    {"trunc(-2.5f) + round(2.5f) + rint(2.5f) + floor(-0.5f) + ceil(0.2f)", 3.0},
};

TEST(runtime_builtins_compute_what_opencl_defines) {
  rc_strbuf src;
  rc_sb_init(&src);
  rc_sb_puts(&src, "kernel void builtins(global long *out, global double *fout, global int *in,\n"
                   "                       global int *ai, global long *al) {\n"
                   "  int pv[6] = {1, 2, 3, 4, 5, 6};\n  int ip;\n  float fp;\n");
  size_t ni = sizeof int_cases / sizeof int_cases[0], nf = sizeof float_cases / sizeof float_cases[0];
  for (size_t i = 0; i < ni; i++) rc_sb_printf(&src, "  out[%zu] = (long)(%s);\n", i, int_cases[i].expr);
  for (size_t i = 0; i < nf; i++) rc_sb_printf(&src, "  fout[%zu] = (double)(%s);\n", i, float_cases[i].expr);
  rc_sb_puts(&src, "}\n");
  char spec[256];
  snprintf(spec, sizeof spec, "--global 1 --arg out=i64[%zu] --arg fout=f64[%zu] --arg in=i32[8]:seq "
           "--arg ai=i32[1] --arg al=i64[1]", ni, nf);
  native_case c;
  run_cl(&c, src.data, spec);
  CHECK_EQ_INT(c.rc, 0);
  if (c.rc) fprintf(stderr, "%s%s\n", c.d.text, c.fault.message);
  const int64_t *out = buffer(&c, "out");
  const double *fout = buffer(&c, "fout");
  for (size_t i = 0; out && i < ni; i++)
    if (out[i] != int_cases[i].want) {
      fprintf(stderr, "%s: %lld, expected %lld\n", int_cases[i].expr, (long long)out[i], int_cases[i].want);
      test_failures++;
    }
  for (size_t i = 0; fout && i < nf; i++)
    if (fout[i] != float_cases[i].want || signbit(fout[i]) != signbit(float_cases[i].want)) {
      fprintf(stderr, "%s: %.17g, expected %.17g\n", float_cases[i].expr, fout[i], float_cases[i].want);
      test_failures++;
    }
  case_free(&c);
  rc_sb_free(&src);
}

/* ---- work-items, work-groups, barriers ------------------------------------------------------------ */

/* A 5 x 3 launch in groups of 2 x 2: the last group of each dimension is smaller (OpenCL 2.0). */
TEST(work_item_functions_in_two_dimensions) {
  native_case c;
  run_cl(&c,
         "kernel void ids(global int *out) {\n"
         "  size_t x = get_global_id(0), y = get_global_id(1), i = (y * get_global_size(0) + x) * 8;\n"
         "  out[i] = get_local_id(0) + 10 * get_local_id(1);\n"
         "  out[i + 1] = get_group_id(0) + 10 * get_group_id(1);\n"
         "  out[i + 2] = get_local_size(0) + 10 * get_local_size(1);\n"
         "  out[i + 3] = get_num_groups(0) + 10 * get_num_groups(1);\n"
         "  out[i + 4] = get_work_dim() + 10 * get_global_size(2) + 100 * get_global_id(2);\n"
         "  out[i + 5] = get_global_id(7) + 10 * get_local_size(7) + 100 * get_global_offset(0);\n"
         "  out[i + 6] = get_local_size(2);\n"
         "  out[i + 7] = get_global_size(0) * get_global_size(1);\n"
         "}\n",
         "--global 5,3 --local 2,2 --arg out=i32[120]");
  CHECK_EQ_INT(c.rc, 0);
  if (c.rc) fprintf(stderr, "%s%s\n", c.d.text, c.fault.message);
  const int32_t *out = buffer(&c, "out");
  for (int y = 0; out && y < 3; y++)
    for (int x = 0; x < 5; x++) {
      const int32_t *o = out + (y * 5 + x) * 8;
      int lsx = x < 4 ? 2 : 1, lsy = y < 2 ? 2 : 1;
      CHECK_EQ_INT(o[0], x % 2 + 10 * (y % 2));
      CHECK_EQ_INT(o[1], x / 2 + 10 * (y / 2));
      CHECK_EQ_INT(o[2], lsx + 10 * lsy);
      CHECK_EQ_INT(o[3], 3 + 10 * 2);
      CHECK_EQ_INT(o[4], 2 + 10 * 1 + 0);
      CHECK_EQ_INT(o[5], 0 + 10 * 1 + 0);
      CHECK_EQ_INT(o[6], 1);
      CHECK_EQ_INT(o[7], 15);
    }
  case_free(&c);
}

/* A work-group reduction through a __local variable of the kernel and a local: argument, with
 * barriers; the group's first work-item also counts in a __local counter that must start at 0 in
 * every group; an async copy brings the inputs in. */
TEST(barriers_local_memory_and_async_copies) {
  native_case c;
  run_cl(&c,
         "kernel void reduce(global const int *in, global int *sums, global int *counts,\n"
         "                   local int *copy) {\n"
         "  local int part[16];\n"
         "  local int counter;\n"
         "  size_t l = get_local_id(0), n = get_local_size(0);\n"
         "  event_t e = async_work_group_copy(copy, in + get_group_id(0) * n, n, 0);\n"
         "  wait_group_events(1, &e);\n"
         "  part[l] = copy[n - 1 - l];\n"
         "  atomic_inc(&counter);\n"
         "  barrier(CLK_LOCAL_MEM_FENCE);\n"
         "  for (size_t s = n / 2; s > 0; s /= 2) {\n"
         "    if (l < s) part[l] += part[l + s];\n"
         "    barrier(CLK_LOCAL_MEM_FENCE);\n"
         "  }\n"
         "  if (l == 0) { sums[get_group_id(0)] = part[0]; counts[get_group_id(0)] = counter; }\n"
         "}\n",
         "--global 64 --local 16 --arg in=i32[64]:seq --arg sums=i32[4] --arg counts=i32[4] "
         "--arg copy=local:i32[16]");
  CHECK_EQ_INT(c.rc, 0);
  if (c.rc) fprintf(stderr, "%s%s\n", c.d.text, c.fault.message);
  const int32_t *sums = buffer(&c, "sums"), *counts = buffer(&c, "counts");
  for (int g = 0; sums && g < 4; g++) {
    CHECK_EQ_INT(sums[g], 16 * 16 * g + 120); /* the sum of 16g .. 16g+15 */
    CHECK_EQ_INT(counts[g], 16);
  }
  case_free(&c);
}

/* ---- faults ----------------------------------------------------------------------------------------- */

static void check_fault_in(const char *ext, const char *src, const char *spec, const char *message) {
  native_case c;
  run_source(&c, ext, src, ext[1] == 'c' ? "spir64" : NULL, spec);
  CHECK_EQ_INT(c.rc, -1);
  CHECK(c.fault.happened);
  CHECK_STR_CONTAINS(c.fault.message, message);
  if (!c.fault.happened) fprintf(stderr, "%s", c.d.text);
  case_free(&c);
}

static void check_fault(const char *src, const char *spec, const char *message) {
  check_fault_in(".cl", src, spec, message);
}

TEST(a_write_past_a_buffer_faults_and_names_it) {
  check_fault("kernel void k(global int *out) { out[get_global_id(0) + 4] = 1; }",
              "--global 4 --arg out=i32[4]",
              "kernel @k, work-item 0: native run crashed: signal 11 (Segmentation fault): an access 0 "
              "bytes past the end of buffer %out (16 bytes)");
  check_fault("kernel void k(global int *out) { out[(int)get_global_id(0) - 2000] = 1; }",
              "--global 4 --arg out=i32[4]", "bytes before the start of buffer %out");
  check_fault("kernel void k(global int *out, global int *p) { *p = out[0]; }",
              "--global 1 --arg out=i32[4] --arg p=null", "through a null pointer (address 0x0)");
}

TEST(integer_division_by_zero_and_unreachable_fault) {
  check_fault("kernel void k(global int *out, int d) { out[0] = 7 / d; }",
              "--global 1 --arg out=i32[1] --arg d=0",
              "signal 8 (Floating point exception): an integer division by zero or overflow");
  /* (in LLVM IR: clang makes __builtin_unreachable an assumption) */
  check_fault_in(".ll",
                 "target triple = \"spir64\"\n"
                 "declare spir_func i64 @_Z13get_global_idj(i32)\n"
                 "define spir_kernel void @k(i32 addrspace(1)* %out) {\n"
                 "entry:\n"
                 "  %g = call spir_func i64 @_Z13get_global_idj(i32 0)\n"
                 "  %c = icmp eq i64 %g, 2\n"
                 "  br i1 %c, label %never, label %done\n"
                 "never:\n"
                 "  unreachable\n"
                 "done:\n"
                 "  ret void\n"
                 "}\n",
                 "--global 4 --arg out=i32[1]",
                 "kernel @k, work-item 2: native run crashed: signal 4 (Illegal instruction): `unreachable` "
                 "reached, or llvm.trap");
}

TEST(barrier_divergence_faults) {
  check_fault("kernel void k(global int *out) { if (get_local_id(0) < 3) barrier(CLK_LOCAL_MEM_FENCE); }",
              "--global 8 --local 8 --arg out=i32[1]",
              "kernel @k, work-item 0: barrier divergence: it waits at a barrier but work-item 3 of its "
              "work-group has returned");
  /* (in LLVM IR: clang would merge the two calls) */
  check_fault_in(".ll",
                 "target triple = \"spir64\"\n"
                 "declare spir_func i64 @_Z12get_local_idj(i32)\n"
                 "declare spir_func void @_Z7barrierj(i32)\n"
                 "define spir_kernel void @k(i32 addrspace(1)* %out) {\n"
                 "entry:\n"
                 "  %l = call spir_func i64 @_Z12get_local_idj(i32 0)\n"
                 "  %c = icmp eq i64 %l, 1\n"
                 "  br i1 %c, label %one, label %other\n"
                 "one:\n"
                 "  call spir_func void @_Z7barrierj(i32 1)\n"
                 "  br label %done\n"
                 "other:\n"
                 "  call spir_func void @_Z7barrierj(i32 1)\n"
                 "  br label %done\n"
                 "done:\n"
                 "  ret void\n"
                 "}\n",
                 "--global 4 --arg out=i32[1]",
              "kernel @k, work-item 0: barrier divergence: it waits at the barrier of @k, block %other and "
              "work-item 1 of its work-group at the barrier of @k, block %one");
}

/* Deep recursion in a work-item that runs as a coroutine overflows its stack, into a guard page. */
TEST(a_stack_overflow_faults) {
  check_fault("int down(int n) { volatile int pad[64]; pad[n & 63] = n; return n ? down(n - 1) + pad[3] : 0; }\n"
              "kernel void k(global int *out, int n) { barrier(CLK_LOCAL_MEM_FENCE); out[0] = down(n); }",
              "--global 2 --arg out=i32[1] --arg n=1000000", "a stack overflow");
}

/* A call of a function nobody defines faults when it happens, naming the function; work-items
 * that do not reach it run. */
TEST(calls_of_unprovided_functions_fault_when_reached) {
  native_case c;
  run_source(&c, ".ll",
             "target triple = \"spir64\"\n"
             "declare spir_func i32 @mystery(i32)\n"
             "define spir_kernel void @k(i32 addrspace(1)* %out, i32 %n) {\n"
             "entry:\n"
             "  %c = icmp sgt i32 %n, 0\n"
             "  br i1 %c, label %call, label %done\n"
             "call:\n"
             "  %v = call spir_func i32 @mystery(i32 %n)\n"
             "  store i32 %v, i32 addrspace(1)* %out\n"
             "  br label %done\n"
             "done:\n"
             "  ret void\n"
             "}\n",
             NULL, "--global 1 --arg out=i32[1] --arg n=0");
  CHECK_EQ_INT(c.rc, 0);
  case_free(&c);
  run_source(&c, ".ll",
             "target triple = \"spir64\"\n"
             "declare spir_func i32 @mystery(i32)\n"
             "define spir_kernel void @k(i32 addrspace(1)* %out, i32 %n) {\n"
             "entry:\n"
             "  %v = call spir_func i32 @mystery(i32 %n)\n"
             "  store i32 %v, i32 addrspace(1)* %out\n"
             "  ret void\n"
             "}\n",
             NULL, "--global 1 --arg out=i32[1] --arg n=1");
  CHECK_EQ_INT(c.rc, -1);
  CHECK_STR_CONTAINS(c.fault.message,
                     "kernel @k, work-item 0: calls mystery, which the native runtime library does not provide");
  case_free(&c);
}

/* An endless loop is stopped after the time the step budget allows (5 s here). */
TEST(an_endless_loop_times_out) {
  check_fault("kernel void k(global volatile int *out) { while (out[0] == 0) out[1]++; }",
              "--global 1 --steps 1000 --arg out=i32[2]",
              "kernel @k, work-item 0: the native run takes longer than 5.0 s");
}

/* ---- bad input ---------------------------------------------------------------------------------------- */

static void check_error(const char *ext, const char *src, const char *target, const char *spec,
                        const char *message) {
  native_case c;
  run_source(&c, ext, src, target, spec);
  CHECK_EQ_INT(c.rc, -2);
  CHECK_STR_CONTAINS(c.d.text, message);
  case_free(&c);
}

TEST(gpu_targets_and_unpassable_parameters_are_refused) {
  check_error(".cl", "kernel void k(global int *out) { out[0] = 1; }", "amdgcn-amd-amdhsa",
              "--arg out=i32[1]",
              "the native oracle runs spir64 modules; compile the .cl file with --target spir64 "
              "(this module's target is amdgcn-amd-amdhsa)");
  check_error(".cl", "kernel void k(global int *out) { out[0] = 1; }", "spir", "--arg out=i32[1]",
              "(this module's target is spir)");
  check_error(".ll",
              "target triple = \"spir64\"\n"
              "define spir_kernel void @k(i32 addrspace(1)* %out, i128 %big) {\n"
              "  ret void\n"
              "}\n",
              NULL, "--arg out=i32[1] --arg big=1",
              "kernel @k: parameter 1 (%big) has type i128; the native oracle passes integers of up to "
              "64 bits, float, double and pointers");
}

/* ---- the interpreter against the native run ------------------------------------------------------- */

/* What the simulators' form of a kernel does to run it (src/sim/run_form.c: device functions
 * inlined, vectors and aggregates scalarized, the geometric functions, vector loads and stores,
 * shuffles and *.with.overflow pairs expanded, the built-ins by their mangled names) must compute what LLVM computes on this machine's CPU: the
 * interpreter and the native run leave the same memory. */
static const char agree_src[] =
    "int collatz(int x, int limit) {\n"
    "  int n = 0;\n"
    "  while (x != 1) { if (n == limit) return -n; x = (x & 1) ? 3 * x + 1 : x / 2; n++; }\n"
    "  return n;\n"
    "}\n"
    "float4 twist(float4 v, int i) { return i & 1 ? v.wzyx : v * 2.0f; }\n"
    "kernel void k(global float4 *a, global float *b, global int *c, global uchar4 *u, global uint *w) {\n"
    "  int i = get_global_id(0);\n"
    "  float4 x = a[i];\n"
    "  float4 y = twist(x * 2.0f + (float4)(1, 2, 3, 4), i);\n"
    "  if (x.y > 0.5f) y = y.wzyx;\n"
    "  y.z += dot(x, y) + length(x);\n"
    "  a[i] = y + cross(x, y) + normalize(x) + (float4)(distance(x, y));\n"
    "  float4 v = vload4(i, b);\n"
    "  vstore4(v * v, i + 1, b);\n"
    "  int4 m = isgreater(x, y);\n"
    "  c[i] = any(m) + all(m) * 2 + m.x + select(3, 4, m.y) + collatz(i + 1, 40);\n"
    "  uchar4 q = u[i];\n"
    "  c[i] += as_int(q) + q.s2 + convert_int4(x * 100.0f)[i & 3] + mul24(i, 7) + abs_diff(i, 9);\n"
    "  u[i] = as_uchar4(c[i] ^ 0x5a5a5a5a) + (uchar4)(clamp(q.x, (uchar)3, (uchar)200));\n"
    "  w[i] = rotate((uint)c[i], 5u) + sub_sat((uint)i, 3u) + mul_hi((uint)c[i], 77777u) + popcount(w[i]);\n"
    "  b[i] = fract(x.x * 3.5f, b + 80) + min(x, y).w + fmax(x.z, 0.25f);\n"
    "  int ov;\n"
    "  c[i] += __builtin_mul_overflow(c[i], 1000003, &ov) ? ov & 255 : 1;\n"
    "  c[i] += __builtin_sub_overflow((uint)c[i], (uint)i * 977u, (uint *)&ov) ? 2 : ov & 3;\n"
    "  uint4 sm = (uint4)(i, i >> 1, i >> 2, 7 - i);\n"
    "  a[i] += shuffle(y, sm) + shuffle2(x, y, sm + 1u) + shuffle(x, (uint4)(3, 1, 2, 0));\n"
    "}\n";

TEST(interpreter_and_native_runs_agree_on_vectors_calls_and_builtins) {
  /* with.overflow pairs, shuffles with run-time masks */
  const char *spec = "--global 64 --local 16 --arg a=f32[256]:rand(1) --arg b=f32[300]:rand(2) --arg c=i32[64] "
                     "--arg u=i8[256]:rand(3,0,255) --arg w=i32[64]:rand(4,0,100000)";
  native_case nc;
  run_cl(&nc, agree_src, spec);
  CHECK_EQ_INT(nc.rc, 0);
  rc_kernel *k = nc.m ? rc_module_find_kernel(nc.m, "k") : NULL;
  CHECK(k != NULL);
  if (k && nc.rc == 0) {
    rc_memory mem = {0};
    rc_fault fault = {0};
    CHECK_EQ_INT(rc_memory_init(&nc.d.ctx, &mem, &nc.s, k), 0);
    int rc = rc_interp_run(&nc.d.ctx, k, &nc.s, &mem, NULL, NULL, &fault);
    if (rc != 0) fprintf(stderr, "interpreter: %s%s\n", fault.message, nc.d.text);
    CHECK_EQ_INT(rc, 0);
    char why[512] = "";
    bool same = rc_memory_equal(&nc.mem, &mem, why, sizeof why);
    if (!same) fprintf(stderr, "interpreter and native run differ: %s\n", why);
    CHECK(same);
    rc_memory_free(&mem);
  }
  case_free(&nc);
}

TEST(zzz_close_the_shared_runtime) {
  rc_native_close(shared_runtime);
  shared_runtime = NULL;
}

#endif
