/* Internal to src/analysis: the dominator computation of dominance.c on any graph, for analyses
 * that need dominance on graphs of their own (the uniformity analysis's propagation graph). */
#ifndef RECONV_DOMINATORS_H
#define RECONV_DOMINATORS_H

#include "reconv/analysis.h"

/* Lengauer-Tarjan on a graph in CSR form (succ_start/pred_start have nnodes + 1 entries):
 * idom[v] for the nodes reachable from root (idom[root] == root), RC_NONE for the others. */
void rc_dominators_lt(uint32_t nnodes, uint32_t root, const uint32_t *succ_start,
                      const uint32_t *succs, const uint32_t *pred_start, const uint32_t *preds,
                      uint32_t *idom);

#endif
