/* linearize, shared joins: a join of its own for every branch whose region is single-entry
 * single-exit except that its join is shared with an enclosing branch.
 *
 * Anantpur and Govindarajan's Def. 1 calls an edge unstructured when it enters or leaves a region
 * other than at its entry or exit; a *shared join* is not one (Fig. 2(a): the three branches of the
 * nested if-else all meet at Exit; the short-circuit `if (a && b)` of Fig. 1's B1, where both
 * branches go to the same join), so the paper linearizes none of it. reconv's structured check
 * (maximal folding, thesis Defs. 7-14) needs a join of its own for every selection, and without
 * this step such kernels were linearized with guards (REGION_FOLD), at the cost of a guard chain
 * where one block does: on Rodinia's kernels, where every `if (a && b)` of clang -O2 is such a
 * shape, that was most of linearize's growth (issue 30).
 *
 * For a branch c whose immediate post-dominator J is not immediately dominated by c, and whose
 * region is closed (every block reached from c without passing J is dominated by c: nothing enters
 * the region but through c), the edges from the region into J are moved to a new empty block J'
 * that jumps to J: J' is then c's join, immediately dominated by c. A region that is not closed is
 * really unstructured (Def. 1 finds its edges) and is left to the guards. Branches are taken
 * deepest in the dominator tree first, so inner ones get their joins before the branches around
 * them; one round splits every join whose region no split of that round has touched, and rounds
 * repeat until none is left. The new blocks are RC_BLOCK_VIRTUAL (skipped in traces); SSA repair
 * moves the phis of J that read values of the region into J'. Iterative. */
#include "linearize_internal.h"

#include <stdlib.h>
#include <string.h>

/* One round on k. Returns the number of joins split. */
static uint32_t split_round(rc_kernel *k, const rc_analysis *a) {
  const rc_cfg *g = &a->cfg;
  uint32_t n = g->nblocks, splits = 0;
  uint32_t *seen = rc_xcalloc(n + 1, sizeof *seen);
  uint8_t *touched = rc_xcalloc(n + 1, 1);
  rc_u32vec span = {0}, order = {0};
  /* deepest first: the blocks by decreasing depth in the dominator tree */
  for (uint32_t b = 0; b < n; b++)
    if (rc_domtree_contains(&a->dom, b) && g->succ_start[b + 1] - g->succ_start[b] >= 2) rc_vec_push(&order, b);
  for (uint32_t i = 1; i < order.len; i++) /* insertion sort: a handful of branches per kernel */
    for (uint32_t j = i; j > 0 && a->dom.depth[order.data[j - 1]] < a->dom.depth[order.data[j]]; j--) {
      uint32_t t = order.data[j];
      order.data[j] = order.data[j - 1];
      order.data[j - 1] = t;
    }
  rc_block **blocks = rc_xmalloc((n + 1) * sizeof *blocks);
  memcpy(blocks, k->blocks, n * sizeof *blocks);
  for (uint32_t oi = 0; oi < order.len; oi++) {
    uint32_t c = order.data[oi], J = a->pdom.idom[c];
    if (J == RC_NONE || J >= n || a->dom.idom[J] == c || touched[J] || touched[c]) continue;
    /* the region: blocks reached from c without passing J, all dominated by c and untouched */
    span.len = 0;
    rc_vec_push(&span, c);
    seen[c] = oi + 1;
    bool closed = true;
    for (uint32_t s = 0; s < span.len && closed; s++) {
      uint32_t x = span.data[s];
      for (uint32_t e = g->succ_start[x]; e < g->succ_start[x + 1]; e++) {
        uint32_t y = g->succs[e];
        if (y == J || seen[y] == oi + 1) continue;
        if (y == c || !rc_dominates(&a->dom, c, y) || touched[y]) {
          closed = false;
          break;
        }
        seen[y] = oi + 1;
        rc_vec_push(&span, y);
      }
    }
    if (!closed) continue;
    rc_block *Jb = blocks[J];
    char name[200];
    snprintf(name, sizeof name, "%.180s.join", Jb->name);
    rc_block *split = rc_block_new(k, name);
    split->bflags |= RC_BLOCK_VIRTUAL;
    rc_builder bld;
    rc_builder_at_end(&bld, split);
    rc_build_jmp(&bld, Jb);
    for (uint32_t s = 0; s < span.len; s++) {
      rc_instr *t = rc_block_term(blocks[span.data[s]]);
      for (uint32_t i = 0; t && i < t->ntargets; i++)
        if (t->targets[i] == Jb) rc_term_set_target(t, i, split);
      touched[span.data[s]] = 1;
    }
    touched[J] = 1;
    splits++;
  }
  free(blocks);
  free(seen);
  free(touched);
  rc_vec_free(&span);
  rc_vec_free(&order);
  return splits;
}

int lin_split_shared_joins(rc_ctx *ctx, rc_kernel *k, uint32_t *count) {
  *count = 0;
  for (;;) {
    rc_analysis a;
    if (rc_analysis_build(&a, k, 0)) return -1;
    uint32_t s = split_round(k, &a);
    rc_analysis_free(&a);
    if (!s) break;
    *count += s;
    /* the phis of each old join J read the region's values through J' now */
    if (rc_ssa_repair_kernel(ctx, k)) return -1;
  }
  return 0;
}
