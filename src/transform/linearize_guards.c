/* linearize, second half: the values a guard variable can hold at each guard block, and where each
 * block's guard check goes under the optimisations O1 and O2 (Anantpur and Govindarajan, CC 2014,
 * section 4.2).
 *
 * The guard variable g of a region holds the position of the block to run next in the region's
 * order (the paper's "block id"; n, one past the last, for the region's exit P). The unoptimised
 * output of Algorithm 1 is a chain: for each position p a guard block G_p (`g == p`: run block p,
 * else fall through), block p itself (which sets g to one of its successors and goes on) and, when
 * block p is the source of a retreating edge, a back-edge guard BE_p (`g <= p`: back to the guard
 * of the loop's first block, else go on).
 *
 * The analysis (section 4.2) propagates sets of guard values along that chain until no set grows:
 * a guard block passes its own value to its block and every other value to the fall-through edge;
 * a block sends the values of its successors (whatever came in: it overwrites g); a back-edge guard
 * sends the values up to its position back and the others on. It terminates because the sets only
 * grow and hold at most n + 1 values ("the cardinality of the set of all possible guard values is
 * equal to the number of unstructured blocks").
 *
 * The plan then places each block's guard check. At opt=0 every check is in the chain (Alg. 1).
 * The paper's optimisations change edges of the chain; the output must stay structured in the
 * strict sense of reconv's check (maximal folding: every if-then has its own join), so here they
 * are expressed as nesting, which keeps every region single-entry single-exit:
 *  - O1 ("if only one incoming edge of a guard block has the matching guard value then the
 *    destinations of all other incoming edges are changed to the next guard block"): when the
 *    values that skipped block i (G_i's fall-through) cannot include j, the guard of j moves into
 *    the then side of G_i, after block i: the fall-through edge now skips it. When the values
 *    leaving block i cannot include j, the guard of j moves into the else side of G_i: block i's
 *    edge skips it. A guard that every reaching value matches has no check left: the block runs.
 *  - O2 ("if block B_i dominates block B_j in the original CFG, then the guard block for B_j can be
 *    nested within the guard block for B_i"): guards nested by O1 can themselves take nested
 *    guards, of the blocks they dominate, to any depth.
 * Each placement is checked against the value sets, so a nesting never hides a block from a value
 * that needs it (the paper states O2 for dominance alone; inside loops a value can reach B_j's
 * guard without passing B_i's in the same sweep, and the check keeps such guards in the chain).
 * Nesting never crosses a loop of the output: a loop starts and ends with every guard closed. */
#include "linearize_internal.h"

#include <stdlib.h>
#include <string.h>

static bool union_into(lin_word *dst, const lin_word *src, uint32_t words) {
  bool grew = false;
  for (uint32_t w = 0; w < words; w++) {
    lin_word x = dst[w] | src[w];
    grew |= x != dst[w];
    dst[w] = x;
  }
  return grew;
}

/* out = what leaves G_p and block p together: the values that did not match p, and p's successors
 * when p can match. */
static void chain_out(const lin_region *r, uint32_t p, const lin_word *in, lin_word *out) {
  memcpy(out, in, r->words * sizeof *out);
  out[p / 64] &= ~((lin_word)1 << (p % 64));
  if (lin_has(in, p))
    for (uint32_t s = 0; s < r->nsucc[p]; s++) lin_add(out, r->succ[p][s]);
}

void lin_guard_values(lin_region *r) {
  uint32_t n = r->n, W = r->words;
  r->in = rc_xcalloc((size_t)n * W + 1, sizeof *r->in);
  r->back_in = rc_xcalloc((size_t)n * W + 1, sizeof *r->back_in);
  if (!n) return;
  lin_word *out = rc_xmalloc(W * sizeof *out);
  union_into(r->in, r->entry, W);
  /* forward sweeps along the chain; only back-edge guards feed earlier guards, so a sweep that adds
   * nothing to a loop's first guard ends the iteration */
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t p = 0; p < n; p++) {
      chain_out(r, p, &r->in[(size_t)p * W], out);
      if (r->back_to[p] != RC_NONE) {
        lin_word *be = &r->back_in[(size_t)p * W];
        union_into(be, out, W);
        lin_word *head = &r->in[(size_t)r->back_to[p] * W];
        for (uint32_t v = 0; v <= p; v++)
          if (lin_has(out, v) && !lin_has(head, v)) {
            lin_add(head, v);
            changed = true;
          }
        for (uint32_t v = 0; v <= p; v++) out[v / 64] &= ~((lin_word)1 << (v % 64));
      }
      if (p + 1 < n) union_into(&r->in[(size_t)(p + 1) * W], out, W);
    }
  }
  free(out);
}

