/* Property: meld (DARM control-flow melding, docs/meld.md) keeps every thread's effects. For 6,000
 * random kernels of `reconv gen --similar` (duplicated, slightly varied code on both sides of
 * divergent branches; diamonds with isomorphic and non-isomorphic sides; loops, irreducible loops,
 * several exits and switches mixed in), melded at thresholds 0, 0.1, 0.2 and 0.4:
 *   - the melded kernel, at thread level, performs per thread the same stores, atomics and barriers
 *     with the same addresses and values, in the same order (effect traces), and leaves the same
 *     memory as the original (rc_effects_equivalent, rc_memory_equal); it never faults where the
 *     original does not (an unaligned load or division runs only for the threads that ran it);
 *   - on a sample, meld,reconverge,lower runs on the wave simulator at wave sizes 1..64 with the
 *     same effect traces and memory;
 *   - the IR is valid after every pass on a sample (ctx.verify_each).
 * Irreducible and multi-exit kernels are included: regions meld cannot handle are left alone and
 * counted in its statistics (meld_left_alone_*), which this test sums up. */
#include "test.h"

#include "reconv/gen.h"
#include "reconv/sim.h"
#include "reconv/transform.h"

#include <stdlib.h>

static const uint32_t waves[] = {1, 3, 4, 7, 16, 32, 33, 64};
static const char *thresholds[] = {"0.2", "0.1", "0.4", "0"};

typedef struct outcome {
  rc_memory mem;
  rc_traces tr;
  rc_fault fault;
  int rc;
} outcome;

static void outcome_free(outcome *o) {
  rc_memory_free(&o->mem);
  rc_traces_free(&o->tr);
}

static void run_on(rc_ctx *ctx, bool wave, const rc_kernel *k, const rc_run_spec *s, outcome *o) {
  memset(o, 0, sizeof *o);
  o->rc = rc_memory_init(ctx, &o->mem, s, k);
  if (o->rc) return;
  if (!wave) o->rc = rc_interp_run(ctx, k, s, &o->mem, &o->tr, NULL, &o->fault);
  else o->rc = rc_wave_run(ctx, k, s, &o->mem, &o->tr, NULL, &o->fault, NULL);
}

static bool same(const outcome *a, const outcome *b, char *why, size_t n) {
  if (b->rc) {
    snprintf(why, n, "%s", b->fault.happened ? b->fault.message : "error");
    return false;
  }
  return rc_effects_equivalent(&a->tr, &b->tr, why, n) && rc_memory_equal(&a->mem, &b->mem, why, n);
}

static rc_kernel *kernel_for(rc_module *m, unsigned it) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.seed = 7000 + it;
  o.similar = true;
  o.blocks = 5 + it % 36;
  o.exits = 1 + (it % 7 == 3) + (it % 11 == 5) * (o.blocks >= 9);
  o.loops = o.blocks / 10 + (it % 4 == 0);
  o.irreducible = it % 6 == 0 && o.blocks >= 8;
  if (o.irreducible && o.loops == 0) o.loops = 1;
  o.switches = it % 9 == 2;
  o.divergent = 0.3 + (it % 7) / 10.0;
  o.threads = 1 + (it * 37) % 100;
  return rc_gen_kernel(m, &o, NULL);
}

static void report(const char *what, unsigned it, const char *pipeline, uint32_t W, const char *why,
                   const test_diags *d) {
  fprintf(stderr, "%s: kernel %u (reconv gen --similar --seed %u), %s, W=%u: %s\n%s", what, it, 7000 + it,
          pipeline, W, why, d->text);
}

static int64_t stat(const rc_stats *s, const char *name) {
  const rc_stat *st = rc_stats_get(s, name);
  return st ? st->ival : 0;
}

