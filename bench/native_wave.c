/* bench_native_wave: the native wave backend on the clock, against one work-item at a time (issue
 * 26: "bench/ has a program that prints, per kernel, the native wave time against the native
 * oracle's one-work-item-at-a-time time (the same LLVM, -O2, host CPU)").
 *
 * For every OpenCL C kernel with a run specification, compiled by clang for spir64 (the target
 * both sides run), launched --scale K times as large (rc_run_spec_scale, so that a run lasts long
 * enough to time):
 *   scalar  the module compiled by LLVM for this machine's CPU at -O2 (rc_native_tune_for_host:
 *           LLVM's own auto-vectorisation allowed) and run one work-item at a time by the native
 *           oracle's launcher;
 *   wave    the kernel lowered by -p (default reconverge,lower) and run by the native wave backend,
 *           W lanes per wave in vector registers;
 * each the minimum of --repeat R runs after the first (the JIT's compile time is not counted), in
 * nanoseconds per work-item, and the wave run's memory checked against reconv's interpreter. One
 * row per kernel, then the geometric mean of the speedups (scalar time / wave time) over the
 * kernels whose wave run was equivalent, overall and split by whether reconv's uniformity
 * analysis finds a divergent branch in the kernel. Timings are figures, never test verdicts.
 *
 *   bench_native_wave [--wave W] [--scale K] [--repeat R] [-p PIPELINE] [FILE|DIR ...]
 *       default: examples/kernels and tests/corpus of the current directory */
#include "reconv/analysis.h"
#include "reconv/llvm.h"
#include "reconv/native.h"
#include "reconv/native_wave.h"
#include "reconv/sim.h"
#include "reconv/transform.h"

#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct bench_opts {
  uint32_t wave, scale, repeat;
  const char *pipeline;
} bench_opts;

typedef struct totals {
  double log_sum[2]; /* by has-divergent-branches */
  unsigned n[2], failed, skipped;
} totals;

static void quiet(void *user, const rc_diag *d) {
  (void)user;
  (void)d;
}

static bool has_divergent_branch(const rc_kernel *k) {
  rc_analysis a;
  rc_analysis_build(&a, k, rc_uniformity_target_flags(k));
  bool any = false;
  for (uint32_t b = 0; b < k->nblocks && !any; b++) any = a.unif.divergent_branch[b] != 0;
  rc_analysis_free(&a);
  return any;
}

/* The wave row: lowered, compiled, run; 0 and *ns, or -1 with why. */
static int wave_row(rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const bench_opts *o, const rc_memory *ref,
                    double *ns, char *why, size_t n) {
  /* a copy in k's own module, which holds the device functions and globals it refers to */
  char name[300];
  snprintf(name, sizeof name, "%.200s.wave", k->name);
  rc_kernel *w = rc_kernel_clone(k->mod, k, name);
  rc_memory mem = {0};
  int rc = -1;
  snprintf(why, n, "the pipeline failed");
  if (w && rc_inline_calls(w, 100000, NULL) >= 0 && rc_pipeline_run(ctx, w, o->pipeline, NULL, NULL) == 0) {
    rc_native_wave_opts wo = {.wave = o->wave};
    rc_native_wave *nw = rc_native_wave_open(ctx, w, &wo);
    rc_native_timing t = {.repeat = o->repeat, .threads = 1};
    rc_fault fault = {0};
    snprintf(why, n, "the backend refused it");
    if (nw && rc_memory_init(ctx, &mem, s, w) == 0 && rc_native_wave_run(nw, s, &mem, &t, &fault) == 0) {
      rc = rc_memory_equal(ref, &mem, why, n) ? 0 : -1;
      *ns = (double)t.best_ns;
    } else if (fault.happened) {
      snprintf(why, n, "%s", fault.message);
    }
    rc_native_wave_close(nw);
  }
  rc_memory_free(&mem);
  if (w) rc_module_remove_kernel(k->mod, w);
  return rc;
}

