/* Unit tests of the kernel generator (include/reconv/gen.h) and of the shape checks in gencheck.h
 * that the property test relies on. */
#include "gencheck.h"
#include "reconv/gen.h"
#include "reconv/sim.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>

static rc_kernel *gen(test_diags *d, rc_module **m, const rc_gen_opts *o, rc_gen_info *info) {
  test_diags_init(d);
  *m = rc_module_new(&d->ctx, "t");
  return rc_gen_kernel(*m, o, info);
}

static char *gen_text(const rc_gen_opts *o) {
  test_diags d;
  rc_module *m;
  rc_kernel *k = gen(&d, &m, o, NULL);
  char *t = k ? test_print(m) : NULL;
  rc_module_free(m);
  return t;
}

TEST(gen_defaults_verify_and_report_their_shape) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  test_diags d;
  rc_module *m;
  rc_gen_info info;
  rc_kernel *k = gen(&d, &m, &o, &info);
  CHECK(k != NULL);
  CHECK_EQ_INT(rc_verify_kernel(&d.ctx, k), 0);
  CHECK_EQ_INT(k->nblocks, 16);
  CHECK_EQ_INT(info.blocks, 16);
  CHECK_EQ_INT(info.loops, 2);
  CHECK_EQ_INT(info.exits, 1);
  CHECK_EQ_INT(gc_count_ops(k, RC_OP_RET), 1);
  CHECK(strcmp(k->name, "gen") == 0);
  CHECK_EQ_INT(k->nparams, 7);
  CHECK(strcmp(k->blocks[0]->name, "entry") == 0);
  CHECK(rc_kernel_find_block(k, "exit0") != NULL);
  CHECK_STR_CONTAINS(k->run_spec, "--global 64 --arg out=i32[N] --arg budget=48 --arg trips=2");
  CHECK_STR_CONTAINS(k->run_spec, "--steps ");
  CHECK(gc_every_block_stores(k));
  gc_cfg_facts f = gc_cfg_check(k);
  CHECK(f.reducible);
  CHECK_EQ_INT(f.back_edges, 2);
  CHECK(info.max_blocks_per_thread >= info.budget);
  CHECK(info.max_instrs_per_block >= 6);
  rc_module_free(m);
}

TEST(gen_is_deterministic_and_depends_on_the_seed) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.blocks = 40;
  o.switches = true;
  char *a = gen_text(&o), *b = gen_text(&o);
  o.seed = 2;
  char *c = gen_text(&o);
  CHECK(a && b && c);
  CHECK(strcmp(a, b) == 0);
  CHECK(strcmp(a, c) != 0);
  free(a);
  free(b);
  free(c);
}

/* The longest forward jump (in block order, which is the generator's spine order) of a kernel
 * with one exit and no loops, whose edges are then fall-throughs and random extra targets only. */
static uint32_t longest_forward_jump(double far) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.blocks = 2000;
  o.loops = 0;
  o.far = far;
  test_diags d;
  rc_module *m;
  rc_kernel *k = gen(&d, &m, &o, NULL);
  CHECK(k != NULL);
  uint32_t longest = 0;
  for (uint32_t b = 0; k && b < k->nblocks; b++)
    for (uint32_t i = 0; i < rc_block_nsuccs(k->blocks[b]); i++) {
      uint32_t t = rc_block_succ(k->blocks[b], i)->id;
      if (t > b && t - b > longest) longest = t - b;
    }
  rc_module_free(m);
  return longest;
}

TEST(gen_far_controls_how_far_extra_targets_jump) {
  /* far = 0: every extra target lies within 8 blocks after the fall-through (p + 2 .. p + 9) */
  CHECK(longest_forward_jump(0.0) <= 9);
  /* the default and far = 1 jump across much of the kernel */
  CHECK(longest_forward_jump(0.15) > 500);
  CHECK(longest_forward_jump(1.0) > 1000);
}

static void expect_error(const rc_gen_opts *o, const char *message) {
  test_diags d;
  rc_module *m;
  CHECK(gen(&d, &m, o, NULL) == NULL);
  CHECK_STR_CONTAINS(d.text, message);
  CHECK_EQ_INT(m->nkernels, 0);
  rc_module_free(m);
}

