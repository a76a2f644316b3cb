/* The printer and parser agree: print(parse(print(m))) == print(m) for every .rir file under
 * examples/ and tests/ (found by walking the directories, so new files are covered without a
 * list), and float constants survive the text form bit for bit. */
#define _DEFAULT_SOURCE /* DT_DIR */
#include "reconv/ir.h"
#include "test.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  *len = n;
  return buf;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

typedef RC_VEC(char *) pathvec;

/* Every *.rir file below root, sorted; iterative walk with an explicit stack of directories. */
static void find_rir_files(const char *root, pathvec *out) {
  pathvec stack = {0};
  rc_vec_push(&stack, rc_xstrdup(root));
  while (stack.len) {
    char *dir = stack.data[--stack.len];
    DIR *d = opendir(dir);
    if (d) {
      struct dirent *e;
      while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(n);
        snprintf(path, n, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) rc_vec_push(&stack, path);
        else if (ends_with(path, ".rir")) rc_vec_push(out, path);
        else free(path);
      }
      closedir(d);
    }
    free(dir);
  }
  rc_vec_free(&stack);
}

static char *print_module(const rc_module *m) {
  return test_print(m);
}

/* Every kernel of a valid module cloned on its own into a fresh module prints like the original
 * and verifies (a clone once lost the callees of its calls, printed as `@?`: the device functions
 * of tests/golden/analysis/interprocedural.rir, found by tests/fuzz/fuzz_parse.c). */
static void check_clones(rc_ctx *ctx, const rc_module *m, const char *path) {
  for (uint32_t i = 0; i < m->nkernels; i++) {
    rc_module *cm = rc_module_new(ctx, NULL);
    rc_kernel *c = rc_kernel_clone(cm, m->kernels[i], m->kernels[i]->name);
    CHECK(c != NULL);
    if (c) {
      rc_strbuf a, b;
      rc_sb_init(&a);
      rc_sb_init(&b);
      rc_print_kernel(m->kernels[i], &a);
      rc_print_kernel(c, &b);
      if (strcmp(a.data, b.data) != 0)
        fprintf(stderr, "%s: the clone of @%s prints differently:\n%s---\n%s", path, c->name, a.data, b.data);
      CHECK(strcmp(a.data, b.data) == 0);
      CHECK_EQ_INT(rc_verify_module(ctx, cm), 0);
      rc_sb_free(&a);
      rc_sb_free(&b);
    }
    rc_module_free(cm);
  }
}

/* Round-trip one file. Returns 1 when it parsed (and so was checked), 0 when it is not valid
 * text (an error test), after checking what must hold either way. */
static int roundtrip_file(const char *path, bool must_be_valid) {
  size_t len;
  char *text = read_all(path, &len);
  CHECK(text != NULL);
  if (!text) return 0;
  test_diags d;
  test_diags_init(&d);
  /* unverified, so that golden tests of the verifier's messages are covered too */
  rc_module *m = rc_parse_module_unverified(&d.ctx, path, text, len);
  free(text);
  if (!m) {
    if (must_be_valid) fprintf(stderr, "%s does not parse: %s", path, d.text);
    CHECK(!must_be_valid);
    return 0;
  }
  bool valid = rc_verify_module(&d.ctx, m) == 0;
  if (must_be_valid && !valid) fprintf(stderr, "%s does not verify: %s", path, d.text);
  CHECK(valid || !must_be_valid);
  char *p1 = print_module(m);
  test_diags d2;
  test_diags_init(&d2);
  rc_module *m2 = rc_parse_module_unverified(&d2.ctx, "printed.rir", p1, strlen(p1));
  CHECK(m2 != NULL);
  if (!m2) {
    fprintf(stderr, "the printed form of %s does not parse: %s\n%s", path, d2.text, p1);
  } else {
    CHECK_EQ_INT(rc_verify_module(&d2.ctx, m2) == 0, valid);
    char *p2 = print_module(m2);
    if (strcmp(p1, p2) != 0) fprintf(stderr, "%s: print(parse(print(m))) differs:\n%s---\n%s", path, p1, p2);
    CHECK(strcmp(p1, p2) == 0);
    CHECK_EQ_INT(m2->nkernels, m->nkernels);
    for (uint32_t i = 0; i < m->nkernels && i < m2->nkernels; i++) {
      CHECK_EQ_INT(m2->kernels[i]->nblocks, m->kernels[i]->nblocks);
      CHECK_EQ_INT(m2->kernels[i]->nvalues, m->kernels[i]->nvalues);
    }
    free(p2);
    rc_module_free(m2);
  }
  if (valid) check_clones(&d.ctx, m, path);
  free(p1);
  rc_module_free(m);
  return 1;
}

