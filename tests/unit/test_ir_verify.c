/* The verifier: one failing case per rule of docs/ir.md, "Well-formedness" (the rule names below
 * are its section names). Cases the text form can express are written as text and must be
 * reported at the offending line:col; the others (stale predecessor lists, detached operands,
 * wrong block ids ...) are built with the builder and then broken by hand. */
#include "reconv/ir.h"
#include "test.h"

#include <stdlib.h>

/* Parse (which verifies) text that must fail verification with `msg` at `where` ("L:C"). */
static void expect_invalid(const char *text, const char *where, const char *msg) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = rc_parse_module_unverified(&d.ctx, "test.rir", text, strlen(text));
  CHECK(m != NULL); /* the text itself parses */
  if (!m) {
    fprintf(stderr, "unexpected parse error: %s", d.text);
    return;
  }
  CHECK_EQ_INT(d.len, 0);
  CHECK(rc_verify_module(&d.ctx, m) != 0);
  char pos[64];
  snprintf(pos, sizeof pos, "test.rir:%s: error: in kernel @", where);
  CHECK_STR_CONTAINS(d.text, pos);
  CHECK_STR_CONTAINS(d.text, msg);
  rc_module_free(m);
  /* rc_parse_module gives the same diagnostic and no module */
  test_diags d2;
  test_diags_init(&d2);
  CHECK(test_parse(&d2, text) == NULL);
  CHECK(strcmp(d.text, d2.text) == 0);
}

/* A valid two-block kernel to break by hand:
 *   entry: %a = add i32 %x, 1; %c = icmp eq i32 %a, 0; br %c, B, C
 *   B: %p = phi i32 [%a, entry]; jmp C   C: %q = phi i32 [%x, entry], [%p, B]; ret */
typedef struct fixture {
  test_diags d;
  rc_module *m;
  rc_kernel *k;
  rc_block *entry, *B, *C;
  rc_value *x, *a, *c;
  rc_instr *br, *jmp, *ret, *phiB, *phiC;
} fixture;

static void fixture_init(fixture *f) {
  test_diags_init(&f->d);
  f->m = test_parse(&f->d,
                    "kernel @k(i32 %x) {\n"
                    "entry:\n"
                    "  %a = add i32 %x, 1\n"
                    "  %c = icmp eq i32 %a, 0\n"
                    "  br %c, B, C\n"
                    "B:\n"
                    "  %p = phi i32 [%a, entry]\n"
                    "  jmp C\n"
                    "C:\n"
                    "  %q = phi i32 [%x, entry], [%p, B]\n"
                    "  ret\n"
                    "}\n");
  if (!f->m) {
    fprintf(stderr, "fixture: %s", f->d.text);
    abort();
  }
  f->k = f->m->kernels[0];
  f->entry = f->k->blocks[0];
  f->B = f->k->blocks[1];
  f->C = f->k->blocks[2];
  f->x = f->k->params[0];
  f->a = &f->entry->first->v;
  f->c = &f->entry->first->next->v;
  f->br = f->entry->last;
  f->jmp = f->B->last;
  f->ret = f->C->last;
  f->phiB = f->B->first;
  f->phiC = f->C->first;
}

/* The fixture's kernel must now fail with msg. */
static void expect_broken(fixture *f, const char *msg) {
  f->d.len = 0;
  f->d.text[0] = 0;
  CHECK(rc_verify_kernel(&f->d.ctx, f->k) != 0);
  CHECK_STR_CONTAINS(f->d.text, "error: in kernel @k");
  CHECK_STR_CONTAINS(f->d.text, msg);
  rc_module_free(f->m);
}

TEST(fixture_is_valid) {
  fixture f;
  fixture_init(&f);
  CHECK_EQ_INT(rc_verify_kernel(&f.d.ctx, f.k), 0);
  CHECK_EQ_INT(f.d.len, 0);
  rc_module_free(f.m);
}

/* ---- rule: Kernel ---------------------------------------------------------------------------- */

TEST(rule_kernel_needs_a_block) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = rc_module_new(&d.ctx, NULL);
  rc_kernel *k = rc_kernel_new(m, "empty");
  CHECK(rc_verify_kernel(&d.ctx, k) != 0);
  CHECK_STR_CONTAINS(d.text, "error: in kernel @empty: kernel has no blocks");
  rc_module_free(m);
}

TEST(rule_kernel_entry_has_no_predecessors) {
  expect_invalid("kernel @k() {\n"
                 "entry:\n"
                 "  br true, entry, X\n"
                 "X:\n"
                 "  ret\n"
                 "}\n",
                 "2:1", "block entry: the entry block has predecessors");
}

