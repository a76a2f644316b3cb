/* Property test: the structure checks against naive references on thousands of random CFGs.
 * - rc_is_reducible agrees with a literal T1/T2 collapse (thesis Def. 6) on an adjacency matrix.
 * - rc_is_structured agrees with a naive maximal folding (thesis Defs. 10-14) that rescans the
 *   whole matrix after every fold, including the condition nodes left over; structured CFGs are
 *   reducible (Sabne et al., as the thesis quotes) and have no unstructured edge.
 * - rc_unstructured_edges agrees with Anantpur's Def. 1 evaluated with naive (post-)dominator sets,
 *   checking every block of every cycle; irreducible CFGs have unstructured edges.
 * - rc_is_reconverging agrees with a direct check of thesis Def. 15 (two successors: a br, or a
 *   switch whose cases reach two distinct blocks) using naive post-dominator
 *   sets, with the divergent branches of the uniformity analysis and with all branches divergent. */
#include "domref.h"
#include "randcfg.h"
#include "test.h"

#include <stdio.h>

#define MAXN 64

typedef struct mgraph {
  uint32_t n;
  bool alive[MAXN];
  bool adj[MAXN][MAXN];
  uint32_t tail[MAXN];
} mgraph;

static void mgraph_from(mgraph *m, const rg_graph *g) {
  memset(m, 0, sizeof *m);
  m->n = g->n;
  bool seen[RG_SET_BITS] = {0};
  uint32_t po[RG_SET_BITS], npo = 0;
  rg_dfs_post(g, 0, seen, po, &npo);
  for (uint32_t b = 0; b < g->n; b++) {
    m->alive[b] = seen[b];
    m->tail[b] = b;
    if (seen[b])
      for (uint32_t i = 0; i < g->nsucc[b]; i++) m->adj[b][g->succ[b][i]] = true;
  }
}

static uint32_t count_succ(const mgraph *m, uint32_t v, uint32_t *one) {
  uint32_t c = 0;
  for (uint32_t w = 0; w < m->n; w++)
    if (m->alive[w] && m->adj[v][w]) c++, *one = w;
  return c;
}
static uint32_t count_pred(const mgraph *m, uint32_t v, uint32_t *one) {
  uint32_t c = 0;
  for (uint32_t w = 0; w < m->n; w++)
    if (m->alive[w] && m->adj[w][v]) c++, *one = w;
  return c;
}
static void kill(mgraph *m, uint32_t v) {
  m->alive[v] = false;
  for (uint32_t w = 0; w < m->n; w++) m->adj[v][w] = m->adj[w][v] = false;
}
/* v takes x's successors (x's row) and x disappears */
static void take_row(mgraph *m, uint32_t v, uint32_t x) {
  bool row[MAXN];
  memcpy(row, m->adj[x], sizeof row);
  kill(m, x);
  for (uint32_t w = 0; w < m->n; w++) m->adj[v][w] = row[w] || (w == v && row[x]);
  m->adj[v][x] = false;
}

/* ---- T1/T2 ---------------------------------------------------------------------------------------- */

static bool naive_reducible(const rg_graph *g) {
  mgraph m;
  mgraph_from(&m, g);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t v = 0; v < m.n; v++) m.adj[v][v] = false; /* T1 */
    for (uint32_t v = 1; v < m.n; v++) {                      /* T2 (not the entry) */
      uint32_t p = 0;
      if (!m.alive[v] || count_pred(&m, v, &p) != 1) continue;
      for (uint32_t w = 0; w < m.n; w++) m.adj[p][w] |= m.adj[v][w];
      kill(&m, v);
      changed = true;
    }
  }
  uint32_t left = 0;
  for (uint32_t v = 0; v < m.n; v++) left += m.alive[v];
  return left == 1;
}

/* ---- maximal folding -------------------------------------------------------------------------- */

