/* Property test: uniformity on random kernels (tests/property/randcfg.h: branch conditions on %tid or
 * on the parameter %n, a phi with distinct constants in every block with several predecessors).
 *
 * Acyclic CFGs, exactness: a phi is divergent exactly when its block is a join of a reachable
 * divergent branch, i.e. reached from two different successors of the branch by paths that share
 * no block but their end (checked naively with a max-flow on a vertex-split graph).
 * Any CFG, soundness: every join by disjoint paths that use no DFS back edge has its phis
 * divergent (or lies in a cycle assumed divergent); a reducible cycle that a divergent branch
 * inside it can leave at an exit X on one path while another, disjoint path returns to the header
 * has a divergent exit (temporal_cycle is set on it or an enclosing cycle without X); the verdicts
 * are closed under data dependence; the divergent branches are exactly those on %tid (and, in
 * cycles assumed divergent, those on values defined there). */
#include "randcfg.h"
#include "test.h"

#include <stdio.h>

/* ---- max-flow (at most 2) on a vertex-split graph ----------------------------------------------- */

#define MAXN 48
#define FN (2 * MAXN + 2)
typedef struct flow {
  uint8_t cap[FN][FN];
  uint32_t nn;
} flow;

static bool augment(flow *f, uint32_t s, uint32_t t) {
  uint32_t prev[FN], queue[FN], qh = 0, qt = 0;
  for (uint32_t i = 0; i < f->nn; i++) prev[i] = RC_NONE;
  prev[s] = s;
  queue[qt++] = s;
  while (qh < qt && prev[t] == RC_NONE) {
    uint32_t x = queue[qh++];
    for (uint32_t y = 0; y < f->nn; y++)
      if (f->cap[x][y] && prev[y] == RC_NONE) {
        prev[y] = x;
        queue[qt++] = y;
      }
  }
  if (prev[t] == RC_NONE) return false;
  for (uint32_t y = t; y != s; y = prev[y]) {
    f->cap[prev[y]][y]--;
    f->cap[y][prev[y]]++;
  }
  return true;
}

static uint32_t maxflow(flow *f, uint32_t s, uint32_t t) {
  uint32_t k = 0;
  while (k < 2 && augment(f, s, t)) k++;
  return k;
}

#define IN(b) (2 * (b))
#define OUT(b) (2 * (b) + 1)

/* Two paths from different successors of B to J, disjoint but for J, avoiding B, using only
 * edges that `allowed` permits. */
static bool disjoint_join(const rg_graph *g, const bool *reach, uint32_t B, uint32_t J,
                          const uint8_t (*allowed)[RG_MAXSUCC]) {
  static flow f;
  memset(&f, 0, sizeof f);
  uint32_t n = g->n, S = 2 * n, T = 2 * n + 1;
  f.nn = 2 * n + 2;
  for (uint32_t b = 0; b < n; b++) {
    if (!reach[b] || b == B) continue;
    f.cap[IN(b)][OUT(b)] = b == J ? 2 : 1;
    if (b == J) continue; /* paths end at J */
    for (uint32_t i = 0; i < g->nsucc[b]; i++)
      if (allowed[b][i] && g->succ[b][i] != B) f.cap[OUT(b)][IN(g->succ[b][i])] = 2;
  }
  for (uint32_t i = 0; i < g->nsucc[B]; i++)
    if (allowed[B][i] && g->succ[B][i] != B) f.cap[S][IN(g->succ[B][i])] = 1;
  f.cap[OUT(J)][T] = 2;
  return maxflow(&f, S, T) == 2;
}

/* Inside cycle c (blocks `in`, header H), two disjoint paths from different successors of B, one
 * to the exit X and one back to H. */
static bool exit_and_latch(const rg_graph *g, const bool *in, uint32_t B, uint32_t H, uint32_t X) {
  static flow f;
  memset(&f, 0, sizeof f);
  uint32_t n = g->n, S = 2 * n, T = 2 * n + 1;
  f.nn = 2 * n + 2;
  for (uint32_t b = 0; b < n; b++) {
    bool ok = (in[b] && b != B) || b == X || b == H;
    if (!ok) continue;
    f.cap[IN(b)][OUT(b)] = 1;
    if (b == X || b == H) {
      f.cap[OUT(b)][T] = 1;
      continue;
    }
    for (uint32_t i = 0; i < g->nsucc[b]; i++) {
      uint32_t s = g->succ[b][i];
      if ((in[s] && s != B) || s == X || s == H) f.cap[OUT(b)][IN(s)] = 1;
    }
  }
  for (uint32_t i = 0; i < g->nsucc[B]; i++) {
    uint32_t s = g->succ[B][i];
    if ((in[s] && s != B) || s == X || s == H) f.cap[S][IN(s)] = 1;
  }
  return maxflow(&f, S, T) == 2;
}

/* ---- the checks ---------------------------------------------------------------------------------- */

static unsigned long stat_joins, stat_temporal, stat_assumed;

