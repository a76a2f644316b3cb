/* Internal to src/analysis: the values that escape cycles, for temporal divergence in the
 * uniformity analysis (see escapes.c). */
#ifndef RECONV_ESCAPES_H
#define RECONV_ESCAPES_H

#include "reconv/analysis.h"

typedef struct rc_escapes {
  const rc_cycle_info *ci;
  uint32_t n;           /* escaping values */
  uint32_t *value;      /* sorted by the innermost cycle of their block */
  uint32_t *slice;      /* per cycle id c (and m): first index of values in cycles >= c */
  uint32_t size, *tree; /* min-tree over escape depths (UINT32_MAX: taken) */
} rc_escapes;

/* Per value id: def_block, the block of its defining instruction (RC_NONE for parameters and
 * constants), and (CSR) the blocks of its uses: use_block[use_start[id] .. use_start[id + 1]).
 * Values with skip[id] set are left out (their use blocks are not read). */
void rc_escapes_build(rc_escapes *x, const rc_cycle_info *ci, uint32_t nvalues,
                      const uint32_t *def_block, const uint32_t *use_start,
                      const uint32_t *use_block, const uint8_t *skip);
/* A value defined in cycle c (or a cycle nested in it) and used outside c that was not taken
 * yet, now taken; RC_NONE when there is none left. */
uint32_t rc_escapes_take(rc_escapes *x, uint32_t c);
void rc_escapes_free(rc_escapes *x);

#endif
