/* The IR object model and builder: edges and predecessor lists, terminators, detaching, block
 * removal with phi clean-up, cloning, names, constants. Every test ends by running the verifier,
 * which checks the invariants (dense ids, exact predecessor lists, phis matching predecessors). */
#include "reconv/ir.h"
#include "test.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* A diamond with a phi at the join:
 *   entry: %c = icmp slt %x, 0; br %c, B, C
 *   B: %b = add %x, 1; jmp D      C: %d = sub %x, 1; jmp D
 *   D: %p = phi [%b, B], [%d, C]; ret */
typedef struct diamond {
  test_diags d;
  rc_module *m;
  rc_kernel *k;
  rc_block *entry, *B, *C, *D;
  rc_value *x, *c, *b, *dv;
  rc_instr *phi, *br;
} diamond;

static void diamond_init(diamond *t) {
  test_diags_init(&t->d);
  t->m = rc_module_new(&t->d.ctx, "built.rir");
  t->k = rc_kernel_new(t->m, "k");
  t->x = rc_kernel_add_param(t->k, RC_I32, "x");
  t->entry = rc_block_new(t->k, "entry");
  t->B = rc_block_new(t->k, "B");
  t->C = rc_block_new(t->k, "C");
  t->D = rc_block_new(t->k, "D");
  rc_builder bld;
  rc_builder_at_end(&bld, t->entry);
  t->c = rc_build_cmp(&bld, RC_CMP_SLT, t->x, rc_const_int(t->k, RC_I32, 0), "c");
  t->br = rc_build_br(&bld, t->c, t->B, t->C);
  rc_builder_at_end(&bld, t->B);
  t->b = rc_build_binop(&bld, RC_OP_ADD, t->x, rc_const_int(t->k, RC_I32, 1), "b");
  rc_build_jmp(&bld, t->D);
  rc_builder_at_end(&bld, t->C);
  t->dv = rc_build_binop(&bld, RC_OP_SUB, t->x, rc_const_int(t->k, RC_I32, 1), "d");
  rc_build_jmp(&bld, t->D);
  rc_builder_at_end(&bld, t->D);
  t->phi = rc_phi_new(t->D, RC_I32, "p");
  rc_phi_add_incoming(t->phi, t->b, t->B);
  rc_phi_add_incoming(t->phi, t->dv, t->C);
  rc_build_ret(&bld);
}

static bool verifies(diamond *t) {
  t->d.len = 0;
  t->d.text[0] = 0;
  return rc_verify_kernel(&t->d.ctx, t->k) == 0; /* the message, if any, is in t->d.text */
}

TEST(builder_diamond_is_valid_and_prints) {
  diamond t;
  diamond_init(&t);
  CHECK(verifies(&t));
  CHECK_EQ_INT(t.D->npreds, 2);
  CHECK(rc_block_has_pred(t.D, t.B) && rc_block_has_pred(t.D, t.C));
  CHECK_EQ_INT(rc_block_nsuccs(t.entry), 2);
  CHECK(rc_block_succ(t.entry, 0) == t.B && rc_block_succ(t.entry, 1) == t.C);
  CHECK(rc_block_succ(t.entry, 2) == NULL);
  char *s = test_print(t.m);
  CHECK_STR_CONTAINS(s, "  %p = phi i32 [%b, B], [%d, C]\n");
  CHECK_STR_CONTAINS(s, "  br %c, B, C\n");
  free(s);
  rc_module_free(t.m);
}

TEST(set_target_moves_the_edge) {
  diamond t;
  diamond_init(&t);
  rc_block *E = rc_block_new(t.k, "E");
  rc_builder bld;
  rc_builder_at_end(&bld, E);
  rc_build_jmp(&bld, t.D);
  rc_phi_add_incoming(t.phi, t.x, E);
  rc_term_set_target(t.br, 1, E); /* entry -> C becomes entry -> E */
  CHECK_EQ_INT(t.C->npreds, 0);
  CHECK_EQ_INT(E->npreds, 1);
  CHECK(E->preds[0] == t.entry);
  CHECK(t.br->targets[1] == E);
  /* setting the same target again changes nothing */
  rc_term_set_target(t.br, 1, E);
  CHECK_EQ_INT(E->npreds, 1);
  /* C is now unreachable but still branches to D: valid IR */
  CHECK(verifies(&t));
  rc_module_free(t.m);
}