TEST(every_rir_file_round_trips) {
  const char *src = getenv("RECONV_SOURCE_DIR");
  char examples[4096], tests[4096];
  snprintf(examples, sizeof examples, "%s/examples", src ? src : ".");
  snprintf(tests, sizeof tests, "%s/tests", src ? src : ".");
  pathvec files = {0};
  find_rir_files(examples, &files);
  uint32_t nexamples = files.len;
  find_rir_files(tests, &files);
  if (nexamples == 0)
    fprintf(stderr, "no examples under %s: run from the repository root or set RECONV_SOURCE_DIR\n",
            examples);
  CHECK(nexamples >= 1); /* the walk found the examples (examples/thesis/ at least) */
  CHECK(files.len > nexamples);
  int checked = 0;
  for (uint32_t i = 0; i < files.len; i++) {
    checked += roundtrip_file(files.data[i], i < nexamples); /* examples must be valid */
    free(files.data[i]);
  }
  printf("round trip: %d of %u .rir files parse and round-trip (%u examples)\n", checked, files.len,
         nexamples);
  CHECK(checked >= (int)nexamples);
  rc_vec_free(&files);
}

/* A kernel printed by hand that exercises every instruction and form of the text. */
static const char *const every_form =
    "kernel @all(i32 %x, i64 %y, f32 %f, f64 %g, ptr %p, i1 %c, i8 %b, i16 %h) !run \"--global 8 --arg p=\\\"q\\\\\" {\n"
    "entry: !flow !guard !virtual\n"
    "  %0 = add i32 %x, 1\n  %1 = sub i32 %0, -2\n  %2 = mul i32 %1, %x\n  %3 = sdiv i32 %2, 3\n"
    "  %4 = udiv i32 %3, 3\n  %5 = srem i32 %4, 3\n  %6 = urem i32 %5, 3\n  %7 = and i32 %6, 255\n"
    "  %8 = or i32 %7, 256\n  %9 = xor i32 %8, %x\n  %10 = andn i32 %9, 1\n  %11 = shl i32 %10, 33\n"
    "  %12 = lshr i32 %11, 1\n  %13 = ashr i32 %12, 1\n  %14 = fadd f32 %f, 0.5\n  %15 = fsub f32 %14, -0.0\n"
    "  %16 = fmul f64 %g, 1e-300\n  %17 = fdiv f64 %16, 3.0\n  %18 = frem f64 %17, 2.0\n  %19 = fneg f64 %18\n"
    "  %20 = icmp slt i32 %x, 0\n  %21 = icmp ule ptr %p, null\n  %22 = fcmp uno f64 %g, nan\n"
    "  %23 = fcmp ult f32 %f, inf\n  %24 = fcmp true f32 %f, %f\n  %25 = select i32 %20, %x, 7\n"
    "  %26 = trunc i64 %y to i16\n  %27 = zext i8 %b to i64\n  %28 = sext i1 %c to i32\n"
    "  %29 = fptrunc f64 %g to f32\n  %30 = fpext f32 %f to f64\n  %31 = fptosi f64 %g to i32\n"
    "  %32 = fptoui f32 %f to i8\n  %33 = sitofp i16 %h to f32\n  %34 = uitofp i64 %y to f64\n"
    "  %35 = ptrtoint ptr %p to i64\n  %36 = inttoptr i64 %35 to ptr\n  %37 = bitcast f64 %g to i64\n"
    "  %38 = load i32, %p\n  store i8 %b, %36\n  %39 = gep %p, i64 %y, -8\n  %40 = alloca 64\n"
    "  %41 = localmem 1024\n  %42 = call i32 @global_id(i32 0)\n  %43 = call i64 @local_size(i32 2)\n"
    "  %44 = call i32 @lane_id()\n  call void @barrier()\n  %45 = call f32 @fma(f32 %f, f32 %f, f32 1.0)\n"
    "  %46 = call i32 @atomic_cmpxchg(ptr %p, i32 0, i32 %x)\n  call void @memset(ptr %40, i8 0, i64 64)\n"
    "  call void @memcpy(ptr %41, ptr %40, i32 64)\n  %47 = call i16 @ctpop(i16 %h)\n"
    "  switch i32 %x, exit [0: A, -1: B, 2147483647: exit] !divergent\n"
    "A:\n  %a = phi i32 [%x, entry], [%b2, B]\n  br %20, B, exit !uniform\n"
    "B:\n  %b2 = phi i32 [%a, A], [undef, entry]\n  br true, A, exit\n"
    "exit:\n  %r = phi i32 [0, entry], [%a, A], [%b2, B]\n  ret\n"
    "dead:\n  unreachable\n"
    "}\n"
    "\n"
    "wave kernel @w(ptr %out, mask %m0) {\n"
    "  reg scalar mask $saved\n  reg vector i32 $acc\n  reg scalar i64 $s\n"
    "entry:\n  %e = exec\n  rset $saved, %e !scalar\n  %id = call i32 @lane_id()\n"
    "  %c = icmp eq i32 %id, 0\n  %b = ballot %c\n  %nb = andn mask %e, %b\n  %o = or mask %nb, 0xff\n"
    "  %x = xor mask %o, 0xffffffffffffffff\n  %z = and mask %x, %m0\n  setexec %b\n  rset $acc, %id\n"
    "  brexecz L, T\n"
    "T:\n  %v = rget $acc\n  store i32 %v, %out\n  jmp L\n"
    "L:\n  %s = rget $saved !scalar\n  setexec %s\n  %u = icmp ne mask %s, 0x0\n  br %u, R, R\n"
    "R:\n  ret\n"
    "}\n";

