/* Run specifications (parsing, every error, checking against a kernel, resizing) and simulated
 * memory (initialisers, checksums, comparison, address descriptions). */
#include "reconv/sim.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static const char *kernel_text =
    "kernel @k(ptr %out, ptr %in, i32 %n, f32 %x, i8 %b, ptr %tmp) {\n"
    "entry:\n"
    "  ret\n"
    "}\n";

/* Parse `text` as run-spec words into a fresh spec; returns the parse result. */
static int parse(test_diags *d, rc_run_spec *s, const char *text) {
  test_diags_init(d);
  rc_run_spec_init(s);
  return rc_run_spec_parse_string(&d->ctx, s, text);
}

/* Expect `text` to be rejected with a message containing `needle`. */
static void expect_error(const char *text, const char *needle) {
  test_diags d;
  rc_run_spec s;
  int r = parse(&d, &s, text);
  CHECK_EQ_INT(r, -1);
  CHECK_STR_CONTAINS(d.text, needle);
  rc_run_spec_free(&s);
}

TEST(runspec_defaults) {
  rc_run_spec s;
  rc_run_spec_init(&s);
  CHECK_EQ_INT(s.global[0], 1);
  CHECK_EQ_INT(s.dims, 1);
  CHECK_EQ_INT(s.wave, 32);
  CHECK_EQ_INT(rc_run_spec_threads(&s), 1);
  uint32_t l[3];
  s.global[0] = 1000;
  rc_run_spec_local(&s, l);
  CHECK_EQ_INT(l[0], 64); /* min(global, 64) */
  CHECK_EQ_INT(l[1], 1);
  s.global[0] = 20;
  rc_run_spec_local(&s, l);
  CHECK_EQ_INT(l[0], 20);
  s.local[0] = 128; /* never larger than the launch */
  rc_run_spec_local(&s, l);
  CHECK_EQ_INT(l[0], 20);
  rc_run_spec_free(&s);
}

TEST(runspec_launch_options) {
  test_diags d;
  rc_run_spec s;
  CHECK_EQ_INT(parse(&d, &s, "--global 8,4,2 --local=2,2 --wave 16 --steps 99 --seed 5"), 0);
  CHECK_EQ_INT(s.dims, 3);
  CHECK_EQ_INT(s.global[0], 8);
  CHECK_EQ_INT(s.global[1], 4);
  CHECK_EQ_INT(s.global[2], 2);
  CHECK_EQ_INT(rc_run_spec_threads(&s), 64);
  CHECK_EQ_INT(s.local[0], 2);
  CHECK_EQ_INT(s.local[1], 2);
  CHECK_EQ_INT(s.local[2], 0);
  CHECK_EQ_INT(s.wave, 16);
  CHECK_EQ_INT(s.step_budget, 99);
  CHECK_EQ_INT(s.seed_offset, 5);
  /* options given again replace */
  CHECK_EQ_INT(rc_run_spec_parse_string(&d.ctx, &s, "--global 0x10 --local 4"), 0);
  CHECK_EQ_INT(s.dims, 1);
  CHECK_EQ_INT(s.global[0], 16);
  CHECK_EQ_INT(s.local[0], 4);
  CHECK_EQ_INT(s.local[1], 0);
  rc_run_spec_free(&s);
}

TEST(runspec_scalars) {
  test_diags d;
  rc_run_spec s;
  CHECK_EQ_INT(parse(&d, &s, "--arg n=-7 --arg %x=2.5 --arg b=0x7f --arg t=true --arg f=false "
                             "--arg p=null --arg m=N*2+1 --arg q=-inf"), 0);
  CHECK_EQ_INT(s.nargs, 8);
  const rc_arg_spec *a = rc_run_spec_find_arg(&s, "n");
  CHECK(a && !a->is_buffer && a->scalar_i == -7 && !a->scalar_is_float);
  a = rc_run_spec_find_arg(&s, "x");
  CHECK(a && a->scalar_is_float && a->scalar_f == 2.5);
  CHECK_EQ_INT(rc_run_spec_find_arg(&s, "b")->scalar_i, 127);
  CHECK_EQ_INT(rc_run_spec_find_arg(&s, "t")->scalar_i, 1);
  CHECK_EQ_INT(rc_run_spec_find_arg(&s, "f")->scalar_i, 0);
  CHECK_EQ_INT(rc_run_spec_find_arg(&s, "p")->elem, RC_PTR);
  a = rc_run_spec_find_arg(&s, "m");
  CHECK(a->uses_n && a->n_mul == 2 && a->n_add == 1);
  s.global[0] = 10;
  CHECK_EQ_INT(rc_arg_scalar_int(a, &s), 21);
  CHECK(rc_run_spec_find_arg(&s, "q")->scalar_f < -1e308);
  CHECK(rc_run_spec_find_arg(&s, "zz") == NULL);
  rc_run_spec_free(&s);
}