TEST(set_target_to_same_block_twice_counts_two_edges) {
  diamond t;
  diamond_init(&t);
  rc_term_set_target(t.br, 1, t.B); /* br %c, B, B */
  CHECK_EQ_INT(rc_block_count_pred(t.B, t.entry), 2);
  CHECK_EQ_INT(t.B->npreds, 2);
  CHECK_EQ_INT(t.C->npreds, 0);
  CHECK(verifies(&t));
  rc_term_set_target(t.br, 0, t.C);
  CHECK_EQ_INT(rc_block_count_pred(t.B, t.entry), 1);
  CHECK_EQ_INT(rc_block_count_pred(t.C, t.entry), 1);
  CHECK(verifies(&t));
  rc_module_free(t.m);
}

TEST(set_term_replaces_the_terminator_and_its_edges) {
  diamond t;
  diamond_init(&t);
  rc_instr *j = rc_instr_new(t.k, RC_OP_JMP, RC_VOID, 0, 1);
  j->targets[0] = t.B;
  rc_block_set_term(t.entry, j);
  CHECK(rc_block_term(t.entry) == j);
  CHECK(t.br->parent == NULL); /* the old terminator is detached */
  CHECK_EQ_INT(t.B->npreds, 1);
  CHECK_EQ_INT(t.C->npreds, 0);
  CHECK(verifies(&t));
  /* a block without a terminator gets one */
  rc_block *E = rc_block_new(t.k, "E");
  rc_instr *r = rc_instr_new(t.k, RC_OP_RET, RC_VOID, 0, 0);
  rc_block_set_term(E, r);
  CHECK(E->first == r && E->last == r);
  CHECK(verifies(&t));
  rc_module_free(t.m);
}

TEST(detach_and_reattach_terminator_updates_preds) {
  diamond t;
  diamond_init(&t);
  rc_instr *jb = rc_block_term(t.B);
  rc_instr_detach(jb);
  CHECK(jb->parent == NULL && jb->prev == NULL && jb->next == NULL);
  CHECK_EQ_INT(t.D->npreds, 1);
  CHECK(!rc_block_has_pred(t.D, t.B));
  CHECK(rc_block_term(t.B) == NULL);
  CHECK(!verifies(&t)); /* B lacks a terminator and D's phi names B */
  rc_instr_detach(jb); /* detaching twice is harmless */
  rc_instr_append(t.B, jb);
  CHECK_EQ_INT(t.D->npreds, 2);
  CHECK(verifies(&t));
  /* detach a non-terminator from the middle */
  rc_instr *add = rc_value_instr(t.b);
  rc_instr_detach(add);
  CHECK(t.B->first == jb);
  rc_instr_insert_before(jb, add);
  CHECK(t.B->first == add && add->next == jb && jb->prev == add);
  CHECK(verifies(&t));
  rc_module_free(t.m);
}