TEST(every_instruction_form_round_trips) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, every_form);
  CHECK(m != NULL);
  if (!m) {
    fprintf(stderr, "%s", d.text);
    return;
  }
  char *p1 = print_module(m);
  CHECK(strcmp(p1, every_form) == 0); /* the text above is already in printed form */
  if (strcmp(p1, every_form) != 0) fprintf(stderr, "printed:\n%s", p1);
  free(p1);
  rc_module_free(m);
}

TEST(unnamed_values_are_renumbered_in_order) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, "kernel @k(i32 %7) {\nentry:\n  %42 = add i32 %7, 1\n  %x = add i32 %42, 1\n"
                                "  %3 = add i32 %x, %42\n  ret\n}\n");
  CHECK(m != NULL);
  if (!m) return;
  char *s = print_module(m);
  CHECK_STR_CONTAINS(s, "kernel @k(i32 %0) {\nentry:\n  %1 = add i32 %0, 1\n  %x = add i32 %1, 1\n"
                        "  %2 = add i32 %x, %1\n");
  free(s);
  rc_module_free(m);
}

/* ---- float constants ------------------------------------------------------------------------ */

/* Print a kernel holding the constant, parse it back, and return the parsed constant's value. */
static double float_through_text(rc_type t, double value, bool *ok) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = rc_module_new(&d.ctx, NULL);
  rc_kernel *k = rc_kernel_new(m, "f");
  rc_value *p = rc_kernel_add_param(k, RC_PTR, "p");
  rc_block *b = rc_block_new(k, "entry");
  rc_builder bld;
  rc_builder_at_end(&bld, b);
  rc_build_store(&bld, rc_const_float(k, t, value), p);
  rc_build_ret(&bld);
  char *text = print_module(m);
  rc_module_free(m);
  rc_module *m2 = test_parse(&d, text);
  *ok = m2 != NULL;
  double r = 0;
  if (m2) r = rc_const_fval(m2->kernels[0]->blocks[0]->first->ops[0]);
  else fprintf(stderr, "does not parse: %s\n%s", text, d.text);
  free(text);
  rc_module_free(m2);
  return r;
}

static bool same_bits_f64(double a, double b) {
  if (isnan(a) && isnan(b)) return signbit(a) == signbit(b); /* sign kept, payload not */
  return memcmp(&a, &b, sizeof a) == 0;
}

static bool same_bits_f32(float a, float b) {
  if (isnan(a) && isnan(b)) return signbit(a) == signbit(b);
  return memcmp(&a, &b, sizeof a) == 0;
}