/* ---- rule: Kernel signature ------------------------------------------------------------------ */

TEST(rule_signature_parameter_numbering) {
  fixture f;
  fixture_init(&f);
  f.x->id = 3;
  expect_broken(&f, "error: in kernel @k: parameter 0 is not numbered 0");
}

TEST(rule_signature_mask_parameter_at_thread_level) {
  fixture f;
  fixture_init(&f);
  f.x->type = RC_MASK;
  expect_broken(&f, "the mask type is only allowed in wave kernels");
}

TEST(rule_signature_registers_only_at_wave_level) {
  fixture f;
  fixture_init(&f);
  rc_kernel_add_reg(f.k, RC_I32, false, "r");
  expect_broken(&f, "registers are only allowed at wave level");
}

/* ---- rule: Block numbering ------------------------------------------------------------------- */

TEST(rule_block_numbering) {
  fixture f;
  fixture_init(&f);
  f.B->id = 7;
  expect_broken(&f, "block at position 1 is not numbered 1");
}

TEST(rule_block_numbering_foreign_block) {
  fixture f, g;
  fixture_init(&f);
  fixture_init(&g);
  f.k->blocks[2] = g.C; /* a block of another kernel in f's list */
  expect_broken(&f, "belongs to another kernel");
  rc_module_free(g.m);
}

/* ---- rule: Block structure ------------------------------------------------------------------- */

TEST(rule_block_structure_empty_block) {
  fixture f;
  fixture_init(&f);
  rc_block_new(f.k, "E");
  expect_broken(&f, "block E: block is empty (it needs a terminator)");
}

TEST(rule_block_structure_missing_terminator) {
  fixture f;
  fixture_init(&f);
  rc_instr_detach(f.ret);
  expect_broken(&f, "block C, instruction `%q = phi i32 [%x, entry], [%p, B]`: block does not end in a terminator");
}

TEST(rule_block_structure_terminator_in_the_middle) {
  fixture f;
  fixture_init(&f);
  rc_instr *r = rc_instr_new(f.k, RC_OP_RET, RC_VOID, 0, 0);
  rc_instr_insert_before(f.ret, r);
  expect_broken(&f, "block C, instruction `ret`: terminator in the middle of a block");
}

TEST(rule_block_structure_phi_after_non_phi) {
  expect_invalid("kernel @k(i32 %x) {\n"
                 "entry:\n"
                 "  jmp B\n"
                 "B:\n"
                 "  %a = add i32 %x, 1\n"
                 "  %p = phi i32 [%x, entry]\n"
                 "  ret\n"
                 "}\n",
                 "6:3", "phi after a non-phi instruction");
}

TEST(rule_block_structure_corrupt_list) {
  fixture f;
  fixture_init(&f);
  f.jmp->parent = f.C; /* in B's list but claims to be in C */
  expect_broken(&f, "block B: instruction list is corrupt");
}

/* ---- rule: Value numbering ------------------------------------------------------------------- */

TEST(rule_value_numbering_duplicate) {
  fixture f;
  fixture_init(&f);
  rc_value_instr(f.c)->v.id = f.a->id;
  expect_broken(&f, "is used by two instructions");
}

TEST(rule_value_numbering_out_of_range) {
  fixture f;
  fixture_init(&f);
  rc_value_instr(f.c)->v.id = f.k->nvalues + 3;
  expect_broken(&f, "is not a value number of this kernel");
}

TEST(rule_value_numbering_instruction_of_another_kernel) {
  fixture f, g;
  fixture_init(&f);
  fixture_init(&g);
  /* an instruction made for a bigger kernel, moved into f */
  for (int n = 0; n < 10; n++) rc_instr_new(g.k, RC_OP_ADD, RC_I32, 2, 0);
  rc_instr *i = rc_instr_new(g.k, RC_OP_ADD, RC_I32, 2, 0);
  i->ops[0] = i->ops[1] = f.x;
  rc_instr_insert_before(f.ret, i);
  expect_broken(&f, "is not a value number of this kernel");
  rc_module_free(g.m);
}

TEST(rule_value_numbering_void_has_no_number) {
  fixture f;
  fixture_init(&f);
  f.jmp->v.id = 1;
  expect_broken(&f, "an instruction without a result has a value number");
}

/* ---- rule: Operands -------------------------------------------------------------------------- */

TEST(rule_operands_missing) {
  fixture f;
  fixture_init(&f);
  rc_value_instr(f.c)->ops[1] = NULL;
  expect_broken(&f, "instruction `%c = icmp eq i32 %a, <null>`: missing operand");
}