TEST(insertion_points) {
  diamond t;
  diamond_init(&t);
  rc_builder bld;
  rc_builder_before_term(&bld, t.D);
  rc_value *m = rc_build_binop(&bld, RC_OP_MUL, &t.phi->v, &t.phi->v, "m");
  CHECK(rc_value_instr(m)->next == rc_block_term(t.D));
  rc_instr *phi2 = rc_instr_new(t.k, RC_OP_PHI, RC_I32, 0, 0);
  rc_instr_insert_after_phis(t.D, phi2);
  CHECK(t.phi->next == phi2);
  rc_phi_add_incoming(phi2, t.x, t.B);
  rc_phi_add_incoming(phi2, t.x, t.C);
  CHECK(rc_block_first_nonphi(t.D) == rc_value_instr(m));
  CHECK(verifies(&t));
  /* an instruction placed after the phis but a phi after it is an error */
  rc_instr *late = rc_instr_new(t.k, RC_OP_PHI, RC_I32, 0, 0);
  rc_instr_insert_before(rc_block_term(t.D), late);
  rc_phi_add_incoming(late, t.x, t.B);
  rc_phi_add_incoming(late, t.x, t.C);
  CHECK(!verifies(&t));
  CHECK_STR_CONTAINS(t.d.text, "phi after a non-phi instruction");
  rc_module_free(t.m);
}

TEST(remove_block_drops_phi_entries) {
  diamond t;
  diamond_init(&t);
  rc_instr *j = rc_instr_new(t.k, RC_OP_JMP, RC_VOID, 0, 1);
  j->targets[0] = t.C;
  rc_block_set_term(t.entry, j); /* B becomes unreachable */
  CHECK_EQ_INT(t.B->npreds, 0);
  rc_block_remove(t.B);
  CHECK_EQ_INT(t.k->nblocks, 3);
  for (uint32_t i = 0; i < t.k->nblocks; i++) CHECK_EQ_INT(t.k->blocks[i]->id, i);
  CHECK(t.B->parent == NULL && t.B->id == RC_NONE);
  CHECK(rc_kernel_find_block(t.k, "B") == NULL);
  CHECK_EQ_INT(t.phi->nops, 1);
  CHECK(t.phi->targets[0] == t.C && t.phi->ops[0] == t.dv);
  CHECK_EQ_INT(t.D->npreds, 1);
  CHECK(verifies(&t));
  /* the name is free again */
  rc_block *nb = rc_block_new(t.k, "B");
  CHECK(strcmp(nb->name, "B") == 0);
  rc_module_free(t.m);
}

TEST(remove_block_with_two_edges_to_one_successor) {
  /* B: br %c, D, D — both edges go when B goes, and with them D's phi entry for B (regression:
   * the entry used to stay because B still counted as a predecessor while its edges were
   * dropped one by one) */
  diamond t;
  diamond_init(&t);
  rc_instr *br2 = rc_instr_new(t.k, RC_OP_BR, RC_VOID, 1, 2);
  br2->ops[0] = t.c;
  br2->targets[0] = br2->targets[1] = t.D;
  rc_block_set_term(t.B, br2);
  CHECK_EQ_INT(rc_block_count_pred(t.D, t.B), 2);
  CHECK(verifies(&t));
  rc_instr *j = rc_instr_new(t.k, RC_OP_JMP, RC_VOID, 0, 1);
  j->targets[0] = t.C;
  rc_block_set_term(t.entry, j);
  rc_block_remove(t.B);
  CHECK_EQ_INT(t.D->npreds, 1);
  CHECK_EQ_INT(t.phi->nops, 1);
  CHECK(t.phi->targets[0] == t.C);
  CHECK(verifies(&t));
  rc_module_free(t.m);
}

