/* The regions of the primary successors (lower_regions.h), near-linear on reconverge's outputs.
 *
 * Facts the walk rests on (B post-dominates every block of R(B): a path from P(B) that left B's
 * post-dominator subtree without passing B would reach an exit without it):
 *   - the successors of a block that B strictly post-dominates are B or blocks B strictly
 *     post-dominates, so R(B) lies in B's subtree, and a member of P(B) (B is its successor) lies in
 *     the region of no primary successor below B;
 *   - a walk for B that reaches a block of R(B1), B1 below B, reaches B1 too: every path from that
 *     block leads to B1 inside R(B1), and B is not in B1's subtree;
 *   - R(B1) lies wholly in R(B) once R(B) holds all of P(B1), or a block of R(B1) from which all
 *     of P(B1) can be reached inside R(B1): R(B) then holds the closure of P(B1), which is R(B1).
 * So the primary successors are taken in post-order of the post-dominator tree (inner ones first),
 * and a region, once made, becomes a *unit* (union-find) that later walks pass in one step: a walk
 * that enters a unit goes on at its B. The unit lies wholly in the region when the walk entered it
 * at every member of its P or at a block marked, when the unit was made, as reaching all of them
 * (one backward walk per member of P). A unit that cannot be shown to lie wholly in the region
 * (regions that overlap without nesting: a loop's exit and a branch whose region reaches into the
 * loop through a side entry) is *opened* for that walk: the blocks and the units it was made of
 * are walked from where the walk entered it, the same way. A region that opened a unit is not
 * made a unit (units must not overlap). A unit keeps its entries (edges from outside into it), so
 * the entries of a region that holds it are found without walking its blocks, and the P0 of its
 * region, the only blocks of it whose values a region around it has to judge again
 * (lower_divergence.c). The sets answered are exactly the block-by-block ones; only the cost
 * differs. */
#include "lower_regions.h"

#include <stdlib.h>
#include <string.h>

enum { REVERSE_WALKS_MAX = 16 }; /* members of P beyond which make_unit marks no entry */

/* The root of x's tree in the unit forest, and how many parents up it is (*depth; the union-find
 * keeps, with each item, its distance to the item it points to, so path compression keeps them). */
static uint32_t uf_find_depth(lower_regions *r, uint32_t x, uint32_t *depth) {
  uint32_t root = x, d = 0;
  while (r->uf[root] != root) {
    d += r->ufdist[root];
    root = r->uf[root];
  }
  for (uint32_t left = d; r->uf[x] != root;) {
    uint32_t next = r->uf[x], step = r->ufdist[x];
    r->uf[x] = root;
    r->ufdist[x] = left;
    left -= step;
    x = next;
  }
  if (depth) *depth = d;
  return root;
}

static uint32_t uf_find(lower_regions *r, uint32_t x) { return uf_find_depth(r, x, NULL); }

static bool is_unit(const lower_regions *r, uint32_t id) { return id > r->nb; }
static uint32_t unit_index(const lower_regions *r, uint32_t id) { return id - r->nb - 1; }
static bool opened(const lower_regions *r, uint32_t id) { return r->gopen[unit_index(r, id)] == r->cur; }

/* The 2^k-th ancestor of item x in the unit tree (up), which the caller knows to exist. The tree
 * only grows at its roots (a unit takes in items that had no parent), so an ancestor found once
 * stays one: the levels are filled in on demand and kept. The recursion is at most k deep
 * (k < 32). */
static uint32_t ancestor(lower_regions *r, uint32_t x, uint32_t k) {
  if (k == 0) return r->up[x];
  while (r->levels.len < k) { /* level 0 is up itself */
    uint32_t *level = rc_xmalloc(2 * ((size_t)r->nb + 1) * sizeof *level);
    for (uint32_t i = 0; i < 2 * r->nb + 2; i++) level[i] = RC_NONE;
    rc_vec_push(&r->levels, level);
  }
  uint32_t *level = r->levels.data[k - 1];
  if (level[x] == RC_NONE) level[x] = ancestor(r, ancestor(r, x, k - 1), k - 1);
  return level[x];
}

