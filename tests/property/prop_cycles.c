/* Property test: the cycle forest agrees with a brute-force recursive SCC decomposition on thousands
 * of random CFGs. Reference: among the blocks reachable from the entry, the outermost cycles are
 * the strongly connected components with a cycle in them (two or more blocks, or a self loop);
 * each cycle's header is its entry (block with a predecessor outside it) that comes first in a
 * DFS pre-order from the entry (successors in terminator order); its children are the cycles of
 * its blocks minus the header, recursively. SCCs come from transitive closures on bitsets. */
#include "randcfg.h"
#include "test.h"

#include <stdio.h>

typedef struct refcycle {
  uint32_t header, parent, depth; /* parent: index in the reference list */
  rg_set blocks, entries, exits;
} refcycle;

typedef struct refinfo {
  uint32_t n;
  uint32_t pre[RG_SET_BITS], end[RG_SET_BITS];
  bool reach[RG_SET_BITS];
  refcycle cycles[RG_SET_BITS];
  uint32_t ncycles;
  uint32_t innermost[RG_SET_BITS]; /* reference cycle index */
} refinfo;

static void dfs_pre(const rg_graph *g, uint32_t b, refinfo *r, uint32_t *counter) {
  r->pre[b] = (*counter)++;
  r->reach[b] = true;
  for (uint32_t i = 0; i < g->nsucc[b]; i++)
    if (!r->reach[g->succ[b][i]]) dfs_pre(g, g->succ[b][i], r, counter);
  r->end[b] = *counter;
}

/* reach[b] = blocks reachable from b by a non-empty path inside S */
static void closure(const rg_graph *g, const rg_set *S, rg_set *reach) {
  for (uint32_t b = 0; b < g->n; b++) {
    rg_set_clear(&reach[b]);
    if (!rg_set_has(S, b)) continue;
    for (uint32_t i = 0; i < g->nsucc[b]; i++)
      if (rg_set_has(S, g->succ[b][i])) rg_set_add(&reach[b], g->succ[b][i]);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = 0; b < g->n; b++) {
      if (!rg_set_has(S, b)) continue;
      rg_set acc = reach[b];
      for (uint32_t c = 0; c < g->n; c++)
        if (rg_set_has(&reach[b], c))
          for (int w = 0; w < RG_SET_WORDS; w++) acc.w[w] |= reach[c].w[w];
      if (!rg_set_eq(&acc, &reach[b])) {
        reach[b] = acc;
        changed = true;
      }
    }
  }
}

static void decompose(const rg_graph *g, refinfo *r, const rg_set *S, uint32_t parent,
                      uint32_t depth) {
  rg_set *reach = malloc(sizeof(rg_set) * RG_SET_BITS);
  closure(g, S, reach);
  rg_set done;
  rg_set_clear(&done);
  for (uint32_t b = 0; b < g->n; b++) {
    if (!rg_set_has(S, b) || rg_set_has(&done, b) || !rg_set_has(&reach[b], b)) continue;
    refcycle *c = &r->cycles[r->ncycles];
    uint32_t ci = r->ncycles++;
    rg_set_clear(&c->blocks);
    for (uint32_t x = 0; x < g->n; x++)
      if (x == b || (rg_set_has(&reach[b], x) && rg_set_has(&reach[x], b))) {
        rg_set_add(&c->blocks, x);
        rg_set_add(&done, x);
        r->innermost[x] = ci;
      }
    rg_set_clear(&c->entries);
    rg_set_clear(&c->exits);
    for (uint32_t u = 0; u < g->n; u++) {
      if (!r->reach[u]) continue;
      for (uint32_t i = 0; i < g->nsucc[u]; i++) {
        uint32_t v = g->succ[u][i];
        bool uin = rg_set_has(&c->blocks, u), vin = rg_set_has(&c->blocks, v);
        if (!uin && vin) rg_set_add(&c->entries, v);
        if (uin && !vin) rg_set_add(&c->exits, v);
      }
    }
    c->header = RC_NONE;
    for (uint32_t x = 0; x < g->n; x++)
      if (rg_set_has(&c->blocks, x) && (rg_set_has(&c->entries, x) || x == 0) &&
          (c->header == RC_NONE || r->pre[x] < r->pre[c->header]))
        c->header = x;
    rg_set_add(&c->entries, c->header);
    c->parent = parent;
    c->depth = depth;
    rg_set inner = c->blocks;
    inner.w[c->header / 64] &= ~(1ull << (c->header % 64));
    decompose(g, r, &inner, ci, depth + 1);
  }
  free(reach);
}

