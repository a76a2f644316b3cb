/* Property: the wave-level machines do what the threads do. For 10,000 random kernels of
 * `reconv gen` (irreducible loops, several exits, switches, uniform and divergent branches and
 * loops) at wave sizes from 1 to 64:
 *   - the IPDOM-stack model runs the original kernel with the same trace per thread and the same
 *     final memory as the thread-level interpreter;
 *   - reconverge (a post-dominance-respecting ordering) followed by lower (default, flow-block
 *     variant, no empty-exec skip, no scalar instructions) runs on the wave simulator with the same
 *     traces (inserted blocks skipped) and memory.
 * And: under the orderings that do not respect post-dominance (DF, BF), reconverge may keep a
 * branch as !uniform that is not uniform at wave level; the wave simulator must then fault at that
 * branch — a wrong claim is always caught, never a silent difference. */
#include "test.h"

#include "reconv/gen.h"
#include "reconv/sim.h"
#include "reconv/transform.h"
#include "wave_outcome.h"

#include <stdlib.h>

static const uint32_t waves[] = {1, 3, 4, 7, 16, 32, 33, 64};
static const char *orders[] = {"dfpd", "bfpd", "rpot", "domreg", "auto"};
static const char *variants[] = {"", "[flow]", "[noskip]", "[noscalar]", "[flow,noskip]", "[skip-threshold=0]", "[zero-max=0]", "[noflow,zero-max=0]"};

/* The kernel of iteration it: a shape that varies with it. */
static rc_kernel *kernel_for(rc_module *m, unsigned it) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.seed = 5000 + it;
  o.blocks = 4 + it % 45;
  o.exits = 1 + (it % 7 == 3) + (it % 11 == 5) * (o.blocks >= 9);
  o.loops = o.blocks / 8 + (it % 3 == 0);
  o.irreducible = it % 3 == 0 && o.blocks >= 8;
  o.switches = it % 5 == 2;
  o.divergent = (it % 10) / 10.0;
  o.far = it % 11 == 3 ? 0.6 : it % 11 == 7 ? 0.0 : 0.15; /* mostly long jumps, or local ones only */
  o.threads = 1 + (it * 37) % 100;
  return rc_gen_kernel(m, &o, NULL);
}

static int spec_for(rc_ctx *ctx, const rc_kernel *k, uint32_t W, rc_run_spec *s) {
  rc_run_spec_init(s);
  if (rc_run_spec_parse_kernel(ctx, s, k) != 0) return -1;
  s->wave = W;
  /* the kernel's own step budget: it must hold for every transform of the kernel (inserted blocks
   * and the lowering's mask and register instructions are free) */
  return 0;
}

static void report(const char *what, unsigned it, const char *pipeline, uint32_t W, const char *why,
                   const test_diags *d) {
  fprintf(stderr, "%s: kernel %u (seed %u), %s, W=%u: %s\n%s", what, it, 5000 + it, pipeline ? pipeline : "",
          W, why, d->text);
}