/* What block y belongs to in the current walk: itself, or the outermost unit holding it that the
 * walk has not opened. The opened units are the outer ones (a walk opens only a unit it has
 * entered, whose parent is opened or which has none), so along the path from y up, the items not
 * opened come first, and the answer is found by binary lifting over the ancestors, in time
 * logarithmic in the depth of the unit tree, which grows with the nesting of the regions (a climb
 * one parent at a time made lower quadratic on deeply nested regions). The climb is bounded by
 * the nearest item known to be opened: the root of y's tree, or the answer remembered for y in
 * this walk (cache, cdist) once the walk opens that one too, which it does to many units one inside
 * the other; so it never asks for an ancestor that does not exist. */
static uint32_t item_of(lower_regions *r, uint32_t y) {
  if (!r->compressed) return y;
  uint32_t bound; /* the answer is at most this many parents up */
  if (r->cstamp[y] == r->cur) { /* remembered (only ever when the root is opened) */
    uint32_t c = r->cache[y];
    if (!is_unit(r, c) || !opened(r, c)) return c;
    /* c was opened since: the answer is below it, most often c's child, the item just under it */
    bound = r->cdist[y] - 1;
    uint32_t x = y;
    for (uint32_t left = bound; left; left &= left - 1) x = ancestor(r, x, (uint32_t)__builtin_ctz(left));
    if (!is_unit(r, x) || !opened(r, x)) { /* (bound 0: y itself) */
      r->cache[y] = x;
      r->cdist[y] = bound;
      return x;
    }
    bound--;
  } else {
    uint32_t depth, t = uf_find_depth(r, y, &depth);
    if (!is_unit(r, t) || !opened(r, t)) return t;
    bound = depth - 1;
  }
  uint32_t x = y, dist = 0;
  for (uint32_t k = bound ? 31 - (uint32_t)__builtin_clz(bound) : 0; bound; k--) {
    uint32_t a;
    if ((1u << k) <= bound - dist && !opened(r, a = ancestor(r, x, k))) {
      x = a;
      dist += 1u << k;
    }
    if (k == 0) break;
  }
  r->cstamp[y] = r->cur;
  r->cache[y] = x;
  r->cdist[y] = dist;
  return x;
}

void lower_regions_init(lower_regions *r, const rc_cfg *g, const rc_domtree *pdom, const uint32_t *primary) {
  memset(r, 0, sizeof *r);
  uint32_t nb = r->nb = g->nblocks;
  r->g = g;
  r->pdom = pdom;
  r->primary = primary;
  uint32_t nid = 2 * nb + 2; /* a unit per primary successor at most */
  r->uf = rc_xmalloc(nid * sizeof *r->uf);
  r->up = rc_xmalloc(nid * sizeof *r->up);
  r->ufdist = rc_xcalloc(nid, sizeof *r->ufdist);
  for (uint32_t i = 0; i < nid; i++) {
    r->uf[i] = i;
    r->up[i] = RC_NONE;
  }
  r->gexit = rc_xcalloc(nb + 1, sizeof *r->gexit);
  r->gstamp = rc_xcalloc(nb + 1, sizeof *r->gstamp);
  r->gopen = rc_xcalloc(nb + 1, sizeof *r->gopen);
  r->ghead = rc_xcalloc(nb + 1, sizeof *r->ghead);
  r->ent_start = rc_xcalloc(nb + 2, sizeof *r->ent_start);
  r->p_start = rc_xcalloc(nb + 2, sizeof *r->p_start);
  r->nc_start = rc_xcalloc(nb + 2, sizeof *r->nc_start);
  r->stamp = rc_xcalloc(nb + 1, sizeof *r->stamp);
  r->estamp = rc_xcalloc(nb + 1, sizeof *r->estamp);
  r->elast = rc_xcalloc(nb + 1, sizeof *r->elast);
  r->p0stamp = rc_xcalloc(nb + 1, sizeof *r->p0stamp);
  r->istamp = rc_xcalloc(nid, sizeof *r->istamp);
  r->icount = rc_xcalloc(nid, sizeof *r->icount);
  r->icount_at = rc_xcalloc(nid, sizeof *r->icount_at);
  r->cache = rc_xcalloc(nid, sizeof *r->cache);
  r->cstamp = rc_xcalloc(nid, sizeof *r->cstamp);
  r->cdist = rc_xcalloc(nid, sizeof *r->cdist);
  /* the primary successors in post-order of the post-dominator tree (counting sort) */
  uint8_t *is_primary = rc_xcalloc(nb + 1, 1);
  for (uint32_t b = 0; b < nb; b++)
    if (primary[b] != RC_NONE) is_primary[primary[b]] = 1;
  uint32_t *by_post = rc_xmalloc((pdom->nnodes + 1) * sizeof *by_post);
  for (uint32_t i = 0; i <= pdom->nnodes; i++) by_post[i] = RC_NONE;
  for (uint32_t b = 0; b < nb; b++)
    if (is_primary[b] && pdom->post_num[b] < pdom->nnodes) by_post[pdom->post_num[b]] = b;
  r->order = rc_xmalloc((nb + 1) * sizeof *r->order);
  for (uint32_t i = 0; i < pdom->nnodes; i++)
    if (by_post[i] != RC_NONE) r->order[r->norder++] = by_post[i];
  free(by_post);
  free(is_primary);
}

