/* Property: barriers in uniform control flow stay there. Random kernels of `reconv gen` get a
 * barrier in every block where one is in uniform control flow (no divergent branch reaches the
 * block without the block post-dominating it: rc_divergent_barriers); then reconverge runs under
 * every ordering. Its output must hold no barrier in divergent control flow (the pass falls back
 * to another ordering, or fails with a message, but never returns such code), and the lowered
 * kernel must run on the wave simulator at several wave sizes like the threads on the interpreter,
 * barriers and all. So must the kernel lowered by the sweep lowerings (blockip, full-linearize),
 * which keep its CFG. */
#include "test.h"

#include "reconv/analysis.h"
#include "reconv/gen.h"
#include "reconv/sim.h"
#include "reconv/transform.h"
#include "barrier_placement.h"
#include "wave_outcome.h"

#include <stdlib.h>

static const char *orders[] = {"df", "dfpd", "bf", "bfpd", "rpot", "domreg", "auto"};
static const uint32_t waves[] = {1, 8, 32, 64};
static const char *sweeps[] = {"blockip", "full-linearize"};

static rc_kernel *kernel_for(rc_module *m, unsigned it) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.seed = 90000 + it;
  o.blocks = 4 + it % 30;
  o.exits = 1 + (it % 5 == 2);
  o.loops = o.blocks / 8;
  o.irreducible = it % 4 == 1 && o.blocks >= 8;
  o.switches = it % 6 == 3;
  o.divergent = 0.2 + (it % 5) / 10.0;
  o.threads = 64;
  return rc_gen_kernel(m, &o, NULL);
}

TEST(barriers_in_uniform_control_flow_stay_there_under_every_ordering) {
  unsigned iters = test_scaled(600), kernels_with_barriers = 0, fallbacks = 0, refused = 0, runs = 0, sweep_runs = 0;
  for (unsigned it = 0; it < iters; it++) {
    test_diags d;
    test_diags_init(&d);
    rc_module *m = rc_module_new(&d.ctx, "random");
    rc_kernel *k = kernel_for(m, it);
    CHECK(k != NULL);
    if (!k) {
      rc_module_free(m);
      continue;
    }
    if (place_barriers(k) == 0) {
      rc_module_free(m);
      continue;
    }
    kernels_with_barriers++;
    if (getenv("DUMP") && (unsigned)atoi(getenv("DUMP")) == it) { /* DUMP=N: kernel N with its barriers */
      rc_strbuf sb = {0};
      rc_print_kernel(k, &sb);
      fputs(sb.data, stderr);
      rc_sb_free(&sb);
    }
    CHECK(rc_verify_kernel(&d.ctx, k) == 0);
    const char *order = orders[it % 7];
    uint32_t W = waves[(it / 7) % 4];
    rc_kernel *t = rc_kernel_clone(m, k, "reconverged");
    char pipeline[64];
    snprintf(pipeline, sizeof pipeline, "reconverge[order=%s]", order);
    rc_stats st;
    rc_stats_init(&st);
    int rc = rc_pipeline_run(&d.ctx, t, pipeline, NULL, &st);
    if (rc != 0) {
      refused++; /* allowed: the pass says every ordering would break a barrier */
      if (getenv("SHOW_REFUSED")) fprintf(stderr, "refused: kernel %u (seed %u), %s\n", it, 90000 + it, pipeline);
      CHECK_STR_CONTAINS(d.text, "puts a barrier in divergent control flow");
    } else {
      fallbacks += rc_stats_get(&st, "order_fallback_for_barriers") != NULL;
      rc_analysis a;
      rc_analysis_build(&a, t, rc_uniformity_target_flags(t));
      uint32_t bad = rc_divergent_barriers(t, &a, NULL);
      rc_analysis_free(&a);
      if (bad) fprintf(stderr, "kernel %u, %s: %u barrier blocks in divergent control flow\n", it, pipeline, bad);
      CHECK_EQ_INT(bad, 0);
      /* lowered, the wave runs it like the threads */
      rc_kernel *w = rc_kernel_clone(m, t, "lowered");
      CHECK(rc_pipeline_run(&d.ctx, w, "lower", NULL, NULL) == 0);
      rc_run_spec s;
      rc_run_spec_init(&s);
      CHECK(rc_run_spec_parse_kernel(&d.ctx, &s, k) == 0);
      s.wave = W;
      outcome ref, wv;
      run_on(&d.ctx, MACHINE_THREADS, k, &s, &ref);
      if (ref.rc == 0) {
        runs++;
        run_on(&d.ctx, MACHINE_WAVE, w, &s, &wv);
        char why[700] = "";
        bool same = same_outcome(k, &ref, w, &wv, why, sizeof why);
        if (!same) fprintf(stderr, "kernel %u, %s, W=%u: %s\n", it, pipeline, W, why);
        CHECK(same);
        outcome_free(&wv);
        /* the sweep lowerings take the kernel as it is; a block with a barrier runs with every lane
         * of the wave or is skipped */
        for (unsigned p = 0; p < 2; p++) {
          rc_kernel *sw = rc_kernel_clone(m, k, sweeps[p]);
          CHECK(rc_pipeline_run(&d.ctx, sw, sweeps[p], NULL, NULL) == 0);
          run_on(&d.ctx, MACHINE_WAVE, sw, &s, &wv);
          same = same_outcome(k, &ref, sw, &wv, why, sizeof why);
          if (!same) fprintf(stderr, "kernel %u, %s, W=%u: %s\n", it, sweeps[p], W, why);
          CHECK(same);
          sweep_runs++;
          outcome_free(&wv);
        }
      }
      outcome_free(&ref);
      rc_run_spec_free(&s);
    }
    rc_stats_free(&st);
    rc_module_free(m);
  }
  printf("%u kernels with barriers in uniform control flow: %u ordering fallbacks, %u refused, %u wave runs "
         "checked, %u blockip and full-linearize runs\n", kernels_with_barriers, fallbacks, refused, runs, sweep_runs);
  CHECK(sweep_runs == 2 * runs);
  CHECK(kernels_with_barriers > iters / 4);
  CHECK(runs > kernels_with_barriers / 2);
  CHECK(refused * 20 < kernels_with_barriers); /* a fallback is the rule, a refusal the exception */
}
