/* Property test: dominator and post-dominator trees, LCA queries, dominance frontiers and iterated
 * frontiers agree with naive set-based references on thousands of random CFGs (reducible and
 * irreducible, several exits, infinite loops, self loops, unreachable blocks, an entry with
 * predecessors).
 *
 * The post-dominance reference uses the rule documented in src/analysis/dominance.c for regions
 * that cannot reach an exit: walking the blocks reachable from the entry in reverse post-order from
 * the last, a block that cannot reach an exit or an earlier chosen block gets an edge to the
 * virtual exit. The reference computes reverse post-order with its own (recursive) DFS that visits
 * successors in terminator order, and reachability by plain fixpoints. */
#include "domref.h"
#include "randcfg.h"
#include "test.h"

#include <stdio.h>

/* the deepest node of a set of dominators: the one with the largest dominator set */
static uint32_t deepest(const rg_domref *r, const rg_set *s) {
  uint32_t best = RC_NONE, bestc = 0;
  for (uint32_t a = 0; a < r->nn; a++)
    if (rg_set_has(s, a) && rg_set_count(&r->dom[a]) > bestc) {
      best = a;
      bestc = rg_set_count(&r->dom[a]);
    }
  return best;
}

static int check_tree(const rg_graph *g, const rc_cfg *cfg, bool post, rg_rng *rng) {
  rg_domref *r = malloc(sizeof *r);
  rc_u32vec extra = {0};
  rg_domref_build(r, g, post, &extra);
  rc_domtree t;
  rc_domtree_build(&t, cfg, post);
  int bad = 0;
#define FAIL(...)                                                          \
  do {                                                                     \
    if (!bad) {                                                            \
      fprintf(stderr, "%s tree: ", post ? "post-dominator" : "dominator"); \
      fprintf(stderr, __VA_ARGS__);                                        \
      fprintf(stderr, "\n");                                               \
      rg_print(g, NULL);                                                   \
    }                                                                      \
    bad++;                                                                 \
  } while (0)
  if (t.nnodes != r->nn || t.root != r->root) FAIL("nnodes %u root %u", t.nnodes, t.root);
  if (post) {
    if (t.nextra_exits != extra.len) FAIL("%u extra exits, expected %u", t.nextra_exits, extra.len);
    for (uint32_t i = 0; !bad && i < extra.len; i++)
      if (t.extra_exits[i] != extra.data[i]) FAIL("extra exit %u is %u, expected %u", i, t.extra_exits[i], extra.data[i]);
  }
  for (uint32_t b = 0; !bad && b < r->nn; b++) {
    if (rc_domtree_contains(&t, b) != r->in_tree[b]) FAIL("contains(%u)", b);
    if (!r->in_tree[b]) continue;
    /* idom: the deepest strict dominator */
    rg_set strict = r->dom[b];
    strict.w[b / 64] &= ~(1ull << (b % 64));
    uint32_t want = b == r->root ? b : deepest(r, &strict);
    if (t.idom[b] != want) FAIL("idom(%u) = %u, expected %u", b, t.idom[b], want);
    if (t.depth[b] != rg_set_count(&r->dom[b]) - 1) FAIL("depth(%u)", b);
    for (uint32_t a = 0; a < r->nn; a++) {
      if (rc_dominates(&t, a, b) != rg_domref_dominates(r, a, b)) FAIL("dominates(%u, %u)", a, b);
      if (rc_strictly_dominates(&t, a, b) != (a != b && rg_domref_dominates(r, a, b)))
        FAIL("strictly_dominates(%u, %u)", a, b);
      if (!r->in_tree[a]) {
        if (rc_domtree_lca(&t, a, b) != RC_NONE) FAIL("lca with a node outside the tree");
        continue;
      }
      rg_set common = r->dom[a];
      rg_set_and(&common, &r->dom[b]);
      uint32_t l = deepest(r, &common);
      if (rc_domtree_lca(&t, a, b) != l) FAIL("lca(%u, %u) = %u, expected %u", a, b, rc_domtree_lca(&t, a, b), l);
    }
  }
  /* frontiers */
  rc_domfrontier df;
  rc_domfrontier_build(&df, &t, cfg);
  for (uint32_t a = 0; !bad && a < r->nn; a++) {
    rg_set got;
    rg_set_clear(&got);
    for (uint32_t e = df.start[a]; e < df.start[a + 1]; e++) {
      if (rg_set_has(&got, df.nodes[e])) FAIL("DF(%u) lists %u twice", a, df.nodes[e]);
      rg_set_add(&got, df.nodes[e]);
    }
    if (!rg_set_eq(&got, &r->frontier[a])) FAIL("DF(%u) differs", a);
  }
  /* iterated frontiers of random sets */
  for (int trial = 0; !bad && trial < 4; trial++) {
    uint32_t set[8], ns = 1 + rg_below(rng, 4);
    for (uint32_t i = 0; i < ns; i++) set[i] = rg_below(rng, r->nn);
    rg_set want, front;
    rg_set_clear(&want);
    rg_set_clear(&front);
    for (uint32_t i = 0; i < ns; i++) rg_set_add(&front, set[i]);
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t a = 0; a < r->nn; a++) {
        if (!rg_set_has(&front, a)) continue;
        for (uint32_t b = 0; b < r->nn; b++)
          if (rg_set_has(&r->frontier[a], b) && !rg_set_has(&want, b)) {
            rg_set_add(&want, b);
            rg_set_add(&front, b);
            changed = true;
          }
      }
    }
    rc_u32vec out = {0};
    rc_domfrontier_iterated(&df, set, ns, &out);
    rg_set got;
    rg_set_clear(&got);
    for (uint32_t i = 0; i < out.len; i++) {
      if (rg_set_has(&got, out.data[i])) FAIL("iterated frontier lists %u twice", out.data[i]);
      rg_set_add(&got, out.data[i]);
    }
    if (!rg_set_eq(&got, &want)) FAIL("iterated frontier of %u blocks differs", ns);
    rc_vec_free(&out);
  }