void lower_regions_free(lower_regions *r) {
  free(r->uf);
  free(r->up);
  free(r->ufdist);
  free(r->gexit);
  free(r->gstamp);
  free(r->gopen);
  free(r->ghead);
  free(r->ent_start);
  free(r->p_start);
  free(r->nc_start);
  rc_vec_free(&r->ents);
  rc_vec_free(&r->entgen);
  rc_vec_free(&r->ps);
  rc_vec_free(&r->ncs);
  free(r->stamp);
  free(r->estamp);
  free(r->elast);
  free(r->p0stamp);
  free(r->istamp);
  free(r->icount);
  free(r->icount_at);
  free(r->cache);
  free(r->cstamp);
  free(r->cdist);
  for (uint32_t i = 0; i < r->levels.len; i++) free(r->levels.data[i]);
  rc_vec_free(&r->levels);
  free(r->order);
  rc_vec_free(&r->blocks);
  rc_vec_free(&r->units);
  rc_vec_free(&r->ent);
  rc_vec_free(&r->work);
  rc_vec_free(&r->recs);
  rc_vec_free(&r->opened);
  rc_vec_free(&r->tmp);
}

bool lower_regions_member(lower_regions *r, uint32_t z) {
  if (r->stamp[z] == r->cur) return true;
  uint32_t t = item_of(r, z);
  return is_unit(r, t) && r->gstamp[unit_index(r, t)] == r->cur;
}

bool lower_regions_in_p0(const lower_regions *r, uint32_t y) { return r->p0stamp[y] == r->cur; }

const uint32_t *lower_regions_unit_unjudged(const lower_regions *r, uint32_t u, uint32_t *n) {
  uint32_t gi = unit_index(r, u);
  *n = r->nc_start[gi + 1] - r->nc_start[gi];
  return *n ? r->ncs.data + r->nc_start[gi] : NULL; /* no blocks: the list may not exist */
}

/* The walk reaches block y (not B): a block of the region, or a unit it enters there. */
static void reach(lower_regions *r, uint32_t y) {
  if (y == r->B) return;
  uint32_t it = item_of(r, y);
  if (!is_unit(r, it)) {
    if (r->stamp[y] == r->cur) return;
    r->stamp[y] = r->cur;
    rc_vec_push(&r->blocks, y);
    return;
  }
  uint32_t gi = unit_index(r, it);
  if (r->gstamp[gi] != r->cur) {
    r->gstamp[gi] = r->cur;
    r->ghead[gi] = RC_NONE;
    rc_vec_push(&r->units, it);
    rc_vec_push(&r->work, r->gexit[gi]); /* the walk goes on at the unit's B */
  }
  if (r->estamp[y] == r->cur && r->elast[y] == it) return;
  r->estamp[y] = r->cur; /* entered here (from outside every unit it is in and not opened) */
  r->elast[y] = it;
  lower_regions_entry e = {y, r->ghead[gi]};
  r->ghead[gi] = r->recs.len;
  rc_vec_push(&r->recs, e);
}

