/* linearize, the regions: Algorithm 2 of Anantpur and Govindarajan (CC 2014, section 4) and the
 * single-entry single-exit regions of Def. 4.
 *
 * For every seed (the two ends of an unstructured edge, Def. 1; with REGION_FOLD also a block that
 * maximal folding leaves and its successors) the set grows until it is closed: D and P are the
 * common dominator and post-dominator of the set (Defs. 2 and 3: its CIDOM and CIPDOM, outside the
 * set, Alg. 2 lines 8-9); the set takes every block on a path D -> P that D dominates and P
 * post-dominates (lines 10-14); an edge that enters the set other than from D, or leaves it other
 * than to P, adds its other end (Def. 4); regions that overlap are merged ("the unstructured regions
 * of two unstructured edges cannot partly overlap"). Iterative; a region needing a block above the
 * entry or below the exit is reported to the caller, which adds one and starts again. */
#include "linearize_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- Algorithm 2: the unstructured regions ------------------------------------------------------ */

typedef struct finder {
  const rc_cfg *g;
  const rc_domtree *dom, *pdom;
  uint32_t n;
  uint32_t *stamp, clock; /* scratch marks */
  uint8_t *in_set, *fwd;
  uint32_t *region_of, *as_D, *as_P;
  rc_u32vec work;
} finder;

/* Blocks reachable from `from` along edges that avoid `a` and `b` (marks in mark[]); forward or
 * backward. */
static void reach(finder *f, uint32_t from, uint32_t a, uint32_t b, bool backward, uint8_t *mark) {
  const rc_cfg *g = f->g;
  f->work.len = 0;
  rc_vec_push(&f->work, from);
  while (f->work.len) {
    uint32_t x = f->work.data[--f->work.len];
    const uint32_t *s = backward ? &g->preds[g->pred_start[x]] : &g->succs[g->succ_start[x]];
    uint32_t ns = backward ? g->pred_start[x + 1] - g->pred_start[x] : g->succ_start[x + 1] - g->succ_start[x];
    for (uint32_t i = 0; i < ns; i++) {
      uint32_t y = s[i];
      if (y == a || y == b || mark[y] || !rc_domtree_contains(f->dom, y)) continue;
      mark[y] = 1;
      rc_vec_push(&f->work, y);
    }
  }
}

/* Grow S (in_set / set) to a closed region. Returns 0 and fills *out, or 1 when the region needs a
 * block above the entry (need_entry) or below the exit (need_exit). Overlapping regions are merged
 * into it (marked dead in rv). */
static int grow_region(finder *f, rc_u32vec *set, region_vec *rv, found_region *out, bool *need_entry,
                       bool *need_exit) {
  uint32_t n = f->n;
  for (;;) {
    uint32_t D = set->data[0], P = set->data[0];
    for (uint32_t i = 1; i < set->len; i++) {
      D = rc_domtree_lca(f->dom, D, set->data[i]);
      P = rc_domtree_lca(f->pdom, P, set->data[i]);
    }
    if (f->in_set[D]) {
      if (f->dom->idom[D] == D) return *need_entry = true, 1;
      D = f->dom->idom[D];
    }
    if (P == n || f->in_set[P]) {
      if (P == n || f->pdom->idom[P] == n) return *need_exit = true, 1;
      P = f->pdom->idom[P];
    }
    /* every block on a path D -> P (Alg. 2 lines 10-14: dominated by D and reaching P, or
     * post-dominated by P and reached from D) */
    memset(f->fwd, 0, n);
    reach(f, D, D, P, false, f->fwd);
    uint8_t *bwd = rc_xcalloc(n, 1);
    reach(f, P, P, D, true, bwd);
    /* single entry, single exit: D dominates and P post-dominates every block of the region (which
     * keeps D == P, the body of a loop entered and left at its header, to that body) */
    for (uint32_t b = 0; b < n; b++)
      if (f->fwd[b] && bwd[b] && !f->in_set[b] && rc_dominates(f->dom, D, b) && rc_dominates(f->pdom, P, b)) {
        f->in_set[b] = 1;
        rc_vec_push(set, b);
      }
    free(bwd);
    /* Def. 4: edges enter only from D and leave only to P; regions do not overlap */
    uint32_t before = set->len;
    for (uint32_t i = 0; i < before; i++) {
      uint32_t b = set->data[i];
      for (uint32_t e = f->g->pred_start[b]; e < f->g->pred_start[b + 1]; e++) {
        uint32_t x = f->g->preds[e];
        if (x != D && !f->in_set[x] && rc_domtree_contains(f->dom, x)) f->in_set[x] = 1, rc_vec_push(set, x);
      }
      for (uint32_t e = f->g->succ_start[b]; e < f->g->succ_start[b + 1]; e++) {
        uint32_t y = f->g->succs[e];
        if (y != P && !f->in_set[y]) f->in_set[y] = 1, rc_vec_push(set, y);
      }
    }
    bool merged = false;
    for (uint32_t i = 0; i < set->len + 2; i++) {
      uint32_t b = i < set->len ? set->data[i] : i == set->len ? D : P;
      uint32_t other = f->region_of[b];
      if (other == RC_NONE && f->as_D[b] != RC_NONE && !(b == P)) other = f->as_D[b];
      if (other == RC_NONE && f->as_P[b] != RC_NONE && !(b == D)) other = f->as_P[b];
      if (other == RC_NONE || !rv->data[other].alive) continue;
      found_region *o = &rv->data[other];
      o->alive = false;
      merged = true;
      for (uint32_t j = 0; j < o->blocks.len; j++) {
        uint32_t x = o->blocks.data[j];
        f->region_of[x] = RC_NONE;
        if (!f->in_set[x]) f->in_set[x] = 1, rc_vec_push(set, x);
      }
      f->as_D[o->D] = f->as_P[o->P] = RC_NONE;
    }
    if (set->len == before && !merged) {
      out->D = D;
      out->P = P;
      out->alive = true;
      out->blocks = *set;
      *set = (rc_u32vec){0};
      return 0;
    }
  }
}