static void ref_cycles(const rg_graph *g, refinfo *r) {
  memset(r, 0, sizeof *r);
  r->n = g->n;
  uint32_t counter = 0;
  dfs_pre(g, 0, r, &counter);
  for (uint32_t b = 0; b < g->n; b++) r->innermost[b] = RC_NONE;
  rg_set S;
  rg_set_clear(&S);
  for (uint32_t b = 0; b < g->n; b++)
    if (r->reach[b]) rg_set_add(&S, b);
  decompose(g, r, &S, RC_NONE, 1);
}

static rg_set to_set(const uint32_t *a, uint32_t n) {
  rg_set s;
  rg_set_clear(&s);
  for (uint32_t i = 0; i < n; i++) rg_set_add(&s, a[i]);
  return s;
}

static unsigned long stat_graphs, stat_cycles, stat_irreducible, stat_nested;

static int check(const rg_graph *g) {
  refinfo *r = malloc(sizeof *r);
  ref_cycles(g, r);
  rc_cfg cfg;
  rg_to_cfg(g, &cfg);
  rc_cycle_info ci;
  rc_cycles_build(&ci, &cfg);
  int bad = 0;
  stat_graphs++;
  for (uint32_t c = 0; c < ci.ncycles; c++) {
    stat_cycles++;
    stat_irreducible += !ci.cycles[c].reducible;
    stat_nested += ci.cycles[c].depth > 1;
  }
#define FAIL(...)                   \
  do {                              \
    if (!bad) {                     \
      fprintf(stderr, __VA_ARGS__); \
      fprintf(stderr, "\n");        \
      rg_print(g, NULL);            \
    }                               \
    bad++;                          \
  } while (0)
  if (ci.ncycles != r->ncycles) FAIL("%u cycles, expected %u", ci.ncycles, r->ncycles);
  /* match by header: every block heads at most one cycle */
  uint32_t lib_of_ref[RG_SET_BITS];
  for (uint32_t i = 0; !bad && i < r->ncycles; i++) {
    lib_of_ref[i] = RC_NONE;
    for (uint32_t c = 0; c < ci.ncycles; c++)
      if (ci.cycles[c].header == r->cycles[i].header) lib_of_ref[i] = c;
    if (lib_of_ref[i] == RC_NONE) FAIL("no cycle with header %u", r->cycles[i].header);
  }
  for (uint32_t i = 0; !bad && i < r->ncycles; i++) {
    const refcycle *rc = &r->cycles[i];
    const rc_cycle *c = &ci.cycles[lib_of_ref[i]];
    uint32_t want_parent = rc->parent == RC_NONE ? RC_NONE : lib_of_ref[rc->parent];
    if (c->parent != want_parent) FAIL("cycle %u: parent", rc->header);
    if (c->depth != rc->depth) FAIL("cycle %u: depth %u, expected %u", rc->header, c->depth, rc->depth);
    rg_set blocks = to_set(c->blocks, c->nblocks), entries = to_set(c->entries, c->nentries),
           exits = to_set(c->exits, c->nexits);
    if (c->nblocks != rg_set_count(&blocks) || !rg_set_eq(&blocks, &rc->blocks))
      FAIL("cycle %u: blocks differ", rc->header);
    if (c->nentries != rg_set_count(&entries) || !rg_set_eq(&entries, &rc->entries))
      FAIL("cycle %u: entries differ", rc->header);
    if (c->nexits != rg_set_count(&exits) || !rg_set_eq(&exits, &rc->exits))
      FAIL("cycle %u: exits differ", rc->header);
    if (c->blocks[0] != c->header || c->entries[0] != c->header)
      FAIL("cycle %u: header not listed first", rc->header);
    if (c->reducible != (rg_set_count(&rc->entries) == 1)) FAIL("cycle %u: reducible", rc->header);
    for (uint32_t b = 0; b < g->n; b++)
      if (rc_cycle_contains(&ci, lib_of_ref[i], b) != rg_set_has(&rc->blocks, b))
        FAIL("contains(cycle %u, %u)", rc->header, b);
  }
  for (uint32_t c = 0; !bad && c < ci.ncycles; c++) {
    /* pre-order numbering: the nested cycles are c+1 .. nested_end-1 */
    for (uint32_t d = 0; d < ci.ncycles; d++) {
      bool nested = false;
      for (uint32_t p = ci.cycles[d].parent; p != RC_NONE; p = ci.cycles[p].parent)
        if (p == c) nested = true;
      if (nested != (d > c && d < ci.cycles[c].nested_end)) FAIL("nested_end of cycle %u", c);
    }
  }
  for (uint32_t b = 0; !bad && b < g->n; b++) {
    uint32_t want = r->innermost[b] == RC_NONE ? RC_NONE : lib_of_ref[r->innermost[b]];
    if (ci.innermost[b] != want) FAIL("innermost(%u)", b);
  }
  /* back edges: edges to a DFS ancestor or to the block itself */
  uint32_t nback = 0;
  for (uint32_t u = 0; !bad && u < g->n; u++) {
    if (!r->reach[u]) continue;
    for (uint32_t i = 0; i < g->nsucc[u]; i++) {
      uint32_t v = g->succ[u][i];
      if (r->pre[v] <= r->pre[u] && r->pre[u] < r->end[v]) {
        if (nback >= ci.nback || ci.back_from[nback] != u || ci.back_to[nback] != v)
          FAIL("back edge %u -> %u missing or out of order", u, v);
        nback++;
      }
    }
  }
  if (!bad && nback != ci.nback) FAIL("%u back edges, expected %u", ci.nback, nback);
#undef FAIL
  rc_cycles_free(&ci);
  rc_cfg_free(&cfg);
  free(r);
  return bad;
}