/* Can the unit be shown to lie wholly in the region (see the top)? */
static bool unit_full(const lower_regions *r, uint32_t gi) {
  for (uint32_t j = r->ent_start[gi]; j < r->ent_start[gi + 1]; j += 2)
    if (r->entgen.data[j / 2] && r->estamp[r->ents.data[j + 1]] == r->cur) return true;
  for (uint32_t j = r->p_start[gi]; j < r->p_start[gi + 1]; j++)
    if (r->estamp[r->ps.data[j]] != r->cur) return false;
  return true;
}

/* Walk the region of B: the blocks not in a unit (P(B) first), the units. */
static void walk(lower_regions *r, uint32_t B) {
  const rc_cfg *g = r->g;
  uint32_t cur = ++r->cur;
  r->compressed = true;
  r->blocks.len = r->units.len = r->work.len = r->recs.len = r->opened.len = 0;
  for (uint32_t e = g->pred_start[B]; e < g->pred_start[B + 1]; e++) {
    uint32_t p = g->preds[e];
    if (r->primary[p] != B || r->stamp[p] == cur) continue;
    r->compressed &= uf_find(r, p) == p; /* always so (see the top); if not, walk block by block */
    r->stamp[p] = cur;
    rc_vec_push(&r->blocks, p);
  }
  r->np = r->blocks.len;
  uint32_t q = 0, checked = 0;
  for (;;) {
    while (q < r->blocks.len || r->work.len) {
      if (r->work.len) {
        reach(r, r->work.data[--r->work.len]);
        continue;
      }
      uint32_t x = r->blocks.data[q++];
      for (uint32_t e = g->succ_start[x]; e < g->succ_start[x + 1]; e++) reach(r, g->succs[e]);
    }
    bool more = false;
    for (; checked < r->units.len; checked++) {
      uint32_t gi = unit_index(r, r->units.data[checked]);
      if (unit_full(r, gi)) continue;
      r->gopen[gi] = cur; /* walk on from where the walk entered it */
      if (r->up[r->units.data[checked]] == RC_NONE) rc_vec_push(&r->opened, r->units.data[checked]);
      more = true;
      r->nopened++;
      for (uint32_t e = r->ghead[gi]; e != RC_NONE; e = r->recs.data[e].next) rc_vec_push(&r->work, r->recs.data[e].y);
    }
    if (!more) break;
  }
  uint32_t n = 0; /* the units that lie wholly in the region */
  for (uint32_t i = 0; i < r->units.len; i++) {
    uint32_t gi = unit_index(r, r->units.data[i]);
    if (r->gopen[gi] == cur) r->gstamp[gi] = 0; /* opened: not a member as a whole */
    else r->units.data[n++] = r->units.data[i];
  }
  r->units.len = n;
  r->nvisited += r->blocks.len + r->units.len;
}

/* P0 and the entries of the region just walked. */
static void p0_and_entries(lower_regions *r) {
  const rc_cfg *g = r->g;
  for (uint32_t i = 0; i < r->np; i++) {
    uint32_t p = r->blocks.data[i];
    bool entry = true;
    for (uint32_t e = g->pred_start[p]; e < g->pred_start[p + 1] && entry; e++)
      entry = !lower_regions_member(r, g->preds[e]);
    if (entry) r->p0stamp[p] = r->cur;
  }
  r->ent.len = 0;
  for (uint32_t i = 0; i < r->blocks.len; i++) {
    uint32_t y = r->blocks.data[i];
    for (uint32_t e = g->pred_start[y]; e < g->pred_start[y + 1]; e++)
      if (!lower_regions_member(r, g->preds[e])) {
        rc_vec_push(&r->ent, g->preds[e]);
        rc_vec_push(&r->ent, y);
      }
  }
  for (uint32_t i = 0; i < r->units.len; i++) {
    uint32_t gi = unit_index(r, r->units.data[i]);
    for (uint32_t j = r->ent_start[gi]; j < r->ent_start[gi + 1]; j += 2)
      if (!lower_regions_member(r, r->ents.data[j])) {
        rc_vec_push(&r->ent, r->ents.data[j]);
        rc_vec_push(&r->ent, r->ents.data[j + 1]);
      }
  }
}

