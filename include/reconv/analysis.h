/* reconv analyses: dominance, post-dominance, cycles, uniformity and the structure checks.
 *
 * Every analysis reads a kernel whose block ids are dense (the builder keeps them so) and returns
 * tables indexed by block id (or value id). Results are plain heap memory owned by the caller and
 * released with the matching _free function. All traversals are iterative.
 */
#ifndef RECONV_ANALYSIS_H
#define RECONV_ANALYSIS_H

#include "reconv/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- CFG snapshot ---------------------------------------------------------------------------------
 * A compressed (CSR) copy of the successor and predecessor relation, one entry per edge, in
 * terminator order. Analyses that run many traversals build it once. */
typedef struct rc_cfg {
  uint32_t nblocks;
  uint32_t entry;
  uint32_t *succ_start, *succs; /* succs[succ_start[b] .. succ_start[b+1]) */
  uint32_t *pred_start, *preds;
} rc_cfg;
void rc_cfg_build(rc_cfg *g, const rc_kernel *k);
void rc_cfg_free(rc_cfg *g);
/* Reverse post-order of the blocks reachable from the entry; returns how many there are. rpo must
 * hold nblocks entries; rpo_index (optional, nblocks entries) receives each block's position or
 * RC_NONE for unreachable blocks. */
uint32_t rc_cfg_rpo(const rc_cfg *g, uint32_t *rpo, uint32_t *rpo_index);

/* ---- dominator and post-dominator trees -------------------------------------------------------------
 * Lengauer and Tarjan (simple version, O(m log n)); see src/analysis/dominance.c.
 *
 * Post-dominance is computed over a virtual exit node with id == nblocks which has an edge from
 * every exit (ret/unreachable) and from one block of every region that cannot reach an exit (an
 * infinite loop: walking the reachable blocks in reverse post-order from the last, each block that
 * cannot reach an exit or an earlier chosen block is chosen), so every block reachable from the
 * entry has a post-dominator. Blocks not reachable from the entry are not in either tree
 * (idom == RC_NONE). */
typedef struct rc_domtree {
  bool post;
  uint32_t nblocks; /* real blocks */
  uint32_t nnodes;  /* nblocks, or nblocks + 1 for the post-dominator tree */
  uint32_t root;    /* entry block, or the virtual exit (== nblocks) */
  uint32_t *idom;   /* idom[root] == root; RC_NONE when not in the tree */
  uint32_t *pre, *post_num; /* DFS numbering of the tree: a dom b <=> pre[a] <= pre[b] && post[b] <= post[a] */
  uint32_t *child_start, *children; /* CSR children lists */
  uint32_t *depth;  /* depth in the tree, root = 0 */
  /* post-dominance only: blocks the virtual exit was given an edge from, because they cannot
   * reach an exit (infinite loops) */
  uint32_t *extra_exits;
  uint32_t nextra_exits;
} rc_domtree;

int rc_domtree_build(rc_domtree *t, const rc_cfg *g, bool post);
void rc_domtree_free(rc_domtree *t);
/* a (post-)dominates b (reflexive). False when either is not in the tree. O(1). */
bool rc_dominates(const rc_domtree *t, uint32_t a, uint32_t b);
bool rc_strictly_dominates(const rc_domtree *t, uint32_t a, uint32_t b);
bool rc_domtree_contains(const rc_domtree *t, uint32_t b);
/* Nearest common (post-)dominator; RC_NONE when one is not in the tree. */
uint32_t rc_domtree_lca(const rc_domtree *t, uint32_t a, uint32_t b);

/* Dominance frontiers (CSR). For the post-dominator tree these are the post-dominance frontiers
 * (control dependence). */
typedef struct rc_domfrontier {
  uint32_t nnodes;
  uint32_t *start, *nodes; /* DF(b) = nodes[start[b] .. start[b+1]) */
} rc_domfrontier;
void rc_domfrontier_build(rc_domfrontier *df, const rc_domtree *t, const rc_cfg *g);
void rc_domfrontier_free(rc_domfrontier *df);
/* Iterated dominance frontier of a set of blocks; result appended to out (no duplicates). */
void rc_domfrontier_iterated(const rc_domfrontier *df, const uint32_t *blocks, uint32_t n,
                             rc_u32vec *out);

/* ---- cycles ------------------------------------------------------------------------------------------
 * A loop-nesting forest that represents irreducible cycles (several entries) as well as natural
 * loops, in the manner of LLVM's CycleInfo (Havlak / Ramalingam): a cycle is a maximal strongly
 * connected region of its parent (minus the parent's header), its entries are the blocks with a
 * predecessor outside it, and its header is the entry visited first by the DFS. Only blocks
 * reachable from the entry take part (unreachable predecessors make no entries).
 *
 * Cycles are numbered in pre-order of the forest (a parent before its children, siblings by the
 * DFS pre-order of their headers), so the cycles nested in c are exactly c+1 .. nested_end-1. */