static void run(uint64_t seed, unsigned iters, uint32_t max_blocks) {
  rg_rng rng = {seed};
  int failures = 0;
  for (unsigned it = 0; it < iters && failures < 3; it++) {
    rg_graph g;
    rg_opts o = {.min_blocks = 1, .max_blocks = max_blocks, .entry_without_preds = rg_chance(&rng, 50)};
    rg_random(&g, &rng, &o);
    int bad = check(&g);
    if (bad) {
      fprintf(stderr, "  (iteration %u, seed %llu)\n", it, (unsigned long long)seed);
      failures++;
    }
    CHECK(bad == 0);
    rg_free(&g);
  }
  printf("  %lu graphs: %lu cycles, %lu irreducible, %lu nested\n", stat_graphs, stat_cycles,
         stat_irreducible, stat_nested);
  stat_graphs = stat_cycles = stat_irreducible = stat_nested = 0;
}

TEST(cycles_match_recursive_scc_decomposition_small) { run(11, test_scaled(5000), 10); }
TEST(cycles_match_recursive_scc_decomposition_medium) { run(12, test_scaled(4000), 50); }
TEST(cycles_match_recursive_scc_decomposition_large) { run(13, test_scaled(200), 300); }

/* A deep chain of nested loops: the construction is iterative and the depths are exact. */
TEST(cycles_deep_nesting) {
  uint32_t n = 20000;
  rg_graph g;
  rg_init(&g, n + 1);
  /* blocks 0..n-1: block i enters block i+1 and block n-1-.. closes loops: i+1 -> i back edges */
  for (uint32_t b = 0; b < n; b++) rg_add(&g, b, b + 1);
  for (uint32_t b = 1; b < n / 2; b++) rg_add(&g, n - b, b); /* latch n-b closes the loop at b */
  rc_cfg cfg;
  rg_to_cfg(&g, &cfg);
  rc_cycle_info ci;
  rc_cycles_build(&ci, &cfg);
  CHECK_EQ_INT(ci.ncycles, n / 2 - 1);
  uint32_t maxdepth = 0;
  for (uint32_t c = 0; c < ci.ncycles; c++)
    if (ci.cycles[c].depth > maxdepth) maxdepth = ci.cycles[c].depth;
  CHECK_EQ_INT(maxdepth, n / 2 - 1);
  CHECK_EQ_INT(ci.cycles[0].header, 1);
  CHECK(ci.cycles[0].reducible);
  rc_cycles_free(&ci);
  rc_cfg_free(&cfg);
  rg_free(&g);
}
