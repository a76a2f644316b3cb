/* Internal interface between the two halves of the linearize pass (Anantpur and Govindarajan,
 * CC 2014): linearize.c finds the unstructured regions (Alg. 2), orders their blocks and builds the
 * guarded code (Alg. 1); linearize_guards.c holds the analysis of the values the guard variable can
 * hold at each guard block (section 4.2) and the plan that places each block's guard check, nested
 * or not, under the optimisations O1 and O2. */
#ifndef RECONV_LINEARIZE_INTERNAL_H
#define RECONV_LINEARIZE_INTERNAL_H

#include "reconv/analysis.h"
#include "reconv/transform.h"

#include <stdint.h>

/* A set of guard values (positions 0 .. n-1 of the region's order, n for "leave the region"). */
typedef uint64_t lin_word;

/* One unstructured region, linearized: its blocks in their order (the guard value of a block is its
 * position), each block's successors as positions, and the back-edge guards. */
typedef struct lin_region {
  uint32_t n;          /* units of the region: its blocks, a structured sub-region counting as one */
  uint32_t *block;     /* position -> the unit's entry block id (the block its guard branches to) */
  uint32_t *exit_block; /* position -> the unit's exit block id (the block that sets g) */
  uint32_t *member_start, *members; /* position p -> the unit's other blocks, members[member_start[p]
                                       .. member_start[p + 1]) (a structured sub-region's body) */
  uint8_t *nsucc;      /* per position: 1 (jmp) or 2 (br) */
  uint32_t (*succ)[2]; /* per position: successor positions (n: the region's exit P) */
  /* per position q: the position a back-edge guard after q jumps back to (Alg. 1 lines 24-33), or
   * RC_NONE when q is followed by no back-edge guard. The intervals [back_to[q], q] are laminar
   * (nested or disjoint), so the loops of the output are nested or disjoint (section 3.2). */
  uint32_t *back_to;
  uint32_t *dom_of;    /* per position: the dominator tree node (block id) for O2 queries */
  /* the guard-value analysis (section 4.2), words = (n + 64) / 64 per set */
  uint32_t words;
  lin_word *in;        /* per position p: the values that can reach the guard block of p */
  lin_word *back_in;   /* per position q with a back-edge guard: the values that reach it */
  lin_word *entry;     /* the values the region's entry D sets */
} lin_region;

static inline bool lin_has(const lin_word *s, uint32_t v) { return (s[v / 64] >> (v % 64)) & 1; }
static inline void lin_add(lin_word *s, uint32_t v) { s[v / 64] |= (lin_word)1 << (v % 64); }

/* Section 4.2: "the transformed CFG is iteratively analyzed to propagate the guard values on the
 * input and output edges of each guard block, till no new values are seen at the input of any
 * guard block". Fills r->in and r->back_in from r->entry over the unoptimised chain of Alg. 1. */
void lin_guard_values(lin_region *r);

/* Where a block's guard check goes (the plan of one region): */
typedef enum lin_step_kind {
  LIN_STEP_UNIT,       /* block `pos`, guarded or not, at `depth` of nesting in a side of an
                          enclosing guard (0: in the chain of its loop level) */
  LIN_STEP_LOOP_BEGIN, /* a loop of the output, ending after block `pos`, starts here (its header
                          is the next entry), at `depth` of nesting in its loop level as a unit;
                          inside, the guards nest from depth 0 again */
  LIN_STEP_LOOP_END,   /* the back-edge guard after block `pos` */
  LIN_STEP_LOOP_GUARD, /* a guard `g == pos` (or with `range`, `g <= pos`) around the loop that
                          begins next, in its then side, at `depth` as a unit: the other values
                          skip the loop (O1) */
} lin_step_kind;

typedef struct lin_step {
  uint8_t kind;     /* lin_step_kind */
  bool guarded;     /* LIN_STEP_UNIT: a guard check precedes the block (false: O1 removed it,
                       every value that reaches it is the block's own) */
  bool else_side;   /* nested: in the else side (the guard's value did not match) of the enclosing
                       guard, else in its then side (after the enclosing block) */
  bool range;       /* LIN_STEP_LOOP_GUARD: the check is `g <= pos` (the loop's last unit), not
                       `g == pos` */
  uint32_t pos;
  uint32_t depth;   /* LIN_STEP_UNIT, LIN_STEP_LOOP_BEGIN, LIN_STEP_LOOP_GUARD: open guards it is
                       nested in (this loop level) */
  uint32_t first;   /* LIN_STEP_LOOP_GUARD: the loop's first unit (the guard's name) */
  uint32_t exit_value; /* LIN_STEP_LOOP_END: the only value g can hold when it leaves the loop, or
                          RC_NONE */
} lin_step;

