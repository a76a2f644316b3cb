/* linearize, the regions: Algorithm 2 of Anantpur and Govindarajan (CC 2014, section 4) and the
 * single-entry single-exit regions of Def. 4.
 *
 * For every seed (the two ends of an unstructured edge, Def. 1; with REGION_FOLD also the innermost
 * condition nodes maximal folding leaves, with their successors but their joins) the set grows until it is closed: D and P are the
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

/* The seeds maximal folding gives (REGION_FOLD): a condition node c that folding leaves, and not a
 * cycle header (a loop is left unfolded when its body does not fold; the body's own leftovers seed
 * the region then), seeds the edges to its successors other than its immediate post-dominator
 * (its join: a seed there would grow the region past the join, to the join's post-dominator). Only
 * the innermost leftovers seed: c such that no other leftover lies between c and its join (the
 * blocks c dominates and reaches without passing the join). The unfolded node that encloses an
 * inner one is usually left only because the inner one is (hotspot's short-circuit load guard
 * leaves every branch around it unfolded); the pass runs again on its own output, whose inner
 * regions are then structured, until the kernel folds (rc_pass_linearize), which keeps the
 * regions as small as Def. 4 allows instead of one region around everything left. */
static void fold_seeds(const rc_cfg *g, const rc_analysis *a, rc_u32vec *edges) {
  rc_u32vec left = {0}, work = {0};
  rc_is_structured(g, &a->dom, &a->pdom, &left);
  uint32_t n = g->nblocks;
  uint8_t *is_left = rc_xcalloc(n + 1, 1);
  uint32_t *seen = rc_xcalloc(n + 1, sizeof *seen);
  for (uint32_t i = 0; i < left.len; i++) is_left[left.data[i]] = 1;
  for (uint32_t cy = 0; cy < a->cycles.ncycles; cy++) {
    uint32_t h = a->cycles.cycles[cy].header;
    if (h < n) is_left[h] = 0;
  }
  for (uint32_t i = 0; i < left.len; i++) {
    uint32_t c = left.data[i], join = a->pdom.idom[c];
    if (!is_left[c]) continue;
    bool inner = true;
    work.len = 0;
    rc_vec_push(&work, c);
    seen[c] = i + 1;
    while (work.len && inner) {
      uint32_t x = work.data[--work.len];
      for (uint32_t e = g->succ_start[x]; e < g->succ_start[x + 1] && inner; e++) {
        uint32_t y = g->succs[e];
        if (y == join || seen[y] == i + 1 || !rc_dominates(&a->dom, c, y)) continue;
        seen[y] = i + 1;
        inner = !is_left[y] || y == c;
        rc_vec_push(&work, y);
      }
    }
    if (!inner) continue;
    for (uint32_t e = g->succ_start[c]; e < g->succ_start[c + 1]; e++)
      if (g->succs[e] != join) {
        rc_vec_push(edges, c);
        rc_vec_push(edges, g->succs[e]);
      }
  }
  free(is_left);
  free(seen);
  rc_vec_free(&left);
  rc_vec_free(&work);
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
  /* seeds: the two ends of each unstructured edge; with REGION_FOLD also the innermost condition
   * nodes that maximal folding leaves (see fold_seeds) */
  if (mode == REGION_FOLD) fold_seeds(g, a, &edges);
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

/* ---- Algorithm 3: structured sub-regions ------------------------------------------------------------- */

/* Is the sub-CFG of the blocks list[0..m) (list[0] its entry, list[m-1] its exit) structured? local[]
 * maps block ids to their index in list (RC_NONE outside); the exit's edges are left out. */
static bool sub_cfg_structured(const rc_cfg *g, const uint32_t *list, uint32_t m, const uint32_t *local) {
  rc_cfg sub;
  memset(&sub, 0, sizeof sub);
  sub.nblocks = m;
  sub.entry = 0;
  sub.succ_start = rc_xcalloc(m + 1, sizeof *sub.succ_start);
  sub.pred_start = rc_xcalloc(m + 1, sizeof *sub.pred_start);
  rc_u32vec from = {0}, to = {0};
  for (uint32_t i = 0; i + 1 < m; i++)
    for (uint32_t e = g->succ_start[list[i]]; e < g->succ_start[list[i] + 1]; e++) {
      rc_vec_push(&from, i);
      rc_vec_push(&to, local[g->succs[e]]);
    }
  uint32_t ne = from.len;
  sub.succs = rc_xmalloc((ne + 1) * sizeof *sub.succs);
  sub.preds = rc_xmalloc((ne + 1) * sizeof *sub.preds);
  for (uint32_t e = 0; e < ne; e++) sub.succ_start[from.data[e] + 1]++, sub.pred_start[to.data[e] + 1]++;
  for (uint32_t i = 0; i < m; i++) sub.succ_start[i + 1] += sub.succ_start[i], sub.pred_start[i + 1] += sub.pred_start[i];
  uint32_t *fs = rc_xmalloc((m + 1) * sizeof *fs), *fp = rc_xmalloc((m + 1) * sizeof *fp);
  memcpy(fs, sub.succ_start, (m + 1) * sizeof *fs);
  memcpy(fp, sub.pred_start, (m + 1) * sizeof *fp);
  for (uint32_t e = 0; e < ne; e++) {
    sub.succs[fs[from.data[e]]++] = to.data[e];
    sub.preds[fp[to.data[e]]++] = from.data[e];
  }
  free(fs);
  free(fp);
  rc_vec_free(&from);
  rc_vec_free(&to);
  rc_domtree dom, pdom;
  rc_domtree_build(&dom, &sub, false);
  rc_domtree_build(&pdom, &sub, true);
  bool ok = rc_is_structured(&sub, &dom, &pdom, NULL);
  rc_domtree_free(&dom);
  rc_domtree_free(&pdom);
  rc_cfg_free(&sub);
  return ok;
}

void lin_structured_subregions(const rc_analysis *a, const uint32_t *order, uint32_t n, const uint8_t *in_r,
                               uint32_t *owner, uint32_t *exit_of) {
  const rc_cfg *g = &a->cfg;
  uint32_t nb = g->nblocks;
  for (uint32_t i = 0; i < n; i++) owner[order[i]] = exit_of[order[i]] = order[i];
  uint32_t *local = rc_xmalloc((nb + 1) * sizeof *local);
  for (uint32_t b = 0; b <= nb; b++) local[b] = RC_NONE;
  rc_u32vec list = {0}, work = {0};
  for (uint32_t i = 0; i < n; i++) {
    uint32_t d = order[i];
    if (owner[d] != d) continue; /* inside a sub-region found before */
    uint32_t p = a->pdom.idom[d];
    if (p == RC_NONE || p >= nb || p == d || !in_r[p] || owner[p] != p || a->dom.idom[p] != d) continue;
    /* the blocks between d and p: reached from d without passing p */
    list.len = work.len = 0;
    rc_vec_push(&list, d);
    local[d] = 0;
    rc_vec_push(&work, d);
    bool ok = true;
    while (work.len && ok) {
      uint32_t x = work.data[--work.len];
      for (uint32_t e = g->succ_start[x]; e < g->succ_start[x + 1] && ok; e++) {
        uint32_t y = g->succs[e];
        if (y == p || (local[y] != RC_NONE && y != d)) continue;
        ok = y != d && in_r[y] && owner[y] == y; /* no edge back to d, nothing outside */
        if (!ok) break;
        local[y] = list.len;
        rc_vec_push(&list, y);
        rc_vec_push(&work, y);
      }
    }
    if (ok) {
      local[p] = list.len;
      rc_vec_push(&list, p);
      /* entered only at d, left only from p */
      for (uint32_t j = 1; j < list.len && ok; j++)
        for (uint32_t e = g->pred_start[list.data[j]]; e < g->pred_start[list.data[j] + 1] && ok; e++)
          ok = local[g->preds[e]] != RC_NONE || !rc_domtree_contains(&a->dom, g->preds[e]);
      for (uint32_t e = g->succ_start[p]; e < g->succ_start[p + 1] && ok; e++) ok = local[g->succs[e]] == RC_NONE;
    }
    if (ok) ok = sub_cfg_structured(g, list.data, list.len, local);
    for (uint32_t j = 0; j < list.len; j++) {
      if (ok) owner[list.data[j]] = d;
      local[list.data[j]] = RC_NONE;
    }
    if (ok) exit_of[d] = p;
  }
  rc_vec_free(&list);
  rc_vec_free(&work);
  free(local);
}