/* Is block z in the unit the region just walked becomes: in the region, or in a unit it opened? */
static bool in_new_unit(lower_regions *r, uint32_t z) {
  if (lower_regions_member(r, z)) return true;
  uint32_t t = uf_find(r, z);
  return is_unit(r, t) && opened(r, t);
}

/* Count, for every item (item_of) of the new unit, whether it reaches k, a block of the unit's K:
 * a backward walk over blocks and units (a unit that is not opened is reached backward only
 * through its B, and then every block of it reaches k; its entries lead on backward). */
static void count_reaching(lower_regions *r, uint32_t k) {
  const rc_cfg *g = r->g;
  uint32_t wcur = ++r->wcur;
  r->work.len = 0;
  rc_vec_push(&r->work, k);
  r->istamp[k] = wcur;
  while (r->work.len) {
    uint32_t it = r->work.data[--r->work.len];
    if (r->icount_at[it] != r->fcur) {
      r->icount_at[it] = r->fcur;
      r->icount[it] = 0;
    }
    r->icount[it]++;
    const uint32_t *from, *to; /* the item's predecessors: a block's, or a unit's entries */
    uint32_t step;
    if (!is_unit(r, it)) {
      from = g->preds + g->pred_start[it];
      to = g->preds + g->pred_start[it + 1];
      step = 1;
    } else {
      uint32_t gi = unit_index(r, it);
      from = r->ents.data + r->ent_start[gi];
      to = r->ents.data + r->ent_start[gi + 1];
      step = 2;
    }
    for (; from < to; from += step) {
      uint32_t z = *from;
      if (!in_new_unit(r, z)) continue;
      uint32_t zi = item_of(r, z);
      if (r->istamp[zi] == wcur) continue;
      r->istamp[zi] = wcur;
      rc_vec_push(&r->work, zi);
    }
  }
}

/* The region just walked becomes a unit X, with the units it opened (they overlap it): X is the
 * closure, avoiding B, of K = P(B) and the members of the opened units' K outside the region
 * (every block of an opened unit outside the region is reached from one of those), and X lies
 * in B's post-dominator subtree, so the facts at the top hold for X as for a region. Its blocks
 * whose values a region around it still has to judge (lower_divergence.c): P0 of the region
 * and those of the opened units that are outside the region; the others were judged against a
 * region that X holds. */
