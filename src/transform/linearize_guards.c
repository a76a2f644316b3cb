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
  uint32_t pos; /* the unit it guards (RC_NONE: a loop entered at several units, `g <= q`) */
  bool else_side;
  lin_word *vals[2]; /* [0] then side, [1] else side */
} open_guard;

/* A loop of the output being planned: its guards are open[base ..] of the planner; the values of g
 * that can be seen inside it are mask (the values entering it and those its units set; NULL at the
 * region's level, where the chain's sets are used as they are); `at` is the open guard of the level
 * around it whose side holds the loop (RC_NONE: the loop sits in that level's chain). */
typedef struct plan_level {
  uint32_t base, end, at;
  lin_word *mask;
} plan_level;

typedef struct planner {
  const lin_region *r;
  const rc_domtree *dom;
  int opt;
  lin_plan *plan;
  RC_VEC(open_guard) open;
  RC_VEC(plan_level) levels; /* the loops around the current position, innermost last */
  uint32_t base;             /* open[base ..] are the open guards of the innermost loop (or region) */
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

/* Close the innermost open guard of the current loop level: its two sides join, and the side of
 * its parent it sits in now ends with the values of both. */
static void close_innermost(planner *pl) {
  uint32_t W = pl->r->words;
  open_guard g = pl->open.data[--pl->open.len];
  if (pl->open.len <= pl->base) return;
  open_guard *parent = &pl->open.data[pl->open.len - 1];
  lin_word *dst = parent->vals[parent->else_side];
  for (uint32_t w = 0; w < W; w++) dst[w] = g.vals[0][w] | g.vals[1][w];
}

static void close_all(planner *pl) {
  while (pl->open.len > pl->base) close_innermost(pl);
}

/* Does the set s hold a value in [lo, hi]? */
static bool has_range(const lin_word *s, uint32_t lo, uint32_t hi) {
  for (uint32_t v = lo; v <= hi; v++)
    if (lin_has(s, v)) return true;
  return false;
}

/* Can the open guard at depth d of its level take the units [lo, hi] nested in its then side, after
 * its block (O1 at depth 0, O2 deeper: the guard's block dominates theirs)? */
static bool accepts_then(const planner *pl, uint32_t d, uint32_t lo, uint32_t hi) {
  if (d == 0) return pl->opt >= 1;
  if (pl->opt < 2 || pl->open.data[pl->base + d].pos == RC_NONE) return false;
  uint32_t i = pl->r->block[pl->open.data[pl->base + d].pos];
  for (uint32_t j = lo; j <= hi; j++)
    if (!rc_dominates(pl->dom, i, pl->r->block[j])) return false;
  return true;
}

/* Can it take them in its else side? O1 at any depth ("the destinations of all other incoming edges
 * are changed to the next guard block": block i's edge skips G_j), without the dominance O2 asks
 * for the then side. This keeps the arms of a branch as the two sides of one guard wherever the
 * first arm's values cannot reach the second arm, nested or not: the arms of a uniform branch then
 * stay apart in the output, so the guards of the second arm test only the values set by that
 * uniform branch, and a barrier there stays in uniform control flow (issue 30: Rodinia's srad
 * reduce_kernel and heartwall, whose second arm was otherwise swept by the first arm's
 * thread-dependent values of g). */
static bool accepts_else(const planner *pl) { return pl->opt >= 1; }

/* The side of an open guard of the current level that the units [lo, hi] (one unit, or a loop of
 * the output) go in: guards that cannot take them are closed, innermost first. Returns the values
 * at the end of that side, with *else_side, or NULL (they go in the level's chain). */
static const lin_word *find_side(planner *pl, uint32_t lo, uint32_t hi, bool *else_side) {
  /* ancestors_ok: no open guard above depth d has one of them on the side the nesting would hide */
  uint32_t depth = pl->open.len - pl->base;
  bool *ancestors_ok = rc_xmalloc((depth + 1) * sizeof *ancestors_ok);
  ancestors_ok[0] = true;
  for (uint32_t d = 0; d < depth; d++) {
    const open_guard *g = &pl->open.data[pl->base + d];
    ancestors_ok[d + 1] = ancestors_ok[d] && !has_range(g->vals[!g->else_side], lo, hi);
  }
  const lin_word *in = NULL;
  *else_side = false;
  while (pl->open.len > pl->base) {
    uint32_t d = pl->open.len - 1 - pl->base;
    open_guard *g = &pl->open.data[pl->open.len - 1];
    if (ancestors_ok[d]) {
      if (!g->else_side && accepts_then(pl, d, lo, hi) && !has_range(g->vals[1], lo, hi)) {
        in = g->vals[0]; /* the fall-through of G_i skips them */
        break;
      }
      if (accepts_else(pl) && !has_range(g->vals[0], lo, hi)) { /* block i's edge skips them */
        g->else_side = true;
        *else_side = true;
        in = g->vals[1];
        break;
      }
    }
    close_innermost(pl);
  }
  free(ancestors_ok);
  return in;
}

/* The values that can reach the guard of unit j in the chain of the current loop level: the
 * chain's set (section 4.2's analysis), within the values the loop can see (into out). */
static void level_in(const planner *pl, uint32_t j, lin_word *out) {
  uint32_t W = pl->r->words;
  memcpy(out, &pl->r->in[(size_t)j * W], W * sizeof *out);
  if (pl->levels.len && pl->levels.data[pl->levels.len - 1].mask)
    for (uint32_t w = 0; w < W; w++) out[w] &= pl->levels.data[pl->levels.len - 1].mask[w];
}

/* The end of the side an item sits in (it was placed at depth `at` of its level) takes vals. */
static void set_side_end(planner *pl, uint32_t at, const lin_word *vals) {
  if (at <= pl->base) return;
  open_guard *parent = &pl->open.data[at - 1];
  memcpy(parent->vals[parent->else_side], vals, pl->r->words * sizeof *vals);
}

static void place_unit(planner *pl, uint32_t j) {
  const lin_region *r = pl->r;
  uint32_t W = r->words;
  bool else_side = false;
  lin_word *in = rc_xmalloc(W * sizeof *in);
  const lin_word *side = find_side(pl, j, j, &else_side);
  if (side) memcpy(in, side, W * sizeof *in);
  else level_in(pl, j, in);
  uint32_t at = pl->open.len;
  /* O1: a check that every reaching value passes is dropped */
  bool guarded = true;
  if (pl->opt >= 1 && lin_has(in, j)) {
    guarded = false;
    for (uint32_t w = 0; w < W && !guarded; w++)
      guarded = (in[w] & ~(w == j / 64 ? (lin_word)1 << (j % 64) : 0)) != 0;
  }
  lin_step st = {.kind = LIN_STEP_UNIT, .guarded = guarded, .else_side = else_side, .pos = j, .depth = at - pl->base};
  rc_vec_push(pl->plan, st);
  /* the values after block j: in a new open guard (guarded), or at the end of the side it is in */
  lin_word *tmp = rc_xmalloc(W * sizeof *tmp);
  memset(tmp, 0, W * sizeof *tmp);
  if (lin_has(in, j))
    for (uint32_t s = 0; s < r->nsucc[j]; s++) lin_add(tmp, r->succ[j][s]);
  if (guarded) {
    in[j / 64] &= ~((lin_word)1 << (j % 64));
    open_guard g = {j, false, {NULL, NULL}};
    rc_vec_push(&pl->open, g);
    lin_word *t = side_set(pl, at, 0), *e = side_set(pl, at, 1);
    pl->open.data[at].vals[0] = t;
    pl->open.data[at].vals[1] = e;
    memcpy(t, tmp, W * sizeof *t);
    memcpy(e, in, W * sizeof *e);
  } else {
    set_side_end(pl, at, tmp);
  }
  free(tmp);
  free(in);
}

/* A loop of the output, units [p, q], begins. Its guards and its back-edge guard go, all together,
 * into a side of an open guard of the level around it when the other side cannot hold a value of
 * the loop's units (O1 and O2 as for one unit): the loop of a branch's arm stays in that arm, so
 * that the next arm's guards do not see the values of g it leaves (heartwall's `if
 * (d_frame_no == 0)`, whose first arm holds a loop of a thread-dependent trip count). Otherwise
 * every guard of the level closes first and the loop sits in the chain. Inside, the loop is a level
 * of its own: its guards nest from depth 0; the values they can see are those entering it and
 * those its units set (a subset of the chain's sets, which assume every value of the region).
 *
 * O1 for the loop as a whole: when one value v of the loop's units can enter it and others would
 * only pass through it, a guard `g == v` encloses the loop and the other values skip it ("the
 * destinations of all other incoming edges are changed to the next guard block"). Besides the
 * sweep it saves, this keeps the values of g that pass through out of a loop of a thread-dependent
 * trip count: after such a loop the uniformity analysis can no longer tell them uniform, and a
 * barrier behind a guard that tests them would be in divergent control flow although every thread
 * reaches it (random kernels of prop_linearize: a uniform branch around a divergent loop). */
static void begin_loop(planner *pl, uint32_t p, uint32_t q) {
  const lin_region *r = pl->r;
  uint32_t W = r->words;
  bool else_side = false;
  const lin_word *side = find_side(pl, p, q, &else_side);
  if (!side) close_all(pl);
  uint32_t depth = pl->open.len - pl->base, holder = side ? pl->open.len - 1 : RC_NONE;
  lin_word *entry = rc_xmalloc(W * sizeof *entry);
  if (side) memcpy(entry, side, W * sizeof *entry);
  else level_in(pl, p, entry);
  uint32_t v = RC_NONE, inside = 0;
  bool below = false, above = false;
  for (uint32_t x = 0; x <= r->n; x++)
    if (lin_has(entry, x)) {
      if (x < p) below = true;
      else if (x > q) above = true;
      else v = x, inside++;
    }
  /* one value enters: `g == v`; several (an irreducible loop, or one entered at a later unit too),
   * and every value that would pass lies past the loop: `g <= q` */
  bool range = inside > 1 && above && !below;
  if (inside >= 1 && (below || above) && (inside == 1 || range)) {
    lin_step g = {.kind = LIN_STEP_LOOP_GUARD, .guarded = true, .else_side = else_side, .range = range,
                  .pos = range ? q : v, .depth = depth, .first = p};
    rc_vec_push(pl->plan, g);
    holder = pl->open.len;
    open_guard og = {range ? RC_NONE : v, false, {NULL, NULL}};
    rc_vec_push(&pl->open, og);
    lin_word *t = side_set(pl, holder, 0), *e = side_set(pl, holder, 1);
    pl->open.data[holder].vals[0] = t;
    pl->open.data[holder].vals[1] = e;
    memset(t, 0, W * sizeof *t);
    memset(e, 0, W * sizeof *e);
    for (uint32_t x = 0; x <= r->n; x++)
      if (lin_has(entry, x) && (x < p || x > q)) {
        lin_add(e, x);
        entry[x / 64] &= ~((lin_word)1 << (x % 64));
      }
    depth++;
    else_side = false;
  }
  lin_step st = {.kind = LIN_STEP_LOOP_BEGIN, .else_side = else_side, .pos = q, .depth = depth};
  rc_vec_push(pl->plan, st);
  plan_level lv = {pl->base, q, holder, entry};
  for (uint32_t j = p; j <= q; j++)
    for (uint32_t s = 0; s < r->nsucc[j]; s++) lin_add(lv.mask, r->succ[j][s]);
  rc_vec_push(&pl->levels, lv);
  pl->base = pl->open.len;
}

/* The back-edge guard after unit q ends the innermost loop: the values above q leave it, to the
 * end of the side that holds it. */
static void end_loop(planner *pl, uint32_t q) {
  const lin_region *r = pl->r;
  uint32_t W = r->words;
  close_all(pl);
  plan_level lv = pl->levels.data[--pl->levels.len];
  lin_word *out = rc_xmalloc(W * sizeof *out);
  for (uint32_t w = 0; w < W; w++) out[w] = r->back_in[(size_t)q * W + w] & lv.mask[w];
  for (uint32_t v = 0; v <= q; v++) out[v / 64] &= ~((lin_word)1 << (v % 64));
  /* when one value leaves, g on the exit edge is that constant: a loop of a thread-dependent trip
   * count whose every exit sets the same value then leaves g uniform (the uniformity analysis
   * cannot see that of the phi that carries g round the loop) */
  uint32_t only = RC_NONE, count = 0;
  for (uint32_t v = q + 1; v <= r->n; v++)
    if (lin_has(out, v)) only = v, count++;
  lin_step st = {.kind = LIN_STEP_LOOP_END, .pos = q, .exit_value = count == 1 ? only : RC_NONE};
  rc_vec_push(pl->plan, st);
  pl->base = lv.base;
  if (lv.at != RC_NONE) set_side_end(pl, lv.at + 1, out);
  free(out);
  free(lv.mask);
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
    if (opt == 0) { /* Algorithm 1 as it is: every guard in the chain (no analysis needed) */
      for (uint32_t q = head[p]; q != RC_NONE; q = next[q]) {
        lin_step st = {.kind = LIN_STEP_LOOP_BEGIN, .pos = q};
        rc_vec_push(plan, st);
      }
      lin_step u = {.kind = LIN_STEP_UNIT, .guarded = true, .pos = p};
      rc_vec_push(plan, u);
      if (r->back_to[p] != RC_NONE) {
        lin_step st = {.kind = LIN_STEP_LOOP_END, .pos = p, .exit_value = RC_NONE};
        rc_vec_push(plan, st);
      }
      continue;
    }
    for (uint32_t q = head[p]; q != RC_NONE; q = next[q]) begin_loop(&pl, p, q);
    place_unit(&pl, p);
    if (r->back_to[p] != RC_NONE) end_loop(&pl, p);
  }
  free(head);
  free(next);
  rc_vec_free(&pl.open);
  for (uint32_t i = 0; i < pl.levels.len; i++) free(pl.levels.data[i].mask);
  rc_vec_free(&pl.levels);
  free(pl.pool);
}
