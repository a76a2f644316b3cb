/* The thread-level interpreter: the arithmetic of every opcode with its edge cases, casts, memory,
 * private and local memory, barriers, builtins, work-item queries, every fault with its message. */
#include "reconv/sim.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>

typedef struct run {
  test_diags d;
  rc_module *m;
  rc_run_spec s;
  rc_memory mem;
  rc_traces tr;
  rc_run_stats st;
  rc_fault f;
  int rc; /* rc_interp_run's result; -2 when the setup failed */
} run;

/* Parse text, take the kernel's !run plus `spec`, and run it. */
static int run_text(run *r, const char *text, const char *spec) {
  memset(r, 0, sizeof *r);
  test_diags_init(&r->d);
  rc_run_spec_init(&r->s);
  r->m = test_parse(&r->d, text);
  rc_kernel *k = r->m ? r->m->kernels[0] : NULL;
  if (!k || rc_run_spec_parse_kernel(&r->d.ctx, &r->s, k) != 0 ||
      rc_run_spec_parse_string(&r->d.ctx, &r->s, spec) != 0 || rc_run_spec_check(&r->d.ctx, &r->s, k) != 0 ||
      rc_memory_init(&r->d.ctx, &r->mem, &r->s, k) != 0) {
    fprintf(stderr, "setup failed: %s", r->d.text);
    return r->rc = -2;
  }
  r->rc = rc_interp_run(&r->d.ctx, k, &r->s, &r->mem, &r->tr, &r->st, &r->f);
  if (r->rc != 0 && r->f.happened) fprintf(stderr, "(fault: %s)\n", r->f.message);
  return r->rc;
}

static void run_free(run *r) {
  rc_traces_free(&r->tr);
  rc_run_stats_free(&r->st);
  rc_memory_free(&r->mem);
  rc_run_spec_free(&r->s);
  if (r->m) rc_module_free(r->m);
}

static int64_t out_int(const run *r, const char *buf, uint64_t i) {
  const rc_buffer *b = rc_memory_find(&r->mem, buf);
  if (!b || i >= b->count) return -999999;
  char v[64];
  rc_buffer_format_elem(b, i, v, sizeof v);
  return strtoll(v, NULL, 10);
}

/* An f32 or f64 element, exactly. */
static double out_float(const run *r, const char *buf, uint64_t i) {
  const rc_buffer *b = rc_memory_find(&r->mem, buf);
  if (!b || i >= b->count || !rc_type_is_float(b->elem)) return -999999;
  if (b->elem == RC_F64) {
    double d;
    memcpy(&d, b->data + i * 8, 8);
    return d;
  }
  float f;
  memcpy(&f, b->data + i * 4, 4);
  return f;
}

/* ---- integer arithmetic ------------------------------------------------------------------------- */

/* `op ty a, b` on one thread; *fault gets the fault message (or "" when none). */
static int64_t ibin_f(const char *op, const char *ty, int64_t a, int64_t b, char *fault, size_t flen) {
  char text[400], spec[200];
  snprintf(text, sizeof text,
           "kernel @k(ptr %%out, %s %%a, %s %%b) {\nentry:\n  %%r = %s %s %%a, %%b\n"
           "  store %s %%r, %%out\n  ret\n}\n", ty, ty, op, ty, ty);
  snprintf(spec, sizeof spec, "--arg out=%s[1] --arg a=%lld --arg b=%lld", ty, (long long)a, (long long)b);
  run r;
  int rc = run_text(&r, text, spec);
  int64_t v = rc == 0 ? out_int(&r, "out", 0) : -999999;
  if (fault) snprintf(fault, flen, "%s", r.f.happened ? r.f.message : "");
  run_free(&r);
  return v;
}

static int64_t ibin(const char *op, const char *ty, int64_t a, int64_t b) {
  return ibin_f(op, ty, a, b, NULL, 0);
}

TEST(interp_add_sub_mul_wrap) {
  CHECK_EQ_INT(ibin("add", "i32", 2147483647, 1), -2147483648LL);
  CHECK_EQ_INT(ibin("add", "i8", 127, 1), -128);
  CHECK_EQ_INT(ibin("add", "i16", -32768, -1), 32767);
  CHECK_EQ_INT(ibin("add", "i64", INT64_MAX, 1), INT64_MIN);
  CHECK_EQ_INT(ibin("add", "i1", 1, 1), 0);
  CHECK_EQ_INT(ibin("sub", "i32", 0, 1), -1);
  CHECK_EQ_INT(ibin("sub", "i8", -128, 1), 127);
  CHECK_EQ_INT(ibin("mul", "i32", 65536, 65536), 0);
  CHECK_EQ_INT(ibin("mul", "i16", 300, 300), 24464);
  CHECK_EQ_INT(ibin("mul", "i64", -3, 7), -21);
}

TEST(interp_division) {
  CHECK_EQ_INT(ibin("sdiv", "i32", -7, 2), -3);
  CHECK_EQ_INT(ibin("srem", "i32", -7, 2), -1);
  CHECK_EQ_INT(ibin("udiv", "i32", -1, 2), 2147483647);
  CHECK_EQ_INT(ibin("urem", "i8", -1, 10), 5); /* 255 % 10 */
  CHECK_EQ_INT(ibin("udiv", "i64", -1, 3), 6148914691236517205LL);
  CHECK_EQ_INT(ibin("sdiv", "i8", -128, 2), -64);
  CHECK_EQ_INT(ibin("sdiv", "i32", 2147483647, -1), -2147483647);
  char f[512];
  ibin_f("sdiv", "i1", 1, 1, f, sizeof f); /* i1 true is -1, its smallest value: -1 / -1 overflows */
  CHECK_STR_CONTAINS(f, "signed division overflow (-1 / -1)");
  const char *ops[4] = {"sdiv", "udiv", "srem", "urem"};
  for (int i = 0; i < 4; i++) {
    ibin_f(ops[i], "i32", 5, 0, f, sizeof f);
    CHECK_STR_CONTAINS(f, "division by zero");
  }
  ibin_f("sdiv", "i32", 7, 0, f, sizeof f);
  CHECK_STR_CONTAINS(f, "kernel @k, block entry, instruction `%r = sdiv i32 %a, %b`, thread 0: division by zero");
  ibin_f("sdiv", "i32", -2147483648LL, -1, f, sizeof f);
  CHECK_STR_CONTAINS(f, "signed division overflow (-2147483648 / -1)");
  ibin_f("srem", "i8", -128, -1, f, sizeof f);
  CHECK_STR_CONTAINS(f, "signed division overflow (-128 / -1)");
  ibin_f("sdiv", "i64", INT64_MIN, -1, f, sizeof f);
  CHECK_STR_CONTAINS(f, "signed division overflow");
  /* unsigned division has no overflow case */
  CHECK_EQ_INT(ibin_f("udiv", "i8", -128, -1, f, sizeof f), 0);
  CHECK_EQ_INT(f[0], 0);
}

