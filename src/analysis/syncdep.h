/* Internal to src/analysis: sync dependence for the uniformity analysis. For one divergent
 * branch it finds the blocks whose phis diverge (joins of disjoint paths from the branch), the
 * irreducible cycles that become divergent as a whole (entered divergently or holding the branch),
 * and the cycles left at a divergent exit (temporal divergence). See syncdep.c. */
#ifndef RECONV_SYNCDEP_H
#define RECONV_SYNCDEP_H

#include "syncgraph.h"

typedef struct rc_syncdep {
  const rc_cfg *g;
  const rc_domtree *pdom;
  const rc_cycle_info *ci;
  rc_syncgraph sg;       /* the acyclic propagation graph */
  bool prune;            /* confine each branch to the region earlier branches leave it */
  /* per-branch state, reset through `touched` */
  uint32_t *label;       /* per node: its label, RC_NONE when none yet */
  uint32_t *edge;        /* per node: the edge of its first label (see push_label) */
  uint8_t *entered_div;  /* collapsed node reached by two labels */
  uint8_t *flags;        /* per node: NODE_* bits of syncdep.c */
  uint8_t *in_fresh;
  uint32_t *lcount;      /* per label: fresh nodes in the set carrying it */
  uint32_t ndistinct, nblocking;
  /* fresh nodes: a set of topological indices, a tree of 64-bit words (level 0: one bit per
     index; each level above: one bit per non-empty word below; the top level one word), so that
     insertion, removal and the least index cost a few word operations (syncdep.c) */
  uint64_t *fresh_bits[6];
  uint32_t fresh_levels, nfresh;
  uint32_t *by_topo; /* per topological index: its node */
  rc_u32vec touched, pending, chain;
  uint8_t *cluster_done; /* per cycle: irreducible cycle already made divergent and propagated */
  /* what earlier branches left behind: per node, the first branch whose propagation labelled it
   * (RC_NONE if none) and the label it had there */
  uint32_t *stamp_branch, *stamp_label;
  /* and the last later branch whose labels there are certain, and its label (RC_NONE if none) */
  uint32_t *last_branch, *last_label;
  /* per block: the number of the batch (rc_syncdep_batch) it is a divergent branch of; an epoch,
   * so that no batch clears it */
  uint32_t *batch_of, batch;
  rc_u32vec links; /* scratch: the chain of branches one propagation stands for */
  uint32_t npropagations; /* propagations run (for the tests: one per chain) */
} rc_syncdep;

typedef struct rc_syncdep_result {
  rc_u32vec joins;    /* blocks whose phis diverge */
  rc_u32vec diverged; /* irreducible cycles (ids) newly assumed divergent */
  rc_u32vec exited;   /* cycles (ids) with a divergent exit: the outermost cycle around the
                         branch that does not contain the exit */
} rc_syncdep_result;

/* prune: see "Sharing between branches" in syncdep.c; without it every branch is propagated on
 * its own (the reference the tests compare with). */
void rc_syncdep_init(rc_syncdep *s, const rc_cfg *g, const rc_domtree *dom, const rc_domtree *pdom,
                     const rc_cycle_info *ci, bool prune);
/* Propagate from the divergent branches (reachable), in the order given (reverse post-order);
 * appends to r (which may repeat entries). An irreducible cycle holding a branch that was already
 * made divergent adds nothing. Joins and exits that earlier calls found already may be left out of
 * r. With prune, a chain of branches (a lowered switch) is propagated once, as the multi-way
 * branch it stands for (see "Chains of branches" in syncdep.c). */
void rc_syncdep_batch(rc_syncdep *s, const uint32_t *branches, uint32_t n, rc_syncdep_result *r);
void rc_syncdep_free(rc_syncdep *s);
void rc_syncdep_result_free(rc_syncdep_result *r);

#endif