/* The regions of k (see region_mode). */
int lin_find_regions(const rc_kernel *k, const rc_analysis *a, region_mode mode, region_vec *rv,
                        bool *need_entry, bool *need_exit) {
  const rc_cfg *g = &a->cfg;
  uint32_t n = g->nblocks;
  if (mode == REGION_ALL) {
    uint32_t exit = RC_NONE;
    for (uint32_t b = 0; b < n; b++) {
      rc_instr *t = rc_block_term(k->blocks[b]);
      if (rc_domtree_contains(&a->dom, b) && t && (t->op == RC_OP_RET || t->op == RC_OP_UNREACHABLE)) exit = b;
    }
    found_region r = {g->entry, exit, {0}, true};
    for (uint32_t b = 0; b < n; b++)
      if (b != g->entry && b != exit && rc_domtree_contains(&a->dom, b)) rc_vec_push(&r.blocks, b);
    if (exit == RC_NONE || !r.blocks.len) {
      rc_vec_free(&r.blocks);
      return 0;
    }
    rc_vec_push(rv, r);
    return 0;
  }
  rc_u32vec edges = {0};
  rc_unstructured_edges(g, &a->dom, &a->pdom, &a->cycles, &edges);
  finder f;
  memset(&f, 0, sizeof f);
  f.g = g, f.dom = &a->dom, f.pdom = &a->pdom, f.n = n;
  f.in_set = rc_xcalloc(n + 1, 1);
  f.fwd = rc_xcalloc(n + 1, 1);
  f.region_of = rc_xmalloc((n + 1) * sizeof *f.region_of);
  f.as_D = rc_xmalloc((n + 1) * sizeof *f.as_D);
  f.as_P = rc_xmalloc((n + 1) * sizeof *f.as_P);
  for (uint32_t b = 0; b <= n; b++) f.region_of[b] = f.as_D[b] = f.as_P[b] = RC_NONE;
  /* seeds: the two ends of each unstructured edge; with REGION_FOLD also each condition node that
   * maximal folding leaves, with its successors, unless it heads a cycle (a loop is left unfolded
   * when its body does not fold; the body's own leftovers seed the region then) */
  uint32_t nedges = edges.len / 2;
  if (mode == REGION_FOLD) {
    rc_u32vec left = {0};
    rc_is_structured(g, &a->dom, &a->pdom, &left);
    for (uint32_t i = 0; i < left.len; i++) {
      uint32_t c = left.data[i];
      bool header = false;
      for (uint32_t cy = 0; cy < a->cycles.ncycles && !header; cy++) header = a->cycles.cycles[cy].header == c;
      if (header) continue;
      for (uint32_t e = g->succ_start[c]; e < g->succ_start[c + 1]; e++) {
        rc_vec_push(&edges, c);
        rc_vec_push(&edges, g->succs[e]);
      }
    }
    rc_vec_free(&left);
  }
  (void)nedges;
  int rc = 0;
  for (uint32_t e = 0; e + 1 < edges.len && rc == 0; e += 2) {
    uint32_t u = edges.data[e], v = edges.data[e + 1];
    if (f.region_of[u] != RC_NONE && f.region_of[u] == f.region_of[v]) continue;
    rc_u32vec set = {0};
    rc_vec_push(&set, u);
    f.in_set[u] = 1;
    if (v != u) rc_vec_push(&set, v), f.in_set[v] = 1;
    found_region r;
    rc = grow_region(&f, &set, rv, &r, need_entry, need_exit);
    if (rc == 0) {
      uint32_t idx = rv->len;
      for (uint32_t i = 0; i < r.blocks.len; i++) f.region_of[r.blocks.data[i]] = idx;
      f.as_D[r.D] = f.as_P[r.P] = idx;
      for (uint32_t i = 0; i < r.blocks.len; i++) f.in_set[r.blocks.data[i]] = 0;
      rc_vec_push(rv, r);
    }
    rc_vec_free(&set);
  }
  rc_vec_free(&edges);
  rc_vec_free(&f.work);
  free(f.in_set);
  free(f.fwd);
  free(f.region_of);
  free(f.as_D);
  free(f.as_P);
  return rc;
}