TEST(interp_logic_and_shifts) {
  CHECK_EQ_INT(ibin("and", "i32", 12, 10), 8);
  CHECK_EQ_INT(ibin("or", "i32", 12, 10), 14);
  CHECK_EQ_INT(ibin("xor", "i32", 12, 10), 6);
  CHECK_EQ_INT(ibin("andn", "i32", 12, 10), 4);
  CHECK_EQ_INT(ibin("andn", "i1", 1, 0), 1);
  CHECK_EQ_INT(ibin("xor", "i8", -1, 1), -2);
  CHECK_EQ_INT(ibin("shl", "i32", 1, 33), 2); /* amounts modulo the width */
  CHECK_EQ_INT(ibin("shl", "i8", 1, 7), -128);
  CHECK_EQ_INT(ibin("shl", "i16", 3, 16), 3);
  CHECK_EQ_INT(ibin("lshr", "i32", -1, 28), 15);
  CHECK_EQ_INT(ibin("lshr", "i8", -128, 7), 1);
  CHECK_EQ_INT(ibin("lshr", "i64", -1, 64), -1);
  CHECK_EQ_INT(ibin("lshr", "i64", -1, 63), 1);
  CHECK_EQ_INT(ibin("ashr", "i32", -16, 2), -4);
  CHECK_EQ_INT(ibin("ashr", "i8", -128, 7), -1);
  CHECK_EQ_INT(ibin("ashr", "i32", -16, 32), -16);
  CHECK_EQ_INT(ibin("ashr", "i1", 1, 0), 1);
}

static int64_t icmp(const char *pred, const char *ty, int64_t a, int64_t b) {
  char text[400], spec[200];
  snprintf(text, sizeof text,
           "kernel @k(ptr %%out, %s %%a, %s %%b) {\nentry:\n  %%r = icmp %s %s %%a, %%b\n"
           "  %%z = zext i1 %%r to i32\n  store i32 %%z, %%out\n  ret\n}\n", ty, ty, pred, ty);
  snprintf(spec, sizeof spec, "--arg out=i32[1] --arg a=%lld --arg b=%lld", (long long)a, (long long)b);
  run r;
  int64_t v = run_text(&r, text, spec) == 0 ? out_int(&r, "out", 0) : -1;
  run_free(&r);
  return v;
}

TEST(interp_icmp_every_predicate) {
  /* -1 against 0: signed and unsigned views differ */
  const char *preds[10] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
  const int want[10] = {0, 1, 1, 1, 0, 0, 0, 0, 1, 1};
  for (int p = 0; p < 10; p++) {
    CHECK_EQ_INT(icmp(preds[p], "i32", -1, 0), want[p]);
    CHECK_EQ_INT(icmp(preds[p], "i8", -1, 0), want[p]);
    CHECK_EQ_INT(icmp(preds[p], "i64", -1, 0), want[p]);
    CHECK_EQ_INT(icmp(preds[p], "i1", 1, 0), want[p]); /* true is -1 signed, 1 unsigned */
  }
  CHECK_EQ_INT(icmp("eq", "i16", 5, 5), 1);
  CHECK_EQ_INT(icmp("sle", "i16", 5, 5), 1);
  CHECK_EQ_INT(icmp("ult", "i32", 3, 5), 1);
}

/* ---- floating point -------------------------------------------------------------------------------- */

static double fcalc(const char *body, const char *ty, const char *a, const char *b) {
  char text[500], spec[200];
  snprintf(text, sizeof text,
           "kernel @k(ptr %%out, %s %%a, %s %%b) {\nentry:\n  %s\n  store %s %%r, %%out\n  ret\n}\n", ty,
           ty, body, ty);
  snprintf(spec, sizeof spec, "--arg out=%s[1] --arg a=%s --arg b=%s", ty, a, b);
  run r;
  double v = run_text(&r, text, spec) == 0 ? out_float(&r, "out", 0) : -999999;
  run_free(&r);
  return v;
}

TEST(interp_float_arithmetic) {
  CHECK(fcalc("%r = fadd f32 %a, %b", "f32", "16777216", "1") == 16777216.0); /* rounds to float */
  CHECK(fcalc("%r = fadd f64 %a, %b", "f64", "16777216", "1") == 16777217.0);
  CHECK(fcalc("%r = fsub f64 %a, %b", "f64", "0.5", "2") == -1.5);
  CHECK(fcalc("%r = fmul f32 %a, %b", "f32", "1.5", "-4") == -6.0);
  CHECK(fcalc("%r = fdiv f32 %a, %b", "f32", "1", "3") == (double)(1.0f / 3.0f));
  CHECK(isinf(fcalc("%r = fdiv f64 %a, %b", "f64", "1", "0")));
  CHECK(isnan(fcalc("%r = fdiv f64 %a, %b", "f64", "0", "0")));
  CHECK(fcalc("%r = frem f64 %a, %b", "f64", "5.5", "2") == 1.5);
  CHECK(fcalc("%r = frem f32 %a, %b", "f32", "-5.5", "2") == -1.5);
  CHECK(fcalc("%r = fneg f32 %a", "f32", "2.5", "0") == -2.5);
  CHECK(fcalc("%r = select f64 true, %a, %b", "f64", "1", "2") == 1.0);
  CHECK(fcalc("%r = select f64 false, %a, %b", "f64", "1", "2") == 2.0);
}

static int64_t fcmp(const char *pred, const char *a, const char *b) {
  char text[400], spec[200];
  snprintf(text, sizeof text,
           "kernel @k(ptr %%out, f64 %%a, f64 %%b) {\nentry:\n  %%r = fcmp %s f64 %%a, %%b\n"
           "  store i1 %%r, %%out\n  ret\n}\n", pred);
  snprintf(spec, sizeof spec, "--arg out=i1[1] --arg a=%s --arg b=%s", a, b);
  run r;
  int64_t v = run_text(&r, text, spec) == 0 ? out_int(&r, "out", 0) : -1;
  run_free(&r);
  return v;
}

TEST(interp_fcmp_every_predicate) {
  const char *preds[16] = {"oeq", "one", "olt", "ole", "ogt", "oge", "ord", "ueq",
                           "une", "ult", "ule", "ugt", "uge", "uno", "true", "false"};
  /* 1 vs 2, then NaN vs 1 */
  const int lt[16] = {0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0};
  const int nan[16] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0};
  for (int p = 0; p < 16; p++) {
    CHECK_EQ_INT(fcmp(preds[p], "1", "2"), lt[p]);
    CHECK_EQ_INT(fcmp(preds[p], "nan", "1"), nan[p]);
  }
  CHECK_EQ_INT(fcmp("oeq", "2", "2"), 1);
  CHECK_EQ_INT(fcmp("ueq", "2", "2"), 1);
}

/* ---- casts ------------------------------------------------------------------------------------------ */

static const char *cast(const char *op, const char *from, const char *to, const char *value, char *buf) {
  char text[400], spec[200];
  snprintf(text, sizeof text,
           "kernel @k(ptr %%out, %s %%a) {\nentry:\n  %%r = %s %s %%a to %s\n  store %s %%r, %%out\n"
           "  ret\n}\n", from, op, from, to, to);
  snprintf(spec, sizeof spec, "--arg out=%s[1] --arg a=%s", to, value);
  run r;
  strcpy(buf, "?");
  if (run_text(&r, text, spec) == 0) rc_buffer_format_elem(rc_memory_find(&r.mem, "out"), 0, buf, 64);
  run_free(&r);
  return buf;
}