TEST(runspec_buffers) {
  test_diags d;
  rc_run_spec s;
  CHECK_EQ_INT(parse(&d, &s, "--arg out=i32[64] --arg a=f32[N]:seq --arg b=i64[4*N]:seq(10,-2) "
                             "--arg c=i8[N-1]:rand(7) --arg e=f64[3]:rand(1,-1,1) --arg f=i16[2]:fill(-5) "
                             "--arg g=f32[2]:fill(0.25) --arg h=i32[2]:file(data.bin) --arg l=local:i32[N*2]"),
               0);
  const rc_arg_spec *a = rc_run_spec_find_arg(&s, "out");
  CHECK(a->is_buffer && !a->is_local && a->elem == RC_I32 && a->count == 64 && a->init == RC_INIT_ZEROS);
  a = rc_run_spec_find_arg(&s, "a");
  CHECK(a->uses_n && a->n_mul == 1 && a->n_add == 0 && a->init == RC_INIT_SEQ && a->a == 0 && a->b == 1);
  a = rc_run_spec_find_arg(&s, "b");
  CHECK(a->uses_n && a->n_mul == 4 && a->ia == 10 && a->ib == -2);
  a = rc_run_spec_find_arg(&s, "c");
  CHECK(a->uses_n && a->n_add == -1 && a->init == RC_INIT_RAND && a->seed == 7 && a->ia == 0 && a->ib == 99);
  a = rc_run_spec_find_arg(&s, "e");
  CHECK(a->init == RC_INIT_RAND && a->seed == 1 && a->a == -1 && a->b == 1);
  a = rc_run_spec_find_arg(&s, "f");
  CHECK(a->init == RC_INIT_FILL && a->ia == -5);
  a = rc_run_spec_find_arg(&s, "g");
  CHECK(a->init == RC_INIT_FILL && a->a == 0.25);
  a = rc_run_spec_find_arg(&s, "h");
  CHECK(a->init == RC_INIT_FILE && strcmp(a->path, "data.bin") == 0);
  a = rc_run_spec_find_arg(&s, "l");
  CHECK(a->is_buffer && a->is_local && a->n_mul == 2);
  s.global[0] = 5;
  CHECK_EQ_INT(rc_arg_count(rc_run_spec_find_arg(&s, "b"), &s), 20);
  CHECK_EQ_INT(rc_arg_count(rc_run_spec_find_arg(&s, "c"), &s), 4);
  CHECK_EQ_INT(rc_arg_count(rc_run_spec_find_arg(&s, "out"), &s), 64);
  CHECK(rc_run_spec_uses_seed(&s));
  /* a later --arg for the same name replaces */
  CHECK_EQ_INT(rc_run_spec_parse_string(&d.ctx, &s, "--arg out=f64[3]:fill(1)"), 0);
  CHECK_EQ_INT(s.nargs, 9);
  a = rc_run_spec_find_arg(&s, "out");
  CHECK(a->elem == RC_F64 && a->count == 3 && a->init == RC_INIT_FILL);
  rc_run_spec_free(&s);
}