static void bench_kernel(rc_ctx *ctx, const char *path, const rc_llvm_import_opts *io, rc_native *shared,
                         rc_kernel *k, const bench_opts *o, totals *tot) {
  if (!k->run_spec || k->is_function) return;
  rc_run_spec s;
  rc_run_spec_init(&s);
  if (rc_run_spec_parse_kernel(ctx, &s, k) != 0 || rc_run_spec_scale(&s, o->scale) != 0) {
    rc_run_spec_free(&s);
    tot->skipped++;
    return;
  }
  s.wave = o->wave;
  uint64_t items = rc_run_spec_threads(&s);
  rc_memory ref = {0}, scalar_mem = {0};
  rc_fault fault = {0};
  double scalar_ns = 0, wave_ns = 0;
  char why[600] = "";
  bool divergent = has_divergent_branch(k);
  if (rc_memory_init(ctx, &ref, &s, k) != 0 || rc_interp_run(ctx, k, &s, &ref, NULL, NULL, &fault) != 0) {
    printf("%-40s %-22s  the interpreter fails: skipped\n", path, k->name);
    tot->skipped++;
    goto out;
  }
  rc_native *nat = rc_native_open(ctx, path, io, k, NULL, shared);
  rc_native_timing t = {.repeat = o->repeat, .threads = 1};
  if (!nat || rc_native_tune_for_host(nat) != 0 || rc_memory_init(ctx, &scalar_mem, &s, k) != 0 ||
      rc_native_run_timed(nat, &s, &scalar_mem, &t, &fault) != 0) {
    printf("%-40s %-22s  the one-work-item-at-a-time run fails: skipped\n", path, k->name);
    tot->skipped++;
    rc_native_close(nat);
    goto out;
  }
  rc_native_close(nat);
  scalar_ns = (double)t.best_ns;
  int rc = wave_row(ctx, k, &s, o, &ref, &wave_ns, why, sizeof why);
  double per_s = scalar_ns / (double)items, per_w = wave_ns / (double)items;
  if (rc != 0) {
    printf("%-40s %-22s %8" PRIu64 " %10.2f %10s  NOT EQUIVALENT: %.120s\n", path, k->name, items, per_s, "-", why);
    tot->failed++;
    goto out;
  }
  double speedup = wave_ns > 0 ? scalar_ns / wave_ns : 0;
  printf("%-40s %-22s %8" PRIu64 " %10.2f %10.2f %8.2fx  %s\n", path, k->name, items, per_s, per_w, speedup,
         divergent ? "divergent" : "uniform");
  if (speedup > 0) {
    tot->log_sum[divergent] += log(speedup);
    tot->n[divergent]++;
  }
out:
  rc_memory_free(&ref);
  rc_memory_free(&scalar_mem);
  rc_run_spec_free(&s);
}

static void bench_file(const char *path, const bench_opts *o, totals *tot) {
  size_t len = strlen(path);
  if (len < 3 || strcmp(path + len - 3, ".cl") != 0) return;
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  ctx.diag = quiet;
  rc_llvm_import_opts io = {0};
  io.target = "spir64-unknown-unknown";
  rc_module *m = rc_llvm_import_file(&ctx, path, &io);
  if (!m) {
    tot->skipped++;
    return;
  }
  for (uint32_t i = 0; i < m->nkernels; i++) bench_kernel(&ctx, path, &io, NULL, m->kernels[i], o, tot);
  rc_module_free(m);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A file, or every .cl file under a directory (sorted). */
static void bench_path(const char *path, const bench_opts *o, totals *tot) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "bench_native_wave: no such file or directory: %s\n", path);
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    bench_file(path, o, tot);
    return;
  }
  DIR *d = opendir(path);
  if (!d) return;
  RC_VEC(char *) names = {0};
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    rc_strbuf p;
    rc_sb_init(&p);
    rc_sb_printf(&p, "%s/%s", path, e->d_name);
    rc_vec_push(&names, p.data);
  }
  closedir(d);
  qsort(names.data, names.len, sizeof *names.data, cmp_str);
  for (uint32_t i = 0; i < names.len; i++) {
    bench_path(names.data[i], o, tot);
    free(names.data[i]);
  }
  rc_vec_free(&names);
}

int main(int argc, char **argv) {
  bench_opts o = {16, 64, 5, "reconverge,lower"};
  totals tot = {{0, 0}, {0, 0}, 0, 0};
  const char *paths[64];
  int npaths = 0;
  for (int i = 1; i < argc; i++) {
    if (i + 1 < argc && strcmp(argv[i], "--wave") == 0) o.wave = (uint32_t)atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--scale") == 0) o.scale = (uint32_t)atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--repeat") == 0) o.repeat = (uint32_t)atoi(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "-p") == 0) o.pipeline = argv[++i];
    else if (argv[i][0] == '-') {
      fprintf(stderr, "usage: bench_native_wave [--wave W] [--scale K] [--repeat R] [-p PIPELINE] [FILE|DIR ...]\n");
      return 2;
    } else if (npaths < 64) paths[npaths++] = argv[i];
  }
  if (!npaths) paths[npaths++] = "examples/kernels", paths[npaths++] = "tests/corpus";
  printf("native wave backend (-p %s, W=%u) against one work-item at a time (LLVM -O2, this machine's CPU);\n"
         "launches scaled by %u, best of %u timed runs after the first, ns per work-item\n\n",
         o.pipeline, o.wave, o.scale, o.repeat);
  printf("%-40s %-22s %8s %10s %10s %9s\n", "file", "kernel", "items", "scalar", "wave", "speedup");
  for (int i = 0; i < npaths; i++) bench_path(paths[i], &o, &tot);
  unsigned n = tot.n[0] + tot.n[1];
  double all = n ? exp((tot.log_sum[0] + tot.log_sum[1]) / n) : 0;
  printf("\ngeometric mean of the speedups: %.2fx over %u kernels (%u with divergent branches: %.2fx; %u uniform "
         "only: %.2fx); %u not equivalent, %u skipped\n",
         all, n, tot.n[1], tot.n[1] ? exp(tot.log_sum[1] / tot.n[1]) : 0, tot.n[0],
         tot.n[0] ? exp(tot.log_sum[0] / tot.n[0]) : 0, tot.failed, tot.skipped);
  return 0;
}