#define CHECK_CAST(op, from, to, value, want)                         \
  do {                                                                \
    char b_[64];                                                      \
    CHECK_STR_CONTAINS(cast(op, from, to, value, b_), want);          \
    CHECK_EQ_INT(strlen(b_), strlen(want));                           \
  } while (0)

TEST(interp_integer_casts) {
  CHECK_CAST("trunc", "i32", "i8", "300", "44");
  CHECK_CAST("trunc", "i32", "i1", "3", "1");
  CHECK_CAST("trunc", "i64", "i32", "4294967295", "-1");
  CHECK_CAST("zext", "i8", "i32", "-1", "255");
  CHECK_CAST("zext", "i1", "i32", "1", "1");
  CHECK_CAST("zext", "i32", "i64", "-1", "4294967295");
  CHECK_CAST("sext", "i8", "i32", "-1", "-1");
  CHECK_CAST("sext", "i1", "i32", "1", "-1");
  CHECK_CAST("sext", "i16", "i64", "-32768", "-32768");
}

TEST(interp_float_casts_saturate) {
  CHECK_CAST("fptosi", "f32", "i32", "1e10", "2147483647");
  CHECK_CAST("fptosi", "f32", "i32", "-1e10", "-2147483648");
  CHECK_CAST("fptosi", "f64", "i32", "nan", "0");
  CHECK_CAST("fptosi", "f64", "i32", "-3.9", "-3");
  CHECK_CAST("fptosi", "f64", "i8", "200", "127");
  CHECK_CAST("fptosi", "f64", "i64", "1e30", "9223372036854775807");
  CHECK_CAST("fptosi", "f64", "i64", "-inf", "-9223372036854775808");
  CHECK_CAST("fptoui", "f64", "i32", "-5", "0");
  CHECK_CAST("fptoui", "f64", "i32", "3.9", "3");
  CHECK_CAST("fptoui", "f64", "i32", "1e20", "-1"); /* 0xffffffff */
  CHECK_CAST("fptoui", "f64", "i8", "nan", "0");
  CHECK_CAST("fptoui", "f64", "i64", "1e30", "-1");
  CHECK_CAST("sitofp", "i32", "f64", "-1", "-1");
  CHECK_CAST("sitofp", "i1", "f32", "1", "-1");
  CHECK_CAST("uitofp", "i32", "f64", "-1", "4294967295");
  CHECK_CAST("uitofp", "i8", "f32", "-1", "255");
  CHECK_CAST("uitofp", "i64", "f64", "-1", "1.8446744073709552e+19");
  CHECK_CAST("fptrunc", "f64", "f32", "0.1", "0.100000001");
  CHECK_CAST("fpext", "f32", "f64", "0.1", "0.10000000149011612");
  CHECK_CAST("bitcast", "f32", "i32", "1", "1065353216");
  CHECK_CAST("bitcast", "i32", "f32", "-1082130432", "-1");
  CHECK_CAST("bitcast", "f64", "i64", "-0.0", "-9223372036854775808");
  CHECK_CAST("bitcast", "i64", "f64", "4607182418800017408", "1");
}

TEST(interp_pointer_casts_and_gep) {
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %out, ptr %in) {\nentry:\n"
                            "  %p = ptrtoint ptr %in to i64\n  store i64 %p, %out\n"
                            "  %q = inttoptr i32 -1 to ptr\n  %qi = ptrtoint ptr %q to i64\n"
                            "  %o1 = gep %out, i32 1, 8\n  store i64 %qi, %o1\n"
                            "  %t = ptrtoint ptr %in to i32\n  %t64 = sext i32 %t to i64\n"
                            "  %o2 = gep %out, i64 2, 8\n  store i64 %t64, %o2\n"
                            "  %back = gep %o2, i8 -2, 8\n  %b = bitcast ptr %back to i64\n"
                            "  %o3 = gep %out, i16 3, 8\n  store i64 %b, %o3\n  ret\n}\n",
                       "--arg out=i64[4] --arg in=i8[1]"), 0);
  CHECK(out_int(&r, "out", 0) == 0x0100000100000000LL); /* the second buffer */
  CHECK_EQ_INT(out_int(&r, "out", 1), 0xffffffffLL);     /* inttoptr zero-extends */
  CHECK_EQ_INT(out_int(&r, "out", 2), 0);                /* ptrtoint truncates */
  CHECK(out_int(&r, "out", 3) == 0x0100000000000000LL);  /* gep sign-extends the index */
  run_free(&r);
}

/* ---- memory ---------------------------------------------------------------------------------------- */

TEST(interp_memory_images_are_little_endian) {
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %out) {\nentry:\n"
                            "  store i32 67305985, %out\n"              /* 0x04030201 */
                            "  %p4 = gep %out, i32 4, 1\n  store i1 true, %p4\n"
                            "  %p5 = gep %out, i32 5, 1\n  store i16 -2, %p5\n"
                            "  %p8 = gep %out, i32 8, 1\n  store f32 1.0, %p8\n"
                            "  %w = load i16, %out\n  %p12 = gep %out, i32 12, 1\n  store i16 %w, %p12\n"
                            "  %p14 = gep %out, i32 14, 1\n  store i8 2, %p14\n"
                            "  %t = load i1, %p14\n  %p15 = gep %out, i32 15, 1\n  store i1 %t, %p15\n"
                            "  ret\n}\n",
                       "--arg out=i8[16]"), 0);
  const int want[16] = {1, 2, 3, 4, 1, -2, -1, 0, 0, 0, -128, 63, 1, 2, 2, 1};
  for (int i = 0; i < 16; i++) CHECK_EQ_INT(out_int(&r, "out", (uint64_t)i), want[i]);
  run_free(&r);
}

TEST(interp_float_and_wide_memory) {
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %f, ptr %d, ptr %q) {\nentry:\n"
                            "  %x = load f32, %f\n  %y = fmul f32 %x, 2.0\n  %f1 = gep %f, i32 1, 4\n"
                            "  store f32 %y, %f1\n  %u = load f64, %d\n  %d1 = gep %d, i32 1, 8\n"
                            "  %v = fadd f64 %u, 0.5\n  store f64 %v, %d1\n"
                            "  %w = load i64, %q\n  %w2 = mul i64 %w, 3\n  %q1 = gep %q, i32 1, 8\n"
                            "  store i64 %w2, %q1\n  ret\n}\n",
                       "--arg f=f32[2]:fill(1.25) --arg d=f64[2]:fill(-2) --arg q=i64[2]:fill(0x100000000)"), 0);
  CHECK(out_float(&r, "f", 1) == 2.5);
  CHECK(out_float(&r, "d", 1) == -1.5);
  CHECK_EQ_INT(out_int(&r, "q", 1), 0x300000000LL);
  run_free(&r);
}

