/* bench_strategies: every way reconv runs divergent code, side by side on the bundled kernels (issue
 * 13: "a bench prints, per bundled kernel, each strategy's static blocks and instructions and its
 * dynamic vector, mask and scalar instructions and SIMD efficiency").
 *
 * For each kernel with a run specification (`!run`, or the `reconv-run` comment of a .cl file) and
 * each strategy: the program that runs (blocks, instructions) and what the waves issue on it at its
 * own wave size. The strategies:
 *   ipdom              the original kernel on the IPDOM-stack model (the hardware baseline)
 *   linearize[opt=N]   Anantpur's guard-variable linearization on the IPDOM-stack model (when the
 *                      pass is built)
 *   reconverge+lower   the thesis's way, default ordering
 *   blockip            the Beignet note's per-lane block IPs
 *   full-linearize     every block predicated
 * A row whose run is not equivalent to the thread-level interpreter is marked, never dropped.
 *
 *   bench_strategies [FILE...]     default: the .rir files of examples/anantpur, beignet, darm
 *                                  and thesis, and the .cl files of examples/kernels (with the
 *                                  LLVM bridge), from the current directory */
#include "reconv/sim.h"
#include "reconv/transform.h"
#ifdef RECONV_HAVE_LLVM
#include "reconv/llvm.h"
#endif

#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct strategy {
  const char *name, *pipeline, *pass; /* pass: the pass that must exist for the row */
  bool ipdom;                         /* run on the IPDOM-stack model (a thread-level program) */
} strategy;

static const strategy strategies[] = {
    {"ipdom", NULL, NULL, true},
    {"linearize[opt=0]", "linearize[opt=0]", "linearize", true},
    {"linearize[opt=3]", "linearize[opt=3]", "linearize", true},
    {"reconverge+lower", "reconverge,lower", "reconverge", false},
    {"blockip", "blockip", "blockip", false},
    {"full-linearize", "full-linearize", "full-linearize", false},
};

static uint32_t count_instructions(const rc_kernel *k) {
  uint32_t n = 0;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) n++;
  return n;
}

static int run(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, bool ipdom, bool wave, rc_traces *tr,
               rc_memory *mem, rc_run_stats *st) {
  rc_fault f = {0};
  if (rc_memory_init(ctx, mem, s, k) != 0) return -1;
  if (!ipdom && !wave) return rc_interp_run(ctx, k, s, mem, tr, NULL, &f);
  if (ipdom) return rc_ipdom_run(ctx, k, s, mem, tr, st, &f, NULL);
  return rc_wave_run(ctx, k, s, mem, tr, st, &f, NULL);
}

static void bench_kernel(rc_ctx *ctx, rc_module *m, rc_kernel *k, const char *file) {
  if (!k->run_spec) return;
  rc_run_spec s;
  rc_run_spec_init(&s);
  if (rc_run_spec_parse_kernel(ctx, &s, k) != 0) return;
  rc_traces ref_tr = {0};
  rc_memory ref_mem = {0};
  if (run(ctx, k, &s, false, false, &ref_tr, &ref_mem, NULL) != 0) {
    printf("%s @%s: the interpreter fails; skipped\n", file, k->name);
    goto out;
  }
  printf("%s @%s (%u blocks, %u instructions; %" PRIu64 " threads, W=%u)\n", file, k->name, k->nblocks,
         count_instructions(k), rc_run_spec_threads(&s), s.wave);
  printf("  %-18s %6s %6s %9s %8s %8s %9s %8s\n", "strategy", "blocks", "instrs", "vector", "scalar", "mask",
         "issued", "SIMD eff");
  for (size_t i = 0; i < sizeof strategies / sizeof strategies[0]; i++) {
    const strategy *st = &strategies[i];
    if (st->pass && !rc_pass_lookup(st->pass)) continue;
    char name[64];
    snprintf(name, sizeof name, "%s.bench%zu", k->name, i);
    rc_kernel *t = rc_kernel_clone(m, k, name);
    if (!t) continue;
    rc_traces tr = {0};
    rc_memory mem = {0};
    rc_run_stats rs;
    memset(&rs, 0, sizeof rs);
    char why[300] = "";
    const char *verdict = "";
    if (st->pipeline && rc_pipeline_run(ctx, t, st->pipeline, NULL, NULL) != 0) verdict = "refused";
    else if (run(ctx, t, &s, st->ipdom, !st->ipdom, &tr, &mem, &rs) != 0) verdict = "fault";
    else if (!rc_traces_equivalent(k, &ref_tr, t, &tr, why, sizeof why) || !rc_memory_equal(&ref_mem, &mem, why, sizeof why))
      verdict = "NOT equivalent";
    if (strcmp(verdict, "refused") == 0 || strcmp(verdict, "fault") == 0)
      printf("  %-18s %s\n", st->name, verdict);
    else
      printf("  %-18s %6u %6u %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %7.1f%% %s\n", st->name, t->nblocks,
             count_instructions(t), rs.vector_instrs, rs.scalar_instrs, rs.mask_instrs,
             rs.vector_instrs + rs.scalar_instrs + rs.mask_instrs, 100.0 * rc_simd_efficiency(&rs), verdict);
    rc_run_stats_free(&rs);
    rc_traces_free(&tr);
    rc_memory_free(&mem);
  }
out:
  rc_traces_free(&ref_tr);
  rc_memory_free(&ref_mem);
  rc_run_spec_free(&s);
}

static void quiet(void *user, const rc_diag *d) {
  (void)user;
  (void)d;
}

static void bench_file(const char *path) {
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  ctx.diag = quiet;
  size_t n = strlen(path);
  rc_module *m = NULL;
  if (n > 4 && strcmp(path + n - 4, ".rir") == 0) m = rc_parse_file(&ctx, path);
#ifdef RECONV_HAVE_LLVM
  else m = rc_llvm_import_file(&ctx, path, NULL);
#endif
  if (!m) {
    printf("%s: cannot be read; skipped\n", path);
    return;
  }
  uint32_t nk = m->nkernels;
  for (uint32_t i = 0; i < nk; i++) {
    rc_kernel *k = m->kernels[i];
    if (k->is_function) continue;
    const rc_instr *stuck = NULL;
    if (rc_inline_calls(k, 100000, &stuck) < 0) continue;
    bench_kernel(&ctx, m, k, path);
  }
  rc_module_free(m);
}

int main(int argc, char **argv) {
  if (argc > 1) {
    for (int i = 1; i < argc; i++) bench_file(argv[i]);
    return 0;
  }
  static const char *patterns[] = {"examples/anantpur/*.rir", "examples/beignet/*.rir", "examples/darm/*.rir",
                                   "examples/thesis/*.rir", "examples/kernels/*.cl"};
  for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
    glob_t g;
    if (glob(patterns[p], 0, NULL, &g) != 0) continue;
    for (size_t i = 0; i < g.gl_pathc; i++) bench_file(g.gl_pathv[i]);
    globfree(&g);
  }
  return 0;
}
