/* Property test: the uniformity analysis gives the same verdicts whether each divergent branch's
 * sync dependence is propagated on its own (RC_UNIF_EXHAUSTIVE) or confined to the regions that
 * earlier branches leave it (the default, src/analysis/syncdep.c): divergent values and
 * branches, joins, cycles with a divergent exit and cycles assumed divergent, with and without
 * RC_UNIF_ALL_DIVERGENT.
 *
 * Kernels: random CFGs (tests/property/randcfg.h, cyclic and acyclic, reducible or not), where a
 * third of the branches on the parameter compare the block's phi instead, so that joins make
 * further branches divergent and the fixpoint takes several rounds; and generated kernels
 * (reconv gen: nested loops, second loop entries, far jumps out of loops, side exits), the shape
 * that sharing was made for. */
#include "randcfg.h"
#include "reconv/gen.h"
#include "test.h"

#include <stdio.h>

static unsigned long stat_kernels, stat_divergent_branches, stat_joins, stat_temporal, stat_assumed;

/* 0 when both ways agree on k; otherwise prints what differs first. */
static int compare(const rc_kernel *k, unsigned flags, const char *what) {
  rc_analysis a, b;
  rc_analysis_build(&a, k, flags);
  rc_analysis_build(&b, k, flags | RC_UNIF_EXHAUSTIVE);
  const rc_uniformity *u = &a.unif, *v = &b.unif;
  struct {
    const char *name;
    const uint8_t *shared, *exhaustive;
    uint32_t n;
  } verdicts[] = {
      {"divergent value", u->divergent_value, v->divergent_value, u->nvalues},
      {"divergent branch", u->divergent_branch, v->divergent_branch, u->nblocks},
      {"sync join", u->sync_join, v->sync_join, u->nblocks},
      {"cycle with a divergent exit", u->temporal_cycle, v->temporal_cycle, u->ncycles},
      {"cycle assumed divergent", u->assumed_divergent, v->assumed_divergent, u->ncycles},
  };
  int bad = 0;
  for (size_t j = 0; j < sizeof verdicts / sizeof *verdicts && !bad; j++)
    for (uint32_t i = 0; i < verdicts[j].n && !bad; i++)
      if (verdicts[j].shared[i] != verdicts[j].exhaustive[i]) {
        fprintf(stderr, "%s, flags %u: %s %u: %d shared, %d exhaustive\n", what, flags,
                verdicts[j].name, i, verdicts[j].shared[i], verdicts[j].exhaustive[i]);
        bad = 1;
      }
  if (!flags) {
    stat_kernels++;
    for (uint32_t i = 0; i < u->nblocks; i++) stat_divergent_branches += u->divergent_branch[i], stat_joins += u->sync_join[i];
    for (uint32_t i = 0; i < u->ncycles; i++) stat_temporal += u->temporal_cycle[i], stat_assumed += u->assumed_divergent[i];
  }
  rc_analysis_free(&a);
  rc_analysis_free(&b);
  return bad;
}

static void print_stats(void) {
  printf("  %lu kernels: %lu divergent branches, %lu joins, %lu divergent exits, %lu cycles assumed "
         "divergent\n", stat_kernels, stat_divergent_branches, stat_joins, stat_temporal, stat_assumed);
  stat_kernels = stat_divergent_branches = stat_joins = stat_temporal = stat_assumed = 0;
}

/* Make a third of the branches on %n compare the block's phi instead. */
static void conditions_on_phis(rg_kernel *rk, rg_rng *rng) {
  rc_kernel *k = rk->k;
  rc_value *n = rc_kernel_find_value(k, "n");
  for (uint32_t b = 0; b < k->nblocks; b++) {
    rc_instr *t = rc_block_term(k->blocks[b]);
    if (!rk->phi[b] || rk->div_cond[b] || !t || t->nops == 0 || !rg_chance(rng, 33)) continue;
    rc_builder bd;
    rc_builder_before_term(&bd, k->blocks[b]);
    rc_value *c = t->op == RC_OP_SWITCH
                      ? rc_build_binop(&bd, RC_OP_AND, &rk->phi[b]->v, rc_const_int(k, RC_I32, 3), NULL)
                      : rc_build_cmp(&bd, RC_CMP_SLT, &rk->phi[b]->v, n, NULL);
    rc_instr_set_op(t, 0, c);
  }
}

static void random_cfgs(uint64_t seed, unsigned iters, uint32_t max_blocks) {
  rg_rng rng = {seed};
  int failures = 0;
  for (unsigned it = 0; it < iters && failures < 3; it++) {
    rg_graph g;
    rg_opts o = {.min_blocks = 2, .max_blocks = max_blocks, .entry_without_preds = true,
                 .acyclic = rg_chance(&rng, 25)};
    rg_random(&g, &rng, &o);
    rc_ctx ctx;
    rc_ctx_init(&ctx);
    rg_kernel rk;
    rg_to_kernel(&g, &rng, 15 + rg_below(&rng, 70), &ctx, &rk);
    conditions_on_phis(&rk, &rng);
    CHECK(rc_verify_kernel(&ctx, rk.k) == 0);
    char what[64];
    snprintf(what, sizeof what, "random CFG %u (seed %llu)", it, (unsigned long long)seed);
    int bad = compare(rk.k, 0, what) + compare(rk.k, RC_UNIF_ALL_DIVERGENT, what);
    if (bad) {
      rg_print(&g, rk.div_cond);
      failures++;
    }
    CHECK(bad == 0);
    rg_kernel_free(&rk);
    rg_free(&g);
  }
  print_stats();
}

TEST(uniformity_sharing_on_random_cfgs) { random_cfgs(31, test_scaled(12000), 24); }
TEST(uniformity_sharing_on_larger_random_cfgs) { random_cfgs(32, test_scaled(1500), 120); }

TEST(uniformity_sharing_on_generated_kernels) {
  int failures = 0;
  unsigned n = test_scaled(1500);
  for (unsigned it = 0; it < n && failures < 3; it++) {
    rg_rng rng = {it * 0x9E3779B97F4A7C15ull + 7};
    rc_gen_opts o;
    rc_gen_opts_init(&o);
    o.seed = rg_next(&rng);
    o.blocks = 8 + rg_below(&rng, it % 10 ? 150 : 1500);
    o.exits = 1 + rg_below(&rng, 4);
    if (o.blocks < 2 * o.exits) o.exits = 1;
    o.loops = o.blocks / (3 + rg_below(&rng, 20));
    o.nesting = 1 + rg_below(&rng, 5);
    o.irreducible = o.loops && rg_chance(&rng, 50);
    o.switches = rg_chance(&rng, 30);
    o.divergent = rg_below(&rng, 11) / 10.0;
    rc_ctx ctx;
    rc_ctx_init(&ctx);
    rc_module *m = rc_module_new(&ctx, "gen");
    rc_kernel *k = rc_gen_kernel(m, &o, NULL);
    if (k) {
      char what[160];
      snprintf(what, sizeof what, "generated kernel (seed %llu, %u blocks, %u exits, %u loops nested %u, "
               "irreducible %d, switches %d, divergent %.1f)", (unsigned long long)o.seed, o.blocks,
               o.exits, o.loops, o.nesting, o.irreducible, o.switches, o.divergent);
      int bad = compare(k, 0, what) + compare(k, RC_UNIF_ALL_DIVERGENT, what);
      failures += bad != 0;
      CHECK(bad == 0);
    }
    rc_module_free(m);
  }
  print_stats();
}