/* The given statement in block `entry` faults; check the message. */
static void expect_fault(const char *kernel, const char *spec, const char *needle) {
  run r;
  CHECK_EQ_INT(run_text(&r, kernel, spec), -1);
  CHECK(r.f.happened);
  CHECK_STR_CONTAINS(r.f.message, needle);
  CHECK(r.tr.start == NULL); /* traces only on success */
  run_free(&r);
}

TEST(interp_memory_faults) {
  const char *oob = "kernel @k(ptr %out, i32 %i) {\nentry:\n  %tid = call i32 @global_id(i32 0)\n"
                    "  %p = gep %out, i32 %i, 4\n  %x = load i32, %p\n  store i32 %x, %p\n  ret\n}\n";
  expect_fault(oob, "--arg out=i32[4] --arg i=4",
               "kernel @k, block entry, instruction `%x = load i32, %p`, thread 0: out-of-bounds load of 4 "
               "bytes at 0x0100000000000010 (0 bytes past the end of buffer %out (16 bytes))");
  expect_fault(oob, "--arg out=i32[4] --arg i=-1",
               "out-of-bounds load of 4 bytes at 0x00fffffffffffffc (4 bytes before the start of buffer %out)");
  expect_fault(oob, "--arg out=null --arg i=0", "load of 4 bytes through a null pointer (address 0x0)");
  expect_fault(oob, "--arg out=null --arg i=3", "through a null pointer (address 0xc)");
  const char *st = "kernel @k(ptr %out) {\nentry:\n  %p = gep %out, i32 1, 3\n  store i16 7, %p\n  ret\n}\n";
  expect_fault(st, "--arg out=i32[1]", "instruction `store i16 7, %p`, thread 0: out-of-bounds store of 2 bytes "
                                       "at 0x0100000000000003 (2 bytes from offset 3 run past the end of buffer %out (4 bytes))");
  const char *wild = "kernel @k(ptr %out) {\nentry:\n  %p = inttoptr i64 8574853690513424384 to ptr\n"
                     "  store i8 1, %p\n  ret\n}\n";
  expect_fault(wild, "--arg out=i32[1]", "(not an address of any memory)");
}

TEST(interp_alloca_is_private_per_thread) {
  /* every thread stores its id into its alloca, all meet at a barrier, then read back */
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %out, ptr %addr) {\nentry:\n  %tid = call i32 @global_id(i32 0)\n"
                            "  %a = alloca 8\n  %a4 = gep %a, i32 1, 4\n  store i32 %tid, %a4\n"
                            "  call void @barrier()\n  %x = load i32, %a4\n  %p = gep %out, i32 %tid, 4\n"
                            "  store i32 %x, %p\n  %ai = ptrtoint ptr %a to i64\n  %q = gep %addr, i32 %tid, 8\n"
                            "  store i64 %ai, %q\n  %z = load i32, %a\n  %p2 = gep %out, i32 %tid, 4\n"
                            "  %s = add i32 %x, %z\n  store i32 %s, %p2\n  ret\n}\n",
                       "--global 8 --arg out=i32[N] --arg addr=i64[N]"), 0);
  for (int t = 0; t < 8; t++) {
    CHECK_EQ_INT(out_int(&r, "out", (uint64_t)t), t); /* its own value; the rest zeroed */
    CHECK(out_int(&r, "addr", (uint64_t)t) == 0x0300000000000000LL); /* the same address everywhere */
  }
  run_free(&r);
  expect_fault("kernel @k(ptr %out) {\nentry:\n  %a = alloca 6\n  %p = gep %a, i32 1, 4\n"
               "  store i32 1, %p\n  ret\n}\n",
               "--arg out=i32[1]", "out-of-bounds store of 4 bytes at 0x0300000000000004 (4 bytes from "
                                   "offset 4 run past the end of private region 0 (6 bytes))");
}

TEST(interp_localmem_shared_within_a_group_only) {
  /* group 0's first thread writes 7 to the shared word; after the barrier every thread of group 0
   * sees 7, every thread of group 1 (its own, zeroed local memory) sees 0. Each thread also
   * writes its local id to lm[1 + lid] and reads its right neighbour's after the barrier. */
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %out, ptr %nb) {\nentry:\n  %tid = call i32 @global_id(i32 0)\n"
                            "  %lid = call i32 @local_id(i32 0)\n  %grp = call i32 @group_id(i32 0)\n"
                            "  %ls = call i32 @local_size(i32 0)\n  %lm = localmem 64\n"
                            "  %first = or i32 %lid, %grp\n  %w = icmp eq i32 %first, 0\n  br %w, W, S\n"
                            "W:\n  store i32 7, %lm\n  jmp S\n"
                            "S:\n  %i1 = add i32 %lid, 1\n  %slot = gep %lm, i32 %i1, 4\n  store i32 %lid, %slot\n"
                            "  call void @barrier()\n  %v = load i32, %lm\n  %p = gep %out, i32 %tid, 4\n"
                            "  store i32 %v, %p\n  %j = urem i32 %i1, %ls\n  %j1 = add i32 %j, 1\n"
                            "  %ns = gep %lm, i32 %j1, 4\n  %n = load i32, %ns\n  %q = gep %nb, i32 %tid, 4\n"
                            "  store i32 %n, %q\n  ret\n}\n",
                       "--global 8 --local 4 --arg out=i32[N] --arg nb=i32[N]"), 0);
  for (int t = 0; t < 8; t++) {
    CHECK_EQ_INT(out_int(&r, "out", (uint64_t)t), t < 4 ? 7 : 0);
    CHECK_EQ_INT(out_int(&r, "nb", (uint64_t)t), (t % 4 + 1) % 4);
  }
  run_free(&r);
}

TEST(interp_local_buffer_argument) {
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %out, ptr %tmp) {\nentry:\n  %lid = call i32 @local_id(i32 0)\n"
                            "  %tid = call i32 @global_id(i32 0)\n  %s = gep %tmp, i32 %lid, 4\n"
                            "  %old = call i32 @atomic_add(ptr %tmp, i32 1)\n  call void @barrier()\n"
                            "  %c = load i32, %tmp\n  %p = gep %out, i32 %tid, 4\n  store i32 %c, %p\n  ret\n}\n",
                       "--global 6 --local 3 --arg out=i32[N] --arg tmp=local:i32[4]"), 0);
  for (int t = 0; t < 6; t++) CHECK_EQ_INT(out_int(&r, "out", (uint64_t)t), 3); /* per group */
  run_free(&r);
}

/* ---- barriers and scheduling --------------------------------------------------------------------- */