TEST(remove_blocks_in_one_pass) {
  /* entry -> A -> B -> C -> exit, plus dead blocks X -> Y -> exit and Y -> X (a dead cycle) with
   * a phi in exit that has entries for C and Y. */
  test_diags d;
  test_diags_init(&d);
  rc_module *m = rc_module_new(&d.ctx, NULL);
  rc_kernel *k = rc_kernel_new(m, "chain");
  rc_value *x = rc_kernel_add_param(k, RC_I32, "x");
  const char *names[] = {"entry", "A", "X", "B", "Y", "C", "exit"};
  rc_block *bl[7];
  for (int i = 0; i < 7; i++) bl[i] = rc_block_new(k, names[i]);
  rc_builder b;
  int order[] = {0, 1, 3, 5};
  for (int i = 0; i < 3; i++) {
    rc_builder_at_end(&b, bl[order[i]]);
    rc_build_jmp(&b, bl[order[i + 1]]);
  }
  rc_builder_at_end(&b, bl[5]);
  rc_build_jmp(&b, bl[6]);
  rc_builder_at_end(&b, bl[2]); /* X -> Y */
  rc_build_jmp(&b, bl[4]);
  rc_builder_at_end(&b, bl[4]); /* Y -> exit or X */
  rc_value *cy = rc_build_cmp(&b, RC_CMP_EQ, x, x, NULL);
  rc_build_br(&b, cy, bl[6], bl[2]);
  rc_builder_at_end(&b, bl[6]);
  rc_instr *phi = rc_phi_new(bl[6], RC_I32, "p");
  rc_phi_add_incoming(phi, x, bl[5]);
  rc_phi_add_incoming(phi, rc_const_int(k, RC_I32, 7), bl[4]);
  rc_build_ret(&b);
  CHECK_EQ_INT(rc_verify_kernel(&d.ctx, k), 0);
  bool dead[7] = {false, false, true, false, true, false, false};
  rc_kernel_remove_blocks(k, dead);
  CHECK_EQ_INT(k->nblocks, 5);
  const char *want[] = {"entry", "A", "B", "C", "exit"};
  for (uint32_t i = 0; i < k->nblocks; i++) {
    CHECK_EQ_INT(k->blocks[i]->id, i);
    CHECK(strcmp(k->blocks[i]->name, want[i]) == 0);
  }
  CHECK(rc_kernel_find_block(k, "X") == NULL && rc_kernel_find_block(k, "Y") == NULL);
  CHECK(rc_kernel_find_block(k, "C") == bl[5]);
  CHECK_EQ_INT(phi->nops, 1);
  CHECK(phi->targets[0] == bl[5]);
  CHECK_EQ_INT(bl[6]->npreds, 1);
  CHECK_EQ_INT(rc_verify_kernel(&d.ctx, k), 0);
  CHECK_EQ_INT(d.len, 0);
  rc_module_free(m);
}

TEST(move_block_renumbers) {
  diamond t;
  diamond_init(&t);
  rc_block_move(t.D, 1); /* entry D B C */
  CHECK(t.k->blocks[1] == t.D && t.k->blocks[2] == t.B && t.k->blocks[3] == t.C);
  for (uint32_t i = 0; i < t.k->nblocks; i++) CHECK_EQ_INT(t.k->blocks[i]->id, i);
  rc_block_move(t.D, 3); /* entry B C D */
  CHECK(t.k->blocks[3] == t.D && t.k->blocks[1] == t.B);
  for (uint32_t i = 0; i < t.k->nblocks; i++) CHECK_EQ_INT(t.k->blocks[i]->id, i);
  CHECK(verifies(&t));
  rc_module_free(t.m);
}