TEST(ipdom_and_lowered_code_run_like_the_threads) {
  unsigned iters = test_scaled(10000), failures = 0, lowered = 0;
  for (unsigned it = 0; it < iters && failures < 5; it++) {
    test_diags d;
    test_diags_init(&d);
    d.ctx.verify_each = it % 16 == 0; /* the verifier after every pass, on a sample */
    rc_module *m = rc_module_new(&d.ctx, "random");
    rc_kernel *k = kernel_for(m, it);
    if (!k) {
      report("gen failed", it, NULL, 0, "", &d);
      failures++;
      rc_module_free(m);
      continue;
    }
    uint32_t W = waves[it % 8], W2 = waves[(it / 8 + 3) % 8];
    rc_run_spec s, s2;
    CHECK(spec_for(&d.ctx, k, W, &s) == 0 && spec_for(&d.ctx, k, W2, &s2) == 0);
    outcome ref, ip, wv;
    char why[700] = "";
    run_on(&d.ctx, MACHINE_THREADS, k, &s, &ref);
    CHECK_EQ_INT(ref.rc, 0);
    run_on(&d.ctx, MACHINE_IPDOM, k, &s, &ip);
    if (ref.rc == 0 && !same_outcome(k, &ref, k, &ip, why, sizeof why)) {
      report("IPDOM model differs", it, NULL, W, why, &d);
      failures++;
      CHECK(!"IPDOM model not equivalent");
    }
    char pipeline[80];
    snprintf(pipeline, sizeof pipeline, "reconverge[order=%s],lower%s", orders[it % 5], variants[(it / 5) % (sizeof variants / sizeof *variants)]);
    rc_kernel *w = rc_kernel_clone(m, k, "lowered");
    outcome ref2;
    run_on(&d.ctx, MACHINE_THREADS, k, &s2, &ref2);
    if (rc_pipeline_run(&d.ctx, w, pipeline, NULL, NULL) != 0) {
      report("pipeline failed", it, pipeline, W2, "", &d);
      failures++;
      CHECK(!"pipeline failed");
    } else {
      lowered++;
      run_on(&d.ctx, MACHINE_WAVE, w, &s2, &wv);
      if (ref2.rc == 0 && !same_outcome(k, &ref2, w, &wv, why, sizeof why)) {
        report("wave simulator differs", it, pipeline, W2, why, &d);
        failures++;
        CHECK(!"wave simulator not equivalent");
      }
      outcome_free(&wv);
    }
    outcome_free(&ref);
    outcome_free(&ref2);
    outcome_free(&ip);
    rc_run_spec_free(&s);
    rc_run_spec_free(&s2);
    rc_module_free(m);
  }
  printf("%u random kernels: IPDOM model and %u lowered kernels compared with the interpreter\n", iters, lowered);
}

TEST(a_false_uniform_claim_is_caught_by_the_wave_simulator) {
  unsigned iters = test_scaled(1500), caught = 0;
  for (unsigned it = 0; it < iters; it++) {
    test_diags d;
    test_diags_init(&d);
    rc_module *m = rc_module_new(&d.ctx, "random");
    rc_kernel *k = kernel_for(m, it);
    CHECK(k != NULL);
    if (!k) {
      fprintf(stderr, "%s", d.text);
      rc_module_free(m);
      continue;
    }
    /* every wave size; at W = 1 no branch can be non-uniform, so any fault is a false one (the step
     * budget once charged the lowering's phi reads: reconv gen --seed 1296 --blocks 76 --exits 1
     * --switches under order=bf faulted at W = 1) */
    uint32_t W = waves[it % 8];
    rc_run_spec s;
    CHECK(spec_for(&d.ctx, k, W, &s) == 0);
    rc_kernel *w = rc_kernel_clone(m, k, "lowered");
    const char *pipeline = it % 2 ? "reconverge[order=df],lower" : "reconverge[order=bf],lower";
    CHECK(rc_pipeline_run(&d.ctx, w, pipeline, NULL, NULL) == 0);
    outcome ref, wv;
    char why[700] = "";
    run_on(&d.ctx, MACHINE_THREADS, k, &s, &ref);
    run_on(&d.ctx, MACHINE_WAVE, w, &s, &wv);
    if (wv.rc != 0) {
      bool claim = W > 1 && wv.fault.happened && strstr(wv.fault.message, "the branch is not uniform") &&
                   strstr(wv.fault.message, "!uniform`");
      if (!claim) report("unexpected fault", it, pipeline, W, wv.fault.message, &d);
      CHECK(claim);
      caught++;
    } else if (!same_outcome(k, &ref, w, &wv, why, sizeof why)) {
      report("silent difference", it, pipeline, W, why, &d);
      CHECK(!"a lowered kernel differs without a fault");
    }
    outcome_free(&ref);
    outcome_free(&wv);
    rc_run_spec_free(&s);
    rc_module_free(m);
  }
  printf("%u kernels under DF/BF orderings at wave sizes 1..64: %u false !uniform claims caught\n", iters, caught);
}
