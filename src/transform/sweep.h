/* The sweep lowering shared by `blockip` (blockip.c) and `full-linearize` (full_linearize.c): a
 * thread kernel becomes a wave kernel whose blocks are laid out in one order and swept by the wave,
 * each block run for the lanes that want it; see sweep.c. */
#ifndef RECONV_SWEEP_H
#define RECONV_SWEEP_H

#include "reconv/transform.h"

typedef struct sweep_opts {
  const char *pass;      /* the pass's name, for messages */
  const char *suffix;    /* the name of a block's dispatch block: "<block>.<suffix>" */
  bool lane_labels;      /* per-lane block labels in a vector register (Beignet's blockIP); else a
                            scalar mask register per block (the lanes waiting for it) */
  bool skip_empty;       /* a block no lane wants is jumped over (Beignet's JOIN point); else every
                            block runs, with an empty exec when no lane wants it */
} sweep_opts;

int rc_sweep_lower(rc_ctx *ctx, rc_kernel *k, const sweep_opts *o, rc_stats *stats);

#endif
