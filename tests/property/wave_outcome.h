/* Running a kernel on one of reconv's machines and comparing two runs (traces and final memory):
 * shared by the property tests that check a wave-level machine against the thread-level
 * interpreter (prop_wave_equiv.c, prop_barriers.c, prop_sweep.c, prop_linearize.c). */
#ifndef RECONV_TEST_WAVE_OUTCOME_H
#define RECONV_TEST_WAVE_OUTCOME_H

#include "reconv/sim.h"

#include <stdio.h>
#include <string.h>

enum { MACHINE_THREADS, MACHINE_IPDOM, MACHINE_WAVE };

typedef struct outcome {
  rc_memory mem;
  rc_traces tr;
  rc_fault fault;
  rc_run_stats st;
  int rc;
} outcome;

static inline void outcome_free(outcome *o) {
  rc_memory_free(&o->mem);
  rc_traces_free(&o->tr);
  rc_run_stats_free(&o->st);
}

static inline void run_on(rc_ctx *ctx, int machine, const rc_kernel *k, const rc_run_spec *s, outcome *o) {
  memset(o, 0, sizeof *o);
  o->rc = rc_memory_init(ctx, &o->mem, s, k);
  if (o->rc) return;
  if (machine == MACHINE_THREADS) o->rc = rc_interp_run(ctx, k, s, &o->mem, &o->tr, &o->st, &o->fault);
  else if (machine == MACHINE_IPDOM) o->rc = rc_ipdom_run(ctx, k, s, &o->mem, &o->tr, &o->st, &o->fault, NULL);
  else o->rc = rc_wave_run(ctx, k, s, &o->mem, &o->tr, &o->st, &o->fault, NULL);
}

/* Did b (a run of kb) do what a (a run of ka) did? why receives the first difference. */
static inline bool same_outcome(const rc_kernel *ka, const outcome *a, const rc_kernel *kb, const outcome *b,
                                char *why, size_t n) {
  if (b->rc) {
    snprintf(why, n, "%s", b->fault.happened ? b->fault.message : "error");
    return false;
  }
  return rc_traces_equivalent(ka, &a->tr, kb, &b->tr, why, n) && rc_memory_equal(&a->mem, &b->mem, why, n);
}

#endif
