/* Benchmark: what DARM's melding (meld, docs/meld.md) does to the wave-level cost of the DARM
 * kernels (examples/darm: the seed's bitonic sort of Fig. 1 and the team's kernels of the
 * evaluation's shapes) and of generated kernels with similar code on both sides of divergent
 * branches (reconv gen --similar). For each kernel and melding threshold (0.1, 0.2, 0.4) it prints
 * the vector instructions, all issued instructions and the SIMD efficiency on the wave simulator
 * of reconverge,lower without and with meld in front, and whether the melded run is equivalent to
 * the thread-level interpreter by effect traces and memory. With the LLVM bridge it also prints
 * the issued instructions and SIMD efficiency of LLVM's structurizer pipeline (the row
 * llvm-structurizecfg+lower of reconv compare) without and with meld in front
 * (meld+llvm-structurizecfg+lower), and whether that melded run is equivalent. Numbers, never
 * timings.
 *
 *   bench_meld [--wave W] [FILE.rir ...]      (run from the repository root for the defaults)
 */
#include "reconv/gen.h"
#include "reconv/sim.h"
#include "reconv/transform.h"

#ifdef RECONV_HAVE_LLVM
#include "reconv/llvm.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *default_files[] = {"examples/darm/fig1_bitonic.rir", "examples/darm/bitonic_step.rir",
                                      "examples/darm/srad_chain.rir", "examples/darm/lud_loop.rir"};
static const double thresholds[] = {0.1, 0.2, 0.4};

typedef struct result {
  bool ok, equivalent;
  uint64_t vector, issued;
  double eff;
  char why[600];
} result;

/* Run wave kernel w (made from k) on the wave simulator and fill r: its figures, and whether every
 * thread ran k's blocks and left k's memory (ref, refmem). */
static void measure_wave(rc_ctx *ctx, const rc_kernel *k, const rc_kernel *w, const rc_run_spec *s,
                         const rc_traces *ref, const rc_memory *refmem, result *r) {
  rc_memory mem = {0};
  rc_traces tr = {0};
  rc_run_stats st = {0};
  rc_fault fault = {0};
  if (rc_memory_init(ctx, &mem, s, w) == 0 && rc_wave_run(ctx, w, s, &mem, &tr, &st, &fault, NULL) == 0) {
    r->ok = true;
    r->vector = st.vector_instrs;
    r->issued = st.vector_instrs + st.scalar_instrs + st.mask_instrs;
    r->eff = rc_simd_efficiency(&st);
    r->equivalent = rc_traces_equivalent(k, ref, w, &tr, r->why, sizeof r->why) &&
                    rc_memory_equal(refmem, &mem, r->why, sizeof r->why);
  } else {
    snprintf(r->why, sizeof r->why, "%s", fault.happened ? fault.message : "run failed");
  }
  rc_memory_free(&mem);
  rc_traces_free(&tr);
  rc_run_stats_free(&st);
}

static void run_pipeline(rc_ctx *ctx, rc_module *m, const rc_kernel *k, const rc_run_spec *s, const char *pipeline,
                         const rc_traces *ref, const rc_memory *refmem, result *r) {
  memset(r, 0, sizeof *r);
  rc_kernel *c = rc_kernel_clone(m, k, "bench_copy");
  if (!c || rc_pipeline_run(ctx, c, pipeline, NULL, NULL) != 0) {
    snprintf(r->why, sizeof r->why, "pipeline failed");
    if (c) rc_module_remove_kernel(m, c);
    return;
  }
  measure_wave(ctx, k, c, s, ref, refmem, r);
  rc_module_remove_kernel(m, c);
}

#ifdef RECONV_HAVE_LLVM
/* LLVM's structurizer pipeline as AMDGPU runs it (tools/compare_run.h, LLVM_STRUCTURIZER), run by
 * LLVM on the exported kernel (melded first when `meld` is set), then lower[norepair] and the wave
 * simulator, as reconv compare's LLVM rows do. */
static void run_llvm(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, const char *meld, const rc_traces *ref,
                     const rc_memory *refmem, result *r) {
  memset(r, 0, sizeof *r);
  rc_module *pre = rc_module_new(ctx, "bench");
  rc_kernel *c = rc_kernel_clone(pre, k, k->name);
  char *text = NULL;
  size_t len = 0;
  rc_module *own = NULL;
  rc_kernel *w = NULL;
  if (c && (!meld || rc_pipeline_run(ctx, c, meld, NULL, NULL) == 0)) {
    if (meld) rc_llvm_guard_structurizer(c);
    rc_llvm_export_opts eo = {c, false, false, false};
    if (rc_llvm_export(ctx, pre, &eo, &text, &len) == 0) {
      rc_llvm_import_opts io = {0};
      io.passes = "lowerswitch,mergereturn,fix-irreducible,unify-loop-exits,structurizecfg";
      io.data = text;
      io.data_len = len;
      own = rc_llvm_import_file(ctx, "bench.ll", &io);
      w = own ? rc_module_find_kernel(own, k->name) : NULL;
    }
  }
  if (!w || rc_pipeline_run(ctx, w, "lower[norepair]", NULL, NULL) != 0) {
    snprintf(r->why, sizeof r->why, "LLVM's pipeline failed");
  } else {
    measure_wave(ctx, k, w, s, ref, refmem, r);
  }
  free(text);
  if (own) rc_module_free(own);
  rc_module_free(pre);
}
#endif