TEST(rule_operands_detached_instruction) {
  fixture f;
  fixture_init(&f);
  rc_instr *d = rc_instr_new(f.k, RC_OP_ADD, RC_I32, 2, 0);
  d->ops[0] = d->ops[1] = f.x;
  rc_value_instr(f.c)->ops[0] = &d->v;
  expect_broken(&f, "operand refers to an instruction that is not in a block");
}

TEST(rule_operands_instruction_of_removed_block) {
  fixture f;
  fixture_init(&f);
  /* make B unreachable, remove it, and keep a use of its phi */
  rc_instr *j = rc_instr_new(f.k, RC_OP_JMP, RC_VOID, 0, 1);
  j->targets[0] = f.C;
  rc_block_set_term(f.entry, j);
  rc_block_remove(f.B);
  CHECK_EQ_INT(f.phiC->nops, 1);
  rc_instr *use = rc_instr_new(f.k, RC_OP_ADD, RC_I32, 2, 0);
  use->ops[0] = &f.phiB->v;
  use->ops[1] = f.x;
  rc_instr_insert_before(f.ret, use);
  expect_broken(&f, "operand refers to an instruction of a removed block (B)");
}

TEST(rule_operands_other_kernel) {
  fixture f, g;
  fixture_init(&f);
  fixture_init(&g);
  rc_value_instr(f.c)->ops[0] = g.a;
  expect_broken(&f, "operand refers to another kernel");
  rc_module_free(g.m);
}

TEST(rule_operands_parameter_of_other_kernel) {
  fixture f, g;
  fixture_init(&f);
  fixture_init(&g);
  rc_value_instr(f.a)->ops[0] = g.x;
  expect_broken(&f, "operand is a parameter of another kernel");
  rc_module_free(g.m);
}

TEST(rule_operands_void_value) {
  fixture f;
  fixture_init(&f);
  rc_value_instr(f.a)->ops[0] = &f.jmp->v;
  expect_broken(&f, "operand has no value type");
}

/* ---- rule: Operand and target counts --------------------------------------------------------- */

TEST(rule_counts_operands) {
  fixture f;
  fixture_init(&f);
  rc_instr *i = rc_instr_new(f.k, RC_OP_ADD, RC_I32, 1, 0);
  i->ops[0] = f.x;
  rc_instr_insert_before(f.ret, i);
  expect_broken(&f, "add takes 2 operands, not 1");
}

TEST(rule_counts_targets) {
  fixture f;
  fixture_init(&f);
  rc_instr *j = rc_instr_new(f.k, RC_OP_JMP, RC_VOID, 0, 2);
  j->targets[0] = j->targets[1] = f.C;
  rc_block_set_term(f.B, j);
  expect_broken(&f, "jmp has 1 target, not 2");
}

TEST(rule_counts_phi_values_and_blocks) {
  fixture f;
  fixture_init(&f);
  f.phiC->ntargets = 1;
  expect_broken(&f, "phi has 2 values but 1 incoming blocks");
}

/* ---- rule: Types ----------------------------------------------------------------------------- */

TEST(rule_types_integer_op_on_floats) {
  expect_invalid("kernel @k() {\nentry:\n  %a = add f32 1.0, 2.0\n  ret\n}\n", "3:3",
                 "add needs integer operands");
}

TEST(rule_types_float_op_on_integers) {
  expect_invalid("kernel @k() {\nentry:\n  %a = fmul i32 1, 2\n  ret\n}\n", "3:3",
                 "fmul needs floating-point operands");
}

TEST(rule_types_icmp_on_floats) {
  expect_invalid("kernel @k() {\nentry:\n  %a = icmp eq f64 1.0, 2.0\n  ret\n}\n", "3:3",
                 "icmp compares integers, pointers or masks");
}

TEST(rule_types_fcmp_on_integers) {
  expect_invalid("kernel @k() {\nentry:\n  %a = fcmp oeq i32 1, 2\n  ret\n}\n", "3:3",
                 "fcmp compares floats");
}

