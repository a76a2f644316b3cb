/* Sync dependence of a lowered switch (src/analysis/syncdep.c, "Chains of branches"): the chain
 * of divergent branches lowerswitch makes of a divergent switch is propagated once, as the one
 * multi-way branch it stands for, and finds the joins that propagating every link on its own
 * finds (the property test prop_uniformity_sharing compares the two on random kernels). */
#include "../../src/analysis/syncdep.h"
#include "reconv/analysis.h"
#include "reconv/transform.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>

enum { NCASES = 12 };

/* A switch on the thread id with NCASES cases: case i goes to block ci, which goes to the join
 * (the odd ones through a block of their own, so some joins are reached along two edges from one
 * chain link); cases 3 and 4 share a target, and c0 also goes straight to the join. */
static rc_module *chain_kernel(test_diags *d) {
  char text[8192];
  int n = snprintf(text, sizeof text, "kernel @k(ptr %%out) {\nentry:\n  %%gid = call i32 @global_id(i32 0)\n"
                                      "  switch i32 %%gid, dflt [");
  for (int i = 0; i < NCASES; i++) n += snprintf(text + n, sizeof text - n, "%s%d: c%d", i ? ", " : "", i, i == 4 ? 3 : i);
  n += snprintf(text + n, sizeof text - n, "]\n");
  for (int i = 0; i < NCASES; i++) {
    if (i == 4) continue;
    if (i == 0) n += snprintf(text + n, sizeof text - n, "c0:\n  %%z = icmp eq i32 %%gid, 100\n  br %%z, join, mid\n");
    else if (i % 2) n += snprintf(text + n, sizeof text - n, "c%d:\n  jmp via%d\nvia%d:\n  jmp join\n", i, i, i);
    else n += snprintf(text + n, sizeof text - n, "c%d:\n  jmp join\n", i);
  }
  n += snprintf(text + n, sizeof text - n, "mid:\n  jmp join\ndflt:\n  jmp join\n"
                                           "join:\n  %%p = phi i32 [0, mid], [1, dflt], [2, c0]");
  for (int i = 1; i < NCASES; i++)
    if (i != 4) n += snprintf(text + n, sizeof text - n, ", [%d, %s%d]", i + 2, i % 2 ? "via" : "c", i);
  snprintf(text + n, sizeof text - n, "\n  store i32 %%p, %%out\n  ret\n}\n");
  return test_parse(d, text);
}

/* Propagate every divergent branch of k in one batch; returns the propagations it took and sets
 * join[b] for the joins found. */
static uint32_t propagate(const rc_analysis *a, bool prune, uint8_t *join) {
  const rc_cfg *g = &a->cfg;
  uint32_t n = g->nblocks, *rpo = malloc(n * sizeof *rpo), *index = malloc(n * sizeof *index), nb = 0;
  uint32_t *batch = malloc(n * sizeof *batch);
  uint32_t nr = rc_cfg_rpo(g, rpo, index);
  for (uint32_t i = 0; i < nr; i++)
    if (a->unif.divergent_branch[rpo[i]]) batch[nb++] = rpo[i];
  rc_syncdep s;
  rc_syncdep_init(&s, g, &a->dom, &a->pdom, &a->cycles, prune);
  rc_syncdep_result r = {0};
  rc_syncdep_batch(&s, batch, nb, &r);
  for (uint32_t i = 0; i < r.joins.len; i++) join[r.joins.data[i]] = 1;
  uint32_t np = s.npropagations;
  rc_syncdep_result_free(&r);
  rc_syncdep_free(&s);
  free(rpo);
  free(index);
  free(batch);
  return np;
}

TEST(syncdep_lowered_switch_is_one_propagation) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = chain_kernel(&d);
  if (!m) {
    fprintf(stderr, "parse failed: %s\n", d.text);
    CHECK(0);
    return;
  }
  rc_kernel *k = m->kernels[0];
  CHECK_EQ_INT(rc_pass_lowerswitch(&d.ctx, k, NULL, NULL), 0);
  rc_analysis a;
  CHECK_EQ_INT(rc_analysis_build(&a, k, 0), 0);
  uint32_t chain = 0; /* the links: every branch on %gid that lowerswitch made */
  for (uint32_t b = 0; b < k->nblocks; b++) chain += a.unif.divergent_branch[b];
  CHECK(chain >= NCASES - 1); /* 11 distinct case targets and the default, plus c0's branch */
  uint8_t *shared = calloc(k->nblocks, 1), *alone = calloc(k->nblocks, 1);
  CHECK_EQ_INT(propagate(&a, true, shared), 1); /* the chain and c0, reached only from a link */
  CHECK_EQ_INT(propagate(&a, false, alone), chain);
  for (uint32_t b = 0; b < k->nblocks; b++) CHECK_EQ_INT(shared[b], alone[b]);
  CHECK_EQ_INT(alone[rc_kernel_find_block(k, "join")->id], 1);
  CHECK_EQ_INT(alone[rc_kernel_find_block(k, "c3")->id], 0); /* cases 3 and 4: one block's two edges */
  free(shared);
  free(alone);
  rc_analysis_free(&a);
  rc_module_free(m);
}