typedef RC_VEC(lin_step) lin_plan;

/* Build the plan of region r at optimisation level opt (0..2 matter here; O3 acts on the CFG):
 * O1 (section 4.2) lets an edge skip a guard whose value it cannot carry, which nests the guard in
 * one side of the guard before it, and drops a check every reaching value passes; O2 nests the
 * guard of a block under the guard of a block that dominates it, at any depth. Iterative. */
void lin_plan_build(const lin_region *r, const rc_domtree *dom, int opt, lin_plan *plan);

/* ---- regions (linearize_regions.c) -------------------------------------------------------------- */

/* REGION_MIN: Algorithm 2 from the unstructured edges (Def. 1); REGION_FOLD: also from the blocks
 * maximal folding leaves (a shared join, which Def. 1 does not call unstructured); REGION_ALL: the
 * whole kernel (section 3). */
typedef enum { REGION_MIN, REGION_FOLD, REGION_ALL } region_mode;
typedef struct found_region {
  uint32_t D, P;
  rc_u32vec blocks;
  bool alive;
} found_region;

typedef RC_VEC(found_region) region_vec;

/* The regions of k under mode (REGION_ALL: one region, every block but the entry and the exit).
 * Returns 0, or 1 with *need_entry / *need_exit set when a region needs a block above the entry or
 * below the exit (rv then holds what was found so far, for the caller to free). */
int lin_find_regions(const rc_kernel *k, const rc_analysis *a, region_mode mode, region_vec *rv,
                     bool *need_entry, bool *need_exit);

/* Algorithm 3 (section 4.1, Def. 5): the structured sub-regions of a region, kept whole. The blocks
 * of the region are given in its order (a block's dominators come first); owner[b] receives, for each
 * block b of the region, the entry of the sub-region b belongs to (b itself for a block on its own),
 * and exit_of[d] the exit of the sub-region entered at d (d itself for a block on its own). A
 * sub-region is a block d and its immediate post-dominator p with idom(p) == d (Alg. 3 lines 4-7),
 * and every block between them (line 8-9), inside the region, entered only at d, left only from p,
 * and structured (maximal folding of its own CFG: no unstructured edge, lines 11-19). */
void lin_structured_subregions(const rc_analysis *a, const uint32_t *order, uint32_t n, const uint8_t *in_r,
                               uint32_t *owner, uint32_t *exit_of);

/* ---- shared joins (linearize_joins.c) ------------------------------------------------------------ */

/* A join of its own (a new RC_BLOCK_VIRTUAL block) for every branch whose region is closed but whose
 * join is shared with an enclosing branch, a shape Def. 1 does not call unstructured; rounds until
 * none is left, SSA repaired. *count receives the joins split. Returns 0, or -1 after an error. */
int lin_split_shared_joins(rc_ctx *ctx, rc_kernel *k, uint32_t *count);

/* ---- building the output (linearize_emit.c) ------------------------------------------------------ */

typedef struct lin_counts {
  uint32_t regions, region_blocks, subregions, guards, back_guards, joins, unguarded, nested_then,
      nested_else, nested_loops, loop_guards, merged, joins_split;
} lin_counts;

typedef RC_VEC(rc_block *) lin_block_vec;

/* What the regions of one run share: the guard value at the end of each block (by block id), the
 * phis made for g, the blocks of each region in the order they were emitted (for the layout). */
typedef struct lin_build {
  rc_kernel *k;
  rc_block *placeholder; /* target of edges not yet placed; removed at the end */
  RC_VEC(rc_value *) gend;
  RC_VEC(rc_value *) gexit; /* by back-edge guard id: g on its exit edge when only one value leaves */
  rc_instr_vec phis;
  RC_VEC(lin_block_vec) emitted;
  RC_VEC(uint8_t) is_unit; /* by block id: a block of some region, or an entry D that sets g (O3) */
  lin_counts counts;
} lin_build;

void lin_build_init(lin_build *b, rc_kernel *k);
/* Algorithm 1 for one region after its plan: rewrites the terminators of D and of the region's
 * blocks (they set g), makes the guard blocks, back-edge guards and joins. */
void lin_emit_region(lin_build *b, const lin_region *r, rc_block *D, rc_block *P, const lin_plan *plan);
/* Fill the phis of g, drop the trivial ones, O3 when opt >= 3, lay the blocks out (each region where
 * its first block was, in emission order) and free b. Returns 0, or -1 after an error. */
int lin_build_finish(rc_ctx *ctx, lin_build *b, int opt);

#endif