TEST(interp_barrier_orders_a_group) {
  /* a two-phase reduction: each thread writes, barrier, thread 0 sums what all wrote */
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %out) {\nentry:\n  %lid = call i32 @local_id(i32 0)\n"
                            "  %grp = call i32 @group_id(i32 0)\n  %lm = localmem 256\n  %s = gep %lm, i32 %lid, 4\n"
                            "  %v = add i32 %lid, 1\n  store i32 %v, %s\n  call void @barrier()\n"
                            "  %z = icmp eq i32 %lid, 0\n  br %z, SUM, END\n"
                            "SUM:\n  %n = call i32 @local_size(i32 0)\n  jmp L\n"
                            "L:\n  %i = phi i32 [0, SUM], [%i1, L]\n  %acc = phi i32 [0, SUM], [%acc1, L]\n"
                            "  %e = gep %lm, i32 %i, 4\n  %x = load i32, %e\n  %acc1 = add i32 %acc, %x\n"
                            "  %i1 = add i32 %i, 1\n  %more = icmp ult i32 %i1, %n\n  br %more, L, W\n"
                            "W:\n  %o = gep %out, i32 %grp, 4\n  store i32 %acc1, %o\n  jmp END\n"
                            "END:\n  ret\n}\n",
                       "--global 40 --local 16 --arg out=i32[3]"), 0);
  CHECK_EQ_INT(out_int(&r, "out", 0), 136); /* 1 + ... + 16 */
  CHECK_EQ_INT(out_int(&r, "out", 1), 136);
  CHECK_EQ_INT(out_int(&r, "out", 2), 36);  /* the last group has 8 work-items */
  run_free(&r);
}

TEST(interp_barrier_divergence_faults) {
  /* a barrier in divergent control flow: odd threads wait at it, even ones return */
  expect_fault("kernel @k(ptr %out) {\nentry:\n  %tid = call i32 @global_id(i32 0)\n  %b = and i32 %tid, 1\n"
               "  %c = icmp ne i32 %b, 0\n  br %c, B, E\nB:\n  call void @barrier()\n  jmp E\nE:\n  ret\n}\n",
               "--global 4 --arg out=i32[1]",
               "kernel @k, block B, instruction `call void @barrier()`, thread 1: barrier divergence: thread 1 "
               "waits here but thread 0 of its work-group has returned");
  /* two different barriers */
  expect_fault("kernel @k(ptr %out) {\nentry:\n  %tid = call i32 @global_id(i32 0)\n  %c = icmp ult i32 %tid, 2\n"
               "  br %c, B, C\nB:\n  call void @barrier()\n  jmp E\nC:\n  call void @barrier()\n  jmp E\nE:\n  ret\n}\n",
               "--global 4 --arg out=i32[1]",
               "block B, instruction `call void @barrier()`, thread 0: barrier divergence: thread 0 waits here "
               "but thread 2 waits at another barrier (block C)");
  /* a barrier in a loop that threads run a different number of times */
  expect_fault("kernel @k(ptr %out) {\nentry:\n  %tid = call i32 @global_id(i32 0)\n  jmp L\n"
               "L:\n  %i = phi i32 [0, entry], [%i1, L]\n  call void @barrier()\n  %i1 = add i32 %i, 1\n"
               "  %c = icmp ule i32 %i1, %tid\n  br %c, L, E\nE:\n  ret\n}\n",
               "--global 3 --arg out=i32[1]", "barrier divergence");
  /* but a barrier in a uniform loop is fine, in every group */
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %out, i32 %n) {\nentry:\n  %tid = call i32 @global_id(i32 0)\n  jmp L\n"
                            "L:\n  %i = phi i32 [0, entry], [%i1, L]\n  call void @barrier()\n  %i1 = add i32 %i, 1\n"
                            "  %c = icmp ult i32 %i1, %n\n  br %c, L, E\nE:\n  %p = gep %out, i32 %tid, 4\n"
                            "  store i32 %i1, %p\n  ret\n}\n",
                       "--global 10 --local 4 --arg out=i32[N] --arg n=5"), 0);
  for (int t = 0; t < 10; t++) CHECK_EQ_INT(out_int(&r, "out", (uint64_t)t), 5);
  run_free(&r);
}

/* ---- control flow, phis, budget, unreachable ---------------------------------------------------------- */

TEST(interp_phis_copy_in_parallel) {
  /* a loop that swaps two phis each iteration: after 3 iterations they are swapped */
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %out) {\nentry:\n  jmp L\n"
                            "L:\n  %a = phi i32 [1, entry], [%b, L]\n  %b = phi i32 [2, entry], [%a, L]\n"
                            "  %i = phi i32 [0, entry], [%i1, L]\n  %i1 = add i32 %i, 1\n"
                            "  %c = icmp ult i32 %i1, 2\n  br %c, L, E\n"
                            "E:\n  store i32 %a, %out\n  %o1 = gep %out, i32 1, 4\n  store i32 %b, %o1\n  ret\n}\n",
                       "--arg out=i32[2]"), 0);
  /* L runs twice: (1,2), then (2,1); copying one after the other would give (2,2) */
  CHECK_EQ_INT(out_int(&r, "out", 0), 2);
  CHECK_EQ_INT(out_int(&r, "out", 1), 1);
  run_free(&r);
}

TEST(interp_switch) {
  const char *k = "kernel @k(ptr %out) {\nentry:\n  %tid = call i32 @global_id(i32 0)\n"
                  "  switch i32 %tid, D [0: A, 2: B, -1: A]\nA:\n  %va = add i32 0, 10\n  jmp E\n"
                  "B:\n  jmp E\nD:\n  jmp E\nE:\n  %v = phi i32 [%va, A], [20, B], [30, D]\n"
                  "  %p = gep %out, i32 %tid, 4\n  store i32 %v, %p\n  ret\n}\n";
  run r;
  CHECK_EQ_INT(run_text(&r, k, "--global 4 --arg out=i32[N]"), 0);
  CHECK_EQ_INT(out_int(&r, "out", 0), 10);
  CHECK_EQ_INT(out_int(&r, "out", 1), 30);
  CHECK_EQ_INT(out_int(&r, "out", 2), 20);
  CHECK_EQ_INT(out_int(&r, "out", 3), 30);
  /* traces: per thread, by block id */
  uint64_t n;
  const uint32_t *t2 = rc_traces_thread(&r.tr, 2, &n);
  CHECK_EQ_INT(n, 3);
  CHECK_EQ_INT(strcmp(r.m->kernels[0]->blocks[t2[1]]->name, "B"), 0);
  CHECK_EQ_INT(r.st.threads, 4);
  CHECK_EQ_INT(r.st.blocks, 12);
  CHECK_EQ_INT(r.st.instructions, 4 * 2 + 2 + 1 + 2 * 1 + 4 * 4); /* entry, A, B, D twice, E */
  CHECK_EQ_INT(r.st.block_entries[rc_kernel_find_block(r.m->kernels[0], "D")->id], 2);
  run_free(&r);
}