static void make_unit(lower_regions *r) {
  const rc_cfg *g = r->g;
  uint32_t gi = r->ngroups++, u = r->nb + 1 + gi;
  r->gexit[gi] = r->B;
  r->tmp.len = 0; /* K */
  for (uint32_t i = 0; i < r->np; i++) {
    uint32_t p = r->blocks.data[i];
    rc_vec_push(&r->tmp, p);
    if (lower_regions_in_p0(r, p)) rc_vec_push(&r->ncs, p);
  }
  for (uint32_t i = 0; i < r->opened.len; i++) {
    uint32_t ti = unit_index(r, r->opened.data[i]);
    for (uint32_t j = r->p_start[ti]; j < r->p_start[ti + 1]; j++)
      if (!lower_regions_member(r, r->ps.data[j])) rc_vec_push(&r->tmp, r->ps.data[j]);
    for (uint32_t j = r->nc_start[ti]; j < r->nc_start[ti + 1]; j++)
      if (!lower_regions_member(r, r->ncs.data[j])) rc_vec_push(&r->ncs, r->ncs.data[j]);
  }
  for (uint32_t i = 0; i < r->tmp.len; i++) rc_vec_push(&r->ps, r->tmp.data[i]);
  r->p_start[gi + 1] = r->ps.len;
  r->nc_start[gi + 1] = r->ncs.len;
  /* X's entries: those of its top-level blocks and units (the units taken whole: the ones
   * that lie in the region and the opened ones) */
  uint32_t e0 = r->ents.len;
  for (uint32_t i = 0; i < r->blocks.len; i++) {
    uint32_t y = r->blocks.data[i];
    if (r->up[y] != RC_NONE) continue; /* in an opened unit */
    for (uint32_t e = g->pred_start[y]; e < g->pred_start[y + 1]; e++)
      if (!in_new_unit(r, g->preds[e])) {
        rc_vec_push(&r->ents, g->preds[e]);
        rc_vec_push(&r->ents, y);
      }
  }
  for (uint32_t pass = 0; pass < 2; pass++) {
    const rc_u32vec *list = pass ? &r->opened : &r->units;
    for (uint32_t i = 0; i < list->len; i++) {
      uint32_t t = list->data[i], ti = unit_index(r, t);
      if (r->up[t] != RC_NONE) continue;
      for (uint32_t j = r->ent_start[ti]; j < r->ent_start[ti + 1]; j += 2)
        if (!in_new_unit(r, r->ents.data[j])) {
          rc_vec_push(&r->ents, r->ents.data[j]);
          rc_vec_push(&r->ents, r->ents.data[j + 1]);
        }
    }
  }
  /* the entries from which all of K can be reached (counted over the items as they are, before
   * the merge below); a member of K inside a unit that is not opened would need that unit's
   * blocks, so then no entry is marked */
  bool counted = r->tmp.len <= REVERSE_WALKS_MAX;
  for (uint32_t i = 0; i < r->tmp.len && counted; i++) counted = item_of(r, r->tmp.data[i]) == r->tmp.data[i];
  if (counted) {
    r->fcur++;
    for (uint32_t i = 0; i < r->tmp.len; i++) count_reaching(r, r->tmp.data[i]);
  }
  for (uint32_t j = e0; j < r->ents.len; j += 2) {
    uint32_t yi = item_of(r, r->ents.data[j + 1]);
    rc_vec_push(&r->entgen, (uint8_t)(counted && r->icount_at[yi] == r->fcur && r->icount[yi] == r->tmp.len));
  }
  r->ent_start[gi + 1] = r->ents.len;
  /* merge the top-level items */
  for (uint32_t pass = 0; pass < 3; pass++) {
    const rc_u32vec *list = pass == 0 ? &r->blocks : pass == 1 ? &r->units : &r->opened;
    for (uint32_t i = 0; i < list->len; i++) {
      uint32_t t = list->data[i];
      if (r->up[t] != RC_NONE) continue;
      r->uf[t] = r->up[t] = u;
      r->ufdist[t] = 1;
    }
  }
}

uint32_t lower_regions_next(lower_regions *r) {
  if (r->pending) make_unit(r); /* after the caller's questions about the last region */
  r->pending = false;
  if (r->next == r->norder) return RC_NONE;
  uint32_t B = r->B = r->order[r->next++];
  walk(r, B);
  if (!r->compressed) { /* not expected (see the top): block by block, which is always exact */
    r->cur++;
    r->blocks.len = r->units.len = r->work.len = 0;
    for (uint32_t e = r->g->pred_start[B]; e < r->g->pred_start[B + 1]; e++) {
      uint32_t p = r->g->preds[e];
      if (r->primary[p] == B && r->stamp[p] != r->cur) {
        r->stamp[p] = r->cur;
        rc_vec_push(&r->blocks, p);
      }
    }
    r->np = r->blocks.len;
    for (uint32_t q = 0; q < r->blocks.len; q++)
      for (uint32_t e = r->g->succ_start[r->blocks.data[q]]; e < r->g->succ_start[r->blocks.data[q] + 1]; e++)
        reach(r, r->g->succs[e]);
  }
  p0_and_entries(r);
  r->pending = r->compressed;
  return B;
}