TEST(clone_is_a_deep_copy_with_phis_and_switch) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d,
      "kernel @k(i32 %x, ptr %out) !run \"--global 4\" {\n"
      "entry:\n"
      "  %0 = and i32 %x, 3\n"
      "  switch i32 %0, D [0: A, 1: B, -5: A]\n"
      "A:\n"
      "  %a = add i32 %x, 1\n"
      "  jmp D\n"
      "B:\n"
      "  jmp D\n"
      "D:\n"
      "  %p = phi i32 [%x, entry], [%a, A], [7, B]\n"
      "  store i32 %p, %out\n"
      "  ret\n"
      "}\n");
  CHECK(m != NULL);
  if (!m) return;
  rc_kernel *k = m->kernels[0];
  rc_kernel *c = rc_kernel_clone(m, k, "k2");
  CHECK(c != NULL);
  CHECK(rc_kernel_clone(m, k, "k2") == NULL); /* the name is taken now */
  CHECK_EQ_INT(rc_verify_kernel(&d.ctx, c), 0);
  rc_strbuf s1, s2;
  rc_sb_init(&s1);
  rc_sb_init(&s2);
  rc_print_kernel(k, &s1);
  rc_print_kernel(c, &s2);
  CHECK(strncmp(s2.data, "kernel @k2(", 11) == 0);
  CHECK(strcmp(strchr(s1.data, '('), strchr(s2.data, '(')) == 0); /* same text after the name */
  /* nothing is shared */
  CHECK_EQ_INT(c->nblocks, k->nblocks);
  for (uint32_t b = 0; b < k->nblocks; b++) {
    CHECK(c->blocks[b] != k->blocks[b] && c->blocks[b]->parent == c);
    for (rc_instr *i = c->blocks[b]->first; i; i = i->next) {
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o]->kind == RC_V_INSTR) CHECK(rc_value_instr(i->ops[o])->parent->parent == c);
        else if (i->ops[o]->kind == RC_V_PARAM) CHECK(i->ops[o] == c->params[i->ops[o]->id]);
      for (uint32_t e = 0; e < i->ntargets; e++) CHECK(i->targets[e]->parent == c);
    }
  }
  rc_instr *sw = rc_block_term(c->blocks[0]);
  CHECK_EQ_INT(sw->op, RC_OP_SWITCH);
  CHECK(sw->cases != rc_block_term(k->blocks[0])->cases);
  CHECK_EQ_INT(sw->cases[2], -5);
  CHECK_EQ_INT(c->blocks[1]->npreds, 2); /* A: two cases */
  CHECK(strcmp(c->run_spec, "--global 4") == 0);
  /* changing the clone leaves the original alone */
  rc_instr *phi = c->blocks[3]->first;
  rc_phi_remove_incoming(phi, 2);
  rc_term_set_target(rc_block_term(c->blocks[2]), 0, c->blocks[1]);
  rc_sb_free(&s2);
  rc_sb_init(&s2);
  rc_print_kernel(k, &s2);
  CHECK(strcmp(s1.data, s2.data) == 0);
  CHECK_EQ_INT(rc_verify_kernel(&d.ctx, k), 0);
  rc_sb_free(&s1);
  rc_sb_free(&s2);
  /* a clone into another module, of a wave kernel with registers */
  rc_module *w = test_parse(&d,
      "wave kernel @w() {\n"
      "  reg vector i32 $v\n"
      "  reg scalar mask $m\n"
      "entry:\n"
      "  %e = exec\n"
      "  rset $m, %e\n"
      "  rset $v, 1\n"
      "  brexecz X, X\n"
      "X:\n"
      "  %g = rget $m\n"
      "  setexec %g\n"
      "  ret\n"
      "}\n");
  CHECK(w != NULL);
  if (w) {
    rc_kernel *wc = rc_kernel_clone(m, w->kernels[0], "w");
    CHECK(wc != NULL && wc->level == RC_LEVEL_WAVE && wc->nregs == 2);
    CHECK(rc_kernel_find_reg(wc, "m") == wc->regs[1] && wc->regs[1] != w->kernels[0]->regs[1]);
    CHECK(wc->blocks[1]->first->u.reg == wc->regs[1]);
    CHECK_EQ_INT(rc_verify_kernel(&d.ctx, wc), 0);
    rc_module_free(w); /* the clone must not depend on the source module */
    CHECK_EQ_INT(rc_verify_kernel(&d.ctx, wc), 0);
    char *s = test_print(m);
    CHECK_STR_CONTAINS(s, "wave kernel @w() {\n  reg vector i32 $v\n  reg scalar mask $m\n");
    free(s);
  }
  rc_module_free(m);
}