static bool fold_once(mgraph *m) {
  for (uint32_t v = 0; v < m->n; v++) {
    if (!m->alive[v]) continue;
    uint32_t one = 0, ns = count_succ(m, v, &one);
    if (m->adj[v][v]) {
      if (ns < 2) continue;
      m->adj[v][v] = false; /* loop with an empty body */
      return true;
    }
    uint32_t p = 0;
    if (ns == 1 && count_pred(m, one, &p) == 1) { /* sequence */
      m->tail[v] = m->tail[one];
      take_row(m, v, one);
      return true;
    }
    if (ns < 2) continue;
    for (uint32_t L = 0; L < m->n; L++) { /* loop with one body node */
      uint32_t a = 0, b = 0;
      if (!m->alive[L] || !m->adj[v][L] || L == v) continue;
      if (count_pred(m, L, &a) == 1 && count_succ(m, L, &b) == 1 && b == v) {
        kill(m, L);
        return true;
      }
    }
    /* selection */
    uint32_t P = RC_NONE;
    bool ok = true;
    for (uint32_t s = 0; s < m->n && ok; s++) {
      if (!m->alive[s] || !m->adj[v][s]) continue;
      uint32_t a = 0, b = 0;
      if (count_pred(m, s, &a) == 1 && count_succ(m, s, &b) == 1 && b != s) {
        if (P == RC_NONE) P = b;
        else if (P != b) ok = false;
      }
    }
    if (!ok || P == RC_NONE || P == v) continue;
    uint32_t nbody = 0;
    bool direct = false;
    for (uint32_t s = 0; s < m->n && ok; s++) {
      if (!m->alive[s] || !m->adj[v][s]) continue;
      uint32_t a = 0, b = 0;
      if (s == P) direct = true;
      else if (count_pred(m, s, &a) == 1 && count_succ(m, s, &b) == 1 && b == P) nbody++;
      else ok = false;
    }
    uint32_t x = 0;
    if (!ok || !nbody || count_pred(m, P, &x) != nbody + direct) continue;
    m->tail[v] = m->tail[P];
    for (uint32_t s = 0; s < m->n; s++)
      if (s != P && s != v && m->alive[s] && m->adj[v][s]) kill(m, s);
    take_row(m, v, P);
    return true;
  }
  return false;
}

static bool naive_structured(const rg_graph *g, rc_u32vec *where) {
  mgraph m;
  mgraph_from(&m, g);
  while (fold_once(&m)) {}
  uint32_t left = 0;
  for (uint32_t v = 0; v < m.n; v++) left += m.alive[v];
  if (left > 1) {
    bool mark[MAXN] = {0};
    for (uint32_t v = 0; v < m.n; v++) {
      uint32_t one = 0;
      if (m.alive[v] && count_succ(&m, v, &one) - m.adj[v][v] >= 2) mark[m.tail[v]] = true;
    }
    for (uint32_t b = 0; b < m.n; b++)
      if (mark[b]) rc_vec_push(where, b);
  }
  return left <= 1;
}

/* ---- the checks ------------------------------------------------------------------------------------ */

static bool same_vec(const rc_u32vec *a, const rc_u32vec *b) {
  return a->len == b->len && (!a->len || memcmp(a->data, b->data, a->len * sizeof *a->data) == 0);
}

static unsigned long stat_irreducible, stat_structured, stat_unstructured_edges, stat_reconv;

