/* Internal to src/analysis: the acyclic propagation graph of the uniformity analysis. */
#ifndef RECONV_SYNCGRAPH_H
#define RECONV_SYNCGRAPH_H

#include "reconv/analysis.h"

/* Nodes are named by block ids: a block is its own node unless it lies in an outermost
 * irreducible cycle, whose header stands for all of it. Arrays are indexed by block id; entries
 * of blocks that are not nodes, or not reachable, are unused (topo is RC_NONE there). */
typedef struct rc_syncgraph {
  uint32_t n;           /* blocks */
  uint32_t *node;       /* per block: its node */
  uint32_t *node_cycle; /* per node: the cycle whose exits its edges lead to (a reducible header's
                           cycle, or the collapsed irreducible cycle), RC_NONE for a plain block */
  uint8_t *collapsed;   /* per node: stands for an irreducible cycle */
  uint32_t *start, *to; /* per node: edges as target blocks (map them through node[]) */
  uint32_t *via;        /* per edge: the block it leaves: the node itself, or for a cycle node
                           the one block of the cycle with an edge to that exit (RC_NONE when
                           there are several) */
  uint32_t *topo;       /* per node: topological index */
  uint32_t *skip;       /* per plain node: the end of its chain of single-entry single-exit
                           regions (a single label can jump there), or RC_NONE */
} rc_syncgraph;

void rc_syncgraph_build(rc_syncgraph *s, const rc_cfg *g, const rc_domtree *dom,
                        const rc_cycle_info *ci);
void rc_syncgraph_free(rc_syncgraph *s);

#endif
