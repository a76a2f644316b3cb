/* rc_fold_flow_branches (src/transform/fold_flow_branches.c): a branch whose two edges end in one
 * flow block becomes a jump into it, with the branch's condition in the flow block's phis; pairs of
 * values that would need a select stay a branch. Each case checks the printed block and that the
 * result still verifies. */
#include "test.h"

#include "reconv/transform.h"

#include <stdlib.h>
#include <string.h>

/* X branches on %c; its true edge reaches F through T_EDGE, its false edge through F_EDGE (each
 * either "F" directly or an empty flow block); F's two phis get ON_TRUE and ON_FALSE on those
 * edges, and `true`/1 from the entry's other way into F. */
static rc_module *diamond(test_diags *d, const char *t_edge, const char *f_edge, const char *on_true,
                          const char *on_false, const char *v_true, const char *v_false) {
  char text[2048];
  char t_block[128] = "", f_block[128] = "";
  char t_from[8], f_from[8];
  snprintf(t_from, sizeof t_from, "%s", strcmp(t_edge, "F") ? "A" : "X");
  snprintf(f_from, sizeof f_from, "%s", strcmp(f_edge, "F") ? "B" : "X");
  if (strcmp(t_edge, "F")) snprintf(t_block, sizeof t_block, "A: !flow\n  jmp F\n");
  if (strcmp(f_edge, "F")) snprintf(f_block, sizeof f_block, "B: !flow\n  jmp F\n");
  snprintf(text, sizeof text,
           "kernel @k(ptr %%out, i32 %%n) {\n"
           "entry:\n"
           "  %%tid = call i32 @global_id(i32 0)\n"
           "  %%o = gep %%out, i32 %%tid, 4\n"
           "  %%d = icmp slt i32 %%tid, 3\n"
           "  br %%d, X, F\n"
           "X:\n"
           "  %%c = icmp slt i32 %%n, 3\n"
           "  %%x = add i32 %%tid, 1\n"
           "  br %%c, %s, %s\n"
           "%s%s"
           "F: !flow\n"
           "  %%p = phi i1 [true, entry], [%s, %s], [%s, %s]\n"
           "  %%v = phi i32 [1, entry], [%s, %s], [%s, %s]\n"
           "  br %%p, G, H\n"
           "G:\n"
           "  store i32 %%v, %%o\n"
           "  jmp H\n"
           "H:\n"
           "  ret\n"
           "}\n",
           t_edge, f_edge, t_block, f_block, on_true, t_from, on_false, f_from, v_true, t_from, v_false, f_from);
  rc_module *m = test_parse(d, text);
  if (!m) fprintf(stderr, "%s\n%s", text, d->text);
  return m;
}

static char *block_text(const rc_kernel *k, const char *name) {
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_print_kernel(k, &sb);
  char head[64];
  snprintf(head, sizeof head, "\n%s:", name);
  char *at = strstr(sb.data, head);
  char *out = strdup(at ? at + 1 : "");
  rc_sb_free(&sb);
  return out;
}

/* diamond(...) folded: `removed` blocks must go and the result verify; the kernel, or NULL. */
static rc_kernel *folded_diamond(test_diags *d, rc_module **m, const char *edges[2], const char *conds[2],
                                 const char *values[2], uint32_t removed) {
  *m = diamond(d, edges[0], edges[1], conds[0], conds[1], values[0], values[1]);
  CHECK(*m);
  if (!*m) return NULL;
  rc_kernel *k = (*m)->kernels[0];
  CHECK_EQ_INT(rc_fold_flow_branches(k), removed);
  CHECK_EQ_INT(k->nblocks, 7 - (edges[0][0] == 'F') - (edges[1][0] == 'F') - removed);
  CHECK_EQ_INT(rc_verify_kernel(&d->ctx, k), 0);
  return k;
}

/* Whether block `name` of k prints with `text` in it. */
static bool block_has(const rc_kernel *k, const char *name, const char *text) {
  char *b = block_text(k, name);
  bool has = strstr(b, text) != NULL;
  free(b);
  return has;
}

TEST(both_edges_through_empty_flow_blocks_become_the_condition) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m;
  /* false on the true edge: the negation; %x from the true edge, undef from the other */
  rc_kernel *k = folded_diamond(&d, &m, (const char *[]){"A", "B"}, (const char *[]){"false", "true"},
                                (const char *[]){"%x", "undef"}, 2);
  if (!k) return;
  CHECK(block_has(k, "X", "xor i1 %c, true"));
  CHECK(block_has(k, "X", "jmp F"));
  CHECK(block_has(k, "F", "phi i1 [true, entry], [%0, X]"));
  CHECK(block_has(k, "F", "phi i32 [1, entry], [%x, X]"));
  rc_module_free(m);
}

TEST(a_direct_edge_and_an_empty_flow_block_fold_too) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m;
  /* true on the true edge: the condition itself, no xor; one entry for X */
  rc_kernel *k = folded_diamond(&d, &m, (const char *[]){"F", "B"}, (const char *[]){"true", "false"},
                                (const char *[]){"%x", "%x"}, 1);
  if (!k) return;
  CHECK(block_has(k, "F", "phi i1 [true, entry], [%c, X]"));
  CHECK(block_has(k, "F", "phi i32 [1, entry], [%x, X]"));
  CHECK(!block_has(k, "X", "xor"));
  rc_module_free(m);
}

TEST(values_that_would_need_a_select_keep_the_branch) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m;
  /* %x on one edge, 7 on the other: a select, an instruction more than the branch saves */
  rc_kernel *k = folded_diamond(&d, &m, (const char *[]){"A", "B"}, (const char *[]){"true", "false"},
                                (const char *[]){"%x", "7"}, 0);
  if (!k) return;
  CHECK(block_has(k, "X", "br %c, A, B"));
  rc_module_free(m);
}

TEST(blocks_that_are_not_flow_blocks_stay) {
  test_diags d;
  test_diags_init(&d);
  const char *text = "kernel @k(ptr %out, i32 %n) {\n"
                     "entry:\n"
                     "  %c = icmp slt i32 %n, 3\n"
                     "  br %c, A, B\n"
                     "A:\n"
                     "  jmp F\n"
                     "B:\n"
                     "  jmp F\n"
                     "F:\n"
                     "  %p = phi i1 [true, A], [false, B]\n"
                     "  br %p, G, H\n"
                     "G:\n"
                     "  jmp H\n"
                     "H:\n"
                     "  ret\n"
                     "}\n";
  rc_module *m = test_parse(&d, text);
  CHECK(m);
  /* A and B are the user's blocks: only blocks reconverge inserted go */
  CHECK_EQ_INT(rc_fold_flow_branches(m->kernels[0]), 0);
  CHECK_EQ_INT(m->kernels[0]->nblocks, 6);
  rc_module_free(m);
}