TEST(gen_step_budget_saturates_at_what_run_accepts) {
  /* 58 nested uniform loops: the bound on instructions per thread is astronomically large */
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.blocks = 120;
  o.loops = 58;
  o.nesting = 58;
  o.divergent = 0;
  test_diags d;
  rc_module *m;
  rc_kernel *k = gen(&d, &m, &o, NULL);
  CHECK(k != NULL);
  if (k) {
    CHECK_STR_CONTAINS(k->run_spec, "--steps 9223372036854775807");
    rc_run_spec s;
    rc_run_spec_init(&s);
    CHECK_EQ_INT(rc_run_spec_parse_kernel(&d.ctx, &s, k), 0);
    rc_run_spec_free(&s);
  }
  rc_module_free(m);
}

TEST(gen_rejects_inconsistent_options) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.blocks = 0;
  expect_error(&o, "at least 1 block");
  rc_gen_opts_init(&o);
  o.exits = 0;
  expect_error(&o, "at least 1 exit");
  rc_gen_opts_init(&o);
  o.blocks = 8;
  o.exits = 5;
  expect_error(&o, "5 exits need at least 9 blocks");
  rc_gen_opts_init(&o);
  o.blocks = 6;
  o.loops = 5;
  o.nesting = 3;
  expect_error(&o, "5 loops nested up to 3 deep need at least 7 blocks besides the entry and the "
                   "exits; --blocks 6 leaves 4");
  rc_gen_opts_init(&o);
  o.nesting = 0;
  expect_error(&o, "nesting depth of at least 1");
  rc_gen_opts_init(&o);
  o.divergent = 1.5;
  expect_error(&o, "between 0 and 1");
  o.divergent = NAN;
  expect_error(&o, "between 0 and 1");
  rc_gen_opts_init(&o);
  o.far = -0.5;
  expect_error(&o, "far branch targets must be between 0 and 1");
  rc_gen_opts_init(&o);
  o.loops = 0;
  o.irreducible = true;
  expect_error(&o, "irreducible kernel needs at least one loop");
  rc_gen_opts_init(&o);
  o.blocks = 3;
  o.loops = 1;
  o.irreducible = true;
  expect_error(&o, "1 loop nested up to 3 deep (one irreducible) needs at least 2 blocks");
  rc_gen_opts_init(&o);
  o.threads = 0;
  expect_error(&o, "at least 1 thread");
  o.threads = 16777217; /* more than a launch may have: the kernel could never run */
  expect_error(&o, "16777217 threads: a launch has at most 16777216");
  rc_gen_opts_init(&o);
  o.name = "9lives";
  expect_error(&o, "'9lives' is not a valid kernel name");
  /* a name already taken in the module */
  rc_gen_opts_init(&o);
  test_diags d;
  rc_module *m;
  CHECK(gen(&d, &m, &o, NULL) != NULL);
  CHECK(rc_gen_kernel(m, &o, NULL) == NULL);
  CHECK_STR_CONTAINS(d.text, "already has a kernel @gen");
  o.name = "second";
  CHECK(rc_gen_kernel(m, &o, NULL) != NULL);
  CHECK_EQ_INT(m->nkernels, 2);
  CHECK_EQ_INT(rc_verify_module(&d.ctx, m), 0);
  rc_module_free(m);
}

TEST(gen_smallest_kernels) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.blocks = 1;
  o.loops = 0;
  test_diags d;
  rc_module *m;
  rc_kernel *k = gen(&d, &m, &o, NULL);
  CHECK(k != NULL);
  CHECK_EQ_INT(k->nblocks, 1);
  CHECK_EQ_INT(rc_verify_kernel(&d.ctx, k), 0);
  CHECK(k->blocks[0]->last->op == RC_OP_RET);
  rc_module_free(m);
  o.blocks = 2;
  k = gen(&d, &m, &o, NULL);
  CHECK(k && k->nblocks == 2 && rc_verify_kernel(&d.ctx, k) == 0);
  rc_module_free(m);
  /* one self loop needs exactly 3 blocks: entry, the loop, exit0 */
  o.blocks = 3;
  o.loops = 1;
  k = gen(&d, &m, &o, NULL);
  CHECK(k && rc_verify_kernel(&d.ctx, k) == 0);
  if (k) {
    const rc_instr *t = rc_block_term(k->blocks[1]);
    CHECK(t && t->op == RC_OP_BR && t->targets[0] == k->blocks[1]);
  }
  rc_module_free(m);
}