TEST(runspec_quotes_and_copy) {
  test_diags d;
  rc_run_spec s, c;
  CHECK_EQ_INT(parse(&d, &s, "--arg 'in=i8[4]:file(my data.bin)' --global 4"), 0);
  CHECK_EQ_INT(strcmp(rc_run_spec_find_arg(&s, "in")->path, "my data.bin"), 0);
  rc_run_spec_copy(&c, &s);
  rc_run_spec_free(&s);
  CHECK_EQ_INT(strcmp(rc_run_spec_find_arg(&c, "in")->path, "my data.bin"), 0);
  CHECK_EQ_INT(c.global[0], 4);
  rc_run_spec_free(&c);
}

TEST(runspec_command_line_words) {
  test_diags d;
  test_diags_init(&d);
  rc_run_spec s;
  rc_run_spec_init(&s);
  char *argv[] = {"file.rir", "--global", "16", "--json", "--arg=n=3", "--kernel", "k", "--wave=8"};
  bool consumed[8] = {false};
  CHECK_EQ_INT(rc_run_spec_parse(&d.ctx, &s, 8, argv, consumed), 0);
  bool want[8] = {false, true, true, false, true, false, false, true};
  for (int i = 0; i < 8; i++) CHECK_EQ_INT(consumed[i], want[i]);
  CHECK_EQ_INT(s.global[0], 16);
  CHECK_EQ_INT(s.wave, 8);
  CHECK_EQ_INT(rc_run_spec_find_arg(&s, "n")->scalar_i, 3);
  CHECK_EQ_INT(rc_run_spec_option_arity("--global"), 2);
  CHECK_EQ_INT(rc_run_spec_option_arity("--global=3"), 1);
  CHECK_EQ_INT(rc_run_spec_option_arity("--globals"), 0);
  CHECK_EQ_INT(rc_run_spec_option_arity("--seeds"), 0);
  CHECK_EQ_INT(rc_run_spec_option_arity("--seed"), 2);
  rc_run_spec_free(&s);
}

TEST(runspec_errors) {
  expect_error("--global x", "--global expects 1 to 3 positive integers");
  expect_error("--global x", "not 'x'");
  expect_error("--global 0", "not '0'");
  expect_error("--global 1,2,3,4", "not '1,2,3,4'");
  expect_error("--global 99999999", "not '99999999'");
  expect_error("--global", "--global needs a value");
  expect_error("--local 2,", "--local expects");
  expect_error("--wave 0", "--wave expects an integer from 1 to 64, not '0'");
  expect_error("--wave 65", "not '65'");
  expect_error("--steps 0", "--steps expects");
  expect_error("--seed -1", "--seed expects");
  expect_error("--arg n", "--arg expects NAME=VALUE, not 'n'");
  expect_error("--arg =5", "--arg expects NAME=VALUE, not '=5'");
  expect_error("--arg a-b=5", "'a-b' is not a parameter name");
  expect_error("--arg n=five", "--arg n=five: expected a number");
  expect_error("--arg out=i33[4]", "--arg out=i33[4]: expected TYPE[COUNT]");
  expect_error("--arg out=ptr[4]", "expected TYPE[COUNT]");
  expect_error("--arg out=i32[4", "expected TYPE[COUNT]");
  expect_error("--arg out=i32[x]", "COUNT must be a non-negative integer or N");
  expect_error("--arg out=i32[-1]", "not '-1'");
  expect_error("--arg out=i32[N*N]", "not 'N*N'");
  /* the offset C of N+C is signed: 2^64 - 3 must not wrap around to -3 */
  expect_error("--arg out=i32[N+18446744073709551613]", "not 'N+18446744073709551613'");
  expect_error("--arg out=i32[N-18446744073709551615]", "not 'N-18446744073709551615'");
  expect_error("--arg out=i32[4]x", "unexpected 'x' after ']'");
  expect_error("--arg out=i32[4]:bogus", "unknown initialiser 'bogus'");
  expect_error("--arg out=i32[4]:seq(1)", "expected seq(START,STEP) with two i32 numbers");
  expect_error("--arg out=i32[4]:seq(1,2", "lacks its closing ')'");
  expect_error("--arg out=i32[4]:rand()", "expected rand(SEED) or rand(SEED,LO,HI)");
  expect_error("--arg out=i32[4]:rand(1,2)", "expected rand(SEED)");
  expect_error("--arg out=i32[4]:rand(1,5,2)", "rand needs LO <= HI");
  expect_error("--arg out=f32[4]:rand(1,nan,2)", "rand needs LO <= HI");
  expect_error("--arg out=i8[4]:fill(300)", "expected fill(V) with a i8 value");
  expect_error("--arg out=i32[4]:fill(1.5)", "expected fill(V) with a i32 value");
  expect_error("--arg out=i32[4]:file()", "file() needs a path");
  expect_error("--arg l=local:i32[4]:zeros", "local buffers start zeroed and take no initialiser");
  expect_error("--arg 'out=i32[4]", "unterminated ' quote");
  expect_error("--global 4 --json", "unknown run-spec word '--json'");
}

