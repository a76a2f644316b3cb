/* Benchmark: the CFG analyses on one large random kernel (10^6 blocks by default). Prints the
 * time of each analysis and the total of the ones rc_analysis_build runs (CFG snapshot, dominators,
 * post-dominators, cycles, uniformity), then the structure checks.
 *
 *   bench_analysis [--blocks N] [--shape program|local|wild|gen] [--seed S] [--runs R]
 *
 * Each analysis runs R times (3 by default) and the least CPU time is reported, as the machine
 * may be busy with other work.
 *
 * Shapes:
 *   program  nested constructs as a compiler front end emits them: a sequence of statements of
 *            up to 2000 blocks each, built from sequences, if-then(-else), switches, while and
 *            do-while loops, early returns, and 2% gotos to a recent block (breaks, continues,
 *            jumps into loops: unstructured and irreducible control flow);
 *   local    each block falls through to the next and may jump up to 8 blocks forwards or
 *            backwards, or to the exit (overlapping loops: the CFG is one huge irreducible
 *            cycle with irreducible cycles nested deeply in it);
 *   wild     successors drawn uniformly from all blocks (one giant irreducible cycle).
 * Two-way branches are on a divergent value (%tid) 40% of the time, on a uniform one 40%, and on
 * the block's phi (so sync dependence feeds back into branch divergence) otherwise.
 *   gen      kernels of reconv gen (rc_gen_kernel) as bench_reconverge uses them: N blocks, 4
 *            exits, N/25 loops nested 4 deep, second loop entries (irreducible cycles), half of
 *            the branches and loops divergent, seed 42 unless --seed is given; one line per size
 *            10^4, 10^5, ... up to N, with the growth of the total per tenfold size. Many
 *            divergent branches inside deeply nested divergent loops with jumps out of them: the
 *            case where the sync dependence of one branch reaches far. */
#include "reconv/analysis.h"
#include "gen_shape.h"
#include "reconv/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct graph {
  uint32_t n, cap;
  uint8_t *nsucc;
  uint32_t (*succ)[4];
} graph;