TEST(rule_types_bad_casts) {
  expect_invalid("kernel @k(i32 %x) {\nentry:\n  %a = trunc i32 %x to i64\n  ret\n}\n", "3:3",
                 "cannot trunc i32 to i64");
  expect_invalid("kernel @k(i32 %x) {\nentry:\n  %a = zext i32 %x to i32\n  ret\n}\n", "3:3",
                 "cannot zext i32 to i32");
  expect_invalid("kernel @k(f32 %x) {\nentry:\n  %a = fptrunc f32 %x to f32\n  ret\n}\n", "3:3",
                 "cannot fptrunc f32 to f32");
  expect_invalid("kernel @k(i32 %x) {\nentry:\n  %a = bitcast i32 %x to f64\n  ret\n}\n", "3:3",
                 "cannot bitcast i32 to f64");
  expect_invalid("kernel @k(i1 %x) {\nentry:\n  %a = inttoptr i1 %x to ptr\n  ret\n}\n", "3:3",
                 "cannot inttoptr i1 to ptr");
  expect_invalid("kernel @k(f32 %x) {\nentry:\n  %a = sitofp f32 %x to f64\n  ret\n}\n", "3:3",
                 "cannot sitofp f32 to f64");
}

TEST(rule_types_gep_index) {
  expect_invalid("kernel @k(ptr %p) {\nentry:\n  %a = gep %p, f32 1.0, 4\n  ret\n}\n", "3:3",
                 "gep index must be an integer");
}

TEST(rule_types_select_condition) {
  fixture f;
  fixture_init(&f);
  rc_builder b;
  rc_builder_before_term(&b, f.C);
  rc_build_select(&b, f.x, f.x, f.x, "s");
  expect_broken(&f, "condition has type i32, expected i1");
}

TEST(rule_types_branch_condition) {
  fixture f;
  fixture_init(&f);
  f.br->ops[0] = f.a;
  expect_broken(&f, "condition has type i32, expected i1");
}

TEST(rule_types_switch_value) {
  fixture f;
  fixture_init(&f);
  rc_instr *sw = rc_instr_new(f.k, RC_OP_SWITCH, RC_VOID, 1, 1);
  sw->ops[0] = rc_const_float(f.k, RC_F32, 1.0);
  sw->targets[0] = f.C;
  rc_block_set_term(f.B, sw);
  expect_broken(&f, "switch needs an integer value");
}

TEST(rule_types_mismatched_operands) {
  fixture f;
  fixture_init(&f);
  rc_value_instr(f.a)->ops[1] = rc_const_int(f.k, RC_I64, 1);
  expect_broken(&f, "second operand has type i64, expected i32");
}

/* ---- rule: Memory instructions --------------------------------------------------------------- */

TEST(rule_memory_sizes) {
  expect_invalid("kernel @k() {\nentry:\n  %a = alloca 0\n  ret\n}\n", "3:3",
                 "alloca size must be between 1 and 16777216 bytes");
  expect_invalid("kernel @k() {\nentry:\n  %a = localmem 16777217\n  ret\n}\n", "3:3",
                 "localmem size must be between 1 and 16777216 bytes");
}

TEST(rule_memory_address_is_ptr) {
  fixture f;
  fixture_init(&f);
  rc_builder b;
  rc_builder_before_term(&b, f.C);
  rc_build_load(&b, RC_I32, f.x, "l");
  expect_broken(&f, "address has type i32, expected a pointer");
}

/* ---- rule: Builtin calls --------------------------------------------------------------------- */

TEST(rule_builtins) {
  expect_invalid("kernel @k(i32 %d) {\nentry:\n  %a = call i32 @global_id(i32 %d)\n  ret\n}\n", "3:3",
                 "@global_id: argument 1 has type i32, expected a constant i32 0, 1 or 2");
  expect_invalid("kernel @k() {\nentry:\n  %a = call i32 @global_id(i32 3)\n  ret\n}\n", "3:3",
                 "@global_id: argument 1 has type i32, expected a constant i32 0, 1 or 2");
  expect_invalid("kernel @k() {\nentry:\n  %a = call i32 @lane_id(i32 0)\n  ret\n}\n", "3:3",
                 "@lane_id takes 0 arguments, not 1");
  expect_invalid("kernel @k() {\nentry:\n  %a = call i32 @sqrt(f32 2.0)\n  ret\n}\n", "3:3",
                 "@sqrt works on a float type, not on i32");
  expect_invalid("kernel @k() {\nentry:\n  %a = call f64 @fmin(f64 2.0, f32 1.0)\n  ret\n}\n", "3:3",
                 "@fmin: argument 2 has type f32, expected the call's type or its element type");
  expect_invalid("kernel @k() {\nentry:\n  %a = call i32 @barrier()\n  ret\n}\n", "3:3",
                 "@barrier returns void");
  expect_invalid("kernel @k(ptr %p) {\nentry:\n  %a = call i32 @atomic_add(i32 0, i32 1)\n  ret\n}\n",
                 "3:3", "@atomic_add: argument 1 has type i32, expected a pointer");
  expect_invalid("kernel @k(ptr %p) {\nentry:\n  call void @memset(ptr %p, i32 0, i64 4)\n  ret\n}\n",
                 "3:3", "@memset: argument 2 has type i32, expected i8");
  expect_invalid("kernel @k(ptr %p) {\nentry:\n  %a = call i1 @abs(i1 true)\n  ret\n}\n", "3:3",
                 "@abs works on an integer type, not on i1");
}