static rc_module *parse_kernel(test_diags *d, const char *text) {
  test_diags_init(d);
  rc_module *m = test_parse(d, text);
  CHECK(m != NULL);
  return m;
}

/* Check `spec` against kernel_text; expect failure with `needle` (or success when needle is NULL). */
static void expect_check(const char *spec, const char *needle) {
  test_diags d;
  rc_module *m = parse_kernel(&d, kernel_text);
  if (!m) return;
  rc_run_spec s;
  rc_run_spec_init(&s);
  CHECK_EQ_INT(rc_run_spec_parse_string(&d.ctx, &s, spec), 0);
  int r = rc_run_spec_check(&d.ctx, &s, m->kernels[0]);
  if (needle) {
    CHECK_EQ_INT(r, -1);
    CHECK_STR_CONTAINS(d.text, needle);
  } else {
    CHECK_EQ_INT(r, 0);
    if (r) fprintf(stderr, "%s", d.text);
  }
  rc_run_spec_free(&s);
  rc_module_free(m);
}

#define ALL_ARGS "--arg out=i32[4] --arg in=i32[N] --arg n=3 --arg x=1 --arg b=-128 --arg tmp=local:f32[8] "

TEST(runspec_check_against_kernel) {
  expect_check(ALL_ARGS, NULL);
  expect_check(ALL_ARGS "--arg x=2.5 --arg tmp=null --arg b=255", NULL);
  expect_check("--arg out=i32[4] --arg in=i32[N] --arg n=3 --arg x=1 --arg b=1",
               "test.rir:1:1: error: kernel @k: parameter %tmp (ptr) has no value; give it with --arg tmp=...");
  expect_check(ALL_ARGS "--arg n=i32[4]", "--arg n=i32[4]: parameter %n has type i32; buffers are for ptr parameters");
  expect_check(ALL_ARGS "--arg n=1.5", "--arg n=1.5: parameter %n has type i32, not a floating-point type");
  expect_check(ALL_ARGS "--arg n=18446744073709551616", "18446744073709551616 does not fit in i32 (parameter %n)");
  expect_check(ALL_ARGS "--arg b=300", "--arg b=300: 300 does not fit in i8 (parameter %b)");
  expect_check(ALL_ARGS "--arg n=null", "--arg n=null: null is for ptr parameters; %n is i32");
  expect_check(ALL_ARGS "--arg nope=1", "--arg nope=1: the kernel has no parameter %nope");
  expect_check(ALL_ARGS "--arg in=i32[N-5]", "--arg in=i32[N-5]: the count is negative for N = 1");
  expect_check(ALL_ARGS "--arg in=i64[200000000]", "exceed the simulator's 1073741824 bytes per buffer");
  expect_check(ALL_ARGS "--global 4096 --local 2048", "work-groups have at most 1024 work-items");
  expect_check(ALL_ARGS "--global 4096,4096,2", "work-items exceed the simulator's 16777216");
  expect_check(ALL_ARGS "--global 16777216,16777216,16777216", "work-items exceed the simulator's");
  expect_check(ALL_ARGS "--global 2 --arg in=i8[N*9223372036854775807]", "the count overflows for N = 2");
  expect_check(ALL_ARGS "--global 4 --arg n=N*4611686018427387904", "the value overflows for N = 4");
  expect_check(ALL_ARGS "--global 4 --arg n=N*1073741824", "4294967296 does not fit in i32");
  expect_check(ALL_ARGS "--global 8 --local 2,2", "--local has more dimensions than --global (1)");
}

