/* Barriers in divergent control flow (rc_divergent_barriers, include/reconv/analysis.h).
 *
 * A barrier needs every thread of its work-group (every lane of a wave, at wave level) to arrive
 * together. It is in uniform control flow when no divergent branch decides whether a thread gets
 * there: for every divergent branch D from which the barrier's block B can be reached, B
 * post-dominates D (every thread that passed D comes to B; a divergent loop around B fails this,
 * since its exit branch reaches B through the back edge without being post-dominated by it). A
 * transform that moves B under a divergent branch makes threads wait at different barriers or a
 * wave run the barrier with some lanes off: on a GPU, a hang. Walks backwards from each barrier
 * block (iteratively); costs O(blocks) per barrier block. */
#include "reconv/analysis.h"

#include <stdlib.h>

uint32_t rc_divergent_barriers(const rc_kernel *k, const rc_analysis *a, rc_u32vec *where) {
  const rc_cfg *g = &a->cfg;
  uint32_t *seen = NULL, count = 0, stamp = 0;
  rc_u32vec work = {0};
  for (uint32_t b = 0; b < k->nblocks; b++) {
    if (!rc_block_has_barrier(k->blocks[b]) || !rc_domtree_contains(&a->dom, b)) continue;
    if (!seen) seen = rc_xcalloc(g->nblocks + 1, sizeof *seen);
    stamp++;
    bool divergent = false, cyclic = false;
    work.len = 0;
    rc_vec_push(&work, b);
    seen[b] = stamp;
    while (work.len && !divergent) {
      uint32_t x = work.data[--work.len];
      for (uint32_t p = g->pred_start[x]; p < g->pred_start[x + 1]; p++) {
        uint32_t d = g->preds[p];
        cyclic |= d == b;
        if (seen[d] == stamp) continue;
        seen[d] = stamp;
        rc_vec_push(&work, d);
        if (a->unif.divergent_branch[d] && !(rc_domtree_contains(&a->pdom, d) && rc_dominates(&a->pdom, b, d)))
          divergent = true;
      }
    }
    /* the barrier's own block may end in a divergent branch that comes back to it */
    if (cyclic && a->unif.divergent_branch[b]) divergent = true;
    if (divergent) {
      count++;
      if (where) rc_vec_push(where, b);
    }
  }
  rc_vec_free(&work);
  free(seen);
  return count;
}
