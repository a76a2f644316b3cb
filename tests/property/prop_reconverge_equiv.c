/* Property: reconverge preserves what every thread does. For thousands of random terminating kernels
 * (irreducible loops, several exits, uniform and divergent branches, phis) and every ordering, the
 * transformed kernel runs at thread level with the same trace per thread (flow blocks skipped) and
 * leaves the same memory as the original (DESIGN.md, trace equivalence). */
#include "test.h"

#include "random_kernel.h"
#include "reconv/sim.h"
#include "reconv/transform.h"

#include <stdlib.h>

static const char *orders[] = {"dfpd", "df", "bf", "bfpd", "rpot", "domreg"};

/* Run k on `threads` threads; 0 on success. */
static int run(rc_ctx *ctx, const rc_kernel *k, uint32_t threads, rc_memory *mem, rc_traces *tr) {
  rc_run_spec s;
  rc_run_spec_init(&s);
  char spec[160];
  snprintf(spec, sizeof spec, "--global %u --arg out=i32[N] --arg u=%u", threads, threads % 7);
  int rc = rc_run_spec_parse_string(ctx, &s, spec);
  if (rc == 0) rc = rc_memory_init(ctx, mem, &s, k);
  rc_fault fault = {0};
  rc_run_stats st;
  memset(&st, 0, sizeof st);
  if (rc == 0) rc = rc_interp_run(ctx, k, &s, mem, tr, &st, &fault);
  if (fault.happened) fprintf(stderr, "fault: %s\n", fault.message);
  rc_run_stats_free(&st);
  rc_run_spec_free(&s);
  return rc;
}

TEST(reconverge_is_trace_equivalent_on_random_kernels) {
  unsigned iters = test_scaled(3000);
  unsigned failures = 0, runs = 0;
  for (unsigned it = 0; it < iters && failures < 3; it++) {
    uint32_t n = 4 + it % 30;
    uint32_t threads = 1 + (it * 37) % 96;
    for (unsigned o = 0; o < sizeof orders / sizeof orders[0] && failures < 3; o++) {
      test_diags d;
      test_diags_init(&d);
      rc_module *m = rc_module_new(&d.ctx, "random");
      rc_kernel *k = random_kernel(m, 7000 + it, n, true);
      rc_kernel *t = rc_kernel_clone(m, k, "t");
      char pipeline[80];
      snprintf(pipeline, sizeof pipeline, "reconverge[order=%s,force%s]", orders[o], it % 2 ? ",cond2" : "");
      int rc = rc_pipeline_run(&d.ctx, t, pipeline, NULL, NULL);
      rc_memory ma = {0}, mb = {0};
      rc_traces ta = {0}, tb = {0};
      int ra = rc == 0 ? run(&d.ctx, k, threads, &ma, &ta) : -1;
      int rb = ra == 0 ? run(&d.ctx, t, threads, &mb, &tb) : -1;
      char why[512] = "";
      bool ok = rc == 0 && ra == 0 && rb == 0 && rc_traces_equivalent(k, &ta, t, &tb, why, sizeof why) &&
                rc_memory_equal(&ma, &mb, why, sizeof why);
      runs++;
      if (!ok) {
        failures++;
        fprintf(stderr, "seed %u blocks %u order %s threads %u: rc=%d ra=%d rb=%d %s\n%s", 7000 + it, n,
                orders[o], threads, rc, ra, rb, why, d.text);
        if (getenv("SHOW")) {
          rc_strbuf sb;
          rc_sb_init(&sb);
          rc_print_kernel(k, &sb);
          fprintf(stderr, "%s", sb.data);
          rc_sb_free(&sb);
        }
        CHECK(!"not equivalent");
      }
      rc_traces_free(&ta);
      rc_traces_free(&tb);
      rc_memory_free(&ma);
      rc_memory_free(&mb);
      rc_module_free(m);
    }
  }
  printf("%u transformed kernels compared\n", runs);
}
