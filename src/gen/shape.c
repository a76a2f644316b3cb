/* The shape of a generated kernel: where its loops are, which edges it has, which branches are
 * uniform. Everything here is O(N) for N blocks (plus O(L) for L loops).
 *
 * Construction.
 * 1. Spine. The S = N - K + 1 non-side-exit blocks are laid out in a fixed order 0 .. S-1; every
 *    block p < S-1 has the forward edge p -> p+1, block S-1 is a ret (exit0). The K-1 other ret
 *    blocks ("side exits") hang off spine blocks.
 * 2. Loops. A random forest of L loops, depth <= D (the first D loops form a chain so the depth
 *    is reached), is laid out as properly nested intervals [head, latch] of spine positions
 *    1 .. S-2: a loop is its header, its children's intervals and some filler blocks, and its
 *    latch (a childless loop without fillers is a self loop). Spare positions are spread at
 *    random over the 2L+1 gaps between and inside loops. The latch has the only back edge of its
 *    loop: latch -> head.
 * 3. Uniform and divergent loops. A loop is uniform with probability 1-P: its latch branch is
 *    `i+1 < %trips` with a counter i that starts at 0 in the header. That counter is only uniform
 *    if no divergent control decides it, so a uniform loop is entered only by the edge
 *    head-1 -> head, and no edge leaves it except latch -> latch+1: then two paths from a
 *    divergent branch can only meet at the header after meeting earlier, and every thread in the
 *    loop leaves it at the same iteration. A divergent loop's latch takes the back edge when a
 *    thread-id hash says so AND the step counter is still positive.
 * 4. Other edges go forward only (p -> q, q > p): random extra targets of branches and switches,
 *    the side exits, and -- with --irreducible -- a second entry into a divergent loop: an edge
 *    from a block of the loop's parent, before the header, to a block of (head, latch], which
 *    makes the loop a cycle with two entries. Random edges may leave divergent loops anywhere
 *    and enter a divergent loop at its header only.
 * Termination: every cycle contains a latch. Each block decrements the step counter, so after
 * %budget blocks no divergent back edge is taken; from then on a thread walks forward, repeating
 * only uniform loops (%trips times per entry), and reaches a ret: at most
 * %budget + sum over blocks of %trips^(uniform loops around the block) blocks in all.
 */
#include "shape.h"

#include <stdlib.h>
#include <string.h>

/* ---- random numbers: splitmix64, explicit state ---------------------------------------------- */