TEST(interp_step_budget) {
  const char *loop = "kernel @k(ptr %out) {\nentry:\n  jmp L\nL:\n  %i = phi i32 [0, entry], [%i1, L]\n"
                     "  %i1 = add i32 %i, 1\n  %c = icmp ne i32 %i1, 0\n  br %c, L, E\nE:\n  ret\n}\n";
  expect_fault(loop, "--arg out=i32[1] --steps 1000",
               "kernel @k, block L, instruction `br %c, L, E`, thread 0: step budget of 1000 instructions "
               "per thread exceeded (raise it with --steps)");
  /* the default budget also stops it */
  expect_fault(loop, "--arg out=i32[1]", "step budget of 1000000 instructions");
  /* a budget exactly the size of the run is enough: entry 1 + L 3 * 3 + E 1 (phis cost nothing);
   * the statistics count every instruction, phis included */
  const char *three = "kernel @k(ptr %out) {\nentry:\n  jmp L\nL:\n  %i = phi i32 [0, entry], [%i1, L]\n"
                      "  %i1 = add i32 %i, 1\n  %c = icmp ult i32 %i1, 3\n  br %c, L, E\nE:\n  ret\n}\n";
  run r;
  CHECK_EQ_INT(run_text(&r, three, "--arg out=i32[1] --steps 11"), 0);
  CHECK_EQ_INT(r.st.instructions, 14);
  run_free(&r);
  expect_fault(three, "--arg out=i32[1] --steps 10", "step budget of 10");
}

/* Blocks a transform inserted cost no steps, so the budget of a kernel holds for its transforms;
 * a thread that only loops through inserted blocks is stopped by the cap on block entries. */
TEST(interp_step_budget_skips_inserted_blocks) {
  const char *with_flow = "kernel @k(ptr %out) {\nentry:\n  jmp L\nL:\n  %i = phi i32 [0, entry], [%i1, F]\n"
                          "  %i1 = add i32 %i, 1\n  %c = icmp ult i32 %i1, 3\n  jmp F\n"
                          "F: !flow\n  %d = xor i1 %c, true\n  br %d, E, L\nE:\n  ret\n}\n";
  run r;
  CHECK_EQ_INT(run_text(&r, with_flow, "--arg out=i32[1] --steps 11"), 0);
  CHECK_EQ_INT(r.st.instructions, 14 + 3 * 2); /* F's two instructions, three times */
  run_free(&r);
  expect_fault(with_flow, "--arg out=i32[1] --steps 10", "step budget of 10");
  const char *spin = "kernel @k(ptr %out) {\nentry:\n  jmp F\nF: !flow\n  jmp G\nG: !guard\n  jmp F\n}\n";
  expect_fault(spin, "--arg out=i32[1] --steps 100",
               "thread 0: entered more than 800 blocks (8 x the step budget; raise it with --steps)");
}

TEST(interp_unreachable_and_thread_ids_in_faults) {
  expect_fault("kernel @k(ptr %out) {\nentry:\n  %tid = call i32 @global_id(i32 0)\n  %c = icmp eq i32 %tid, 37\n"
               "  br %c, U, E\nU:\n  unreachable\nE:\n  ret\n}\n",
               "--global 100 --arg out=i32[1]",
               "kernel @k, block U, instruction `unreachable`, thread 37: unreachable executed");
  /* in two dimensions the global id is named too */
  expect_fault("kernel @k(ptr %out) {\nentry:\n  %x = call i32 @global_id(i32 0)\n  %y = call i32 @global_id(i32 1)\n"
               "  %c = icmp eq i32 %x, 2\n  %d = icmp eq i32 %y, 1\n  %e = and i1 %c, %d\n  br %e, U, E\n"
               "U:\n  unreachable\nE:\n  ret\n}\n",
               "--global 4,3 --local 2,2 --arg out=i32[1]", "thread 6 (global id 2,1,0): unreachable executed");
}

TEST(interp_refuses_wave_kernels) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, "wave kernel @w(ptr %out) {\nentry:\n  %m = exec\n  ret\n}\n");
  CHECK(m != NULL);
  if (!m) return;
  rc_run_spec s;
  rc_run_spec_init(&s);
  CHECK_EQ_INT(rc_run_spec_parse_string(&d.ctx, &s, "--arg out=i32[1]"), 0);
  rc_memory mem;
  CHECK_EQ_INT(rc_memory_init(&d.ctx, &mem, &s, m->kernels[0]), 0);
  rc_fault f;
  CHECK_EQ_INT(rc_interp_run(&d.ctx, m->kernels[0], &s, &mem, NULL, NULL, &f), -1);
  CHECK(!f.happened);
  CHECK_STR_CONTAINS(d.text, "kernel @w is a wave kernel; the thread-level interpreter runs only thread-level kernels");
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
  rc_module_free(m);
}

/* ---- work-item queries ---------------------------------------------------------------------------- */

TEST(interp_work_item_queries_in_three_dimensions) {
  /* out[linear] = a packed record of every query in every dimension */
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %out) {\nentry:\n"
                            "  %g0 = call i32 @global_id(i32 0)\n  %g1 = call i32 @global_id(i32 1)\n"
                            "  %g2 = call i64 @global_id(i32 2)\n  %l0 = call i32 @local_id(i32 0)\n"
                            "  %l1 = call i32 @local_id(i32 1)\n  %l2 = call i32 @local_id(i32 2)\n"
                            "  %r0 = call i32 @group_id(i32 0)\n  %r1 = call i32 @group_id(i32 1)\n"
                            "  %s0 = call i32 @local_size(i32 0)\n  %s1 = call i16 @local_size(i32 1)\n"
                            "  %n0 = call i32 @num_groups(i32 0)\n  %n1 = call i32 @num_groups(i32 1)\n"
                            "  %z0 = call i32 @global_size(i32 0)\n  %z2 = call i32 @global_size(i32 2)\n"
                            "  %lane = call i32 @lane_id()\n  %w = call i32 @wave_size()\n"
                            "  %g1x = mul i32 %g1, %z0\n  %g2t = trunc i64 %g2 to i32\n  %g2x = mul i32 %g2t, 15\n"
                            "  %lin0 = add i32 %g0, %g1x\n  %lin = add i32 %lin0, %g2x\n"
                            "  %base = mul i32 %lin, 16\n"
                            "  %v0 = gep %out, i32 %base, 4\n  store i32 %g0, %v0\n"
                            "  %v1 = gep %v0, i32 1, 4\n  store i32 %g1, %v1\n"
                            "  %v2 = gep %v0, i32 2, 4\n  store i32 %g2t, %v2\n"
                            "  %v3 = gep %v0, i32 3, 4\n  store i32 %l0, %v3\n"
                            "  %v4 = gep %v0, i32 4, 4\n  store i32 %l1, %v4\n"
                            "  %v5 = gep %v0, i32 5, 4\n  store i32 %l2, %v5\n"
                            "  %v6 = gep %v0, i32 6, 4\n  store i32 %r0, %v6\n"
                            "  %v7 = gep %v0, i32 7, 4\n  store i32 %r1, %v7\n"
                            "  %v8 = gep %v0, i32 8, 4\n  store i32 %s0, %v8\n"
                            "  %s1x = sext i16 %s1 to i32\n  %v9 = gep %v0, i32 9, 4\n  store i32 %s1x, %v9\n"
                            "  %v10 = gep %v0, i32 10, 4\n  store i32 %n0, %v10\n"
                            "  %v11 = gep %v0, i32 11, 4\n  store i32 %n1, %v11\n"
                            "  %v12 = gep %v0, i32 12, 4\n  store i32 %z2, %v12\n"
                            "  %v13 = gep %v0, i32 13, 4\n  store i32 %lane, %v13\n"
                            "  %v14 = gep %v0, i32 14, 4\n  store i32 %w, %v14\n  ret\n}\n",
                       "--global 5,3,2 --local 2,2,1 --wave 3 --arg out=i32[N*16]"), 0);
  for (uint32_t z = 0; z < 2; z++)
    for (uint32_t y = 0; y < 3; y++)
      for (uint32_t x = 0; x < 5; x++) {
        uint64_t b = (x + y * 5 + z * 15) * 16;
        uint32_t lx = x % 2, ly = y % 2, gx = x / 2, gy = y / 2;
        uint32_t sx = gx == 2 ? 1 : 2, sy = gy == 1 ? 1 : 2; /* the last groups are partial */
        CHECK_EQ_INT(out_int(&r, "out", b + 0), x);
        CHECK_EQ_INT(out_int(&r, "out", b + 1), y);
        CHECK_EQ_INT(out_int(&r, "out", b + 2), z);
        CHECK_EQ_INT(out_int(&r, "out", b + 3), lx);
        CHECK_EQ_INT(out_int(&r, "out", b + 4), ly);
        CHECK_EQ_INT(out_int(&r, "out", b + 5), 0);
        CHECK_EQ_INT(out_int(&r, "out", b + 6), gx);
        CHECK_EQ_INT(out_int(&r, "out", b + 7), gy);
        CHECK_EQ_INT(out_int(&r, "out", b + 8), sx);
        CHECK_EQ_INT(out_int(&r, "out", b + 9), sy);
        CHECK_EQ_INT(out_int(&r, "out", b + 10), 3);
        CHECK_EQ_INT(out_int(&r, "out", b + 11), 2);
        CHECK_EQ_INT(out_int(&r, "out", b + 12), 2);
        CHECK_EQ_INT(out_int(&r, "out", b + 13), (lx + ly * sx) % 3); /* local linear id % W */
        CHECK_EQ_INT(out_int(&r, "out", b + 14), 3);
      }
  /* traces are numbered by linear global id even though groups run in another order */
  CHECK_EQ_INT(r.tr.nthreads, 30);
  CHECK_EQ_INT(r.tr.start[30], 30);
  run_free(&r);
}

