/* bench_scaling: how compile time and memory grow with the kernel (issue 31). For each shape of
 * `reconv gen` kernel and each size 10^3, 10^4, ... up to MAX blocks, times
 *   analysis     rc_analysis_build (CFG, dominators, post-dominators, cycles, uniformity) on the
 *                generated kernel;
 *   reconverge   the pass with order=auto (what a driver runs: RPOT on a reducible CFG of over
 *                1,000 blocks, DFPD otherwise, every candidate on smaller ones, costed by the
 *                cost model), and with order=dfpd where auto chose otherwise, so that every
 *                ordering auto can choose is measured;
 *   lower        the pass on the kernel reconverge[order=auto] made (not timed itself);
 * and prints CPU seconds, the peak resident memory during the phase ("peak MB", the input included)
 * and what the phase added to it ("added MB"), and "x/block": the growth of the time per block
 * from the previous size (1.0: linear; 2.0 is issue 31's bar from 10^4 to 10^5).
 *
 * Every measurement runs in a forked child, so that peaks do not accumulate and one phase's heap
 * does not slow the next; the peak is the child's VmHWM, reset (clear_refs) after the kernel is
 * generated. Time is the minimum over --reps runs (default 3; sizes of 10^6 run once), each in a
 * child of its own. The machine may be shared and noisy: compare ratios from one run.
 *
 * Shapes (bench_gen_shape's defaults, bench/gen_shape.h, but for what the name says):
 *   default     far 0.15, 4 exits, second loop entries (irreducible)
 *   local       far 0: every jump within 8 blocks
 *   far50       far 0.5
 *   switches    multi-way switches too (lowered to chains of branches before reconverge)
 *   reducible   no second loop entries
 *   exits32     32 exits
 *
 *   bench_scaling [--max N] [--lower-max N] [--min N] [--shapes a,b,...] [--phases a,b,...]
 *                 [--reps R] [--json]
 *
 * --max defaults to 10^5 (10^6 takes minutes per shape and GBs); lower stops at --lower-max, 10^4
 * by default: it is still quadratic (issue 31, docs/reconverge.md "Scaling"), and 10^5 blocks take
 * minutes. --json prints one JSON object per measurement instead of the table. */
#include "gen_shape.h"
#include "reconv/analysis.h"
#include "reconv/gen.h"
#include "reconv/transform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct shape {
  const char *name;
  double far;
  bool irreducible, switches;
  uint32_t exits;
} shape;

static const shape shapes[] = {
    {"default", 0.15, true, false, 4}, {"local", 0, true, false, 4},      {"far50", 0.5, true, false, 4},
    {"switches", 0.15, true, true, 4}, {"reducible", 0.15, false, false, 4}, {"exits32", 0.15, true, false, 32},
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

enum { PHASE_ANALYSIS, PHASE_RECONVERGE, PHASE_DFPD, PHASE_LOWER, NPHASES };
static const char *const phase_names[NPHASES] = {"analysis", "reconverge", "reconverge-dfpd", "lower"};

/* What a child reports. */
typedef struct measure {
  double seconds, peak_mb, added_mb;
  uint32_t blocks_out;
  char order[16]; /* the ordering reconverge ran (reconverge phases) */
  int ok;
} measure;

/* CPU time of this process (the child): other work on a shared machine slows it less than it
 * slows the wall clock */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* A field of /proc/self/status in MB (VmRSS, VmHWM), or -1 where there is none. */
static double status_mb(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  double mb = -1;
  size_t len = strlen(field);
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, field, len) == 0 && line[len] == ':') {
      mb = strtod(line + len + 1, NULL) / 1024.0;
      break;
    }
  if (f) fclose(f);
  return mb;
}

/* Reset the peak resident memory to what is resident now (Linux 4.0 and later). */
static void reset_peak(void) {
  FILE *f = fopen("/proc/self/clear_refs", "w");
  if (f) {
    fputs("5", f);
    fclose(f);
  }
}

static rc_kernel *generate(rc_module *m, const shape *sh, uint32_t n) {
  rc_gen_opts o;
  bench_gen_shape(&o, 42, n);
  o.far = sh->far;
  o.irreducible = sh->irreducible;
  o.switches = sh->switches;
  o.exits = sh->exits;
  return rc_gen_kernel(m, &o, NULL);
}

static void order_of(const rc_stats *st, char *out, size_t cap) {
  const rc_stat *s = rc_stats_get(st, "order");
  snprintf(out, cap, "%.15s", s && s->is_string ? s->sval : "-");
}

/* One measurement, in the child. */
static measure run_phase(const shape *sh, uint32_t n, int phase) {
  measure r = {0};
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  ctx.verify_each = false; /* time the passes, not the verifier */
  rc_module *m = rc_module_new(&ctx, "bench");
  rc_kernel *k = generate(m, sh, n);
  if (!k) return r;
  rc_stats st;
  rc_stats_init(&st);
  if (phase == PHASE_LOWER && rc_pipeline_run(&ctx, k, "reconverge[order=auto]", NULL, &st)) return r;
  reset_peak();
  double before = status_mb("VmRSS"), t0 = now();
  int rc = 0;
  if (phase == PHASE_ANALYSIS) {
    rc_analysis a;
    rc = rc_analysis_build(&a, k, 0);
    r.seconds = now() - t0;
    if (!rc) rc_analysis_free(&a);
  } else {
    const char *pipeline = phase == PHASE_RECONVERGE ? "reconverge[order=auto]"
                           : phase == PHASE_DFPD     ? "reconverge[order=dfpd]"
                                                     : "lower";
    if (phase == PHASE_LOWER) rc_stats_free(&st), rc_stats_init(&st);
    rc = rc_pipeline_run(&ctx, k, pipeline, NULL, &st);
    r.seconds = now() - t0;
    order_of(&st, r.order, sizeof r.order);
  }
  r.peak_mb = status_mb("VmHWM");
  r.added_mb = before < 0 || r.peak_mb < 0 ? -1 : r.peak_mb - before;
  r.blocks_out = k->nblocks;
  r.ok = rc == 0;
  rc_stats_free(&st);
  rc_module_free(m);
  return r;
}