TEST(runspec_kernel_string_errors_at_kernel) {
  test_diags d;
  rc_module *m = parse_kernel(&d, "; comment\n"
                                  "kernel @k(ptr %out) !run \"--global 4 --arg out=i32[x]\" {\n"
                                  "entry:\n  ret\n}\n");
  if (!m) return;
  rc_run_spec s;
  rc_run_spec_init(&s);
  CHECK_EQ_INT(rc_run_spec_parse_kernel(&d.ctx, &s, m->kernels[0]), -1);
  CHECK_STR_CONTAINS(d.text, "test.rir:2:1: error: kernel @k: !run: --arg out=i32[x]: COUNT must be");
  rc_run_spec_free(&s);
  rc_module_free(m);
}

TEST(runspec_resize) {
  test_diags d;
  rc_run_spec s;
  CHECK_EQ_INT(parse(&d, &s, "--global 64 --local 16 --arg a=i32[64] --arg b=i32[128] --arg c=i32[10] "
                             "--arg e=i32[N+1] --arg f=i32[0]"), 0);
  rc_run_spec_resize(&s, 4096);
  CHECK_EQ_INT(s.global[0], 4096);
  CHECK_EQ_INT(rc_arg_count(rc_run_spec_find_arg(&s, "a"), &s), 4096);  /* 64 = N*1 */
  CHECK_EQ_INT(rc_arg_count(rc_run_spec_find_arg(&s, "b"), &s), 8192);  /* 128 = N*2 */
  CHECK_EQ_INT(rc_arg_count(rc_run_spec_find_arg(&s, "c"), &s), 10);    /* not a multiple */
  CHECK_EQ_INT(rc_arg_count(rc_run_spec_find_arg(&s, "e"), &s), 4097);
  CHECK_EQ_INT(rc_arg_count(rc_run_spec_find_arg(&s, "f"), &s), 0);
  uint32_t l[3];
  rc_run_spec_local(&s, l);
  CHECK_EQ_INT(l[0], 16);
  rc_run_spec_free(&s);
  /* never shrink a literal count; the work-group follows the launch */
  CHECK_EQ_INT(parse(&d, &s, "--global 8,8 --local 8,8 --arg a=i32[64] --arg e=i32[N]"), 0);
  rc_run_spec_resize(&s, 3);
  CHECK_EQ_INT(s.dims, 1);
  CHECK_EQ_INT(rc_run_spec_threads(&s), 3);
  CHECK_EQ_INT(rc_arg_count(rc_run_spec_find_arg(&s, "a"), &s), 64);
  CHECK_EQ_INT(rc_arg_count(rc_run_spec_find_arg(&s, "e"), &s), 3);
  rc_run_spec_local(&s, l);
  CHECK_EQ_INT(l[0], 3);
  CHECK_EQ_INT(l[1], 1);
  CHECK(!rc_run_spec_uses_seed(&s));
  rc_run_spec_free(&s);
}

/* ---- memory -------------------------------------------------------------------------------- */

static int64_t elem_int(const rc_buffer *b, uint64_t i) {
  char v[64];
  rc_buffer_format_elem(b, i, v, sizeof v);
  return strtoll(v, NULL, 10);
}

static double elem_float(const rc_buffer *b, uint64_t i) {
  char v[64];
  rc_buffer_format_elem(b, i, v, sizeof v);
  return strtod(v, NULL);
}

/* Build memory for kernel_text with extra spec words (out, in get the buffers under test). */
static int make_memory(test_diags *d, rc_module **m, rc_run_spec *s, rc_memory *mem, const char *spec) {
  *m = parse_kernel(d, kernel_text);
  rc_run_spec_init(s);
  if (!*m) return -1;
  if (rc_run_spec_parse_string(&d->ctx, s, ALL_ARGS) != 0 || rc_run_spec_parse_string(&d->ctx, s, spec) != 0 ||
      rc_run_spec_check(&d->ctx, s, (*m)->kernels[0]) != 0)
    return -1;
  return rc_memory_init(&d->ctx, mem, s, (*m)->kernels[0]);
}