TEST(names_blocks_values_registers_kernels) {
  diamond t;
  diamond_init(&t);
  rc_block *b1 = rc_block_new(t.k, "B"); /* taken: made unique */
  CHECK(strcmp(b1->name, "B") != 0);
  CHECK(rc_kernel_find_block(t.k, b1->name) == b1);
  rc_block *b2 = rc_block_new(t.k, NULL);
  rc_block *b3 = rc_block_new(t.k, NULL);
  CHECK(strcmp(b2->name, b3->name) != 0);
  CHECK(strncmp(b2->name, "bb", 2) == 0);
  const char *f1 = rc_kernel_fresh_name(t.k, "FLOW");
  rc_block_new(t.k, f1);
  const char *f2 = rc_kernel_fresh_name(t.k, "FLOW");
  CHECK(strcmp(f1, f2) != 0);
  CHECK(!rc_value_set_name(t.k, t.b, "d")); /* taken by C's value */
  CHECK(t.b->name == NULL);
  CHECK(rc_value_set_name(t.k, t.b, "b2"));
  CHECK(rc_kernel_find_value(t.k, "b2") == t.b);
  CHECK(rc_kernel_find_value(t.k, "b") == NULL);
  CHECK(rc_value_set_name(t.k, t.dv, "17")); /* numbers mean "unnamed" */
  CHECK(t.dv->name == NULL && rc_kernel_find_value(t.k, "d") == NULL);
  CHECK(rc_kernel_new(t.m, "k") == NULL);
  rc_kernel *k2 = rc_kernel_new(t.m, "k2");
  CHECK(rc_module_find_kernel(t.m, "k2") == k2 && rc_module_find_kernel(t.m, "k") == t.k);
  CHECK(rc_module_find_kernel(t.m, "nope") == NULL);
  k2->level = RC_LEVEL_WAVE;
  rc_reg *r0 = rc_kernel_add_reg(k2, RC_I32, false, NULL);
  rc_reg *r1 = rc_kernel_add_reg(k2, RC_MASK, true, "r1x");
  rc_reg *r2 = rc_kernel_add_reg(k2, RC_I32, false, NULL);
  CHECK(rc_kernel_add_reg(k2, RC_I32, false, "r1x") == NULL);
  CHECK(strcmp(r0->name, r2->name) != 0);
  CHECK(rc_kernel_find_reg(k2, r0->name) == r0 && rc_kernel_find_reg(k2, "r1x") == r1);
  CHECK(rc_kernel_find_reg(k2, r2->name) == r2);
  CHECK_EQ_INT(r2->id, 2);
  rc_module_free(t.m);
}

TEST(many_unnamed_registers_get_distinct_names) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = rc_module_new(&d.ctx, NULL);
  rc_kernel *k = rc_kernel_new(m, "w");
  k->level = RC_LEVEL_WAVE;
  rc_kernel_add_reg(k, RC_I32, true, "r3"); /* in the way of the generated names */
  enum { N = 20000 };
  for (int i = 0; i < N; i++) CHECK(rc_kernel_add_reg(k, RC_I32, false, NULL) != NULL);
  CHECK_EQ_INT(k->nregs, N + 1);
  int bad = 0;
  for (uint32_t i = 0; i < k->nregs; i++) bad += rc_kernel_find_reg(k, k->regs[i]->name) != k->regs[i];
  CHECK_EQ_INT(bad, 0);
  rc_module_free(m);
}

TEST(replace_uses) {
  diamond t;
  diamond_init(&t);
  rc_kernel_replace_uses(t.k, t.x, rc_const_int(t.k, RC_I32, 5));
  char *s = test_print(t.m);
  CHECK_STR_CONTAINS(s, "%b = add i32 5, 1");
  CHECK_STR_CONTAINS(s, "%c = icmp slt i32 5, 0");
  free(s);
  CHECK(verifies(&t));
  rc_module_free(t.m);
}