TEST(gen_exits_are_ret_blocks) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.blocks = 9;
  o.exits = 5;
  o.loops = 0;
  test_diags d;
  rc_module *m;
  rc_kernel *k = gen(&d, &m, &o, NULL);
  CHECK(k != NULL);
  CHECK_EQ_INT(rc_verify_kernel(&d.ctx, k), 0);
  CHECK_EQ_INT(gc_count_ops(k, RC_OP_RET), 5);
  for (int j = 0; j < 5; j++) {
    char name[16];
    snprintf(name, sizeof name, "exit%d", j);
    rc_block *b = rc_kernel_find_block(k, name);
    CHECK(b && b->last->op == RC_OP_RET && b->npreds >= 1);
  }
  CHECK(gc_cfg_check(k).all_reachable);
  rc_module_free(m);
}

/* Count br/switch conditions that depend on the thread id, and those that do not. */
static void count_dependence(const rc_kernel *k, uint32_t *dep_count, uint32_t *indep_count) {
  uint8_t *dep = gc_tid_dependence(k);
  *dep_count = *indep_count = 0;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    const rc_instr *t = rc_block_term(k->blocks[b]);
    if (!t || (t->op != RC_OP_BR && t->op != RC_OP_SWITCH)) continue;
    if (dep[t->ops[0]->id]) ++*dep_count;
    else ++*indep_count;
  }
  free(dep);
}

TEST(gen_divergent_share_decides_what_conditions_read) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.blocks = 200;
  o.loops = 20;
  o.switches = true;
  test_diags d;
  rc_module *m;
  uint32_t dep, indep;
  rc_gen_info info;
  o.divergent = 0.0;
  rc_kernel *k = gen(&d, &m, &o, &info);
  count_dependence(k, &dep, &indep);
  CHECK_EQ_INT(dep, 0);
  CHECK(indep > 50);
  CHECK_EQ_INT(info.divergent_branches, 0);
  CHECK_EQ_INT(info.uniform_loops, 20);
  CHECK_EQ_INT(gc_check_uniform_loops(k), 0); /* no annotations: the check finds nothing ... */
  rc_module_free(m);
  o.annotate = true;
  k = gen(&d, &m, &o, &info);
  CHECK_EQ_INT(gc_check_uniform_loops(k), 20); /* ... with them it checks all 20 */
  rc_module_free(m);
  o.divergent = 1.0;
  k = gen(&d, &m, &o, &info);
  count_dependence(k, &dep, &indep);
  CHECK_EQ_INT(indep, 0);
  CHECK(dep > 50);
  CHECK_EQ_INT(info.uniform_loops, 0);
  CHECK_EQ_INT(info.divergent_branches, dep);
  rc_module_free(m);
}

TEST(gen_annotations_only_when_asked) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.blocks = 60;
  for (int annotate = 0; annotate < 2; annotate++) {
    o.annotate = annotate;
    test_diags d;
    rc_module *m;
    rc_kernel *k = gen(&d, &m, &o, NULL);
    uint32_t flagged = 0, branches = 0;
    for (uint32_t b = 0; b < k->nblocks; b++) {
      const rc_instr *t = rc_block_term(k->blocks[b]);
      if (t->op != RC_OP_BR && t->op != RC_OP_SWITCH) continue;
      branches++;
      flagged += (t->iflags & (RC_IF_UNIFORM | RC_IF_DIVERGENT)) != 0;
    }
    CHECK(branches > 0);
    CHECK_EQ_INT(flagged, annotate ? branches : 0);
    rc_module_free(m);
  }
}

TEST(gen_switches_only_when_asked) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.blocks = 300;
  test_diags d;
  rc_module *m;
  rc_gen_info info;
  rc_kernel *k = gen(&d, &m, &o, &info);
  CHECK_EQ_INT(gc_count_ops(k, RC_OP_SWITCH), 0);
  rc_module_free(m);
  o.switches = true;
  k = gen(&d, &m, &o, &info);
  CHECK(gc_count_ops(k, RC_OP_SWITCH) > 10);
  CHECK_EQ_INT(gc_count_ops(k, RC_OP_SWITCH), info.switches);
  CHECK_EQ_INT(rc_verify_kernel(&d.ctx, k), 0);
  rc_module_free(m);
}

