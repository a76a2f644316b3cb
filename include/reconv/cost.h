/* reconv's cost model (docs/cost.md): what running a wave kernel costs on an AMD GCN-like machine,
 * the machine the wave simulator counts for. The transforms that choose between candidates
 * (reconverge[order=auto]) compare their lowered kernels by the static form below. */
#ifndef RECONV_COST_H
#define RECONV_COST_H

#include "reconv/ir.h"

struct rc_run_stats; /* reconv/sim.h */

#ifdef __cplusplus
extern "C" {
#endif

/* The weights of a cost model's issue classes (docs/cost.md, "Two machines"): what one issued
 * instruction of each class costs. */
typedef struct rc_cost_weights {
  const char *name; /* "gcn" or "host" */
  double vector;    /* a vector instruction that is neither of the next two */
  double memory;    /* a vector load, store, atomic or memory builtin (a gather or scatter on a CPU) */
  double barrier;   /* a work-group barrier */
  double mask;      /* a mask instruction */
  double scalar;    /* a scalar instruction or a branch */
} rc_cost_weights;

/* GCN, the machine the wave simulator counts for: vector and mask 2, scalar 1; the host: this
 * kind of machine's vector unit (AVX-512 or AVX2), calibrated on the clock, in nanoseconds per
 * issued instruction of a 16-lane wave. */
extern const rc_cost_weights rc_cost_weights_gcn, rc_cost_weights_host;
/* "gcn" (also for NULL) or "host"; NULL for another name. */
const rc_cost_weights *rc_cost_weights_named(const char *name);

/* The static cost of wave kernel k (docs/cost.md, "Static cost"): the instructions that take an
 * issue slot, each once, weighted by 8 per cycle around its block (at most 8^4) and by w. */
double rc_wave_static_cost_weighted(const rc_kernel *k, const rc_cost_weights *w);
/* ... by the GCN weights: a vector or mask instruction 2, a scalar one 1. */
uint64_t rc_wave_static_cost(const rc_kernel *k);
/* A run's dynamic cost by w: its issued instructions, each weighted by its class. */
double rc_run_stats_cost(const struct rc_run_stats *st, const rc_cost_weights *w);

#ifdef __cplusplus
}
#endif
#endif