static int check(const rg_graph *g, rg_rng *rng) {
  int bad = 0;
#define FAIL(...)                   \
  do {                              \
    if (!bad) {                     \
      fprintf(stderr, __VA_ARGS__); \
      fprintf(stderr, "\n");        \
      rg_print(g, NULL);            \
    }                               \
    bad++;                          \
  } while (0)
  rc_cfg cfg;
  rg_to_cfg(g, &cfg);
  rc_domtree dom, pdom;
  rc_domtree_build(&dom, &cfg, false);
  rc_domtree_build(&pdom, &cfg, true);
  rc_cycle_info ci;
  rc_cycles_build(&ci, &cfg);

  /* reducible */
  rc_u32vec where = {0};
  bool red = rc_is_reducible(&cfg, &where);
  if (red != naive_reducible(g)) FAIL("reducible: %d", red);
  if (red != (where.len == 0)) FAIL("reducible: %d with %u blocks reported", red, where.len);
  stat_irreducible += !red;
  where.len = 0;

  /* structured */
  rc_u32vec want = {0};
  bool st = rc_is_structured(&cfg, &dom, &pdom, &where);
  bool nst = naive_structured(g, &want);
  if (st != nst) FAIL("structured: %d, naive folding says %d", st, nst);
  else if (!same_vec(&where, &want)) FAIL("structured: the remaining condition nodes differ");
  if (st && !red) FAIL("structured but irreducible");
  stat_structured += st;
  where.len = want.len = 0;

  /* unstructured edges */
  rg_domref *rd = malloc(sizeof *rd), *rp = malloc(sizeof *rp);
  rc_u32vec extra = {0};
  rg_domref_build(rd, g, false, &extra);
  rg_domref_build(rp, g, true, &extra);
  for (uint32_t u = 0; u < g->n; u++) {
    if (!rd->in_tree[u]) continue;
    uint32_t nsucc = 0;
    for (uint32_t i = 0; i < g->nsucc[u]; i++) {
      bool dup = false;
      for (uint32_t j = 0; j < i; j++) dup |= g->succ[u][j] == g->succ[u][i];
      nsucc += !dup;
    }
    for (uint32_t i = 0; i < g->nsucc[u]; i++) {
      uint32_t v = g->succ[u][i];
      bool dup = false;
      for (uint32_t j = 0; j < i; j++) dup |= g->succ[u][j] == v;
      if (dup) continue;
      rg_set preds;
      rg_set_clear(&preds);
      for (uint32_t p = 0; p < g->n; p++)
        for (uint32_t k = 0; k < g->nsucc[p]; k++)
          if (g->succ[p][k] == v && rd->in_tree[p]) rg_set_add(&preds, p);
      bool unstructured =
          nsucc > 1 && rg_set_count(&preds) > 1 && !rg_domref_dominates(rd, u, v) &&
          !rg_domref_dominates(rd, v, u) && !rg_domref_dominates(rp, u, v) && !rg_domref_dominates(rp, v, u);
      for (uint32_t c = 0; c < ci.ncycles; c++) {
        const rc_cycle *cy = &ci.cycles[c];
        bool in_u = rc_cycle_contains(&ci, c, u), in_v = rc_cycle_contains(&ci, c, v);
        for (uint32_t k = 0; k < cy->nblocks; k++) {
          if (in_v && !in_u && !rg_domref_dominates(rd, v, cy->blocks[k])) unstructured = true;
          if (in_u && !in_v && !rg_domref_dominates(rp, u, cy->blocks[k])) unstructured = true;
        }
      }
      if (unstructured) {
        rc_vec_push(&want, u);
        rc_vec_push(&want, v);
      }
    }
  }
  bool none = rc_unstructured_edges(&cfg, &dom, &pdom, &ci, &where);
  if (none != (want.len == 0) || !same_vec(&where, &want)) FAIL("unstructured edges differ");
  if (st && !none) FAIL("structured, but with unstructured edges");
  if (!red && none) FAIL("irreducible, but without unstructured edges");
  stat_unstructured_edges += !none;
  where.len = want.len = 0;

  /* reconverging, on a kernel with this CFG */
  if (g->n >= 2) {
    rc_ctx ctx;
    rc_ctx_init(&ctx);
    rg_kernel rk;
    rg_to_kernel(g, rng, 50, &ctx, &rk);
    for (unsigned flags = 0; flags <= RC_UNIF_ALL_DIVERGENT; flags += RC_UNIF_ALL_DIVERGENT) {
      rc_analysis a;
      rc_analysis_build(&a, rk.k, flags);
      for (uint32_t b = 0; b < g->n; b++) {
        if (!a.unif.divergent_branch[b] || !rp->in_tree[b]) continue;
        const rc_instr *t = rc_block_term(rk.k->blocks[b]);
        /* Def. 15: two successors (a br, or a switch whose cases reach two distinct blocks), one of
         * which post-dominates the branch */
        uint32_t s0 = t->targets[0]->id, s1 = RC_NONE, distinct = 1;
        for (uint32_t e = 1; e < t->ntargets; e++)
          if (t->targets[e]->id != s0 && t->targets[e]->id != s1) s1 = t->targets[e]->id, distinct++;
        if (t->op == RC_OP_BR) s1 = t->targets[1]->id, distinct = 2;
        bool ok = distinct == 2 && (rg_domref_dominates(rp, s0, b) || rg_domref_dominates(rp, s1, b));
        if (!ok) rc_vec_push(&want, b);
      }
      bool rec = rc_is_reconverging(rk.k, &a.cfg, &a.pdom, &a.unif, &where);
      if (rec != (want.len == 0) || !same_vec(&where, &want)) FAIL("reconverging differs (flags %u)", flags);
      stat_reconv += rec;
      where.len = want.len = 0;
      rc_analysis_free(&a);
    }
    rg_kernel_free(&rk);
  }
#undef FAIL
  rc_vec_free(&extra);
  free(rd);
  free(rp);
  rc_vec_free(&where);
  rc_vec_free(&want);
  rc_cycles_free(&ci);
  rc_domtree_free(&dom);
  rc_domtree_free(&pdom);
  rc_cfg_free(&cfg);
  return bad;
}

static void run(uint64_t seed, unsigned iters, uint32_t max_blocks) {
  rg_rng rng = {seed};
  int failures = 0;
  for (unsigned it = 0; it < iters && failures < 3; it++) {
    rg_graph g;
    rg_opts o = {.min_blocks = 1, .max_blocks = max_blocks, .entry_without_preds = true};
    rg_random(&g, &rng, &o);
    int bad = check(&g, &rng);
    if (bad) {
      fprintf(stderr, "  (iteration %u, seed %llu)\n", it, (unsigned long long)seed);
      failures++;
    }
    CHECK(bad == 0);
    rg_free(&g);
  }
  printf("  %u CFGs: %lu irreducible, %lu structured, %lu with unstructured edges, %lu reconverging "
         "(of twice as many checks)\n",
         iters, stat_irreducible, stat_structured, stat_unstructured_edges, stat_reconv);
  stat_irreducible = stat_structured = stat_unstructured_edges = stat_reconv = 0;
}

TEST(structure_checks_match_naive_references_small) { run(31, test_scaled(4000), 10); }
TEST(structure_checks_match_naive_references) { run(32, test_scaled(1500), 40); }
