/* The abstract shape of a generated kernel (src/gen/shape.c), before it becomes IR (gen.c).
 *
 * Blocks are identified by "node" numbers: the spine positions 0 .. S-1 (0 is the entry, S-1 the
 * ret block exit0, every other spine block p has the forward successor p + 1), then the side
 * exits S .. S + K - 2 (ret blocks reached from one spine block each). */
#ifndef RECONV_GEN_SHAPE_H
#define RECONV_GEN_SHAPE_H

#include "reconv/gen.h"

typedef struct gen_rng {
  uint64_t state;
} gen_rng;
uint64_t gen_rng_next(gen_rng *r);
uint32_t gen_rng_below(gen_rng *r, uint32_t n); /* uniform in [0, n), n >= 1 */
bool gen_rng_chance(gen_rng *r, double p);

typedef struct gen_loop {
  uint32_t parent;        /* enclosing loop or RC_NONE */
  uint32_t depth;         /* 1 = outermost */
  uint32_t head, latch;   /* spine positions; the loop is [head, latch]; head == latch: self loop */
  uint32_t first_child, next_sibling, nchildren;
  bool uniform;           /* latch branch uniform: runs %trips iterations per entry */
  bool in_uniform;        /* this loop or an enclosing one is uniform */
  bool irreducible;       /* has a second entry (a forward edge into (head, latch]) */
} gen_loop;

enum gen_term { GEN_RET, GEN_JMP, GEN_BR, GEN_SWITCH };
enum gen_cond { GEN_NOCOND, GEN_UNIFORM, GEN_DIVERGENT, GEN_UNIFORM_LATCH, GEN_DIVERGENT_LATCH };

typedef struct gen_shape {
  uint32_t spine;       /* S */
  uint32_t nside;       /* K - 1 side exits */
  uint32_t nnodes;      /* S + K - 1 */
  gen_loop *loops;
  uint32_t nloops;
  uint32_t *innermost;  /* per spine position: innermost loop or RC_NONE */
  uint32_t *latch_of;   /* per spine position: the loop it is the latch of, or RC_NONE */
  uint32_t *side_src;   /* per side exit: the spine position that branches to it */
  /* per node: terminator, condition kind, successors succ[succ_start[n] .. succ_start[n+1]);
   * the first successor is the default (switch), the true target (br) or the only one (jmp).
   * For a latch the true target is the back edge to the header and the false one p + 1;
   * otherwise p + 1 is the last successor of a br or the default of a switch. */
  uint8_t *term, *cond;
  uint32_t *succ_start, *succ;
  uint32_t *npreds;
} gen_shape;

/* Build the shape for the options (checked by the caller except for what only the layout can
 * tell). Returns 0, or -1 after reporting through ctx. */
int gen_shape_build(rc_ctx *ctx, const rc_gen_opts *o, gen_rng *r, gen_shape *s);
void gen_shape_free(gen_shape *s);

#endif
