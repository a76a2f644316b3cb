/* libFuzzer harness for reconverge (make fuzz runs it for millions of kernels): the input bytes
 * choose a generated kernel's shape (reconv gen) and an ordering; reconverge must succeed, give a
 * reconverging kernel that verifies, and leave every thread's trace and the memory as they were.
 * Any failure aborts, so libFuzzer keeps the input. */
#include "reconv/analysis.h"
#include "reconv/gen.h"
#include "reconv/sim.h"
#include "reconv/transform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void quiet(void *user, const rc_diag *d) {
  (void)user;
  (void)d;
}

static int run(rc_ctx *ctx, const rc_kernel *k, uint32_t threads, rc_memory *mem, rc_traces *tr) {
  rc_run_spec s;
  rc_run_spec_init(&s);
  int rc = rc_run_spec_parse_string(ctx, &s, k->run_spec);
  if (rc == 0) {
    rc_run_spec_resize(&s, threads);
    s.step_budget = 50u * 1000 * 1000;
    rc = rc_memory_init(ctx, mem, &s, k);
  }
  rc_fault fault = {0};
  rc_run_stats st;
  memset(&st, 0, sizeof st);
  if (rc == 0) rc = rc_interp_run(ctx, k, &s, mem, tr, &st, &fault);
  rc_run_stats_free(&st);
  rc_run_spec_free(&s);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 8) return 0;
  static const char *orders[] = {"dfpd", "df", "bf", "bfpd", "rpot", "domreg"};
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  memcpy(&o.seed, data, sizeof o.seed);
  o.blocks = 3 + data[0] % 60;
  o.exits = 1 + data[1] % 3;
  if (o.blocks < 2 * o.exits + 1) o.exits = 1;
  o.loops = data[2] % 6;
  if (o.loops > (o.blocks - 1 - o.exits) / 3) o.loops = (o.blocks - 1 - o.exits) / 3;
  o.nesting = 1 + data[3] % 4;
  o.irreducible = o.loops && (data[4] & 1);
  o.switches = data[4] & 2;
  o.divergent = (data[5] % 5) / 4.0;
  const char *order = orders[data[6] % 6];
  bool cond2 = data[7] & 1;

  rc_ctx ctx;
  rc_ctx_init(&ctx);
  ctx.diag = quiet;
  ctx.verify_each = true;
  rc_module *m = rc_module_new(&ctx, "fuzz");
  rc_kernel *k = rc_gen_kernel(m, &o, NULL);
  if (!k) { /* options the generator refuses */
    rc_module_free(m);
    return 0;
  }
  rc_kernel *t = rc_kernel_clone(m, k, "t");
  char pipeline[64];
  snprintf(pipeline, sizeof pipeline, "reconverge[order=%s%s]", order, cond2 ? ",cond2" : "");
  if (rc_pipeline_run(&ctx, t, pipeline, NULL, NULL) != 0) abort();
  rc_analysis a;
  rc_analysis_build(&a, t, 0);
  if (!rc_is_reconverging(t, &a.cfg, &a.pdom, &a.unif, NULL)) abort();
  rc_analysis_free(&a);
  rc_memory ma = {0}, mb = {0};
  rc_traces ta = {0}, tb = {0};
  char why[256];
  uint32_t threads = 1 + (data[7] >> 1) % 40; /* few: two interpreter runs per input */
  if (run(&ctx, k, threads, &ma, &ta) == 0) {
    if (run(&ctx, t, threads, &mb, &tb) != 0) abort();
    if (!rc_traces_equivalent(k, &ta, t, &tb, why, sizeof why)) abort();
    if (!rc_memory_equal(&ma, &mb, why, sizeof why)) abort();
  }
  rc_traces_free(&ta);
  rc_traces_free(&tb);
  rc_memory_free(&ma);
  rc_memory_free(&mb);
  rc_module_free(m);
  return 0;
}
