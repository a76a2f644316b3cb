/* bench_reconverge: time and peak memory of the reconverge pass on generated kernels of 10^3 ...
 * 10^6 blocks (reconv gen shapes: nested loops, some irreducible, several exits, half the branches
 * divergent). Prints one line per size and the growth factor of the time per tenfold size.
 * Targets (issue 4): 10^6 blocks in under 3 s and 2 GB, ×10 blocks <= ×13 time.
 *
 * FAR is the generator's share of branch targets anywhere ahead (reconv gen --far, default 0.15).
 * Such jumps cross many loops and regions, and the open edges they leave are forwarded through
 * the chains of flow blocks between them, so the output itself grows faster than the input; with
 * FAR = 0 every jump is local and the output stays proportional.
 *
 * "peak MB" is the process's peak resident memory, generated input included; "pass MB" is that
 * peak less the memory resident when the pass started (Linux: /proc/self/statm), i.e. what the
 * pass itself added at its peak (the output and its scratch).
 *
 *   build/bench/bench_reconverge [max_blocks] [order] [far]
 */
#include "gen_shape.h"
#include "reconv/gen.h"
#include "reconv/transform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* Resident memory now, in MB, or -1 where /proc/self/statm is missing. */
static double resident_mb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, resident = -1;
  if (f) {
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
    fclose(f);
  }
  return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024.0) / 1024.0;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  uint32_t max = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000;
  const char *order = argc > 2 ? argv[2] : "dfpd";
  double far = argc > 3 ? strtod(argv[3], NULL) : 0.15;
  char pipeline[64];
  snprintf(pipeline, sizeof pipeline, "reconverge[order=%s]", order);
  printf("order %s, far %.2f\n", order, far);
  printf("%10s %10s %10s %10s %12s %10s %10s %8s\n", "blocks", "after", "flow", "seconds", "blocks/s",
         "peak MB", "pass MB", "x time");
  double prev = 0;
  for (uint32_t n = 1000; n <= max; n *= 10) {
    rc_ctx ctx;
    rc_ctx_init(&ctx);
    ctx.verify_each = false; /* time the pass, not the verifier */
    rc_module *m = rc_module_new(&ctx, "bench");
    rc_gen_opts o;
    bench_gen_shape(&o, 42, n);
    o.far = far;
    rc_kernel *k = rc_gen_kernel(m, &o, NULL);
    if (!k) return 1;
    rc_stats st;
    rc_stats_init(&st);
    double before_mb = resident_mb();
    double t0 = now();
    int rc = rc_pipeline_run(&ctx, k, pipeline, NULL, &st);
    double t = now() - t0;
    if (rc) {
      fprintf(stderr, "reconverge failed at %u blocks\n", n);
      return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const rc_stat *flow = rc_stats_get(&st, "flow_blocks");
    double peak_mb = ru.ru_maxrss / 1024.0;
    printf("%10u %10u %10lld %10.3f %12.0f %10.1f %10.1f %8s", n, k->nblocks, flow ? (long long)flow->ival : 0, t,
           n / t, peak_mb, before_mb < 0 ? -1.0 : peak_mb - before_mb, "");
    if (prev > 0) printf("\b\b\b\b\b\b\b\b%8.1f", t / prev);
    printf("\n");
    fflush(stdout);
    prev = t;
    rc_stats_free(&st);
    rc_module_free(m);
  }
  return 0;
}