static uint64_t rng_state;
static uint64_t rnd(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint32_t below(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }

static uint32_t new_block(graph *g) {
  if (g->n == g->cap) {
    g->cap = g->cap ? 2 * g->cap : 1024;
    g->nsucc = rc_xrealloc(g->nsucc, g->cap * sizeof *g->nsucc);
    g->succ = rc_xrealloc(g->succ, g->cap * sizeof *g->succ);
  }
  g->nsucc[g->n] = 0;
  return g->n++;
}
static void edge(graph *g, uint32_t from, uint32_t to) { g->succ[from][g->nsucc[from]++] = to; }

/* Fill the region entered at `in` (a block without successors yet) and left to `out`, using about
 * `size` new blocks. Recursion depth is bounded by the nesting depth and log(size). Above
 * STATEMENT_MAX blocks a region is always a sequence: a huge kernel is a long sequence of
 * statements (think inlined functions), each of which nests at most STATEMENT_MAX blocks. */
#define STATEMENT_MAX 2000
static void region(graph *g, uint32_t in, uint32_t out, uint32_t size, int depth) {
  if (size == 0) {
    edge(g, in, out);
    return;
  }
  uint32_t pick = below(100);
  if (pick < 2 && in > 8) { /* goto a recent block (backwards: a loop, maybe irreducible), or go on */
    uint32_t m = new_block(g);
    edge(g, in, m);
    edge(g, in, in > 64 ? in - 1 - below(64) : 1 + below(in - 1));
    region(g, m, out, size - 1, depth);
    return;
  }
  if (pick < 4 && size >= 2) { /* early return, or go on */
    uint32_t r = new_block(g), m = new_block(g);
    edge(g, in, r);
    edge(g, in, m);
    region(g, m, out, size - 2, depth);
    return;
  }
  if (pick < 40 || depth > 12 || size > STATEMENT_MAX) { /* sequence */
    uint32_t mid = new_block(g), half = (size - 1) / 2;
    region(g, in, mid, half, depth);
    region(g, mid, out, size - 1 - half, depth);
    return;
  }
  if (pick < 55) { /* if-then */
    uint32_t t = new_block(g);
    edge(g, in, t);
    edge(g, in, out);
    region(g, t, out, size - 1, depth + 1);
    return;
  }
  if (pick < 70 || size < 4) { /* if-then-else */
    uint32_t t = new_block(g), e = new_block(g), half = size >= 2 ? (size - 2) / 2 : 0;
    edge(g, in, t);
    edge(g, in, e);
    region(g, t, out, half, depth + 1);
    region(g, e, out, size >= 2 ? size - 2 - half : 0, depth + 1);
    return;
  }
  if (pick < 75) { /* switch with three cases */
    uint32_t c[3], rest = size - 3;
    for (int i = 0; i < 3; i++) edge(g, in, c[i] = new_block(g));
    for (int i = 0; i < 3; i++) region(g, c[i], out, i < 2 ? rest / 3 : rest - 2 * (rest / 3), depth + 1);
    return;
  }
  if (pick < 90) { /* while loop: in -> h; h -> body | out; body ... -> h */
    uint32_t h = new_block(g), b = new_block(g);
    edge(g, in, h);
    edge(g, h, b);
    edge(g, h, out);
    region(g, b, h, size - 2, depth + 1);
    return;
  }
  /* do-while loop: in -> b; b ... -> l; l -> b | out */
  uint32_t b = new_block(g), l = new_block(g);
  edge(g, in, b);
  region(g, b, l, size - 2, depth + 1);
  edge(g, l, b);
  edge(g, l, out);
}

static void make_graph(graph *g, uint32_t nblocks, const char *shape) {
  memset(g, 0, sizeof *g);
  if (strcmp(shape, "program") == 0) {
    uint32_t entry = new_block(g), exit = new_block(g);
    region(g, entry, exit, nblocks > 2 ? nblocks - 2 : 0, 0);
    return;
  }
  bool wild = strcmp(shape, "wild") == 0;
  for (uint32_t b = 0; b < nblocks; b++) new_block(g);
  for (uint32_t b = 0; b + 1 < nblocks; b++) {
    uint32_t k = below(100) < 60 ? 2 : 1;
    if (wild && b > 0 && below(100) < 2) continue; /* an exit */
    for (uint32_t i = 0; i < k; i++) {
      uint32_t t;
      if (wild) t = 1 + below(nblocks - 1);
      else if (i == 0) t = b + 1; /* fall through: every block is reachable */
      else if (below(100) < 2) t = nblocks - 1; /* an early exit */
      else {
        int64_t d = (int64_t)below(17) - 8;
        int64_t x = (int64_t)b + (d == 0 ? 1 : d);
        t = x < 1 ? 1 : x >= (int64_t)nblocks ? nblocks - 1 : (uint32_t)x;
      }
      edge(g, b, t);
    }
  }
}

/* The kernel: block i is "b<i>"; a phi of i32 in every block with several predecessors. */
static rc_kernel *make_kernel(rc_module *m, const graph *g) {
  rc_kernel *k = rc_kernel_new(m, "bench");
  rc_value *n = rc_kernel_add_param(k, RC_I32, "n");
  rc_block **blocks = rc_xmalloc(g->n * sizeof *blocks);
  char name[32];
  for (uint32_t b = 0; b < g->n; b++) {
    snprintf(name, sizeof name, "b%u", b);
    blocks[b] = rc_block_new(k, name);
  }
  uint32_t *npred = rc_xcalloc(g->n, sizeof *npred);
  for (uint32_t b = 0; b < g->n; b++)
    for (uint32_t i = 0; i < g->nsucc[b]; i++) npred[g->succ[b][i]]++;
  rc_builder bd;
  rc_builder_at_end(&bd, blocks[0]);
  rc_value *dim = rc_const_int(k, RC_I32, 0);
  rc_value *tid = &rc_build_call(&bd, RC_BI_GLOBAL_ID, RC_I32, &dim, 1, "tid")->v;
  rc_value *ct = rc_build_cmp(&bd, RC_CMP_SLT, tid, n, "ct");
  rc_value *cu = rc_build_cmp(&bd, RC_CMP_SGT, n, rc_const_int(k, RC_I32, 7), "cu");
  rc_instr **phi = rc_xcalloc(g->n, sizeof *phi);
  for (uint32_t b = 0; b < g->n; b++) {
    rc_builder_at_end(&bd, blocks[b]);
    if (npred[b] >= 2 && b != 0) phi[b] = rc_phi_new(blocks[b], RC_I32, NULL);
    uint32_t ns = g->nsucc[b];
    if (ns == 0) {
      rc_build_ret(&bd);
    } else if (ns == 1) {
      rc_build_jmp(&bd, blocks[g->succ[b][0]]);
    } else if (ns == 2) {
      uint32_t r = below(100);
      rc_value *c = r < 40 ? ct : r < 80 || !phi[b] ? cu
                  : rc_build_cmp(&bd, RC_CMP_SLT, &phi[b]->v, n, NULL);
      rc_build_br(&bd, c, blocks[g->succ[b][0]], blocks[g->succ[b][1]]);
    } else {
      int64_t cases[3];
      rc_block *targets[3];
      for (uint32_t i = 1; i < ns; i++) cases[i - 1] = i, targets[i - 1] = blocks[g->succ[b][i]];
      rc_build_switch(&bd, below(2) ? tid : n, blocks[g->succ[b][0]], cases, targets, ns - 1);
    }
  }
  /* phi operands: one per predecessor block */
  for (uint32_t b = 0; b < g->n; b++)
    for (uint32_t i = 0; i < g->nsucc[b]; i++) {
      uint32_t s = g->succ[b][i];
      if (phi[s] && rc_phi_index_of(phi[s], blocks[b]) < 0)
        rc_phi_add_incoming(phi[s], rc_const_int(k, RC_I32, b & 7), blocks[b]);
    }
  /* a phi whose block has only one distinct predecessor (two edges from it) is still a phi */
  free(phi);
  free(npred);
  free(blocks);
  return k;
}

/* CPU time of this process (user and system), so that other work on the machine does not count */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The analyses of rc_analysis_build, each timed `runs` times (the least time is kept in t[]:
 * CFG snapshot, dominators, post-dominators, cycles, uniformity); a holds the last results. */
static void measure(rc_analysis *a, const rc_kernel *k, int runs, double t[5]) {
  for (int i = 0; i < 5; i++) t[i] = 1e9;
  for (int r = 0; r < runs; r++) {
    if (r) rc_analysis_free(a);
    memset(a, 0, sizeof *a);
    double t0 = now(), dt;
    rc_cfg_build(&a->cfg, k);
    if ((dt = now() - t0) < t[0]) t[0] = dt;
    t0 = now();
    rc_domtree_build(&a->dom, &a->cfg, false);
    if ((dt = now() - t0) < t[1]) t[1] = dt;
    t0 = now();
    rc_domtree_build(&a->pdom, &a->cfg, true);
    if ((dt = now() - t0) < t[2]) t[2] = dt;
    t0 = now();
    rc_cycles_build(&a->cycles, &a->cfg);
    if ((dt = now() - t0) < t[3]) t[3] = dt;
    t0 = now();
    rc_uniformity_build(&a->unif, k, &a->cfg, &a->dom, &a->pdom, &a->cycles, 0);
    if ((dt = now() - t0) < t[4]) t[4] = dt;
  }
}

/* --shape gen: one line per size. */
static int bench_generated(uint32_t max_blocks, uint64_t seed, int runs) {
  printf("reconv gen kernels (seed %llu, 4 exits, N/25 loops nested 4 deep, irreducible, half "
         "divergent), least CPU seconds of %d runs\n", (unsigned long long)seed, runs);
  printf("%9s %8s %8s %8s %8s %8s %8s %8s %10s %7s %8s\n", "blocks", "cfg", "dom", "pdom", "cycles",
         "unif", "total", "x time", "divergent", "joins", "temporal");
  double prev = 0;
  for (uint32_t n = 10000; n <= max_blocks; n *= 10) {
    rc_ctx ctx;
    rc_ctx_init(&ctx);
    rc_module *m = rc_module_new(&ctx, "bench");
    rc_gen_opts o;
    bench_gen_shape(&o, seed, n);
    rc_kernel *k = rc_gen_kernel(m, &o, NULL);
    if (!k) return 1;
    rc_analysis a;
    double t[5];
    measure(&a, k, runs, t);
    double total = t[0] + t[1] + t[2] + t[3] + t[4];
    uint32_t ndiv = 0, njoin = 0, ntemp = 0;
    for (uint32_t b = 0; b < k->nblocks; b++) ndiv += a.unif.divergent_branch[b], njoin += a.unif.sync_join[b];
    for (uint32_t c = 0; c < a.cycles.ncycles; c++) ntemp += a.unif.temporal_cycle[c];
    printf("%9u %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f", n, t[0], t[1], t[2], t[3], t[4], total);
    if (prev > 0) printf(" %8.1f", total / prev);
    else printf(" %8s", "");
    printf(" %10u %7u %8u\n", ndiv, njoin, ntemp);
    fflush(stdout);
    prev = total;
    rc_analysis_free(&a);
    rc_module_free(m);
  }
  return 0;
}

int main(int argc, char **argv) {
  uint32_t nblocks = 1000000;
  const char *shape = "program";
  uint64_t seed = 1;
  bool seed_given = false;
  int runs = 3;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--blocks") == 0 && i + 1 < argc) nblocks = (uint32_t)strtoul(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) shape = argv[++i];
    else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10), seed_given = true;
    else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: bench_analysis [--blocks N] [--shape program|local|wild|gen] [--seed S] "
                      "[--runs R]\n");
      return 2;
    }
  }
  if (strcmp(shape, "program") && strcmp(shape, "local") && strcmp(shape, "wild") && strcmp(shape, "gen")) {
    fprintf(stderr, "bench_analysis: unknown shape '%s'\n", shape);
    return 2;
  }
  if (nblocks < 2) nblocks = 2;
  if (runs < 1) runs = 1;
  if (strcmp(shape, "gen") == 0) return bench_generated(nblocks, seed_given ? seed : 42, runs);
  rng_state = seed;
  graph g;
  make_graph(&g, nblocks, shape);
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  rc_module *m = rc_module_new(&ctx, "bench");
  double t0 = now();
  rc_kernel *k = make_kernel(m, &g);
  double tbuild = now() - t0;

  /* each analysis runs `runs` times; the minimum is reported (the machine may be busy) */
  rc_analysis a;
  double t[5];
  measure(&a, k, runs, t);

  uint32_t ndiv = 0, nbr = 0, njoin = 0, nirr = 0, ntemp = 0, nassumed = 0, maxdepth = 0;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    const rc_instr *term = rc_block_term(k->blocks[b]);
    nbr += term && term->ntargets >= 2;
    ndiv += a.unif.divergent_branch[b];
    njoin += a.unif.sync_join[b];
  }
  for (uint32_t c = 0; c < a.cycles.ncycles; c++) {
    nirr += !a.cycles.cycles[c].reducible;
    ntemp += a.unif.temporal_cycle[c];
    nassumed += a.unif.assumed_divergent[c];
    if (a.cycles.cycles[c].depth > maxdepth) maxdepth = a.cycles.cycles[c].depth;
  }
  printf("random CFG (%s, seed %llu): %u blocks, %u edges, %u conditional branches (%u divergent), "
         "%u sync joins\n",
         shape, (unsigned long long)seed, k->nblocks, a.cfg.succ_start[a.cfg.nblocks], nbr, ndiv, njoin);
  printf("cycles: %u (%u irreducible, %u with a divergent exit, %u assumed divergent), depth up to %u\n",
         a.cycles.ncycles, nirr, ntemp, nassumed, maxdepth);
  printf("kernel construction (builder API):    %8.3f s\n", tbuild);
  printf("CFG snapshot:                         %8.3f s\n", t[0]);
  printf("dominator tree:                       %8.3f s\n", t[1]);
  printf("post-dominator tree:                  %8.3f s\n", t[2]);
  printf("cycles:                               %8.3f s\n", t[3]);
  printf("uniformity:                           %8.3f s\n", t[4]);
  printf("total (rc_analysis_build):            %8.3f s\n", t[0] + t[1] + t[2] + t[3] + t[4]);

  rc_u32vec where = {0};
  t0 = now();
  bool red = rc_is_reducible(&a.cfg, &where);
  double tr = now() - t0;
  where.len = 0;
  t0 = now();
  bool st = rc_is_structured(&a.cfg, &a.dom, &a.pdom, &where);
  double ts = now() - t0;
  uint32_t nleft = where.len;
  where.len = 0;
  t0 = now();
  rc_unstructured_edges(&a.cfg, &a.dom, &a.pdom, &a.cycles, &where);
  double tu = now() - t0;
  uint32_t nunstr = where.len / 2;
  where.len = 0;
  t0 = now();
  bool rec = rc_is_reconverging(k, &a.cfg, &a.pdom, &a.unif, &where);
  double tc = now() - t0;
  printf("reducible (%s):                      %8.3f s\n", red ? "yes" : "no ", tr);
  printf("structured (%s, %u condition nodes left): %8.3f s\n", st ? "yes" : "no", nleft, ts);
  printf("unstructured edges (%u):          %8.3f s\n", nunstr, tu);
  printf("reconverging (%s, %u failing branches):  %8.3f s\n", rec ? "yes" : "no", where.len, tc);
  rc_vec_free(&where);
  rc_analysis_free(&a);
  rc_module_free(m);
  free(g.nsucc);
  free(g.succ);
  return 0;
}
