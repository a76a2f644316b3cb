/* The library's entry points a newcomer reaches for first (docs/api.md): reading a .rir file,
 * asking whether a kernel is reconverging, and messages that do not assume the CLI. */
#include "test.h"

#include "reconv/analysis.h"
#include "reconv/transform.h"

TEST(parse_file_reads_rir_and_reports_a_missing_file) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = rc_parse_file(&d.ctx, "examples/thesis/fig4_8a.rir");
  CHECK(m != NULL);
  CHECK(m && rc_module_find_kernel(m, "fig4_8a") != NULL);
  if (m) rc_module_free(m);
  CHECK(rc_parse_file(&d.ctx, "examples/no/such/file.rir") == NULL);
  CHECK_STR_CONTAINS(d.text, "examples/no/such/file.rir: error: cannot read: ");
}

TEST(one_call_says_whether_a_kernel_is_reconverging_and_where_not) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = rc_parse_file(&d.ctx, "examples/thesis/fig4_8a.rir");
  CHECK(m != NULL);
  if (!m) return;
  rc_kernel *k = m->kernels[0];
  rc_u32vec where = {0};
  /* thesis Fig. 4.8a: the C -> A back edge keeps B's branch from reconverging */
  CHECK_EQ_INT(rc_kernel_reconverging(&d.ctx, k, 0, &where), 0);
  CHECK(where.len >= 1);
  bool names_a_branch = false;
  for (uint32_t i = 0; i < where.len; i++) names_a_branch |= where.data[i] < k->nblocks;
  CHECK(names_a_branch);
  where.len = 0;
  CHECK_EQ_INT(rc_pipeline_run(&d.ctx, k, "reconverge", NULL, NULL), 0);
  CHECK_EQ_INT(rc_kernel_reconverging(&d.ctx, k, 0, &where), 1);
  CHECK_EQ_INT(where.len, 0);
  rc_vec_free(&where);
  rc_module_free(m);
  /* Fig. 4.1b is reconverging as drawn */
  m = rc_parse_file(&d.ctx, "examples/thesis/fig4_1b.rir");
  CHECK(m != NULL);
  if (m) CHECK_EQ_INT(rc_kernel_reconverging(&d.ctx, m->kernels[0], 0, NULL), 1);
  if (m) rc_module_free(m);
}

TEST(library_messages_do_not_send_the_caller_to_the_cli) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = rc_parse_file(&d.ctx, "examples/thesis/fig4_8a.rir");
  CHECK(m != NULL);
  if (!m) return;
  CHECK(rc_pipeline_run(&d.ctx, m->kernels[0], "reconvergee", NULL, NULL) != 0);
  CHECK_STR_CONTAINS(d.text, "unknown pass 'reconvergee' (the passes: ");
  CHECK_STR_CONTAINS(d.text, "reconverge");
  CHECK(strstr(d.text, "reconv opt") == NULL && strstr(d.text, "--list-passes") == NULL);
  rc_module_free(m);
}
