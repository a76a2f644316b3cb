/* Barriers in divergent control flow (rc_divergent_barriers, include/reconv/analysis.h).
 *
 * A barrier needs every thread of its work-group (every lane of a wave, at wave level) to arrive
 * together, the same number of times. That holds when no divergent branch decides whether, or how
 * often, a thread gets to the barrier's block B: when no branch in the iterated control dependence
 * of B is divergent. B is control dependent on a branch D when D has a successor S that B
 * post-dominates while B does not strictly post-dominate D (Ferrante, Ottenstein and Warren's
 * definition: the branch decides whether B runs); the iterated control dependence adds the
 * branches that decide whether those branches run, and so on. A divergent loop around B fails
 * this (B is control dependent on the loop's exit branch, which leads back to B); a divergent
 * if-then before B, whose join B post-dominates, does not, however far up it is, since B runs once
 * whichever way each thread goes (hotspot's barriers in a loop of a uniform trip count after a
 * divergent load guard). A uniform branch that B depends on counts through what it depends on:
 * a uniform branch under a divergent one is reached by some threads only.
 *
 * A transform that moves B under a divergent branch makes threads wait at different barriers or a
 * wave run the barrier with some lanes off: on a GPU, a hang. Iterative: from each barrier block a
 * worklist over the branches it depends on; finding the branches one block x depends on walks the
 * post-dominator subtree of x (the blocks x post-dominates) and their predecessors, so the cost is
 * O(blocks) per block of the closure. */
#include "reconv/analysis.h"

#include <stdlib.h>

/* Pushes onto ctrl the branches x is control dependent on that are not marked yet (mark[] ==
 * stamp). Returns a divergent one, or RC_NONE when none is. */
static uint32_t controlling_branches(const rc_analysis *a, uint32_t x, uint32_t *mark, uint32_t stamp, rc_u32vec *sub,
                                 rc_u32vec *ctrl) {
  const rc_cfg *g = &a->cfg;
  const rc_domtree *pd = &a->pdom;
  sub->len = 0;
  rc_vec_push(sub, x);
  for (uint32_t i = 0; i < sub->len; i++) {
    uint32_t y = sub->data[i];
    for (uint32_t c = pd->child_start[y]; c < pd->child_start[y + 1]; c++) rc_vec_push(sub, pd->children[c]);
    if (y >= g->nblocks) continue;
    for (uint32_t p = g->pred_start[y]; p < g->pred_start[y + 1]; p++) {
      uint32_t d = g->preds[p];
      /* y is a successor of d that x post-dominates; d is a branch x depends on unless x strictly
       * post-dominates it */
      if (mark[d] == stamp || !rc_domtree_contains(&a->dom, d)) continue;
      if (g->succ_start[d + 1] - g->succ_start[d] < 2) continue;
      if (d != x && rc_domtree_contains(pd, d) && rc_dominates(pd, x, d)) continue;
      mark[d] = stamp;
      if (a->unif.divergent_branch[d]) return d;
      rc_vec_push(ctrl, d);
    }
  }
  return RC_NONE;
}

uint32_t rc_barrier_divergent_branch(const rc_analysis *a, uint32_t b, uint32_t *mark, uint32_t *stamp) {
  /* a block that cannot reach an exit has no place in the post-dominator tree: whether a thread
   * gets there is decided by the branches around it; it is its own witness */
  if (!rc_domtree_contains(&a->pdom, b)) return b;
  rc_u32vec ctrl = {0}, sub = {0};
  uint32_t found = RC_NONE;
  ++*stamp;
  rc_vec_push(&ctrl, b);
  while (ctrl.len && found == RC_NONE) {
    uint32_t x = ctrl.data[--ctrl.len];
    found = controlling_branches(a, x, mark, *stamp, &sub, &ctrl);
  }
  rc_vec_free(&ctrl);
  rc_vec_free(&sub);
  return found;
}

uint32_t rc_divergent_barriers(const rc_kernel *k, const rc_analysis *a, rc_u32vec *where) {
  uint32_t *mark = NULL, count = 0, stamp = 0;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    if (!rc_block_has_barrier(k->blocks[b]) || !rc_domtree_contains(&a->dom, b)) continue;
    if (!mark) mark = rc_xcalloc(a->cfg.nblocks + 1, sizeof *mark);
    if (rc_barrier_divergent_branch(a, b, mark, &stamp) != RC_NONE) {
      count++;
      if (where) rc_vec_push(where, b);
    }
  }
  free(mark);
  return count;
}