#undef FAIL
  rc_domfrontier_free(&df);
  rc_domtree_free(&t);
  rc_vec_free(&extra);
  free(r);
  return bad;
}

static void run(uint64_t seed, unsigned iters, uint32_t max_blocks) {
  rg_rng rng = {seed};
  int failures = 0;
  for (unsigned it = 0; it < iters && failures < 3; it++) {
    rg_graph g;
    rg_opts o = {.min_blocks = 1, .max_blocks = max_blocks, .entry_without_preds = rg_chance(&rng, 60)};
    rg_random(&g, &rng, &o);
    rc_cfg cfg;
    rg_to_cfg(&g, &cfg);
    int bad = check_tree(&g, &cfg, false, &rng) + check_tree(&g, &cfg, true, &rng);
    if (bad) {
      fprintf(stderr, "  (iteration %u, seed %llu)\n", it, (unsigned long long)seed);
      failures++;
    }
    CHECK(bad == 0);
    rc_cfg_free(&cfg);
    rg_free(&g);
  }
}

TEST(dominance_matches_naive_sets_small) { run(1, test_scaled(4000), 12); }
TEST(dominance_matches_naive_sets_medium) { run(2, test_scaled(1500), 60); }
TEST(dominance_matches_naive_sets_large) { run(3, test_scaled(60), 400); }

/* The reverse post-order visits each reachable block once, the entry first, and every edge that
 * is not a back edge goes forward in it. */
TEST(rpo_is_a_topological_order_of_the_forward_edges) {
  rg_rng rng = {4};
  for (unsigned it = 0; it < test_scaled(2000); it++) {
    rg_graph g;
    rg_opts o = {.min_blocks = 1, .max_blocks = 40};
    rg_random(&g, &rng, &o);
    rc_cfg cfg;
    rg_to_cfg(&g, &cfg);
    uint32_t rpo[64], idx[64];
    uint32_t nr = rc_cfg_rpo(&cfg, rpo, idx);
    bool seen[RG_SET_BITS] = {0};
    uint32_t po[RG_SET_BITS], npo = 0;
    rg_dfs_post(&g, 0, seen, po, &npo);
    CHECK_EQ_INT(nr, npo);
    for (uint32_t i = 0; i < nr && i < npo; i++) CHECK_EQ_INT(rpo[i], po[npo - 1 - i]);
    for (uint32_t b = 0; b < g.n; b++) CHECK_EQ_INT(idx[b] == RC_NONE, !seen[b]);
    rc_cfg_free(&cfg);
    rg_free(&g);
  }
}