/* One measurement in a forked child; ok == 0 when it failed or crashed. */
static measure measure_in_child(const shape *sh, uint32_t n, int phase) {
  measure r = {0};
  int fd[2];
  if (pipe(fd)) return r;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    measure c = run_phase(sh, n, phase);
    ssize_t w = write(fd[1], &c, sizeof c);
    _exit(w == (ssize_t)sizeof c ? 0 : 1);
  }
  close(fd[1]);
  if (pid < 0 || read(fd[0], &r, sizeof r) != (ssize_t)sizeof r) r.ok = 0;
  close(fd[0]);
  if (pid > 0) waitpid(pid, NULL, 0);
  return r;
}

static bool listed(const char *list, const char *name) {
  if (!list) return true;
  size_t len = strlen(name);
  for (const char *p = list; (p = strstr(p, name)); p += len)
    if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == 0)) return true;
  return false;
}

int main(int argc, char **argv) {
  uint32_t max = 100000, lower_max = 10000, min = 1000;
  int reps = 3;
  bool json = false;
  const char *only_shapes = NULL, *only_phases = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max") && i + 1 < argc) max = (uint32_t)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--lower-max") && i + 1 < argc) lower_max = (uint32_t)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--min") && i + 1 < argc) min = (uint32_t)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) only_shapes = argv[++i];
    else if (!strcmp(argv[i], "--phases") && i + 1 < argc) only_phases = argv[++i];
    else if (!strcmp(argv[i], "--json")) json = true;
    else {
      fprintf(stderr, "usage: bench_scaling [--max N] [--lower-max N] [--min N] [--shapes a,b] [--phases a,b] [--reps R] [--json]\n"
                      "shapes: default local far50 switches reducible exits32\n"
                      "phases: analysis reconverge reconverge-dfpd lower\n");
      return strcmp(argv[i], "--help") ? 2 : 0;
    }
  }
  if (reps < 1) reps = 1;
  if (!json)
    printf("%-10s %-16s %8s %6s %10s %9s %9s %10s %8s\n", "shape", "phase", "blocks", "order", "cpu s",
           "peak MB", "added MB", "blocks out", "x/block");
  for (int s = 0; s < NSHAPES; s++) {
    if (!listed(only_shapes, shapes[s].name)) continue;
    for (int p = 0; p < NPHASES; p++) {
      if (!listed(only_phases, phase_names[p])) continue;
      /* DFPD is what auto runs on an irreducible CFG: a row of its own only on the reducible shape */
      if (p == PHASE_DFPD && shapes[s].irreducible) continue;
      double prev = 0;
      uint32_t prev_n = 0;
      uint32_t top = p == PHASE_LOWER && lower_max < max ? lower_max : max;
      for (uint32_t n = min; n <= top && n >= min; n *= 10) {
        measure best = {0};
        int runs = n >= 1000000 ? 1 : reps;
        for (int r = 0; r < runs; r++) {
          measure m = measure_in_child(&shapes[s], n, p);
          if (!m.ok) {
            best.ok = 0;
            break;
          }
          double peak = best.ok && best.peak_mb > m.peak_mb ? best.peak_mb : m.peak_mb;
          double added = best.ok && best.added_mb > m.added_mb ? best.added_mb : m.added_mb;
          if (!best.ok || m.seconds < best.seconds) best = m;
          best.peak_mb = peak, best.added_mb = added;
        }
        double growth = prev > 0 && best.ok ? (best.seconds / n) / (prev / prev_n) : 0;
        if (json) {
          printf("{\"shape\": \"%s\", \"phase\": \"%s\", \"blocks\": %u, \"ok\": %s, \"order\": \"%s\", "
                 "\"cpu_seconds\": %.6f, \"peak_mb\": %.1f, \"added_mb\": %.1f, \"blocks_out\": %u, "
                 "\"growth_per_block\": %.3f}\n",
                 shapes[s].name, phase_names[p], n, best.ok ? "true" : "false", best.ok ? best.order : "",
                 best.seconds, best.peak_mb, best.added_mb, best.blocks_out, growth);
        } else if (!best.ok) {
          printf("%-10s %-16s %8u  failed\n", shapes[s].name, phase_names[p], n);
        } else {
          printf("%-10s %-16s %8u %6s %10.3f %9.1f %9.1f %10u", shapes[s].name, phase_names[p], n,
                 p == PHASE_ANALYSIS ? "" : best.order, best.seconds, best.peak_mb, best.added_mb, best.blocks_out);
          if (growth > 0) printf(" %8.2f", growth);
          printf("\n");
        }
        fflush(stdout);
        if (!best.ok) break;
        prev = best.seconds, prev_n = n;
      }
    }
  }
  return 0;
}