TEST(rule_builtins_unknown_id) {
  fixture f;
  fixture_init(&f);
  rc_instr *c = rc_instr_new(f.k, RC_OP_CALL, RC_VOID, 0, 0);
  c->pred = RC_BI_COUNT;
  rc_instr_insert_before(f.ret, c);
  expect_broken(&f, "unknown builtin");
}

/* ---- rule: Level rules ----------------------------------------------------------------------- */

TEST(rule_level_wave_instructions_at_thread_level) {
  static const rc_opcode ops[] = {RC_OP_EXEC, RC_OP_BALLOT, RC_OP_SETEXEC};
  static const char *const msgs[] = {"exec is only allowed at wave level",
                                     "ballot is only allowed at wave level",
                                     "setexec is only allowed at wave level"};
  for (int n = 0; n < 3; n++) {
    fixture f;
    fixture_init(&f);
    rc_builder b;
    rc_builder_before_term(&b, f.C);
    if (ops[n] == RC_OP_EXEC) rc_build_exec(&b, NULL);
    else if (ops[n] == RC_OP_BALLOT) rc_build_ballot(&b, f.c, NULL);
    else rc_build_setexec(&b, rc_const_int(f.k, RC_MASK, 1));
    expect_broken(&f, msgs[n]);
  }
}

TEST(rule_level_brexecz_at_thread_level) {
  fixture f;
  fixture_init(&f);
  rc_instr *t = rc_instr_new(f.k, RC_OP_BREXECZ, RC_VOID, 0, 2);
  t->targets[0] = t->targets[1] = f.C;
  rc_block_set_term(f.B, t);
  expect_broken(&f, "brexecz is only allowed at wave level");
}

TEST(rule_level_mask_value_at_thread_level) {
  fixture f;
  fixture_init(&f);
  rc_builder b;
  rc_builder_before_term(&b, f.C);
  rc_value *m = rc_const_int(f.k, RC_MASK, 3);
  rc_build_binop(&b, RC_OP_AND, m, m, NULL);
  expect_broken(&f, "the mask type is only allowed in wave kernels");
}

TEST(rule_level_no_phis_at_wave_level) {
  fixture f;
  fixture_init(&f);
  f.k->level = RC_LEVEL_WAVE;
  expect_broken(&f, "wave-level kernels have no phis");
}

TEST(rule_level_registers) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, "wave kernel @w() {\n  reg vector i32 $v\nentry:\n  rset $v, 1\n"
                                "  %a = rget $v\n  ret\n}\n");
  CHECK(m != NULL);
  if (!m) return;
  rc_kernel *k = m->kernels[0];
  rc_instr *get = k->blocks[0]->first->next;
  get->v.type = RC_I64;
  CHECK(rc_verify_kernel(&d.ctx, k) != 0);
  CHECK_STR_CONTAINS(d.text, "rget type differs from the register's");
  get->v.type = RC_I32;
  rc_module *m2 = rc_module_new(&d.ctx, NULL);
  rc_kernel *k2 = rc_kernel_new(m2, "other");
  k2->level = RC_LEVEL_WAVE;
  get->u.reg = rc_kernel_add_reg(k2, RC_I32, false, "v");
  CHECK(rc_verify_kernel(&d.ctx, k) != 0);
  CHECK_STR_CONTAINS(d.text, "unknown register");
  rc_module_free(m2);
  rc_module_free(m);
}

/* ---- rule: Annotations ----------------------------------------------------------------------- */

TEST(rule_annotations) {
  fixture f;
  fixture_init(&f);
  rc_value_instr(f.a)->iflags |= RC_IF_UNIFORM;
  expect_broken(&f, "!uniform and !divergent annotate br and switch only");
  fixture_init(&f);
  f.br->iflags |= RC_IF_UNIFORM | RC_IF_DIVERGENT;
  expect_broken(&f, "a branch cannot be both !uniform and !divergent");
}

/* ---- rule: Branch targets -------------------------------------------------------------------- */

TEST(rule_targets_null) {
  fixture f;
  fixture_init(&f);
  rc_instr *j = rc_instr_new(f.k, RC_OP_JMP, RC_VOID, 0, 1);
  rc_block_set_term(f.B, j); /* target left NULL */
  expect_broken(&f, "instruction `jmp <null>`: branch target 0 is not a block of this kernel");
}

