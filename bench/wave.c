/* Benchmark of the wave-level machines: simulator speed in active lane-instructions per second at
 * W = 32 (target: above 200 million on one core), for
 *   - hashloop: a loop with a per-thread trip count and a divergent if-else inside (arithmetic,
 *     a phi-carried hash, a store per iteration), lowered with reconverge,lower;
 *   - gen: a random kernel of `reconv gen` (64 blocks, loops, half the branches divergent);
 * each on the wave simulator and on the IPDOM-stack model. Times are CPU seconds of the thread (best
 * of three runs), so a busy machine does not distort them much.
 *
 *   bench_wave [THREADS]      default 16384 threads
 */
#include "reconv/gen.h"
#include "reconv/sim.h"
#include "reconv/transform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time of this thread: the machine may be shared, and the target is per core */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char hashloop[] =
    "kernel @hashloop(ptr %out, i32 %n) {\n"
    "entry:\n"
    "  %tid = call i32 @global_id(i32 0)\n"
    "  %slot = gep %out, i32 %tid, 4\n"
    "  %t7 = and i32 %tid, 63\n"
    "  %trip = add i32 %t7, %n\n"
    "  jmp head\n"
    "head:\n"
    "  %i = phi i32 [0, entry], [%i1, latch]\n"
    "  %h = phi i32 [%tid, entry], [%h2, latch]\n"
    "  %more = icmp slt i32 %i, %trip\n"
    "  br %more, body, exit\n"
    "body:\n"
    "  %a = mul i32 %h, 1664525\n"
    "  %b = add i32 %a, 1013904223\n"
    "  %c = xor i32 %b, %i\n"
    "  %odd = and i32 %c, 1\n"
    "  %isodd = icmp ne i32 %odd, 0\n"
    "  br %isodd, odd, even\n"
    "odd:\n"
    "  %o1 = lshr i32 %c, 3\n"
    "  %o2 = xor i32 %o1, %c\n"
    "  %o3 = mul i32 %o2, 2246822519\n"
    "  jmp latch\n"
    "even:\n"
    "  %e1 = shl i32 %c, 2\n"
    "  %e2 = add i32 %e1, %c\n"
    "  %e3 = xor i32 %e2, 374761393\n"
    "  %e4 = add i32 %e3, %i\n"
    "  jmp latch\n"
    "latch:\n"
    "  %h2 = phi i32 [%o3, odd], [%e4, even]\n"
    "  store i32 %h2, %slot\n"
    "  %i1 = add i32 %i, 1\n"
    "  jmp head\n"
    "exit:\n"
    "  ret\n"
    "}\n";

typedef int (*machine_fn)(rc_ctx *, const rc_kernel *, const rc_run_spec *, rc_memory *, rc_traces *,
                          rc_run_stats *, rc_fault *, rc_timeline *);

/* Run k on a machine a few times; print the best speed. */
static void measure(rc_ctx *ctx, const char *what, machine_fn run, const rc_kernel *k, const char *spec) {
  rc_run_spec s;
  rc_run_spec_init(&s);
  if (rc_run_spec_parse_string(ctx, &s, spec) != 0) exit(1);
  double best = 1e30;
  rc_run_stats st;
  memset(&st, 0, sizeof st);
  for (int rep = 0; rep < 3; rep++) {
    rc_memory mem = {0};
    rc_fault fault = {0};
    if (rc_memory_init(ctx, &mem, &s, k) != 0) exit(1);
    rc_run_stats_free(&st);
    double t0 = now();
    if (run(ctx, k, &s, &mem, NULL, &st, &fault, NULL) != 0) {
      fprintf(stderr, "%s: %s\n", what, fault.message);
      exit(1);
    }
    double t = now() - t0;
    if (t < best) best = t;
    rc_memory_free(&mem);
  }
  printf("%-28s %8.3f s CPU  %12llu active lane-instructions  %7.1f M/s  (SIMD efficiency %.1f%%, "
         "%llu vector, %llu scalar, %llu mask instructions)\n",
         what, best, (unsigned long long)st.active_lane_instrs, st.active_lane_instrs / best / 1e6,
         100.0 * rc_simd_efficiency(&st), (unsigned long long)st.vector_instrs,
         (unsigned long long)st.scalar_instrs, (unsigned long long)st.mask_instrs);
  rc_run_stats_free(&st);
  rc_run_spec_free(&s);
}

static rc_kernel *lowered(rc_ctx *ctx, rc_module *m, const rc_kernel *k, const char *name) {
  rc_kernel *c = rc_kernel_clone(m, k, name);
  if (!c || rc_pipeline_run(ctx, c, "reconverge,lower", NULL, NULL) != 0) exit(1);
  return c;
}

int main(int argc, char **argv) {
  unsigned threads = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 16384;
  if (threads < 1) threads = 1;
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  rc_module *m = rc_parse_module(&ctx, "hashloop.rir", hashloop, sizeof hashloop - 1);
  if (!m) return 1;
  rc_kernel *k = m->kernels[0];
  rc_kernel *w = lowered(&ctx, m, k, "hashloop_wave");
  char spec[256];
  snprintf(spec, sizeof spec, "--global %u --local 256 --wave 32 --arg out=i32[N] --arg n=40", threads);
  printf("bench_wave: %u threads, W = 32\n", threads);
  measure(&ctx, "hashloop, wave simulator", (machine_fn)rc_wave_run, w, spec);
  measure(&ctx, "hashloop, IPDOM model", (machine_fn)rc_ipdom_run, k, spec);

  rc_gen_opts go;
  rc_gen_opts_init(&go);
  go.blocks = 64;
  go.seed = 7;
  go.threads = threads;
  rc_gen_info info;
  rc_kernel *g = rc_gen_kernel(m, &go, &info);
  if (!g) return 1;
  rc_kernel *gw = lowered(&ctx, m, g, "gen_wave");
  rc_run_spec gs;
  rc_run_spec_init(&gs);
  if (rc_run_spec_parse_kernel(&ctx, &gs, g) != 0) return 1;
  /* the generated kernel's own arguments, at W = 32 and a generous step budget */
  char gspec[512];
  snprintf(gspec, sizeof gspec, "%s --wave 32 --steps 100000000", g->run_spec);
  rc_run_spec_free(&gs);
  measure(&ctx, "gen (64 blocks), wave sim", (machine_fn)rc_wave_run, gw, gspec);
  measure(&ctx, "gen (64 blocks), IPDOM", (machine_fn)rc_ipdom_run, g, gspec);
  rc_module_free(m);
  return 0;
}