TEST(float_constants_round_trip_exactly) {
  static const double f64s[] = {
      0.0, -0.0, 1.0, -1.0, 0.1, 1.0 / 3.0, 2.0 / 3.0, 1e300, -1e-300, 123456789.125,
      4.9406564584124654e-324,  /* smallest subnormal */
      2.2250738585072009e-308,  /* largest subnormal */
      2.2250738585072014e-308,  /* smallest normal */
      1.7976931348623157e308,   /* largest finite */
      9007199254740993.0, 1e15, 1e16, 1e17, 0.0001, 0.00001, 5e-5, 1500.0,
  };
  for (size_t i = 0; i < sizeof f64s / sizeof f64s[0]; i++) {
    bool ok;
    double back = float_through_text(RC_F64, f64s[i], &ok);
    CHECK(ok);
    if (!same_bits_f64(back, f64s[i])) fprintf(stderr, "f64 %a came back as %a\n", f64s[i], back);
    CHECK(same_bits_f64(back, f64s[i]));
  }
  static const float f32s[] = {
      0.0f, -0.0f, 1.0f, 0.1f, 1.0f / 3.0f, 16777217.0f, 3.4028235e38f, -3.4028235e38f,
      1.17549435e-38f,  /* smallest normal */
      1.4e-45f,         /* smallest subnormal */
      1.1754942e-38f,   /* largest subnormal */
      2.8e-45f,         /* two times the smallest subnormal */
      1e10f, 1500.0f, 0.3f,
  };
  for (size_t i = 0; i < sizeof f32s / sizeof f32s[0]; i++) {
    bool ok;
    double back = float_through_text(RC_F32, f32s[i], &ok);
    CHECK(ok);
    if (!same_bits_f32((float)back, f32s[i])) fprintf(stderr, "f32 %a came back as %a\n", f32s[i], back);
    CHECK(same_bits_f32((float)back, f32s[i]));
  }
  static const double specials[] = {INFINITY, -INFINITY, NAN, -NAN};
  for (size_t i = 0; i < 4; i++) {
    bool ok;
    CHECK(same_bits_f64(float_through_text(RC_F64, specials[i], &ok), specials[i]));
    CHECK(ok);
    CHECK(same_bits_f32((float)float_through_text(RC_F32, specials[i], &ok), (float)specials[i]));
    CHECK(ok);
  }
}

TEST(float_text_forms) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, "kernel @k(ptr %p) {\nentry:\n  store f64 1e16, %p\n  store f64 1e15, %p\n"
                                "  store f32 0.1, %p\n  store f64 0.1, %p\n  store f64 -0.0, %p\n"
                                "  store f64 5e-324, %p\n  store f32 3, %p\n  store f64 +nan, %p\n  ret\n}\n");
  CHECK(m != NULL);
  if (!m) return;
  char *s = print_module(m);
  CHECK_STR_CONTAINS(s, "  store f64 1e+16, %p\n  store f64 1000000000000000.0, %p\n  store f32 0.1, %p\n"
                        "  store f64 0.1, %p\n  store f64 -0.0, %p\n  store f64 5e-324, %p\n"
                        "  store f32 3.0, %p\n  store f64 nan, %p\n");
  free(s);
  rc_module_free(m);
}

/* A kernel cloned into another module brings the device functions it calls, and theirs, so that
 * the clone's module prints, parses again and verifies on its own; a function the target module
 * has already is called there; a recursive call (invalid OpenCL C, valid IR) finds its copy. */
TEST(a_clone_into_another_module_brings_its_callees) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, "function i32 @leaf(i32 %x) {\nentry:\n  ret i32 %x\n}\n\n"
                                "function i32 @mid(i32 %x) {\nentry:\n  %y = call i32 @leaf(i32 %x)\n"
                                "  %z = call i32 @mid(i32 %y)\n  ret i32 %z\n}\n\n"
                                "kernel @k(ptr %out) {\nentry:\n  %t = call i32 @global_id(i32 0)\n"
                                "  %r = call i32 @mid(i32 %t)\n  %s = call i32 @leaf(i32 %r)\n"
                                "  store i32 %s, %out\n  ret\n}\n");
  CHECK(m != NULL);
  if (!m) {
    fprintf(stderr, "%s", d.text);
    return;
  }
  rc_module *into = rc_module_new(&d.ctx, NULL);
  rc_kernel *c = rc_kernel_clone(into, rc_module_find_kernel(m, "k"), "copy");
  CHECK(c != NULL);
  CHECK_EQ_INT(into->nkernels, 3);
  CHECK(rc_module_find_kernel(into, "mid") != NULL && rc_module_find_kernel(into, "mid") != rc_module_find_kernel(m, "mid"));
  CHECK(rc_module_find_kernel(into, "leaf") != NULL);
  char *text = print_module(into);
  CHECK(strstr(text, "@?") == NULL);
  CHECK_STR_CONTAINS(text, "%r = call i32 @mid(i32 %t)");
  CHECK_STR_CONTAINS(text, "%z = call i32 @mid(i32 %y)");
  CHECK_EQ_INT(rc_verify_module(&d.ctx, into), 0);
  rc_module *again = rc_parse_module_unverified(&d.ctx, "printed.rir", text, strlen(text));
  CHECK(again != NULL);
  if (again) CHECK_EQ_INT(rc_verify_module(&d.ctx, again), 0);
  rc_module_free(again);
  free(text);
  /* a second clone calls the copies already there, copying nothing more */
  CHECK(rc_kernel_clone(into, rc_module_find_kernel(m, "k"), "copy2") != NULL);
  CHECK_EQ_INT(into->nkernels, 4);
  rc_module_free(into);
  rc_module_free(m);
}