TEST(constants_are_canonical) {
  diamond t;
  diamond_init(&t);
  CHECK_EQ_INT(rc_const_ival(rc_const_int(t.k, RC_I8, 255)), -1);
  CHECK_EQ_INT(rc_const_ival(rc_const_int(t.k, RC_I16, 0x18000)), -32768);
  CHECK_EQ_INT(rc_const_ival(rc_const_int(t.k, RC_I1, 2)), 0);
  CHECK_EQ_INT(rc_const_ival(rc_const_int(t.k, RC_I1, 3)), 1);
  CHECK_EQ_INT(rc_const_ival(rc_const_int(t.k, RC_I32, 0x1ffffffffLL)), -1);
  CHECK(rc_const_fval(rc_const_float(t.k, RC_F32, 0.1)) == (double)0.1f);
  CHECK(rc_const_fval(rc_const_float(t.k, RC_F64, 0.1)) == 0.1);
  CHECK(rc_value_is_const(rc_const_bool(t.k, true)) && !rc_value_is_const(rc_undef(t.k, RC_I32)));
  int64_t cases[] = {300, 44};
  rc_block *targets[] = {t.B, t.C};
  rc_block *E = rc_block_new(t.k, "E");
  rc_builder b;
  rc_builder_at_end(&b, E);
  rc_value *v = rc_build_cast(&b, RC_OP_TRUNC, t.x, RC_I8, "t8");
  rc_instr *sw = rc_build_switch(&b, v, t.D, cases, targets, 2);
  CHECK_EQ_INT(sw->cases[0], 44); /* 300 truncated to i8 */
  CHECK_EQ_INT(sw->cases[1], 44);
  rc_module_free(t.m);
}

TEST(regression_clone_of_a_phi_naming_a_removed_block) {
  /* found by prop_ir_builder: rc_term_set_target leaves phis alone (by design), so a phi can keep
   * an entry for a block that is later removed; cloning such a kernel read blocks[RC_NONE]. The
   * clone now keeps the dangling reference, prints like the original and fails the verifier the
   * same way. */
  diamond t;
  diamond_init(&t);
  rc_term_set_target(rc_block_term(t.C), 0, t.B); /* C -> B; D's phi still names C */
  rc_term_set_target(t.br, 1, t.B);                 /* entry -> B twice; C has no predecessors */
  rc_block_remove(t.C);
  CHECK(t.phi->targets[1] == t.C && t.C->parent == NULL);
  rc_module *cm = rc_module_new(&t.d.ctx, NULL);
  rc_kernel *c = rc_kernel_clone(cm, t.k, "k");
  CHECK(c != NULL);
  char *a = test_print(t.m), *b = test_print(cm);
  CHECK(strcmp(a, b) == 0);
  CHECK_STR_CONTAINS(b, "phi i32 [%b, B], [%d, C]");
  free(a);
  free(b);
  CHECK(!verifies(&t));
  char first[sizeof t.d.text];
  snprintf(first, sizeof first, "%s", t.d.text);
  t.d.len = 0;
  t.d.text[0] = 0;
  CHECK(rc_verify_kernel(&t.d.ctx, c) != 0);
  CHECK_STR_CONTAINS(t.d.text, "operand refers to an instruction of a removed block (C)");
  CHECK_STR_CONTAINS(first, "operand refers to an instruction of a removed block (C)");
  rc_module_free(cm);
  rc_module_free(t.m);
}

/* Running out of memory ends the process with status 1 and a message (bad input, not a crash).
 * Sanitizers replace malloc and report a huge request themselves, so this needs a plain build. */
#if defined(__SANITIZE_ADDRESS__)
#define RECONV_TEST_PLAIN_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RECONV_TEST_PLAIN_MALLOC 0
#endif
#endif
#ifndef RECONV_TEST_PLAIN_MALLOC
#define RECONV_TEST_PLAIN_MALLOC 1
#endif

TEST(out_of_memory_exits_with_status_1) {
  if (!RECONV_TEST_PLAIN_MALLOC) return;
  fflush(NULL);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    freopen("/dev/null", "w", stderr);
    void *p = rc_xmalloc((size_t)1 << 62); /* no machine has this */
    (void)p;
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK_EQ_INT(WEXITSTATUS(status), 1);
}