/* ---- the plan ----------------------------------------------------------------------------------- */

/* An open guard of the planner: the block it guards, the side being filled, and the values at the
 * current end of each side. */
typedef struct open_guard {
  uint32_t pos;
  bool else_side;
  lin_word *vals[2]; /* [0] then side, [1] else side */
} open_guard;

typedef struct planner {
  const lin_region *r;
  const rc_domtree *dom;
  int opt;
  lin_plan *plan;
  RC_VEC(open_guard) open;
  lin_word *pool; /* 2 sets per open guard, indexed by depth */
  uint32_t pool_depth;
} planner;

static lin_word *side_set(planner *pl, uint32_t depth, int side) {
  if (depth >= pl->pool_depth) {
    uint32_t nd = pl->pool_depth ? pl->pool_depth * 2 : 8;
    while (nd <= depth) nd *= 2;
    pl->pool = rc_xrealloc(pl->pool, (size_t)nd * 2 * pl->r->words * sizeof *pl->pool);
    pl->pool_depth = nd;
    /* the open guards' pointers moved with the pool */
    for (uint32_t d = 0; d < pl->open.len; d++)
      for (int s = 0; s < 2; s++) pl->open.data[d].vals[s] = pl->pool + ((size_t)d * 2 + s) * pl->r->words;
  }
  return pl->pool + ((size_t)depth * 2 + side) * pl->r->words;
}

/* Close the innermost open guard: its two sides join, and the side of its parent it sits in now
 * ends with the values of both. */
static void close_innermost(planner *pl) {
  uint32_t W = pl->r->words;
  open_guard g = pl->open.data[--pl->open.len];
  if (!pl->open.len) return;
  open_guard *parent = &pl->open.data[pl->open.len - 1];
  lin_word *dst = parent->vals[parent->else_side];
  for (uint32_t w = 0; w < W; w++) dst[w] = g.vals[0][w] | g.vals[1][w];
}

static void close_all(planner *pl) {
  while (pl->open.len) close_innermost(pl);
}

/* Can the open guard at depth d take j nested in one of its sides (O1 at depth 0, O2 deeper)? */
static bool accepts(const planner *pl, uint32_t d, uint32_t j) {
  if (d == 0) return pl->opt >= 1;
  return pl->opt >= 2 &&
         rc_dominates(pl->dom, pl->r->block[pl->open.data[d].pos], pl->r->block[j]);
}

