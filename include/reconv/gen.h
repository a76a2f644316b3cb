/* reconv gen: random kernels with a chosen shape, for property tests and benchmarks.
 *
 * A generated kernel has N blocks, K of them `ret` blocks, L loops nested at most D deep, some
 * of them irreducible (a second entry) when asked, switches when asked, and a share P of
 * divergent branches. Divergent conditions depend on @global_id; uniform ones only on kernel
 * parameters (or, for uniform loops, on a counter that only uniform control decides), so the
 * uniformity analysis can prove them uniform. Every thread terminates: a step counter threaded
 * through phis is decremented in every block and the back edges of divergent loops are taken
 * only while it is positive; uniform loops run a parameter's number of iterations. Every block
 * mixes its number into out[tid], so the output reflects the path each thread took. The kernel
 * carries a `!run` specification. Generation is O(N) (see src/gen/gen.c for the construction).
 */
#ifndef RECONV_GEN_H
#define RECONV_GEN_H

#include "reconv/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rc_gen_opts {
  uint64_t seed;
  uint32_t blocks;    /* N >= 1 */
  uint32_t exits;     /* K >= 1 ret blocks; needs N >= 2K - 1 */
  uint32_t loops;     /* L */
  uint32_t nesting;   /* D >= 1: deepest loop nesting */
  double divergent;   /* P in [0, 1]: probability that a branch (or a loop's latch) is divergent */
  double far;         /* F in [0, 1]: probability that an extra branch target lies anywhere ahead
                       * rather than within 8 blocks (default 0.15; 0 gives a local CFG) */
  bool irreducible;   /* give at least one loop (L >= 1) a second entry */
  bool switches;      /* also end blocks in multi-way switches */
  bool annotate;      /* mark the generated branches !uniform / !divergent */
  bool similar;       /* every non-exit block also runs a slightly varied copy of one per-kernel
                       * sequence of arithmetic, loads and stores of out[tid] and a division by a
                       * constant: duplicated code on both sides of divergent branches, for meld
                       * (DARM); the rest of the kernel is generated exactly as without it */
  uint32_t threads;   /* global size written into the !run specification (default 64) */
  const char *name;   /* kernel name (default "gen") */
} rc_gen_opts;

/* Defaults: seed 1, 16 blocks, 1 exit, 2 loops, nesting 3, P = 0.5, F = 0.15, 64 threads, "gen". */
void rc_gen_opts_init(rc_gen_opts *o);

/* What was generated (counts are of the kernel as built). */
typedef struct rc_gen_info {
  uint32_t blocks, exits;
  uint32_t loops, uniform_loops, irreducible_loops; /* irreducible: loops given a second entry */
  uint32_t max_depth;                               /* deepest loop nesting */
  uint32_t divergent_branches, uniform_branches;    /* br and switch terminators */
  uint32_t switches;
  uint32_t budget;            /* the step counter's start value (the %budget argument) */
  uint32_t trips;             /* iterations of each uniform loop (the %trips argument) */
  uint64_t max_blocks_per_thread; /* bound on blocks one thread executes (saturates) */
  uint32_t max_instrs_per_block;  /* bound on instructions of one generated block */
  uint32_t similar_ops;           /* the length of the shared sequence (similar) */
} rc_gen_info;

/* Add a generated kernel to module m. Returns NULL after reporting an error through m->ctx when
 * the options are inconsistent (e.g. more loops than fit in N blocks) or the name is taken.
 * info may be NULL. */
rc_kernel *rc_gen_kernel(rc_module *m, const rc_gen_opts *o, rc_gen_info *info);

#ifdef __cplusplus
}
#endif
#endif
