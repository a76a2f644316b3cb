/* The comparison engine as a C API user sees it (docs/api.md, "Comparing strategies"): every
 * strategy of `reconv compare` on one kernel, their verdicts and figures, and one strategy run on
 * its own with rc_exec. */
#include "test.h"

#include "reconv/compare.h"
#include "reconv/cost.h"

#include <stdio.h>
#include <string.h>

TEST(every_strategy_on_one_kernel) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = rc_parse_file(&d.ctx, "examples/anantpur/fig1.rir");
  CHECK(m != NULL);
  if (!m) return;
  rc_kernel *k = m->kernels[0];
  rc_run_spec s;
  rc_run_spec_init(&s);
  CHECK_EQ_INT(rc_run_spec_parse_kernel(&d.ctx, &s, k), 0);
  rc_compare_row *rows = calloc((size_t)rc_compare_nstrategies, sizeof *rows);
  int n = rc_compare_run(&d.ctx, k, &s, NULL, false, rows);
  CHECK(n >= 10);
  int auto_row = -1, ipdom_row = -1;
  for (int i = 0; i < n; i++) {
    char why[700];
    if (!rc_compare_row_ok(&rows[i])) fprintf(stderr, "%s: %s\n", rows[i].st->name, rc_compare_verdict(&rows[i], why, sizeof why));
    CHECK(rc_compare_row_ok(&rows[i]));
    if (strcmp(rows[i].st->name, RC_COMPARE_DEFAULT) == 0) auto_row = i;
    if (strcmp(rows[i].st->name, "ipdom") == 0) ipdom_row = i;
  }
  CHECK(auto_row >= 0 && ipdom_row >= 0);
  if (auto_row >= 0 && ipdom_row >= 0) {
    /* Anantpur's Fig. 1: the stack runs B3 twice and B5 three times, reconverge each once */
    CHECK(rc_compare_issued(&rows[auto_row]) < rc_compare_issued(&rows[ipdom_row]));
    CHECK(rows[auto_row].res.stats.duplicate_blocks < rows[ipdom_row].res.stats.duplicate_blocks);
    /* the host's classes: this kernel loads and stores */
    CHECK(rows[auto_row].res.stats.memory_instrs > 0);
    CHECK(rows[auto_row].res.stats.memory_instrs < rows[auto_row].res.stats.vector_instrs);
    CHECK(rc_run_stats_cost(&rows[auto_row].res.stats, &rc_cost_weights_host) > 0);
  }
  int best = rc_compare_best(rows, n);
  CHECK(best >= 0 && rc_compare_issued(&rows[best]) <= rc_compare_issued(&rows[ipdom_row]));
  char verdict[700];
  CHECK_STR_CONTAINS(rc_compare_verdict(&rows[0], verdict, sizeof verdict), "equivalent");
  rc_compare_rows_free(rows, n);
  free(rows);

  /* one strategy alone: reconverge and lower on the wave simulator, checked */
  rc_exec_request req = {.mode = RC_MACHINE_WAVE, .pipeline = "reconverge,lower", .check = true};
  rc_exec_result res;
  CHECK_EQ_INT(rc_exec(&d.ctx, k, &s, &req, &res), 0);
  CHECK(res.checked && res.equivalent);
  CHECK(res.ran != NULL && res.ran->level == RC_LEVEL_WAVE);
  rc_exec_result_free(&res);
  rc_run_spec_free(&s);
  rc_module_free(m);
}
