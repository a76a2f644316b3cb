/* Property: the sweep lowerings run every kernel like the threads. For random kernels of `reconv
 * gen` (irreducible loops, several exits, switches, uniform and divergent branches, loops with
 * divergent exits), `blockip` (the Beignet note's per-lane block IPs) and `full-linearize` (every
 * block predicated) turn the thread kernel into a wave kernel; the wave simulator must run it with
 * the same trace per thread (dispatch blocks skipped) and the same final memory as the interpreter
 * runs the original, at wave sizes from 1 to 64. Neither pass may refuse a kernel: both take any
 * CFG as it is. */
#include "test.h"

#include "reconv/gen.h"
#include "reconv/sim.h"
#include "reconv/transform.h"
#include "wave_outcome.h"

#include <stdlib.h>

static const uint32_t waves[] = {1, 3, 8, 16, 32, 33, 64};
static const char *passes[] = {"blockip", "full-linearize"};

static rc_kernel *kernel_for(rc_module *m, unsigned it) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.seed = 70000 + it;
  o.blocks = 3 + it % 40;
  o.exits = 1 + (it % 5 == 1) + (it % 9 == 4) * (o.blocks >= 9);
  o.loops = o.blocks / 7 + (it % 3 == 0);
  o.irreducible = it % 3 == 1 && o.blocks >= 8;
  o.switches = it % 4 == 2;
  o.divergent = (it % 11) / 10.0;
  o.far = it % 7 == 3 ? 0.5 : 0.15;
  o.threads = 1 + (it * 53) % 128;
  return rc_gen_kernel(m, &o, NULL);
}

TEST(sweep_lowerings_run_like_the_threads) {
  unsigned iters = test_scaled(5000), failures = 0, runs = 0;
  for (unsigned it = 0; it < iters && failures < 5; it++) {
    test_diags d;
    test_diags_init(&d);
    d.ctx.verify_each = true;
    rc_module *m = rc_module_new(&d.ctx, "random");
    rc_kernel *k = kernel_for(m, it);
    CHECK(k != NULL);
    if (!k) {
      fprintf(stderr, "gen failed: kernel %u\n%s", it, d.text);
      rc_module_free(m);
      continue;
    }
    for (unsigned p = 0; p < 2; p++) {
      rc_run_spec s;
      rc_run_spec_init(&s);
      CHECK(rc_run_spec_parse_kernel(&d.ctx, &s, k) == 0);
      s.wave = waves[(it + p * 3) % 7];
      rc_kernel *w = rc_kernel_clone(m, k, passes[p]);
      if (rc_pipeline_run(&d.ctx, w, passes[p], NULL, NULL) != 0) {
        fprintf(stderr, "%s refused kernel %u (seed %u):\n%s", passes[p], it, 70000 + it, d.text);
        failures++;
        CHECK(!"a sweep lowering refused a kernel");
        rc_run_spec_free(&s);
        continue;
      }
      outcome ref, wv;
      char why[700] = "";
      run_on(&d.ctx, MACHINE_THREADS, k, &s, &ref);
      if (ref.rc == 0) {
        runs++;
        run_on(&d.ctx, MACHINE_WAVE, w, &s, &wv);
        if (!same_outcome(k, &ref, w, &wv, why, sizeof why)) {
          fprintf(stderr, "%s: kernel %u (seed %u), W=%u: %s\n", passes[p], it, 70000 + it, s.wave, why);
          failures++;
          CHECK(!"a swept kernel is not equivalent");
        }
        outcome_free(&wv);
      }
      outcome_free(&ref);
      rc_run_spec_free(&s);
    }
    rc_module_free(m);
  }
  printf("%u random kernels: %u blockip and full-linearize runs compared with the interpreter\n", iters, runs);
}