typedef struct rc_cycle {
  uint32_t parent;       /* index of the enclosing cycle, RC_NONE for outermost */
  uint32_t depth;        /* 1 for outermost */
  uint32_t header;       /* first entry in DFS pre-order */
  uint32_t *entries;     /* blocks with a predecessor outside the cycle: header first, then by id */
  uint32_t nentries;
  uint32_t *blocks;      /* every block of the cycle, nested cycles included; header first */
  uint32_t nblocks;
  uint32_t *exits;       /* blocks outside the cycle with a predecessor inside it, by id */
  uint32_t nexits;
  bool reducible;        /* exactly one entry */
  uint32_t nested_end;   /* cycles c+1 .. nested_end-1 are nested in this one (c) */
} rc_cycle;

typedef struct rc_cycle_info {
  uint32_t nblocks;
  rc_cycle *cycles;
  uint32_t ncycles;
  uint32_t *innermost;   /* per block: innermost cycle index or RC_NONE */
  /* back edges relative to the DFS from the entry (edges to a block on the DFS stack, self loops
   * included), as (from, to) pairs ordered by source block */
  uint32_t *back_from, *back_to;
  uint32_t nback;
  uint32_t *storage;     /* owns the blocks, entries and exits arrays of all cycles */
} rc_cycle_info;

int rc_cycles_build(rc_cycle_info *ci, const rc_cfg *g);
void rc_cycles_free(rc_cycle_info *ci);
/* Is block b inside cycle c (or one nested in it)? O(1). */
bool rc_cycle_contains(const rc_cycle_info *ci, uint32_t c, uint32_t b);

/* ---- uniformity (divergence analysis) ----------------------------------------------------------------
 * Sources of divergence: work-item and lane queries, atomics, allocas (private addresses), loads
 * through private memory, vector-register reads. Data dependence through instructions; sync
 * dependence (a phi at a join of disjoint paths from a divergent branch, found as LLVM's
 * SyncDependenceAnalysis does); temporal divergence (a value defined in a cycle with a divergent
 * exit and used outside it is itself marked divergent); irreducible cycles conservatively (one
 * entered divergently, or holding a divergent branch, has all its values divergent). Parameters
 * and values computed only from them are uniform. Terminators annotated !uniform / !divergent
 * override the computed verdict for that branch (the annotation is trusted) and then drive sync
 * dependence. src/analysis/uniformity.c has the details. */
enum {
  /* every conditional branch (br and switch) is divergent, whatever its annotation */
  RC_UNIF_ALL_DIVERGENT = 1u << 0,
  /* propagate the sync dependence of every divergent branch on its own, without the regions
   * earlier branches leave it (same results, slower: the reference the tests compare with) */
  RC_UNIF_EXHAUSTIVE = 1u << 1,
  /* the target's view (docs/llvm.md, "Uniformity"), for kernels that go back to an LLVM backend:
   * what its own divergence analysis treats as divergent is divergent here too — instructions
   * marked RC_IF_VARYING (on amdgcn: every call that is not an intrinsic), loads through flat and
   * private pointers (address spaces 0 and 5), device-function parameters not passed `inreg` —
   * allocas are not sources, and a value leaving a cycle with a divergent exit makes its users
   * outside the cycle divergent, as LLVM's analysis does (reconv's own rule, for its lowering,
   * marks the value itself) */
  RC_UNIF_TARGET = 1u << 2,
};

/* The flags that give k's module the view of its target: RC_UNIF_TARGET for amdgcn modules,
 * 0 otherwise. */
unsigned rc_uniformity_target_flags(const rc_kernel *k);

/* Uniformity across calls (src/analysis/interproc.c): set every device function's
 * param_divergent from its calls in the module — a parameter is divergent when some call passes a
 * value divergent there, or when the module never calls the function. flags as for
 * rc_uniformity_build. Returns 0, -1 when an analysis fails. */
int rc_module_param_uniformity(rc_module *m, unsigned flags);

typedef struct rc_uniformity {
  uint32_t nvalues, nblocks, ncycles;
  uint8_t *divergent_value;  /* per value id: 1 divergent, 0 uniform */
  uint8_t *divergent_branch; /* per block id: 1 when its terminator is a divergent br/switch */
  uint8_t *sync_join;        /* per block id: a join of a divergent branch (its phis diverge) */
  uint8_t *temporal_cycle;   /* per cycle: has a divergent exit; values leaving it are divergent */
  uint8_t *assumed_divergent; /* per cycle: irreducible, entered divergently or holding a divergent
                                 branch; every value defined in it is divergent */
} rc_uniformity;

