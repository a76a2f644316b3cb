/* The IPDOM-stack SIMT model (src/sim/ipdom.c): Anantpur's Fig. 1 scenario (B3 twice, B5 three
 * times), the stack depth, loops that do not grow the stack, divergent switches, barriers, phis
 * that swap, and equivalence with the thread-level interpreter. */
#include "test.h"

#include "reconv/sim.h"

#include <stdlib.h>

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = 0;
  fclose(f);
  return s;
}

typedef struct result {
  rc_run_stats st;
  bool equivalent;
  char why[600];
} result;

/* Run kernel k on the IPDOM model and on the interpreter with its !run spec plus `extra` words;
 * compare traces and memory. */
static int run_ipdom(test_diags *d, const rc_kernel *k, const char *extra, result *res) {
  memset(res, 0, sizeof *res);
  rc_run_spec s;
  rc_run_spec_init(&s);
  int rc = rc_run_spec_parse_kernel(&d->ctx, &s, k);
  if (rc == 0 && extra) rc = rc_run_spec_parse_string(&d->ctx, &s, extra);
  rc_memory ma = {0}, mb = {0};
  rc_traces ta = {0}, tb = {0};
  rc_fault fa = {0}, fb = {0};
  if (rc == 0) rc = rc_memory_init(&d->ctx, &ma, &s, k) | rc_memory_init(&d->ctx, &mb, &s, k);
  if (rc == 0) rc = rc_interp_run(&d->ctx, k, &s, &ma, &ta, NULL, &fa);
  if (rc == 0) rc = rc_ipdom_run(&d->ctx, k, &s, &mb, &tb, &res->st, &fb, NULL);
  if (rc != 0) fprintf(stderr, "%s %s %s\n", d->text, fa.message, fb.message);
  if (rc == 0)
    res->equivalent = rc_traces_equivalent(k, &ta, k, &tb, res->why, sizeof res->why) &&
                      rc_memory_equal(&ma, &mb, res->why, sizeof res->why);
  rc_memory_free(&ma);
  rc_memory_free(&mb);
  rc_traces_free(&ta);
  rc_traces_free(&tb);
  rc_run_spec_free(&s);
  return rc;
}

static uint64_t entries(const rc_kernel *k, const result *r, const char *block) {
  return r->st.block_entries[rc_kernel_find_block(k, block)->id];
}

TEST(anantpur_fig1_duplicates) {
  test_diags d;
  test_diags_init(&d);
  char *text = read_text("examples/anantpur/fig1.rir");
  rc_module *m = text ? rc_parse_module(&d.ctx, "fig1.rir", text, strlen(text)) : NULL;
  free(text);
  CHECK(m != NULL);
  if (!m) return;
  const rc_kernel *k = m->kernels[0];
  result r;
  /* the paper's four threads T1..T4 in one wave */
  CHECK(run_ipdom(&d, k, "--global 4 --wave 4", &r) == 0);
  CHECK(r.equivalent);
  CHECK_EQ_INT(entries(k, &r, "B3"), 2);
  CHECK_EQ_INT(entries(k, &r, "B5"), 3);
  CHECK_EQ_INT(entries(k, &r, "B6"), 1); /* all four reconverge at the IPDOM B6 */
  CHECK_EQ_INT(r.st.duplicate_blocks, 3);
  CHECK_EQ_INT(r.st.block_duplicates[rc_kernel_find_block(k, "B5")->id], 2);
  /* [B6 entry, B2's entry] then B3 diverges: its entry is replaced by B5's and B4's */
  CHECK_EQ_INT(r.st.max_stack_depth, 4);
  rc_run_stats_free(&r.st);
  /* one lane per wave: nothing diverges */
  CHECK(run_ipdom(&d, k, "--global 4 --wave 1", &r) == 0);
  CHECK(r.equivalent);
  CHECK_EQ_INT(r.st.duplicate_blocks, 0);
  CHECK_EQ_INT(r.st.max_stack_depth, 1);
  CHECK_EQ_INT(entries(k, &r, "B5"), 3);
  rc_run_stats_free(&r.st);
  rc_module_free(m);
}