TEST(melded_kernels_keep_every_threads_effects) {
  unsigned iters = test_scaled(6000), failures = 0, melded_kernels = 0, waved = 0, irregular = 0,
           irregular_left = 0;
  uint64_t subgraphs = 0, runs = 0, left = 0, regions = 0, replicated = 0;
  for (unsigned it = 0; it < iters && failures < 5; it++) {
    test_diags d;
    test_diags_init(&d);
    d.ctx.verify_each = it % 4 == 0;
    rc_module *m = rc_module_new(&d.ctx, "random");
    rc_kernel *k = kernel_for(m, it);
    if (!k) {
      report("gen failed", it, "", 0, "", &d);
      failures++;
      CHECK(!"gen failed");
      rc_module_free(m);
      continue;
    }
    rc_run_spec s;
    rc_run_spec_init(&s);
    CHECK(rc_run_spec_parse_kernel(&d.ctx, &s, k) == 0);
    s.effect_traces = true;
    s.wave = waves[it % 8];
    char pipeline[96];
    snprintf(pipeline, sizeof pipeline, "meld[threshold=%s]", thresholds[it % 4]);
    rc_kernel *mk = rc_kernel_clone(m, k, "melded");
    rc_stats st;
    rc_stats_init(&st);
    outcome ref, got;
    char why[700] = "";
    run_on(&d.ctx, false, k, &s, &ref);
    CHECK_EQ_INT(ref.rc, 0);
    if (rc_pipeline_run(&d.ctx, mk, pipeline, NULL, &st) != 0) {
      report("meld failed", it, pipeline, 0, "", &d);
      failures++;
      CHECK(!"meld failed");
    } else {
      int64_t sg = stat(&st, "meld_subgraphs_melded");
      int64_t la = stat(&st, "meld_left_alone_no_exit") + stat(&st, "meld_left_alone_shared_blocks") +
                   stat(&st, "meld_left_alone_multi_entry") + stat(&st, "meld_left_alone_cyclic") +
                   stat(&st, "meld_left_alone_unsupported");
      subgraphs += (uint64_t)sg;
      runs += (uint64_t)stat(&st, "meld_unpredicated_runs");
      regions += (uint64_t)stat(&st, "meld_regions_melded");
      replicated += (uint64_t)stat(&st, "meld_regions_replicated");
      left += (uint64_t)la;
      melded_kernels += sg > 0;
      bool irr = it % 6 == 0 || it % 7 == 3 || it % 11 == 5;
      irregular += irr;
      irregular_left += irr && la > 0;
      run_on(&d.ctx, false, mk, &s, &got);
      if (ref.rc == 0 && !same(&ref, &got, why, sizeof why)) {
        report("melded kernel differs", it, pipeline, 0, why, &d);
        failures++;
        CHECK(!"melded kernel not equivalent");
      }
      outcome_free(&got);
    }
    rc_stats_free(&st);
    if (it % 3 == 0) { /* the whole pipeline, on the wave simulator */
      snprintf(pipeline, sizeof pipeline, "meld[threshold=%s],reconverge,lower", thresholds[(it / 3) % 4]);
      rc_kernel *w = rc_kernel_clone(m, k, "lowered");
      if (rc_pipeline_run(&d.ctx, w, pipeline, NULL, NULL) != 0) {
        report("pipeline failed", it, pipeline, s.wave, "", &d);
        failures++;
        CHECK(!"pipeline failed");
      } else {
        waved++;
        run_on(&d.ctx, true, w, &s, &got);
        if (ref.rc == 0 && !same(&ref, &got, why, sizeof why)) {
          report("wave simulator differs", it, pipeline, s.wave, why, &d);
          failures++;
          CHECK(!"lowered melded kernel not equivalent");
        }
        outcome_free(&got);
      }
    }
    outcome_free(&ref);
    rc_run_spec_free(&s);
    rc_module_free(m);
  }
  printf("%u random kernels (gen --similar) melded at thresholds 0/0.1/0.2/0.4: %u with melds (%llu regions, "
         "%llu subgraph pairs, %llu region replications, %llu unpredicated runs), %u also lowered and run on the wave simulator; "
         "%llu regions left alone; %u of %u irreducible or multi-exit kernels had regions left alone; "
         "%u mismatches\n",
         iters, melded_kernels, (unsigned long long)regions, (unsigned long long)subgraphs, (unsigned long long)replicated, (unsigned long long)runs,
         waved, (unsigned long long)left, irregular_left, irregular, failures);
  CHECK(melded_kernels * 4 >= iters); /* the property is not vacuous: most kernels meld something */
}
