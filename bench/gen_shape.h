/* The generated kernels the reconverge, structurize and analysis benchmarks share, so that their
 * figures are about the same shape: N blocks, 4 exits, N/25 loops nested up to 4 deep, some of
 * them irreducible, half the branches divergent (reconv gen's other defaults, far = 0.15). */
#ifndef RECONV_BENCH_GEN_SHAPE_H
#define RECONV_BENCH_GEN_SHAPE_H

#include "reconv/gen.h"

static inline void bench_gen_shape(rc_gen_opts *o, uint64_t seed, uint32_t n) {
  rc_gen_opts_init(o);
  o->seed = seed;
  o->blocks = n;
  o->exits = 4;
  o->loops = n / 25;
  o->nesting = 4;
  o->irreducible = true;
  o->divergent = 0.5;
}

#endif
