/* Barriers for random kernels: one at the top of every block where a barrier is in uniform control
 * flow (shared by prop_barriers.c and prop_native_wave.c). */
#ifndef RECONV_TEST_BARRIER_PLACEMENT_H
#define RECONV_TEST_BARRIER_PLACEMENT_H

#include "reconv/analysis.h"
#include "reconv/ir.h"

#include <stdlib.h>

/* A barrier at the top of every block where it would be in uniform control flow: each block on
 * its own, with a barrier there, must not be reported. Returns how many were placed. */
static inline uint32_t place_barriers(rc_kernel *k) {
  rc_analysis a;
  rc_analysis_build(&a, k, rc_uniformity_target_flags(k));
  uint32_t n = k->nblocks, placed = 0;
  uint8_t *uniform = rc_xcalloc(n + 1, 1);
  for (uint32_t b = 0; b < n; b++) {
    rc_builder bl;
    rc_instr *first = k->blocks[b]->first;
    while (first && first->op == RC_OP_PHI) first = first->next;
    if (!first) continue;
    rc_builder_before(&bl, first);
    rc_instr *bar = rc_build_call(&bl, RC_BI_BARRIER, RC_VOID, NULL, 0, NULL);
    uniform[b] = rc_divergent_barriers(k, &a, NULL) == 0;
    rc_instr_detach(bar); /* one at a time: the others' blocks are judged on their own */
  }
  rc_analysis_free(&a);
  for (uint32_t b = 0; b < n; b++) {
    if (!uniform[b]) continue;
    rc_instr *first = k->blocks[b]->first;
    while (first && first->op == RC_OP_PHI) first = first->next;
    rc_builder bl;
    rc_builder_before(&bl, first);
    rc_build_call(&bl, RC_BI_BARRIER, RC_VOID, NULL, 0, NULL);
    placed++;
  }
  free(uniform);
  return placed;
}

#endif