static void bench_kernel(rc_ctx *ctx, rc_module *m, rc_kernel *k, const char *label, uint32_t wave) {
  rc_run_spec s;
  rc_run_spec_init(&s);
  if (rc_run_spec_parse_kernel(ctx, &s, k) != 0) {
    fprintf(stderr, "%s: no run specification\n", label);
    return;
  }
  if (wave) s.wave = wave;
  s.effect_traces = true;
  rc_memory mem = {0};
  rc_traces ref = {0};
  rc_fault fault = {0};
  if (rc_memory_init(ctx, &mem, &s, k) != 0 || rc_interp_run(ctx, k, &s, &mem, &ref, NULL, &fault) != 0) {
    fprintf(stderr, "%s: the thread-level run fails: %s\n", label, fault.message);
    rc_memory_free(&mem);
    rc_run_spec_free(&s);
    return;
  }
  result base, melded;
  run_pipeline(ctx, m, k, &s, "reconverge,lower", &ref, &mem, &base);
#ifdef RECONV_HAVE_LLVM
  result lbase, lmelded;
  run_llvm(ctx, k, &s, NULL, &ref, &mem, &lbase);
#endif
  for (size_t t = 0; t < sizeof thresholds / sizeof thresholds[0]; t++) {
    char pipeline[64];
    snprintf(pipeline, sizeof pipeline, "meld[threshold=%.1f],reconverge,lower", thresholds[t]);
    run_pipeline(ctx, m, k, &s, pipeline, &ref, &mem, &melded);
    if (!base.ok || !melded.ok) {
      printf("%-22s %4.1f  error: %s\n", label, thresholds[t], base.ok ? melded.why : base.why);
      continue;
    }
    printf("%-22s %4.1f %9llu %9llu %6.1f%% %9llu %9llu %6.1f%%  %-10s", label, thresholds[t],
           (unsigned long long)base.vector, (unsigned long long)base.issued, 100 * base.eff,
           (unsigned long long)melded.vector, (unsigned long long)melded.issued, 100 * melded.eff,
           melded.equivalent ? "equivalent" : "NOT");
#ifdef RECONV_HAVE_LLVM
    snprintf(pipeline, sizeof pipeline, "meld[threshold=%.1f]", thresholds[t]);
    run_llvm(ctx, k, &s, pipeline, &ref, &mem, &lmelded);
    if (lbase.ok && lmelded.ok)
      printf(" %9llu %6.1f%% %9llu %6.1f%%  %s", (unsigned long long)lbase.issued, 100 * lbase.eff,
             (unsigned long long)lmelded.issued, 100 * lmelded.eff, lmelded.equivalent ? "equivalent" : lmelded.why);
    else
      printf("  error: %s", lbase.ok ? lmelded.why : lbase.why);
#endif
    if (!melded.equivalent) printf("  (%s)", melded.why);
    putchar('\n');
  }
  rc_traces_free(&ref);
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
}

int main(int argc, char **argv) {
  uint32_t wave = 0;
  const char *files[64];
  int nfiles = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--wave") == 0 && i + 1 < argc) wave = (uint32_t)atoi(argv[++i]);
    else if (nfiles < 64) files[nfiles++] = argv[i];
  }
  if (wave > 64) wave = 64;
  if (!nfiles)
    for (size_t i = 0; i < sizeof default_files / sizeof default_files[0]; i++) files[nfiles++] = default_files[i];
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  printf("%-22s %4s %9s %9s %7s %9s %9s %7s  %-10s", "kernel", "thr", "vector", "issued", "SIMD", "vector",
         "issued", "SIMD", "melded run");
#ifdef RECONV_HAVE_LLVM
  printf(" %9s %7s %9s %7s  %s", "issued", "SIMD", "issued", "SIMD", "melded run");
#endif
  printf("\n%-22s %4s %27s %27s", "", "", "-- reconverge,lower --", "-- meld,reconverge,lower --");
#ifdef RECONV_HAVE_LLVM
  printf(" %12s %-30s", "", "-- llvm-structurizecfg, meld+llvm-structurizecfg --");
#endif
  putchar('\n');
  for (int f = 0; f < nfiles; f++) {
    rc_module *m = rc_parse_file(&ctx, files[f]);
    if (!m) continue;
    for (uint32_t i = 0; i < m->nkernels; i++)
      if (!m->kernels[i]->is_function) bench_kernel(&ctx, m, m->kernels[i], m->kernels[i]->name, wave);
    rc_module_free(m);
  }
  /* generated kernels with duplicated, varied code on both sides of divergent branches */
  for (uint64_t seed = 1; seed <= 4; seed++) {
    rc_module *m = rc_module_new(&ctx, "gen");
    rc_gen_opts o;
    rc_gen_opts_init(&o);
    o.seed = seed;
    o.similar = true;
    o.blocks = 24;
    o.divergent = 0.7;
    char name[32];
    snprintf(name, sizeof name, "gen_similar_%llu", (unsigned long long)seed);
    o.name = name;
    rc_kernel *k = rc_gen_kernel(m, &o, NULL);
    if (k) bench_kernel(&ctx, m, k, name, wave);
    rc_module_free(m);
  }
  return 0;
}