TEST(memory_initialisers) {
  test_diags d;
  rc_module *m;
  rc_run_spec s;
  rc_memory mem;
  CHECK_EQ_INT(make_memory(&d, &m, &s, &mem, "--global 5 --arg out=i8[N*2]:seq(120,3) --arg in=i16[3]:fill(-2)"), 0);
  CHECK_EQ_INT(mem.nbufs, 2); /* the local buffer %tmp is not global memory */
  rc_buffer *out = rc_memory_find(&mem, "out"), *in = rc_memory_find(&mem, "in");
  CHECK(out && in && rc_memory_find(&mem, "tmp") == NULL);
  CHECK_EQ_INT(out->count, 10);
  CHECK_EQ_INT(elem_int(out, 0), 120);
  CHECK_EQ_INT(elem_int(out, 2), 126);
  CHECK_EQ_INT(elem_int(out, 3), -127); /* 129 wraps in i8 */
  CHECK_EQ_INT(elem_int(in, 2), -2);
  CHECK_EQ_INT(in->data[0], 0xfe);      /* little-endian */
  CHECK_EQ_INT(in->data[1], 0xff);
  CHECK(out->base == rc_addr_make(RC_SPACE_GLOBAL, 0, 0) && out->base == 0x0100000000000000ull);
  CHECK(in->base == 0x0100000100000000ull);
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
  rc_module_free(m);

  CHECK_EQ_INT(make_memory(&d, &m, &s, &mem, "--arg out=f32[4]:seq(0.5,0.25) --arg in=f64[2]:fill(-1e300)"), 0);
  out = rc_memory_find(&mem, "out");
  CHECK(elem_float(out, 3) == 1.25);
  CHECK(elem_float(rc_memory_find(&mem, "in"), 1) == -1e300);
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
  rc_module_free(m);
}

TEST(memory_rand_is_deterministic_bounded_and_seeded) {
  test_diags d;
  rc_module *m;
  rc_run_spec s;
  rc_memory a, b;
  CHECK_EQ_INT(make_memory(&d, &m, &s, &a, "--arg out=i32[1000]:rand(3) --arg in=f32[1000]:rand(3,-2,2)"), 0);
  CHECK_EQ_INT(rc_memory_init(&d.ctx, &b, &s, m->kernels[0]), 0);
  char why[256] = "";
  CHECK(rc_memory_equal(&a, &b, why, sizeof why));
  const rc_buffer *ints = rc_memory_find(&a, "out"), *fl = rc_memory_find(&a, "in");
  int64_t lo = 1000, hi = -1;
  bool neg = false;
  for (uint64_t i = 0; i < 1000; i++) {
    int64_t v = elem_int(ints, i);
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    double f = elem_float(fl, i);
    CHECK(f >= -2 && f < 2);
    neg |= f < 0;
  }
  CHECK_EQ_INT(lo, 0); /* the default integer range is [0, 99] */
  CHECK_EQ_INT(hi, 99);
  CHECK(neg);
  rc_memory_free(&b);
  s.seed_offset = 1; /* another seed gives other data */
  CHECK_EQ_INT(rc_memory_init(&d.ctx, &b, &s, m->kernels[0]), 0);
  CHECK(!rc_memory_equal(&a, &b, why, sizeof why));
  CHECK_STR_CONTAINS(why, "buffer %out, element 0 (byte 0): expected ");
  CHECK(rc_memory_checksum(&a) != rc_memory_checksum(&b));
  rc_memory_free(&a);
  rc_memory_free(&b);
  rc_run_spec_free(&s);
  rc_module_free(m);
}