uint64_t gen_rng_next(gen_rng *r) {
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint32_t gen_rng_below(gen_rng *r, uint32_t n) {
  return (uint32_t)(((gen_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

bool gen_rng_chance(gen_rng *r, double p) {
  return (double)(gen_rng_next(r) >> 11) * (1.0 / 9007199254740992.0) < p;
}

/* ---- the builder's working state ---------------------------------------------------------------- */

typedef struct shaper {
  rc_ctx *ctx;
  const rc_gen_opts *o;
  gen_rng *r;
  gen_shape *s;
  uint32_t *req_head, *req_next, *req_target; /* required extra targets per spine position */
  uint32_t nreq;
  uint32_t root_first, nroots;
} shaper;

/* Longest walk up the loop tree when checking an edge; deeper checks reject the edge, which keeps
 * edge selection O(1) even for absurd nesting. */
enum { MAX_WALK = 64 };

static bool loop_contains(const gen_shape *s, uint32_t l, uint32_t p) {
  return s->loops[l].head <= p && p <= s->loops[l].latch;
}

static bool in_uniform_loop(const gen_shape *s, uint32_t p) {
  uint32_t l = s->innermost[p];
  return l != RC_NONE && s->loops[l].in_uniform;
}

/* May a non-latch block p get the extra forward edge p -> q (a spine position > p + 1)? It may
 * leave divergent loops only, and enter at most one loop, a divergent one, at its header. */
static bool edge_allowed(const gen_shape *s, uint32_t p, uint32_t q) {
  uint32_t walk = 0;
  for (uint32_t l = s->innermost[p]; l != RC_NONE && !loop_contains(s, l, q); l = s->loops[l].parent) {
    if (s->loops[l].uniform || ++walk > MAX_WALK) return false;
  }
  uint32_t entered = 0;
  for (uint32_t l = s->innermost[q]; l != RC_NONE && !loop_contains(s, l, p); l = s->loops[l].parent) {
    if (++entered > 1 || s->loops[l].uniform || s->loops[l].head != q) return false;
  }
  return true;
}

/* ---- the loop forest and its layout ---------------------------------------------------------------- */

static void build_forest(shaper *sh, uint32_t irreducible_loop, uint64_t *min_total) {
  gen_shape *s = sh->s;
  uint32_t L = s->nloops, D = sh->o->nesting;
  for (uint32_t i = 0; i < L; i++) {
    gen_loop *l = &s->loops[i];
    l->first_child = l->next_sibling = RC_NONE;
    uint32_t parent = RC_NONE;
    if (i > 0 && i < D) {
      parent = i - 1; /* the chain that reaches depth D */
    } else if (i > 0 && !gen_rng_chance(sh->r, 0.25)) {
      parent = gen_rng_below(sh->r, i);
      while (parent != RC_NONE && s->loops[parent].depth >= D) parent = s->loops[parent].parent;
    }
    l->parent = parent;
    l->depth = parent == RC_NONE ? 1 : s->loops[parent].depth + 1;
  }
  /* children lists in ascending order: a parent has a smaller index than its children */
  sh->root_first = RC_NONE;
  sh->nroots = 0;
  for (uint32_t i = L; i-- > 0;) {
    gen_loop *l = &s->loops[i];
    if (l->parent == RC_NONE) {
      l->next_sibling = sh->root_first;
      sh->root_first = i;
      sh->nroots++;
    } else {
      l->next_sibling = s->loops[l->parent].first_child;
      s->loops[l->parent].first_child = i;
      s->loops[l->parent].nchildren++;
    }
  }
  /* smallest span: a leaf is one block (a self loop), two for the loop that gets a second entry;
   * an inner node is header + children + latch */
  uint64_t *acc = rc_xcalloc(L ? L : 1, sizeof *acc);
  uint64_t total = 0;
  for (uint32_t i = L; i-- > 0;) {
    gen_loop *l = &s->loops[i];
    uint64_t span = l->nchildren ? 2 + acc[i] : (i == irreducible_loop ? 2 : 1);
    if (l->parent == RC_NONE) total += span;
    else acc[l->parent] += span;
  }
  free(acc);
  *min_total = total;
}

/* Lay the loops out over spine positions 1 .. S-2 with `spare` filler blocks spread over the gaps.
 * Iterative (the nesting may be deep). */
static void layout(shaper *sh, uint32_t irreducible_loop, uint64_t spare) {
  gen_shape *s = sh->s;
  uint32_t L = s->nloops;
  /* gaps: container c (loops 0..L-1, the top level = L) has nchildren + 1 gaps */
  uint32_t *gap_base = rc_xmalloc((size_t)(L + 2) * sizeof *gap_base);
  uint32_t g = 0;
  for (uint32_t c = 0; c <= L; c++) {
    gap_base[c] = g;
    g += (c == L ? sh->nroots : s->loops[c].nchildren) + 1;
  }
  gap_base[L + 1] = g;
  uint64_t *fill = rc_xcalloc(g, sizeof *fill);
  if (irreducible_loop != RC_NONE && s->loops[irreducible_loop].nchildren == 0)
    fill[gap_base[irreducible_loop]] = 1; /* counted in its smallest span */
  for (uint64_t f = 0; f < spare; f++) fill[gen_rng_below(sh->r, g)]++;

  typedef struct frame {
    uint32_t container, next_child, gap;
  } frame;
  uint32_t depth = sh->o->nesting < L ? sh->o->nesting : L;
  frame *stack = rc_xmalloc((size_t)(depth + 2) * sizeof *stack);
  uint32_t sp = 0, pos = 1;
  stack[sp++] = (frame){L, sh->root_first, 0};
  while (sp) {
    frame *f = &stack[sp - 1];
    uint32_t c = f->container, owner = c == L ? RC_NONE : c;
    for (uint64_t n = fill[gap_base[c] + f->gap]; n > 0; n--) s->innermost[pos++] = owner;
    f->gap++;
    if (f->next_child != RC_NONE) {
      uint32_t child = f->next_child;
      f->next_child = s->loops[child].next_sibling;
      s->loops[child].head = pos;
      s->innermost[pos++] = child;
      stack[sp++] = (frame){child, s->loops[child].first_child, 0};
      continue;
    }
    if (owner != RC_NONE) {
      gen_loop *l = &s->loops[owner];
      if (l->nchildren) s->innermost[pos++] = owner;
      l->latch = pos - 1; /* a leaf's latch is its last filler, or its header */
      s->latch_of[l->latch] = owner;
    }
    sp--;
  }
  free(stack);
  free(fill);
  free(gap_base);
}

/* ---- required edges: second loop entries and side exits --------------------------------------------- */

static void require(shaper *sh, uint32_t p, uint32_t target) {
  sh->req_target[sh->nreq] = target;
  sh->req_next[sh->nreq] = sh->req_head[p];
  sh->req_head[p] = sh->nreq++;
}

static bool free_source(const shaper *sh, uint32_t p) {
  return sh->s->latch_of[p] == RC_NONE && sh->req_head[p] == RC_NONE;
}

static void second_entry(shaper *sh, uint32_t z) {
  gen_shape *s = sh->s;
  gen_loop *l = &s->loops[z];
  uint32_t parent = l->parent;
  uint32_t lo = parent == RC_NONE ? 0 : s->loops[parent].head, hi = l->head - 1;
  uint32_t u = lo;
  for (int t = 0; t < 8; t++) {
    uint32_t c = lo + gen_rng_below(sh->r, hi - lo + 1);
    if (s->innermost[c] == parent && free_source(sh, c)) {
      u = c;
      break;
    }
  }
  uint32_t e = l->latch;
  for (int t = 0; t < 8; t++) {
    uint32_t c = l->head + 1 + gen_rng_below(sh->r, l->latch - l->head);
    if (s->innermost[c] == z) {
      e = c;
      break;
    }
  }
  l->irreducible = true;
  require(sh, u, e);
}

static void side_exits(shaper *sh) {
  gen_shape *s = sh->s;
  for (uint32_t j = 0; j < s->nside; j++) {
    uint32_t src = 0; /* the entry is never in a loop; it takes the rest when nothing else is free */
    for (int t = 0; t < 16; t++) {
      uint32_t c = gen_rng_below(sh->r, s->spine - 1);
      if (free_source(sh, c) && !in_uniform_loop(s, c)) {
        src = c;
        break;
      }
    }
    s->side_src[j] = src;
    require(sh, src, s->spine + j);
  }
}

/* ---- terminators -------------------------------------------------------------------------------------- */

static uint32_t random_target(shaper *sh, uint32_t p, const uint32_t *have, uint32_t nhave) {
  gen_shape *s = sh->s;
  uint32_t first = p + 2, last = s->spine - 1;
  if (first > last) return RC_NONE;
  for (int t = 0; t < 4; t++) {
    uint32_t range = last - first + 1;
    /* mostly short jumps, so that threads walk most of the kernel; with probability `far`
     * anywhere ahead (1.0 - 0.15 == 0.85 exactly, so the default keeps earlier seeds' kernels) */
    bool near = gen_rng_chance(sh->r, 1.0 - sh->o->far);
    uint32_t q = first + gen_rng_below(sh->r, near && range > 8 ? 8 : range);
    bool dup = false;
    for (uint32_t i = 0; i < nhave; i++) dup |= have[i] == q;
    if (!dup && edge_allowed(s, p, q)) return q;
  }
  return RC_NONE;
}

static void terminators(shaper *sh, uint32_t *nedges) {
  gen_shape *s = sh->s;
  const rc_gen_opts *o = sh->o;
  /* extra targets of one block, then its forward successor: the required targets (several only
   * when a fallback put them on one block) plus up to 3 random ones */
  uint32_t *have = rc_xmalloc(((size_t)sh->nreq + 8) * sizeof *have);
  uint32_t e = 0;
  for (uint32_t p = 0; p < s->nnodes; p++) {
    s->succ_start[p] = e;
    if (p >= s->spine - 1) { /* exit0 and the side exits */
      s->term[p] = GEN_RET;
      s->cond[p] = GEN_NOCOND;
      continue;
    }
    uint32_t f = p + 1, l = s->latch_of[p];
    if (l != RC_NONE) {
      s->term[p] = GEN_BR;
      s->cond[p] = s->loops[l].uniform ? GEN_UNIFORM_LATCH : GEN_DIVERGENT_LATCH;
      s->succ[e++] = s->loops[l].head;
      s->succ[e++] = f;
      continue;
    }
    uint32_t nextra = 0;
    for (uint32_t r = sh->req_head[p]; r != RC_NONE; r = sh->req_next[r]) have[nextra++] = sh->req_target[r];
    uint32_t nreq = nextra;
    bool sw = nreq >= 2 || (o->switches && gen_rng_chance(sh->r, 0.2));
    uint32_t want = 0; /* extra targets to end up with: a switch has 1..3, a br 1, a jmp none */
    if (sw) want = 1 + gen_rng_below(sh->r, 3);
    else if (nreq == 0 && !gen_rng_chance(sh->r, 0.3)) want = 1;
    while (nextra < want) {
      have[nextra] = f; /* so that random_target avoids it */
      uint32_t q = random_target(sh, p, have, nextra + 1);
      if (q == RC_NONE) break;
      have[nextra++] = q;
    }
    if (nextra == 0) {
      s->term[p] = GEN_JMP;
      s->cond[p] = GEN_NOCOND;
      s->succ[e++] = f;
      continue;
    }
    s->cond[p] = gen_rng_chance(sh->r, o->divergent) ? GEN_DIVERGENT : GEN_UNIFORM;
    if (sw) {
      s->term[p] = GEN_SWITCH;
      s->succ[e++] = f;
      for (uint32_t i = 0; i < nextra; i++) s->succ[e++] = have[i];
    } else {
      s->term[p] = GEN_BR;
      s->succ[e++] = have[0];
      s->succ[e++] = f;
    }
  }
  s->succ_start[s->nnodes] = e;
  *nedges = e;
  free(have);
}

/* ---- entry point ----------------------------------------------------------------------------------------- */

int gen_shape_build(rc_ctx *ctx, const rc_gen_opts *o, gen_rng *r, gen_shape *s) {
  memset(s, 0, sizeof *s);
  s->nside = o->exits - 1;
  s->spine = o->blocks - s->nside;
  s->nnodes = o->blocks;
  s->nloops = o->loops;
  s->loops = rc_xcalloc(s->nloops ? s->nloops : 1, sizeof *s->loops);
  shaper sh = {0};
  sh.ctx = ctx;
  sh.o = o;
  sh.r = r;
  sh.s = s;
  sh.root_first = RC_NONE;

  uint32_t irreducible_loop = o->irreducible ? 0 : RC_NONE;
  uint64_t min_total = 0;
  build_forest(&sh, irreducible_loop, &min_total);
  uint64_t room = s->spine >= 2 ? s->spine - 2 : 0;
  if (min_total > room) {
    rc_error(ctx, "%u loop%s nested up to %u deep%s need%s at least %llu blocks besides the entry and "
             "the exits; --blocks %u leaves %llu",
             o->loops, o->loops == 1 ? "" : "s", o->nesting, o->irreducible ? " (one irreducible)" : "",
             o->loops == 1 ? "s" : "",
             (unsigned long long)min_total, o->blocks, (unsigned long long)room);
    gen_shape_free(s);
    return -1;
  }
  size_t n = s->nnodes;
  s->innermost = rc_xmalloc(n * sizeof *s->innermost);
  s->latch_of = rc_xmalloc(n * sizeof *s->latch_of);
  for (size_t i = 0; i < n; i++) s->innermost[i] = s->latch_of[i] = RC_NONE;
  s->side_src = rc_xmalloc((s->nside ? s->nside : 1) * sizeof *s->side_src);
  layout(&sh, irreducible_loop, room - min_total);

  for (uint32_t i = 0; i < s->nloops; i++) { /* parents first: they have smaller indices */
    gen_loop *l = &s->loops[i];
    l->uniform = i != irreducible_loop && !gen_rng_chance(r, o->divergent);
    l->in_uniform = l->uniform || (l->parent != RC_NONE && s->loops[l->parent].in_uniform);
  }

  sh.req_head = rc_xmalloc(n * sizeof *sh.req_head);
  for (size_t i = 0; i < n; i++) sh.req_head[i] = RC_NONE;
  size_t maxreq = (size_t)s->nloops + s->nside + 1;
  sh.req_next = rc_xmalloc(maxreq * sizeof *sh.req_next);
  sh.req_target = rc_xmalloc(maxreq * sizeof *sh.req_target);
  if (o->irreducible) {
    second_entry(&sh, irreducible_loop);
    for (uint32_t i = 1; i < s->nloops; i++) {
      gen_loop *l = &s->loops[i];
      if (!l->uniform && l->latch > l->head && gen_rng_chance(r, 0.5)) second_entry(&sh, i);
    }
  }
  side_exits(&sh);

  s->term = rc_xmalloc(n);
  s->cond = rc_xmalloc(n);
  s->succ_start = rc_xmalloc((n + 1) * sizeof *s->succ_start);
  s->succ = rc_xmalloc((4 * n + sh.nreq + 1) * sizeof *s->succ);
  uint32_t nedges;
  terminators(&sh, &nedges);
  s->npreds = rc_xcalloc(n, sizeof *s->npreds);
  for (uint32_t i = 0; i < nedges; i++) s->npreds[s->succ[i]]++;
  free(sh.req_head);
  free(sh.req_next);
  free(sh.req_target);
  return 0;
}

void gen_shape_free(gen_shape *s) {
  free(s->loops);
  free(s->innermost);
  free(s->latch_of);
  free(s->side_src);
  free(s->term);
  free(s->cond);
  free(s->succ_start);
  free(s->succ);
  free(s->npreds);
  memset(s, 0, sizeof *s);
}