TEST(gen_nesting_and_irreducibility) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.blocks = 40;
  o.loops = 10;
  o.nesting = 10;
  test_diags d;
  rc_module *m;
  rc_gen_info info;
  rc_kernel *k = gen(&d, &m, &o, &info);
  gc_cfg_facts f = gc_cfg_check(k);
  CHECK(f.reducible);
  CHECK_EQ_INT(f.back_edges, 10);
  CHECK_EQ_INT(f.max_depth, 10);
  CHECK_EQ_INT(info.max_depth, 10);
  rc_module_free(m);
  /* the smallest irreducible kernel: entry, a two-block loop entered at both blocks, exit0 */
  o.blocks = 4;
  o.loops = 1;
  o.irreducible = true;
  k = gen(&d, &m, &o, &info);
  CHECK(k != NULL);
  CHECK_EQ_INT(rc_verify_kernel(&d.ctx, k), 0);
  CHECK(!gc_cfg_check(k).reducible);
  CHECK_EQ_INT(info.irreducible_loops, 1);
  CHECK_EQ_INT(k->blocks[0]->last->ntargets, 2); /* the entry enters the loop at both blocks */
  rc_module_free(m);
}

/* Large kernels (bench/gen.c times 10^6 blocks; 10^5 keeps this test quick under sanitizers). */
TEST(gen_generates_large_kernels) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.blocks = 100000;
  o.loops = o.blocks / 8;
  o.exits = 16;
  o.irreducible = true;
  o.switches = true;
  test_diags d;
  rc_module *m;
  rc_gen_info info;
  rc_kernel *k = gen(&d, &m, &o, &info);
  CHECK(k != NULL);
  CHECK_EQ_INT(k->nblocks, 100000);
  CHECK_EQ_INT(gc_count_ops(k, RC_OP_RET), 16);
  CHECK_EQ_INT(rc_verify_kernel(&d.ctx, k), 0);
  rc_module_free(m);
}

/* The checks the property test relies on must be able to fail. */
TEST(gencheck_detects_irreducible_and_leaky_uniform_loops) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, "kernel @k(i32 %n) {\n"
                                "e:\n  %c = icmp slt i32 %n, 1\n  br %c, a, b\n"
                                "a:\n  br %c, b, x\n"
                                "b:\n  br %c, a, x\n"
                                "x:\n  ret\n}\n");
  CHECK(m != NULL);
  gc_cfg_facts f = gc_cfg_check(m->kernels[0]);
  CHECK(!f.reducible);
  CHECK(!gc_every_block_stores(m->kernels[0]));
  rc_module_free(m);
  /* a "uniform" loop h..t with a second exit from its body */
  m = test_parse(&d, "kernel @k(i32 %n, i32 %t) {\n"
                     "e:\n  jmp h\n"
                     "h:\n  %i = phi i32 [0, e], [%i1, t]\n  %c = icmp slt i32 %n, 1\n"
                     "  br %c, t, x !uniform\n"
                     "t:\n  %i1 = add i32 %i, 1\n  %l = icmp slt i32 %i1, %t\n  br %l, h, x !uniform\n"
                     "x:\n  ret\n}\n");
  CHECK(m != NULL);
  CHECK(gc_cfg_check(m->kernels[0]).reducible);
  CHECK_EQ_INT(gc_check_uniform_loops(m->kernels[0]), -1);
  rc_module_free(m);
  /* the same loop without the leak passes, and a tid-dependent condition is seen */
  m = test_parse(&d, "kernel @k(i32 %t) {\n"
                     "e:\n  %g = call i32 @global_id(i32 0)\n  %q = and i32 %g, 1\n"
                     "  %c = icmp eq i32 %q, 0\n  jmp h\n"
                     "h:\n  %i = phi i32 [0, e], [%i1, t]\n  br %c, t, t2 !divergent\n"
                     "t2:\n  jmp t\n"
                     "t:\n  %i1 = add i32 %i, 1\n  %l = icmp slt i32 %i1, %t\n  br %l, h, x !uniform\n"
                     "x:\n  ret\n}\n");
  CHECK(m != NULL);
  CHECK_EQ_INT(gc_check_uniform_loops(m->kernels[0]), 1);
  uint32_t dep, indep;
  count_dependence(m->kernels[0], &dep, &indep);
  CHECK_EQ_INT(dep, 1);
  CHECK_EQ_INT(indep, 1);
  rc_module_free(m);
}