TEST(interp_traces_in_linear_order_for_2d_launch) {
  /* thread x + 4y goes through block A when (x + 4y) is odd, so each trace says which thread it is */
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %out) {\nentry:\n  %x = call i32 @global_id(i32 0)\n"
                            "  %y = call i32 @global_id(i32 1)\n  %y4 = mul i32 %y, 4\n  %l = add i32 %x, %y4\n"
                            "  %b = and i32 %l, 1\n  %c = icmp ne i32 %b, 0\n  br %c, A, E\nA:\n  jmp E\nE:\n  ret\n}\n",
                       "--global 4,2 --local 2,2 --arg out=i32[1]"), 0);
  for (uint32_t t = 0; t < 8; t++) {
    uint64_t n;
    rc_traces_thread(&r.tr, t, &n);
    CHECK_EQ_INT(n, t % 2 ? 3 : 2);
  }
  run_free(&r);
}

/* ---- builtins ----------------------------------------------------------------------------------------- */

static double math1(const char *f, const char *ty, const char *a) {
  char body[200];
  snprintf(body, sizeof body, "%%r = call %s @%s(%s %%a)", ty, f, ty);
  return fcalc(body, ty, a, "0");
}

static double math2(const char *f, const char *ty, const char *a, const char *b) {
  char body[200];
  snprintf(body, sizeof body, "%%r = call %s @%s(%s %%a, %s %%b)", ty, f, ty, ty);
  return fcalc(body, ty, a, b);
}

TEST(interp_float_builtins) {
  CHECK(math1("sqrt", "f32", "2") == (double)sqrtf(2.0f));
  CHECK(math1("sqrt", "f64", "2") == sqrt(2.0));
  CHECK(math1("fabs", "f64", "-3") == 3);
  CHECK(math1("floor", "f64", "-2.5") == -3);
  CHECK(math1("ceil", "f64", "-2.5") == -2);
  CHECK(math1("ftrunc", "f64", "-2.7") == -2);
  CHECK(math1("round", "f64", "2.5") == 3);
  CHECK(math1("round", "f32", "-2.5") == -3);
  CHECK(math1("exp", "f64", "1") == exp(1.0));
  CHECK(math1("exp2", "f64", "10") == 1024);
  CHECK(math1("log", "f64", "1") == 0);
  CHECK(math1("log2", "f32", "8") == 3);
  CHECK(math1("sin", "f64", "0.5") == sin(0.5));
  CHECK(math1("cos", "f32", "0.5") == (double)cosf(0.5f));
  CHECK(math1("rsqrt", "f64", "4") == 0.5);
  CHECK(isnan(math1("sqrt", "f64", "-1")));
  CHECK(math2("fmin", "f64", "1", "nan") == 1);
  CHECK(math2("fmax", "f64", "nan", "-1") == -1);
  CHECK(math2("fmin", "f32", "-2", "3") == -2);
  CHECK(math2("pow", "f64", "2", "0.5") == sqrt(2.0));
  CHECK(math2("copysign", "f64", "3", "-0.0") == -3);
  CHECK(fcalc("%r = call f64 @fma(f64 %a, f64 %b, f64 1.0)", "f64", "2", "3") == 7);
  CHECK(fcalc("%r = call f32 @fma(f32 %a, f32 %b, f32 0.5)", "f32", "0.25", "2") == 1);
}

static int64_t imath(const char *f, const char *ty, int64_t a, int64_t b, bool two) {
  char text[400], spec[200];
  snprintf(text, sizeof text,
           "kernel @k(ptr %%out, %s %%a, %s %%b) {\nentry:\n  %%r = call %s @%s(%s %%a%s%s%s)\n"
           "  store %s %%r, %%out\n  ret\n}\n", ty, ty, ty, f, ty, two ? ", " : "", two ? ty : "",
           two ? " %b" : "", ty);
  snprintf(spec, sizeof spec, "--arg out=%s[1] --arg a=%lld --arg b=%lld", ty, (long long)a, (long long)b);
  run r;
  int64_t v = run_text(&r, text, spec) == 0 ? out_int(&r, "out", 0) : -999999;
  run_free(&r);
  return v;
}

TEST(interp_integer_builtins) {
  CHECK_EQ_INT(imath("smin", "i32", -1, 1, true), -1);
  CHECK_EQ_INT(imath("umin", "i32", -1, 1, true), 1);
  CHECK_EQ_INT(imath("smax", "i8", -1, 1, true), 1);
  CHECK_EQ_INT(imath("umax", "i8", -1, 1, true), -1);
  CHECK_EQ_INT(imath("abs", "i32", -5, 0, false), 5);
  CHECK_EQ_INT(imath("abs", "i32", -2147483648LL, 0, false), -2147483648LL); /* wraps */
  CHECK_EQ_INT(imath("ctpop", "i32", -1, 0, false), 32);
  CHECK_EQ_INT(imath("ctpop", "i8", -1, 0, false), 8);
  CHECK_EQ_INT(imath("clz", "i32", 1, 0, false), 31);
  CHECK_EQ_INT(imath("clz", "i32", 0, 0, false), 32);
  CHECK_EQ_INT(imath("clz", "i8", 1, 0, false), 7);
  CHECK_EQ_INT(imath("clz", "i64", -1, 0, false), 0);
  CHECK_EQ_INT(imath("ctz", "i16", 0, 0, false), 16);
  CHECK_EQ_INT(imath("ctz", "i32", 8, 0, false), 3);
}