TEST(memory_file_initialiser) {
  char path[] = "/tmp/reconv_test_file_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  const uint8_t bytes[8] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  CHECK_EQ_INT(write(fd, bytes, 8), 8);
  close(fd);
  char spec[200];
  snprintf(spec, sizeof spec, "--arg out=i32[2]:file(%s)", path);
  test_diags d;
  rc_module *m;
  rc_run_spec s;
  rc_memory mem;
  CHECK_EQ_INT(make_memory(&d, &m, &s, &mem, spec), 0);
  CHECK_EQ_INT(elem_int(rc_memory_find(&mem, "out"), 0), 1);
  CHECK_EQ_INT(elem_int(rc_memory_find(&mem, "out"), 1), -1);
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
  rc_module_free(m);
  /* a file shorter than the buffer is an error naming it */
  snprintf(spec, sizeof spec, "--arg out=i32[3]:file(%s)", path);
  CHECK_EQ_INT(make_memory(&d, &m, &s, &mem, spec), -1);
  CHECK_STR_CONTAINS(d.text, "holds 8 bytes, the buffer needs 12");
  rc_run_spec_free(&s);
  rc_module_free(m);
  snprintf(spec, sizeof spec, "--arg out=i32[3]:file(%s.missing)", path);
  CHECK_EQ_INT(make_memory(&d, &m, &s, &mem, spec), -1);
  CHECK_STR_CONTAINS(d.text, "cannot open");
  rc_run_spec_free(&s);
  rc_module_free(m);
  unlink(path);
}

TEST(memory_checksum_is_fnv1a) {
  uint8_t a = 'a';
  rc_buffer b = {"x", RC_I8, 1, 0, &a};
  CHECK(rc_buffer_checksum(&b) == 0xaf63dc4c8601ec8cull); /* FNV-1a 64 of "a" */
  b.count = 0;
  CHECK(rc_buffer_checksum(&b) == 0xcbf29ce484222325ull); /* the offset basis */
  uint8_t foobar[6] = {'f', 'o', 'o', 'b', 'a', 'r'};
  rc_buffer parts[2] = {{"p", RC_I8, 3, 0, foobar}, {"q", RC_I8, 3, 0, foobar + 3}};
  rc_memory mem = {parts, 2, NULL, NULL};
  CHECK(rc_memory_checksum(&mem) == 0x85944171f73967e8ull); /* "foobar", over both buffers */
}

TEST(memory_equal_reports_shape_differences) {
  int32_t x[2] = {1, 2}, y[2] = {1, 3};
  rc_buffer a = {"out", RC_I32, 2, 0, (uint8_t *)x}, b = {"out", RC_I32, 2, 0, (uint8_t *)y};
  rc_memory ma = {&a, 1, NULL, NULL}, mb = {&b, 1, NULL, NULL};
  char why[256];
  CHECK(!rc_memory_equal(&ma, &mb, why, sizeof why));
  CHECK_STR_CONTAINS(why, "buffer %out, element 1 (byte 4): expected 2, got 3");
  b.count = 1;
  CHECK(!rc_memory_equal(&ma, &mb, why, sizeof why));
  CHECK_STR_CONTAINS(why, "expected %out i32[2], got %out i32[1]");
  mb.nbufs = 0;
  CHECK(!rc_memory_equal(&ma, &mb, why, sizeof why));
  CHECK_STR_CONTAINS(why, "expected 1 buffers, got 0");
  ma.nbufs = 0;
  CHECK(rc_memory_equal(&ma, &mb, why, sizeof why));
}