TEST(rule_targets_foreign_block) {
  fixture f, g;
  fixture_init(&f);
  fixture_init(&g);
  rc_instr *j = rc_instr_new(f.k, RC_OP_JMP, RC_VOID, 0, 1);
  j->targets[0] = g.C;
  rc_block_set_term(f.B, j);
  expect_broken(&f, "branch target 0 is not a block of this kernel");
  rc_module_free(g.m);
}

TEST(rule_targets_removed_block) {
  fixture f;
  fixture_init(&f);
  rc_block *E = rc_block_new(f.k, "E");
  rc_builder b;
  rc_builder_at_end(&b, E);
  rc_build_ret(&b);
  rc_block_remove(E);
  rc_instr *j = rc_instr_new(f.k, RC_OP_JMP, RC_VOID, 0, 1);
  j->targets[0] = E;
  rc_instr_detach(f.ret);
  rc_instr_append(f.C, j);
  expect_broken(&f, "branch target 0 is not a block of this kernel");
}

TEST(rule_targets_duplicate_case) {
  expect_invalid("kernel @k(i32 %x) {\nentry:\n  switch i32 %x, A [1: A, 2: B, 1: B]\nA:\n  ret\nB:\n  ret\n}\n",
                 "3:3", "duplicate case value 1");
}

TEST(rule_targets_case_out_of_range) {
  fixture f;
  fixture_init(&f);
  rc_builder b;
  rc_builder_at_end(&b, f.B);
  rc_instr_detach(f.jmp);
  rc_value *t8 = rc_build_cast(&b, RC_OP_TRUNC, f.x, RC_I8, NULL);
  int64_t cases[] = {5};
  rc_block *targets[] = {f.C};
  rc_instr *sw = rc_build_switch(&b, t8, f.C, cases, targets, 1);
  sw->cases[0] = 300;
  expect_broken(&f, "case value 300 does not fit in i8");
}

/* ---- rule: Predecessor lists ----------------------------------------------------------------- */

TEST(rule_preds_stale_extra_entry) {
  fixture f;
  fixture_init(&f);
  f.B->preds[f.B->npreds++] = f.C; /* C does not branch to B */
  expect_broken(&f, "block B: predecessor list names C, which does not branch here that often");
}

TEST(rule_preds_missing_entry) {
  fixture f;
  fixture_init(&f);
  f.C->npreds--; /* forget one edge */
  expect_broken(&f, "predecessor list is missing the edge from");
}

TEST(rule_preds_wrong_multiplicity) {
  fixture f;
  fixture_init(&f);
  rc_term_set_target(f.br, 0, f.C); /* br %c, C, C: two edges entry -> C */
  f.C->npreds--;                    /* ... but only one recorded */
  /* (B's phi now names a non-predecessor, but predecessor lists are checked first) */
  expect_broken(&f, "predecessor list is missing the edge from entry");
}

TEST(rule_preds_foreign_block) {
  fixture f, g;
  fixture_init(&f);
  fixture_init(&g);
  f.C->preds[0] = g.entry;
  expect_broken(&f, "block C: predecessor list names a block that is not in this kernel");
  rc_module_free(g.m);
}

/* ---- rule: Phis ------------------------------------------------------------------------------ */

TEST(rule_phis_missing_entry) {
  expect_invalid("kernel @k(i1 %c) {\nentry:\n  br %c, A, B\nA:\n  jmp B\nB:\n"
                 "  %p = phi i32 [1, A]\n  ret\n}\n",
                 "7:3", "no incoming value for predecessor entry");
}

TEST(rule_phis_entry_for_non_predecessor) {
  expect_invalid("kernel @k(i1 %c) {\nentry:\n  br %c, A, B\nA:\n  ret\nB:\n"
                 "  %p = phi i32 [1, A], [2, entry]\n  ret\n}\n",
                 "7:3", "A is not a predecessor of B");
}

TEST(rule_phis_two_entries_for_one_block) {
  expect_invalid("kernel @k(i1 %c) {\nentry:\n  br %c, B, B\nB:\n"
                 "  %p = phi i32 [1, entry], [2, entry]\n  ret\n}\n",
                 "5:3", "two incoming values for entry");
}

TEST(rule_phis_one_entry_for_two_edges_is_valid) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, "kernel @k(i1 %c) {\nentry:\n  br %c, B, B\nB:\n"
                                "  %p = phi i32 [1, entry]\n  ret\n}\n");
  CHECK(m != NULL);
  CHECK_EQ_INT(d.len, 0);
  rc_module_free(m);
}