static void place_unit(planner *pl, uint32_t j) {
  const lin_region *r = pl->r;
  uint32_t W = r->words;
  /* ancestors_ok: no open guard above depth d has j on the side that the nesting would hide */
  uint32_t depth = pl->open.len;
  bool *ancestors_ok = rc_xmalloc((depth + 1) * sizeof *ancestors_ok);
  ancestors_ok[0] = true;
  for (uint32_t d = 0; d < depth; d++) {
    const open_guard *g = &pl->open.data[d];
    ancestors_ok[d + 1] = ancestors_ok[d] && !lin_has(g->vals[!g->else_side], j);
  }
  const lin_word *in = NULL;
  bool else_side = false;
  while (pl->open.len) {
    uint32_t d = pl->open.len - 1;
    open_guard *g = &pl->open.data[d];
    if (ancestors_ok[d] && accepts(pl, d, j)) {
      if (!g->else_side && !lin_has(g->vals[1], j)) { /* the fall-through of G_i skips G_j */
        in = g->vals[0];
        break;
      }
      if (!lin_has(g->vals[0], j)) { /* block i's edge skips G_j */
        g->else_side = true;
        else_side = true;
        in = g->vals[1];
        break;
      }
    }
    close_innermost(pl);
  }
  free(ancestors_ok);
  uint32_t at = pl->open.len;
  if (!in) in = &r->in[(size_t)j * W];
  /* O1: a check that every reaching value passes is dropped */
  bool guarded = true;
  if (pl->opt >= 1 && lin_has(in, j)) {
    guarded = false;
    for (uint32_t w = 0; w < W && !guarded; w++)
      guarded = (in[w] & ~(w == j / 64 ? (lin_word)1 << (j % 64) : 0)) != 0;
  }
  lin_step st = {LIN_STEP_UNIT, guarded, else_side, j, at};
  rc_vec_push(pl->plan, st);
  /* the values after block j: in a new open guard (guarded), or at the end of the side it is in */
  lin_word *tmp = rc_xmalloc(W * sizeof *tmp);
  memset(tmp, 0, W * sizeof *tmp);
  if (lin_has(in, j))
    for (uint32_t s = 0; s < r->nsucc[j]; s++) lin_add(tmp, r->succ[j][s]);
  if (guarded) {
    lin_word *rest = rc_xmalloc(W * sizeof *rest);
    memcpy(rest, in, W * sizeof *rest);
    rest[j / 64] &= ~((lin_word)1 << (j % 64));
    open_guard g = {j, false, {NULL, NULL}};
    rc_vec_push(&pl->open, g);
    lin_word *t = side_set(pl, at, 0), *e = side_set(pl, at, 1);
    pl->open.data[at].vals[0] = t;
    pl->open.data[at].vals[1] = e;
    memcpy(t, tmp, W * sizeof *t);
    memcpy(e, rest, W * sizeof *e);
    free(rest);
  } else if (at > 0) {
    open_guard *parent = &pl->open.data[at - 1];
    memcpy(parent->vals[parent->else_side], tmp, W * sizeof *tmp);
  }
  free(tmp);
}

void lin_plan_build(const lin_region *r, const rc_domtree *dom, int opt, lin_plan *plan) {
  planner pl;
  memset(&pl, 0, sizeof pl);
  pl.r = r;
  pl.dom = dom;
  pl.opt = opt;
  pl.plan = plan;
  /* the loops starting at each position, outermost (latest end) first: a bucket list */
  uint32_t n = r->n;
  uint32_t *head = rc_xmalloc((n + 1) * sizeof *head), *next = rc_xmalloc((n + 1) * sizeof *next);
  for (uint32_t p = 0; p <= n; p++) head[p] = RC_NONE;
  for (uint32_t q = 0; q < n; q++) /* ascending ends pushed at the front: latest end first */
    if (r->back_to[q] != RC_NONE) {
      next[q] = head[r->back_to[q]];
      head[r->back_to[q]] = q;
    }
  for (uint32_t p = 0; p < n; p++) {
    if (head[p] != RC_NONE) close_all(&pl);
    if (opt == 0) { /* Algorithm 1 as it is: every guard in the chain (no analysis needed) */
      for (uint32_t q = head[p]; q != RC_NONE; q = next[q]) {
        lin_step st = {LIN_STEP_LOOP_BEGIN, false, false, q, 0};
        rc_vec_push(plan, st);
      }
      lin_step u = {LIN_STEP_UNIT, true, false, p, 0};
      rc_vec_push(plan, u);
      if (r->back_to[p] != RC_NONE) {
        lin_step st = {LIN_STEP_LOOP_END, false, false, p, 0};
        rc_vec_push(plan, st);
      }
      continue;
    }
    for (uint32_t q = head[p]; q != RC_NONE; q = next[q]) {
      lin_step st = {LIN_STEP_LOOP_BEGIN, false, false, q, 0};
      rc_vec_push(plan, st);
    }
    place_unit(&pl, p);
    if (r->back_to[p] != RC_NONE) {
      close_all(&pl);
      lin_step st = {LIN_STEP_LOOP_END, false, false, p, 0};
      rc_vec_push(plan, st);
    }
  }
  free(head);
  free(next);
  rc_vec_free(&pl.open);
  free(pl.pool);
}