TEST(interp_atomics_are_sequential) {
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %c, ptr %old, ptr %m) {\nentry:\n  %tid = call i32 @global_id(i32 0)\n"
                            "  %o = call i32 @atomic_add(ptr %c, i32 1)\n  %p = gep %old, i32 %o, 4\n"
                            "  store i32 %tid, %p\n"
                            "  %m1 = gep %m, i32 1, 4\n  %m2 = gep %m, i32 2, 4\n  %m3 = gep %m, i32 3, 4\n"
                            "  %m4 = gep %m, i32 4, 4\n  %m5 = gep %m, i32 5, 4\n  %m6 = gep %m, i32 6, 4\n"
                            "  %m7 = gep %m, i32 7, 4\n  %m8 = gep %m, i32 8, 4\n  %m9 = gep %m, i32 9, 4\n"
                            "  %a0 = call i32 @atomic_smax(ptr %m, i32 %tid)\n"
                            "  %neg = sub i32 0, %tid\n  %a1 = call i32 @atomic_smin(ptr %m1, i32 %neg)\n"
                            "  %a2 = call i32 @atomic_umax(ptr %m2, i32 %tid)\n"
                            "  %a3 = call i32 @atomic_umin(ptr %m3, i32 %tid)\n"
                            "  %bit = shl i32 1, %tid\n  %a4 = call i32 @atomic_or(ptr %m4, i32 %bit)\n"
                            "  %a5 = call i32 @atomic_xor(ptr %m5, i32 %bit)\n"
                            "  %nb = xor i32 %bit, -1\n  %a6 = call i32 @atomic_and(ptr %m6, i32 %nb)\n"
                            "  %a7 = call i32 @atomic_sub(ptr %m7, i32 %tid)\n"
                            "  %a8 = call i32 @atomic_xchg(ptr %m8, i32 %tid)\n"
                            "  %e = sub i32 %tid, 1\n  %a9 = call i32 @atomic_cmpxchg(ptr %m9, i32 %e, i32 %tid)\n"
                            "  ret\n}\n",
                       "--global 10 --arg c=i32[1] --arg old=i32[10] --arg m=i32[10]:fill(-1)"), 0);
  CHECK_EQ_INT(out_int(&r, "c", 0), 10);
  for (int t = 0; t < 10; t++) CHECK_EQ_INT(out_int(&r, "old", (uint64_t)t), t); /* in thread order */
  CHECK_EQ_INT(out_int(&r, "m", 0), 9);   /* smax(-1, 0..9) */
  CHECK_EQ_INT(out_int(&r, "m", 1), -9);  /* smin */
  CHECK_EQ_INT(out_int(&r, "m", 2), -1);  /* umax: 0xffffffff stays */
  CHECK_EQ_INT(out_int(&r, "m", 3), 0);   /* umin */
  CHECK_EQ_INT(out_int(&r, "m", 4), -1);  /* or into all ones */
  CHECK_EQ_INT(out_int(&r, "m", 5), -1 ^ 1023);
  CHECK_EQ_INT(out_int(&r, "m", 6), -1024);
  CHECK_EQ_INT(out_int(&r, "m", 7), -1 - 45);
  CHECK_EQ_INT(out_int(&r, "m", 8), 9);
  CHECK_EQ_INT(out_int(&r, "m", 9), 9);   /* -1 -> 0 -> 1 ... each thread's compare succeeds */
  run_free(&r);
  expect_fault("kernel @k(ptr %c) {\nentry:\n  %p = gep %c, i32 1, 4\n  %o = call i32 @atomic_add(ptr %p, i32 1)\n"
               "  ret\n}\n", "--arg c=i32[1]", "out-of-bounds atomic access of 4 bytes");
}

TEST(interp_memcpy_memset) {
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %in, ptr %out) {\nentry:\n"
                            "  call void @memcpy(ptr %out, ptr %in, i64 12)\n  %o3 = gep %out, i32 3, 4\n"
                            "  call void @memset(ptr %o3, i8 -1, i32 8)\n"
                            "  call void @memcpy(ptr null, ptr null, i64 0)\n"
                            "  %o1 = gep %out, i32 1, 4\n  call void @memcpy(ptr %o1, ptr %out, i64 8)\n  ret\n}\n",
                       "--arg in=i32[3]:seq(5,1) --arg out=i32[6]"), 0);
  const int want[6] = {5, 5, 6, -1, -1, 0}; /* the last copy overlaps: it moves, as memmove */
  for (int i = 0; i < 6; i++) CHECK_EQ_INT(out_int(&r, "out", (uint64_t)i), want[i]);
  run_free(&r);
  expect_fault("kernel @k(ptr %in, ptr %out) {\nentry:\n  call void @memcpy(ptr %out, ptr %in, i64 16)\n  ret\n}\n",
               "--arg in=i32[3] --arg out=i32[6]", "out-of-bounds memcpy load of 16 bytes");
  expect_fault("kernel @k(ptr %in, ptr %out) {\nentry:\n  call void @memset(ptr %out, i8 0, i64 -1)\n  ret\n}\n",
               "--arg in=i32[3] --arg out=i32[6]", "out-of-bounds memset of 18446744073709551615 bytes");
}

TEST(interp_scalar_arguments_and_undef) {
  run r;
  CHECK_EQ_INT(run_text(&r, "kernel @k(ptr %out, i8 %b, f32 %f, f64 %g, i1 %t, i64 %n) {\nentry:\n"
                            "  %bx = sext i8 %b to i32\n  store i32 %bx, %out\n"
                            "  %fi = fptosi f32 %f to i32\n  %o1 = gep %out, i32 1, 4\n  store i32 %fi, %o1\n"
                            "  %gi = fptosi f64 %g to i32\n  %o2 = gep %out, i32 2, 4\n  store i32 %gi, %o2\n"
                            "  %ti = zext i1 %t to i32\n  %o3 = gep %out, i32 3, 4\n  store i32 %ti, %o3\n"
                            "  %ni = trunc i64 %n to i32\n  %o4 = gep %out, i32 4, 4\n  store i32 %ni, %o4\n"
                            "  %u = add i32 undef, 0\n  %o5 = gep %out, i32 5, 4\n  store i32 %u, %o5\n  ret\n}\n",
                       "--global 7 --arg out=i32[6]:fill(9) --arg b=255 --arg f=3 --arg g=-2.5 --arg t=true "
                       "--arg n=N*3-1"), 0);
  const int want[6] = {-1, 3, -2, 1, 20, 0};
  for (int i = 0; i < 6; i++) CHECK_EQ_INT(out_int(&r, "out", (uint64_t)i), want[i]);
  run_free(&r);
}
