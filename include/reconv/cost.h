/* reconv's cost model (docs/cost.md): what running a wave kernel costs on an AMD GCN-like machine,
 * the machine the wave simulator counts for. The transforms that choose between candidates
 * (reconverge[order=auto]) compare their lowered kernels by the static form below. */
#ifndef RECONV_COST_H
#define RECONV_COST_H

#include "reconv/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The static cost of wave kernel k (docs/cost.md, "Static cost"): the instructions that take an
 * issue slot, each once, weighted by 8 per cycle around its block (at most 8^4), a vector or mask
 * instruction 2, a scalar one 1. */
uint64_t rc_wave_static_cost(const rc_kernel *k);

#ifdef __cplusplus
}
#endif
#endif