TEST(rule_phis_incoming_type) {
  fixture f;
  fixture_init(&f);
  f.phiC->ops[0] = rc_const_int(f.k, RC_I8, 1);
  expect_broken(&f, "incoming value has type i8, expected i32");
}

/* ---- rule: SSA dominance --------------------------------------------------------------------- */

TEST(rule_ssa_use_not_dominated) {
  expect_invalid("kernel @k(i1 %c) {\nentry:\n  br %c, A, B\nA:\n  %a = add i32 1, 2\n  jmp B\n"
                 "B:\n  %b = add i32 %a, 1\n  ret\n}\n",
                 "8:3", "operand defined in A does not dominate this use");
}

TEST(rule_ssa_use_before_definition) {
  expect_invalid("kernel @k() {\nentry:\n  %b = add i32 %a, 1\n  %a = add i32 1, 2\n  ret\n}\n",
                 "3:3", "operand is used before its definition");
  expect_invalid("kernel @k() {\nentry:\n  %a = add i32 %a, 1\n  ret\n}\n", "3:3",
                 "operand is used before its definition");
}

TEST(rule_ssa_phi_value_not_available) {
  expect_invalid("kernel @k(i1 %c) {\nentry:\n  br %c, A, B\nA:\n  %a = add i32 1, 2\n  jmp B\n"
                 "B:\n  %p = phi i32 [%a, A], [%a, entry]\n  ret\n}\n",
                 "8:3", "incoming value from entry is not defined on every path to the end of entry");
}

TEST(rule_ssa_unreachable_code_is_not_checked) {
  test_diags d;
  test_diags_init(&d);
  /* X is unreachable; its use of %a (defined in A) is not dominated, but no path runs it */
  rc_module *m = test_parse(&d, "kernel @k(i1 %c) {\nentry:\n  br %c, A, B\nA:\n  %a = add i32 1, 2\n"
                                "  jmp B\nX:\n  %x = add i32 %a, 1\n  jmp B\nB:\n"
                                "  %p = phi i32 [%a, A], [0, entry], [%x, X]\n  ret\n}\n");
  CHECK(m != NULL);
  CHECK_EQ_INT(d.len, 0);
  rc_module_free(m);
}

TEST(verifier_reports_every_kernel_of_a_module) {
  test_diags d;
  test_diags_init(&d);
  const char *text = "kernel @a() {\nentry:\n  %x = add f32 1.0, 1.0\n  ret\n}\n"
                     "kernel @b() {\nentry:\n  %x = fadd i32 1, 1\n  ret\n}\n";
  rc_module *m = rc_parse_module_unverified(&d.ctx, "test.rir", text, strlen(text));
  CHECK(m != NULL);
  if (!m) return;
  CHECK(rc_verify_module(&d.ctx, m) != 0);
  CHECK_STR_CONTAINS(d.text, "test.rir:3:3: error: in kernel @a");
  CHECK_STR_CONTAINS(d.text, "test.rir:8:3: error: in kernel @b");
  CHECK_EQ_INT(d.ctx.nerrors, 2);
  rc_module_free(m);
}

TEST(verifier_is_linear_on_a_wide_switch_and_phi) {
  /* 200,000 switch cases into one block with a phi: quadratic checks would take minutes
   * (fewer where RECONV_PROP_SCALE asks for it: sanitizers, valgrind) */
  const int N = (int)test_scaled(200000);
  test_diags d;
  test_diags_init(&d);
  rc_module *m = rc_module_new(&d.ctx, NULL);
  rc_kernel *k = rc_kernel_new(m, "wide");
  rc_value *x = rc_kernel_add_param(k, RC_I32, "x");
  rc_block *entry = rc_block_new(k, "entry");
  rc_block *join = rc_block_new(k, "join");
  rc_block **mids = malloc(N * sizeof *mids);
  int64_t *cases = malloc(N * sizeof *cases);
  rc_builder b;
  for (int i = 0; i < N; i++) {
    mids[i] = rc_block_new(k, NULL);
    cases[i] = (int64_t)i * 7 - 1000;
    rc_builder_at_end(&b, mids[i]);
    rc_build_jmp(&b, join);
  }
  rc_builder_at_end(&b, entry);
  rc_build_switch(&b, x, join, cases, mids, N);
  rc_instr *phi = rc_phi_new(join, RC_I32, "p");
  rc_phi_add_incoming(phi, x, entry);
  for (int i = 0; i < N; i++) rc_phi_add_incoming(phi, rc_const_int(k, RC_I32, i), mids[i]);
  rc_builder_at_end(&b, join);
  rc_build_ret(&b);
  CHECK_EQ_INT(rc_verify_kernel(&d.ctx, k), 0);
  /* the same switch with one duplicate case, found by the sort */
  rc_block_term(entry)->cases[N - 1] = cases[N / 2];
  CHECK(rc_verify_kernel(&d.ctx, k) != 0);
  CHECK_STR_CONTAINS(d.text, "duplicate case value");
  free(mids);
  free(cases);
  rc_module_free(m);
}