TEST(a_divergent_loop_does_not_grow_the_stack) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d,
                            "kernel @loop(ptr %out) !run \"--global 64 --wave 64 --arg out=i32[N]\" {\n"
                            "entry:\n"
                            "  %tid = call i32 @global_id(i32 0)\n"
                            "  %o = gep %out, i32 %tid, 4\n"
                            "  jmp H\n"
                            "H:\n"
                            "  %i = phi i32 [0, entry], [%i1, H]\n"
                            "  %i1 = add i32 %i, 1\n"
                            "  %c = icmp slt i32 %i1, %tid\n"
                            "  br %c, H, X\n"
                            "X:\n"
                            "  store i32 %i1, %o\n"
                            "  ret\n"
                            "}\n");
  CHECK(m != NULL);
  if (!m) return;
  result r;
  CHECK(run_ipdom(&d, m->kernels[0], NULL, &r) == 0);
  CHECK(r.equivalent);
  CHECK_EQ_INT(entries(m->kernels[0], &r, "H"), 63); /* the longest trip count */
  CHECK(r.st.max_stack_depth <= 2);
  CHECK_EQ_INT(r.st.duplicate_blocks, 0);
  rc_run_stats_free(&r.st);
  rc_module_free(m);
}

TEST(divergent_switch_and_swapping_phis) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d,
                            "kernel @sw(ptr %out) !run \"--global 32 --wave 8 --arg out=i32[N]\" {\n"
                            "entry:\n"
                            "  %tid = call i32 @global_id(i32 0)\n"
                            "  %o = gep %out, i32 %tid, 4\n"
                            "  %t = and i32 %tid, 3\n"
                            "  jmp L\n"
                            "L:\n"
                            "  %a = phi i32 [1, entry], [%b, J]\n"
                            "  %b = phi i32 [2, entry], [%a, J]\n"
                            "  %n = phi i32 [0, entry], [%n1, J]\n"
                            "  switch i32 %t, D [1: S1, 2: S2, 3: S2]\n"
                            "S1:\n"
                            "  %x1 = mul i32 %a, 10\n"
                            "  jmp J\n"
                            "S2:\n"
                            "  %x2 = mul i32 %b, 100\n"
                            "  jmp J\n"
                            "D:\n"
                            "  jmp J\n"
                            "J:\n"
                            "  %x = phi i32 [%x1, S1], [%x2, S2], [%a, D]\n"
                            "  %n1 = add i32 %n, 1\n"
                            "  %more = icmp slt i32 %n1, %t\n"
                            "  br %more, L, X\n"
                            "X:\n"
                            "  %r = add i32 %x, %b\n"
                            "  store i32 %r, %o\n"
                            "  ret\n"
                            "}\n");
  CHECK(m != NULL);
  if (!m) return;
  result r;
  CHECK(run_ipdom(&d, m->kernels[0], NULL, &r) == 0);
  CHECK(r.equivalent);
  if (!r.equivalent) fprintf(stderr, "%s\n", r.why);
  /* the switch splits each wave three ways: S1, S2 and D each run once per switch execution */
  CHECK(r.st.max_stack_depth >= 3);
  rc_run_stats_free(&r.st);
  rc_module_free(m);
}

TEST(examples_run_alike_on_the_ipdom_model) {
  const char *files[] = {"examples/anantpur/fig2b.rir", "examples/anantpur/fig6b.rir", "examples/darm/fig1_bitonic.rir",
                         "examples/thesis/fig2_2a.rir"};
  const char *waves[] = {"--wave 1", "--wave 4", "--wave 32", "--wave 64"};
  for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
    test_diags d;
    test_diags_init(&d);
    char *text = read_text(files[f]);
    rc_module *m = text ? rc_parse_module(&d.ctx, files[f], text, strlen(text)) : NULL;
    free(text);
    CHECK(m != NULL);
    if (!m) continue;
    for (size_t w = 0; w < sizeof waves / sizeof *waves; w++) {
      result r;
      CHECK(run_ipdom(&d, m->kernels[0], waves[w], &r) == 0);
      CHECK(r.equivalent);
      rc_run_stats_free(&r.st);
    }
    rc_module_free(m);
  }
}

TEST(refuses_wave_kernels) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, "wave kernel @w(ptr %out) !run \"--global 4 --arg out=i32[N]\" {\n"
                                "entry:\n"
                                "  ret\n"
                                "}\n");
  CHECK(m != NULL);
  if (!m) return;
  rc_run_spec s;
  rc_run_spec_init(&s);
  rc_memory mem = {0};
  CHECK(rc_run_spec_parse_kernel(&d.ctx, &s, m->kernels[0]) == 0);
  CHECK(rc_memory_init(&d.ctx, &mem, &s, m->kernels[0]) == 0);
  CHECK(rc_ipdom_run(&d.ctx, m->kernels[0], &s, &mem, NULL, NULL, NULL, NULL) != 0);
  CHECK_STR_CONTAINS(d.text, "wave-level kernel; the IPDOM model runs thread-level kernels");
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
  rc_module_free(m);
}