int rc_uniformity_build(rc_uniformity *u, const rc_kernel *k, const rc_cfg *g,
                        const rc_domtree *dom, const rc_domtree *pdom,
                        const rc_cycle_info *ci, unsigned flags);
void rc_uniformity_free(rc_uniformity *u);

/* Is v the same for every thread of a launch, whatever the control flow: made only of constants,
 * kernel parameters and launch-uniform queries (@global_size, ...) by pure instructions (no phi,
 * load, alloca, per-thread query or call with side effects)? Stronger than uniform: a uniform loop
 * counter is the same for the threads that reach a point together, not at every point in time.
 * memo holds one byte per value id (k->nvalues + 1 bytes, zeroed by the caller) and may be shared
 * by many queries on one kernel; the walk is iterative. src/analysis/invariance.c. */
bool rc_launch_invariant(const rc_value *v, uint8_t *memo);

/* ---- structure checks ------------------------------------------------------------------------------------
 * Each returns whether the property holds and, when `where` is not NULL, appends the offending
 * blocks (block ids) or edges (pairs of block ids: from, to) to it. Only blocks reachable from the
 * entry count. src/analysis/structure.c has the details. */
/* thesis Def. 6 (T1/T2). where: the entries of the cycles with more than one entry. */
bool rc_is_reducible(const rc_cfg *g, rc_u32vec *where);
/* thesis Defs. 7-14 (maximal folding). where: the condition nodes left after folding. */
bool rc_is_structured(const rc_cfg *g, const rc_domtree *dom, const rc_domtree *pdom,
                      rc_u32vec *where);
/* Anantpur Def. 1. True when no edge is unstructured; edges receives the unstructured edges as
 * (from, to) pairs, by source block and then terminator order. */
bool rc_unstructured_edges(const rc_cfg *g, const rc_domtree *dom, const rc_domtree *pdom,
                           const rc_cycle_info *ci, rc_u32vec *edges);
/* thesis Def. 15: every divergent branch has exactly two successors, one of which post-dominates
 * it. `where` receives the divergent blocks where it fails. */
bool rc_is_reconverging(const rc_kernel *k, const rc_cfg *g, const rc_domtree *pdom,
                        const rc_uniformity *u, rc_u32vec *where);

/* The question in one call: is k reconverging (thesis Def. 15), under the uniformity analysis with
 * unif_flags and the flags of k's target (rc_uniformity_target_flags)? Returns 1 yes, 0 no (where,
 * when not NULL, receives the ids of the blocks whose divergent branch has no post-dominating
 * successor), -1 when the analysis fails (reported through ctx). */
int rc_kernel_reconverging(rc_ctx *ctx, const rc_kernel *k, unsigned unif_flags, rc_u32vec *where);

/* ---- everything at once ------------------------------------------------------------------------------------ */

typedef struct rc_analysis {
  rc_cfg cfg;
  rc_domtree dom, pdom;
  rc_cycle_info cycles;
  rc_uniformity unif;
} rc_analysis;
int rc_analysis_build(rc_analysis *a, const rc_kernel *k, unsigned unif_flags);
/* The same on a CFG snapshot of k and its dominator tree built already, which a takes over (the
 * caller's copies are left empty); rc_analysis_free frees them with the rest. */
int rc_analysis_build_from(rc_analysis *a, const rc_kernel *k, unsigned unif_flags, rc_cfg *cfg, rc_domtree *dom);
void rc_analysis_free(rc_analysis *a);

/* Blocks holding a barrier in divergent control flow: a divergent branch is in their iterated
 * control dependence (it decides whether, or how often, a thread reaches them; a divergent if-then
 * whose join they post-dominate does not; src/analysis/convergence.c). Appends their ids to where
 * (may be NULL); returns how many there are. */
uint32_t rc_divergent_barriers(const rc_kernel *k, const rc_analysis *a, rc_u32vec *where);
/* The witness for one block b: a divergent branch in b's iterated control dependence (b itself
 * when b cannot reach an exit), or RC_NONE when b is in uniform control flow. mark holds
 * a->cfg.nblocks + 1 entries, zeroed by the caller, and *stamp a counter, both kept across calls on
 * the same analysis. */
uint32_t rc_barrier_divergent_branch(const rc_analysis *a, uint32_t b, uint32_t *mark, uint32_t *stamp);

#ifdef __cplusplus
}
#endif
#endif