/* ---- rule: Types of instructions — LLVM's first-class values ------------------------------------ */

TEST(rule_types_vectors_and_aggregates) {
  expect_invalid("kernel @k(<4 x f32> %v) {\nentry:\n  %a = extractelement <4 x f32> %v, f32 1.0\n  ret\n}\n",
                 "3:3", "the index must be an integer");
  expect_invalid("kernel @k(<4 x f32> %v, i32 %x) {\nentry:\n  %a = insertelement <4 x f32> %v, i32 %x, i32 0\n  ret\n}\n",
                 "3:3", "element has type i32, expected f32");
  expect_invalid("kernel @k(<2 x i32> %v) {\nentry:\n  %a = shufflevector <2 x i32> %v, %v, [0, 4]\n  ret\n}\n",
                 "3:3", "mask entry 4 selects no element");
  expect_invalid("kernel @k({i32, f32} %s, i32 %x) {\nentry:\n  %a = insertvalue {i32, f32} %s, i32 %x, 1\n  ret\n}\n",
                 "3:3", "element has type i32, expected f32");
  expect_invalid("kernel @k(<2 x f32> %v) {\nentry:\n  %a = fadd <2 x f32> %v, %v\n  %b = icmp eq <2 x f32> %v, %v\n  ret\n}\n",
                 "4:3", "icmp compares integers, pointers or masks");
  expect_invalid("kernel @k(<2 x i32> %v, <3 x i1> %c) {\nentry:\n  %a = select <2 x i32> <3 x i1> %c, %v, %v\n  ret\n}\n",
                 "3:3", "condition has type <3 x i1>, expected i1");
  expect_invalid("kernel @k(<2 x i32> %v) {\nentry:\n  %a = zext <2 x i32> %v to i64\n  ret\n}\n",
                 "3:3", "cannot zext <2 x i32> to i64");
  expect_invalid("kernel @k(ptr addrspace(1) %p) {\nentry:\n  %a = addrspacecast ptr addrspace(1) %p to ptr addrspace(1)\n  ret\n}\n",
                 "3:3", "cannot addrspacecast");
}

TEST(rule_types_calls_of_functions_and_returns) {
  expect_invalid("function i32 @f(i32 %x) {\nentry:\n  ret i32 %x\n}\n"
                 "kernel @k() {\nentry:\n  %a = call i32 @f(i64 1)\n  ret\n}\n",
                 "7:3", "argument has type i64, expected i32");
  expect_invalid("function i32 @f(i32 %x) {\nentry:\n  ret i32 %x\n}\n"
                 "kernel @k() {\nentry:\n  %a = call i64 @f(i32 1)\n  ret\n}\n",
                 "7:3", "@f returns i32");
  expect_invalid("kernel @g() {\nentry:\n  ret\n}\n"
                 "kernel @k() {\nentry:\n  call void @g()\n  ret\n}\n",
                 "7:3", "@g is a kernel, not a function");
}

TEST(rule_memory_gep_keeps_the_address_space) {
  expect_invalid("kernel @k(ptr addrspace(3) %p, i32 %i) {\nentry:\n  %a = gep ptr addrspace(3) %p, i32 %i, 4, f32 1.0, 8\n  ret\n}\n",
                 "3:3", "gep index must be an integer");
}

/* An opaque instruction may carry values of types reconv does not interpret; nothing else may. */
TEST(rule_types_opaque_carries_any_type) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, "kernel @k() {\nentry:\n  %t = opaque opaque \"token\" \"call token @llvm.x()\" ()\n"
                                "  opaque void \"call void @llvm.y(token %t)\" (opaque \"token\" %t)\n  ret\n}\n");
  CHECK(m != NULL);
  CHECK_EQ_INT(d.len, 0);
  rc_module_free(m);
  expect_invalid("kernel @k() {\nentry:\n  %t = opaque opaque \"token\" \"call token @llvm.x()\" ()\n"
                 "  %u = freeze opaque \"token\" %t\n  ret\n}\n",
                 "4:3", "result has an invalid type");
}