TEST(memory_address_resolution_and_descriptions) {
  uint8_t g0[16], g1[8], l0[4];
  rc_segment gs[2] = {{g0, 16}, {g1, 8}}, ls[1] = {{l0, 4}};
  const char *names[2] = {"out", "in"};
  rc_addr_map m = {{NULL, gs, ls, NULL, NULL}, {0, 2, 1, 0, 0}, NULL};
  uint64_t out = rc_addr_make(RC_SPACE_GLOBAL, 0, 0), in = rc_addr_make(RC_SPACE_GLOBAL, 1, 0);
  CHECK(rc_addr_resolve(&m, out, 16) == g0);
  CHECK(rc_addr_resolve(&m, out + 12, 4) == g0 + 12);
  CHECK(rc_addr_resolve(&m, out + 13, 4) == NULL);
  CHECK(rc_addr_resolve(&m, out + 16, 1) == NULL);
  CHECK(rc_addr_resolve(&m, in + 4, 4) == g1 + 4);
  CHECK(rc_addr_resolve(&m, in - 1, 1) == NULL);
  CHECK(rc_addr_resolve(&m, 0, 1) == NULL);
  CHECK(rc_addr_resolve(&m, rc_addr_make(RC_SPACE_LOCAL, 0, 3), 1) == l0 + 3);
  CHECK(rc_addr_resolve(&m, rc_addr_make(RC_SPACE_PRIVATE, 0, 0), 1) == NULL);
  CHECK(rc_addr_resolve(&m, rc_addr_make(RC_SPACE_GLOBAL, 2, 0), 1) == NULL);
  CHECK(rc_addr_resolve(&m, 0xff00000000000000ull, 1) == NULL);
  char why[200];
  rc_addr_describe(&m, names, 0, 4, why, sizeof why);
  CHECK_STR_CONTAINS(why, "null pointer");
  rc_addr_describe(&m, names, out + 16, 4, why, sizeof why);
  CHECK_STR_CONTAINS(why, "0 bytes past the end of buffer %out (16 bytes)");
  rc_addr_describe(&m, names, out + 14, 4, why, sizeof why);
  CHECK_STR_CONTAINS(why, "4 bytes from offset 14 run past the end of buffer %out (16 bytes)");
  rc_addr_describe(&m, names, in - 4, 4, why, sizeof why);
  CHECK_STR_CONTAINS(why, "4 bytes before the start of buffer %in");
  rc_addr_describe(&m, names, out - 8, 4, why, sizeof why);
  CHECK_STR_CONTAINS(why, "8 bytes before the start of buffer %out");
  rc_addr_describe(&m, names, rc_addr_make(RC_SPACE_LOCAL, 0, 4), 1, why, sizeof why);
  CHECK_STR_CONTAINS(why, "0 bytes past the end of local region 0 (4 bytes)");
  rc_addr_describe(&m, names, rc_addr_make(RC_SPACE_PRIVATE, 3, 0), 1, why, sizeof why);
  CHECK_STR_CONTAINS(why, "no private memory region 3");
  rc_addr_describe(&m, names, 0x7700000000000000ull, 1, why, sizeof why);
  CHECK_STR_CONTAINS(why, "not an address of any memory");
}

TEST(frame_layout_regions) {
  test_diags d;
  rc_module *m = parse_kernel(&d, "kernel @k(ptr %out, ptr %l) {\nentry:\n  %a = alloca 10\n"
                                  "  %b = localmem 100\n  %c = alloca 4\n  ret\n}\n");
  if (!m) return;
  rc_kernel *k = m->kernels[0];
  rc_run_spec s;
  rc_run_spec_init(&s);
  CHECK_EQ_INT(rc_run_spec_parse_string(&d.ctx, &s, "--arg out=i32[4] --arg l=local:i64[N]"), 0);
  s.global[0] = 3;
  rc_frame_layout l;
  CHECK_EQ_INT(rc_frame_layout_build(&d.ctx, &l, k, &s), 0);
  CHECK_EQ_INT(l.nprivate, 2);
  CHECK_EQ_INT(l.nlocal, 2);
  CHECK_EQ_INT(l.private_size[0], 10);
  CHECK_EQ_INT(l.private_offset[1], 16);
  CHECK_EQ_INT(l.private_bytes, 32);
  CHECK_EQ_INT(l.local_size[0], 100);
  CHECK_EQ_INT(l.local_size[1], 24); /* i64[N] with N = 3 */
  CHECK_EQ_INT(l.local_offset[1], 112);
  CHECK_EQ_INT(l.region[rc_kernel_find_value(k, "a")->id], 0);
  CHECK_EQ_INT(l.region[rc_kernel_find_value(k, "c")->id], 1);
  CHECK_EQ_INT(l.region[rc_kernel_find_value(k, "b")->id], 0);
  CHECK_EQ_INT(l.region[rc_kernel_find_value(k, "l")->id], 1);
  CHECK_EQ_INT(l.region[rc_kernel_find_value(k, "out")->id], RC_NONE);
  rc_frame_layout_free(&l);
  rc_run_spec_free(&s);
  rc_module_free(m);
}