static int check(const rg_graph *g, rg_rng *rng, bool acyclic) {
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  rg_kernel rk;
  rg_to_kernel(g, rng, 50, &ctx, &rk);
  int bad = 0;
#define FAIL(...)                                 \
  do {                                            \
    if (!bad) {                                   \
      fprintf(stderr, __VA_ARGS__);               \
      fprintf(stderr, "\n");                      \
      rg_print(g, rk.div_cond);                   \
      fprintf(stderr, "(* = branch on %%tid)\n"); \
    }                                             \
    bad++;                                        \
  } while (0)
  if (rc_verify_kernel(&ctx, rk.k) != 0) FAIL("the generated kernel does not verify");
  rc_analysis a;
  rc_analysis_build(&a, rk.k, 0);
  const rc_uniformity *u = &a.unif;
  const rc_cycle_info *ci = &a.cycles;
  uint32_t n = g->n;
  bool reach[MAXN];
  for (uint32_t b = 0; b < n; b++) reach[b] = rc_domtree_contains(&a.dom, b);
  /* edges allowed for the join check: all (acyclic), or those that are no DFS back edge */
  uint8_t allowed[MAXN][RG_MAXSUCC];
  for (uint32_t b = 0; b < n; b++)
    for (uint32_t i = 0; i < g->nsucc[b]; i++) {
      allowed[b][i] = 1;
      for (uint32_t e = 0; e < ci->nback; e++)
        if (ci->back_from[e] == b && ci->back_to[e] == g->succ[b][i]) allowed[b][i] = 0;
    }
  /* blocks in a cycle assumed divergent */
  bool tainted[MAXN] = {0};
  for (uint32_t c = 0; c < ci->ncycles; c++)
    if (u->assumed_divergent[c]) {
      stat_assumed++;
      for (uint32_t i = 0; i < ci->cycles[c].nblocks; i++) tainted[ci->cycles[c].blocks[i]] = true;
    }
  /* conditions are computed in their block: from %tid, or from %n but tainted in a cycle
   * assumed divergent */
  for (uint32_t b = 0; !bad && b < n; b++)
    if (u->divergent_branch[b] != (rk.div_cond[b] || (tainted[b] && g->nsucc[b] > 1)))
      FAIL("divergent_branch(%u) = %u", b, u->divergent_branch[b]);
  /* joins */
  for (uint32_t J = 0; !bad && J < n; J++) {
    if (!rk.phi[J]) continue;
    bool want = false;
    for (uint32_t B = 0; B < n && !want; B++)
      if (reach[B] && u->divergent_branch[B] && reach[J]) want = disjoint_join(g, reach, B, J, allowed);
    bool got = u->divergent_value[rk.phi[J]->v.id];
    stat_joins += want;
    if (acyclic && got != want) FAIL("phi of block %u: divergent %d, expected %d", J, got, want);
    if (!acyclic && want && !got && !tainted[J]) FAIL("phi of block %u: a join, but uniform", J);
  }
  /* temporal divergence in reducible cycles outside irreducible ones */
  for (uint32_t c = 0; !bad && c < ci->ncycles; c++) {
    bool skip = false;
    for (uint32_t p = c; p != RC_NONE; p = ci->cycles[p].parent) skip |= !ci->cycles[p].reducible;
    if (skip) continue;
    const rc_cycle *cy = &ci->cycles[c];
    bool in[MAXN] = {0};
    for (uint32_t i = 0; i < cy->nblocks; i++) in[cy->blocks[i]] = true;
    for (uint32_t i = 0; i < cy->nblocks; i++) {
      uint32_t B = cy->blocks[i];
      if (!u->divergent_branch[B]) continue;
      for (uint32_t x = 0; x < cy->nexits; x++) {
        uint32_t X = cy->exits[x];
        if (!exit_and_latch(g, in, B, cy->header, X)) continue;
        stat_temporal++;
        bool flagged = false;
        for (uint32_t p = c; p != RC_NONE; p = ci->cycles[p].parent)
          flagged |= u->temporal_cycle[p] && !rc_cycle_contains(ci, p, X);
        if (!flagged) FAIL("cycle with header %u: branch %u leaves it at %u in different iterations, "
                           "but no divergent exit is recorded", cy->header, B, X);
      }
    }
  }
  /* closure under data dependence */
  for (uint32_t b = 0; !bad && b < rk.k->nblocks; b++)
    for (rc_instr *i = rk.k->blocks[b]->first; i; i = i->next) {
      if (i->v.type == RC_VOID) continue;
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o]->id != RC_NONE && u->divergent_value[i->ops[o]->id] &&
            !u->divergent_value[i->v.id])
          FAIL("instruction in block %u has a divergent operand but is uniform", b);
    }
#undef FAIL
  rc_analysis_free(&a);
  rg_kernel_free(&rk);
  return bad;
}

static void run(uint64_t seed, unsigned iters, uint32_t max_blocks, bool acyclic) {
  rg_rng rng = {seed};
  int failures = 0;
  for (unsigned it = 0; it < iters && failures < 3; it++) {
    rg_graph g;
    rg_opts o = {.min_blocks = 2, .max_blocks = max_blocks, .entry_without_preds = true,
                 .acyclic = acyclic};
    rg_random(&g, &rng, &o);
    int bad = check(&g, &rng, acyclic);
    if (bad) {
      fprintf(stderr, "  (iteration %u, seed %llu)\n", it, (unsigned long long)seed);
      failures++;
    }
    CHECK(bad == 0);
    rg_free(&g);
  }
  printf("  %u kernels: %lu joins, %lu divergent exits, %lu cycles assumed divergent\n", iters,
         stat_joins, stat_temporal, stat_assumed);
  stat_joins = stat_temporal = stat_assumed = 0;
}

TEST(uniformity_acyclic_joins_are_exact) { run(21, test_scaled(6000), 24, true); }
TEST(uniformity_acyclic_joins_are_exact_larger) { run(22, test_scaled(600), 46, true); }
TEST(uniformity_sound_on_cyclic_cfgs) { run(23, test_scaled(30000), 24, false); }
TEST(uniformity_sound_on_cyclic_cfgs_larger) { run(24, test_scaled(3000), 46, false); }
