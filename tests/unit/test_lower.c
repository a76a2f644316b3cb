/* The lower pass (src/transform/lower.c): the sets of LowerReconvCFG on the thesis's figures, where
 * the re-join mask moves, ORs and zeroings land, the virtual split, the flow-block variant, the
 * empty-exec skip, the scalar/vector decision, refusal of non-reconverging input, the wave-level
 * divergence refinement, and that lowered code runs like the original. */
#include "test.h"

#include "reconv/analysis.h"
#include "reconv/gen.h"
#include "reconv/sim.h"
#include "reconv/transform.h"

#include <stdlib.h>

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = 0;
  fclose(f);
  return s;
}

static rc_module *load(test_diags *d, const char *path) {
  char *text = read_text(path);
  if (!text) {
    fprintf(stderr, "cannot read %s\n", path);
    return NULL;
  }
  rc_module *m = rc_parse_module(&d->ctx, path, text, strlen(text));
  free(text);
  return m;
}

static int64_t stat_of(const rc_stats *st, const char *name) {
  const rc_stat *s = rc_stats_get(st, name);
  return s ? s->ival : -1;
}

/* Lower the first kernel of a file with a pipeline; stats in *st. */
static rc_kernel *lowered(test_diags *d, rc_module **m, const char *path, const char *pipeline, rc_stats *st) {
  *m = load(d, path);
  if (!*m) return NULL;
  rc_kernel *k = (*m)->kernels[0];
  rc_stats_init(st);
  if (rc_pipeline_run(&d->ctx, k, pipeline, NULL, st) != 0) return NULL;
  return k;
}

/* The i-th instruction of block `name` with opcode op (counting from 0), or NULL. */
static rc_instr *find_op(const rc_kernel *k, const char *block, rc_opcode op, int nth) {
  rc_block *b = rc_kernel_find_block(k, block);
  for (rc_instr *i = b ? b->first : NULL; i; i = i->next)
    if (i->op == op && nth-- == 0) return i;
  return NULL;
}

/* Does block `name` zero register `reg` (rset $reg, 0)? */
static bool zeroes(const rc_kernel *k, const char *block, const char *reg) {
  for (int n = 0;; n++) {
    rc_instr *i = find_op(k, block, RC_OP_RSET, n);
    if (!i) return false;
    if (strcmp(i->u.reg->name, reg) == 0 && i->ops[0]->kind == RC_V_CONST && rc_const_ival(i->ops[0]) == 0)
      return true;
  }
}

/* Does block `name` set register `reg` to a ballot-derived mask (the MOVE of P0)? */
static bool moves(const rc_kernel *k, const char *block, const char *reg) {
  for (int n = 0;; n++) {
    rc_instr *i = find_op(k, block, RC_OP_RSET, n);
    if (!i) return false;
    if (strcmp(i->u.reg->name, reg) == 0 && i->ops[0]->kind == RC_V_INSTR &&
        (((rc_instr *)i->ops[0])->op == RC_OP_BALLOT || ((rc_instr *)i->ops[0])->op == RC_OP_ANDN))
      return true;
  }
}

/* Does block `name` OR into register `reg`? */
static bool ors(const rc_kernel *k, const char *block, const char *reg) {
  for (int n = 0;; n++) {
    rc_instr *i = find_op(k, block, RC_OP_RSET, n);
    if (!i) return false;
    if (strcmp(i->u.reg->name, reg) == 0 && i->ops[0]->kind == RC_V_INSTR && ((rc_instr *)i->ops[0])->op == RC_OP_OR)
      return true;
  }
}

/* The block starts with the restore exec |= m (rget, exec, or, setexec). */
static bool restores(const rc_kernel *k, const char *block, const char *reg) {
  rc_block *b = rc_kernel_find_block(k, block);
  rc_instr *i = b ? b->first : NULL;
  if (!i || i->op != RC_OP_RGET || strcmp(i->u.reg->name, reg) != 0) return false;
  i = i->next;
  if (!i || i->op != RC_OP_EXEC) return false;
  i = i->next;
  if (!i || i->op != RC_OP_OR) return false;
  i = i->next;
  return i && i->op == RC_OP_SETEXEC;
}

/* Run the original on the interpreter and the lowered kernel on the wave simulator at wave size W:
 * same traces and memory. */
static bool runs_alike(test_diags *d, const rc_kernel *orig, const rc_kernel *wave, uint32_t W) {
  rc_run_spec s;
  rc_run_spec_init(&s);
  bool ok = rc_run_spec_parse_kernel(&d->ctx, &s, orig) == 0;
  s.wave = W;
  rc_memory ma = {0}, mb = {0};
  rc_traces ta = {0}, tb = {0};
  rc_fault fa = {0}, fb = {0};
  char why[600] = "";
  ok = ok && rc_memory_init(&d->ctx, &ma, &s, orig) == 0 && rc_memory_init(&d->ctx, &mb, &s, wave) == 0 &&
       rc_interp_run(&d->ctx, orig, &s, &ma, &ta, NULL, &fa) == 0 &&
       rc_wave_run(&d->ctx, wave, &s, &mb, &tb, NULL, &fb, NULL) == 0 &&
       rc_traces_equivalent(orig, &ta, wave, &tb, why, sizeof why) && rc_memory_equal(&ma, &mb, why, sizeof why);
  if (!ok) fprintf(stderr, "not alike at W=%u: %s %s %s\n", W, why, fa.message, fb.message);
  rc_memory_free(&ma);
  rc_memory_free(&mb);
  rc_traces_free(&ta);
  rc_traces_free(&tb);
  rc_run_spec_free(&s);
  return ok;
}

/* The original kernel of a file, for comparisons. */
static rc_kernel *original(test_diags *d, rc_module **m, const char *path) {
  *m = load(d, path);
  return *m ? (*m)->kernels[0] : NULL;
}

static void check_alike(test_diags *d, const char *path, const char *pipeline) {
  rc_module *mo, *ml;
  rc_stats st;
  rc_kernel *o = original(d, &mo, path);
  rc_kernel *l = lowered(d, &ml, path, pipeline, &st);
  CHECK(o && l);
  if (o && l)
    for (uint32_t W = 1; W <= 64; W *= 4) CHECK(runs_alike(d, o, l, W));
  rc_stats_free(&st);
  if (mo) rc_module_free(mo);
  if (ml) rc_module_free(ml);
}

TEST(fig4_1b_move_in_A_or_in_B) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m;
  rc_stats st;
  rc_kernel *k = lowered(&d, &m, "examples/thesis/fig4_1b.rir", "lower", &st);
  CHECK(k && k->level == RC_LEVEL_WAVE);
  if (!k) return;
  CHECK_EQ_INT(stat_of(&st, "primary_successors"), 1);
  CHECK_EQ_INT(stat_of(&st, "rejoin_moves"), 1);
  CHECK_EQ_INT(stat_of(&st, "rejoin_ors"), 1);
  CHECK_EQ_INT(stat_of(&st, "zero_inits"), 0);
  CHECK(moves(k, "A", "m.D"));   /* P0 = {A}: Listing 4.2, line 2 */
  CHECK(ors(k, "B", "m.D"));     /* P \ P0 = {B}: Listing 4.2, line 8 */
  CHECK(restores(k, "D", "m.D"));
  CHECK(find_op(k, "A", RC_OP_BREXECZ, 0) && find_op(k, "B", RC_OP_BREXECZ, 0)); /* s_cbranch_execz */
  CHECK(rc_verify_kernel(&d.ctx, k) == 0);
  rc_stats_free(&st);
  rc_module_free(m);
  check_alike(&d, "examples/thesis/fig4_1b.rir", "lower");
}

TEST(fig4_2a_zeroing_on_the_uniform_side_entry) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m;
  rc_stats st;
  rc_kernel *k = lowered(&d, &m, "examples/thesis/fig4_2a.rir", "lower", &st);
  CHECK(k != NULL);
  if (!k) return;
  /* Fig. 4.2b: P = {B}, P0 = {B}, Q = {A} */
  CHECK_EQ_INT(stat_of(&st, "rejoin_moves"), 1);
  CHECK_EQ_INT(stat_of(&st, "rejoin_ors"), 0);
  CHECK_EQ_INT(stat_of(&st, "zero_inits"), 1);
  CHECK(zeroes(k, "A", "m.D"));
  CHECK(moves(k, "B", "m.D"));
  CHECK(!zeroes(k, "C", "m.D"));
  /* A's uniform branch stays a scalar branch */
  rc_instr *t = rc_block_term(rc_kernel_find_block(k, "A"));
  CHECK(t && t->op == RC_OP_BR && (t->iflags & RC_IF_UNIFORM));
  rc_stats_free(&st);
  rc_module_free(m);
  check_alike(&d, "examples/thesis/fig4_2a.rir", "lower");
}

TEST(fig4_3a_redundant_zeroing_and_the_flow_block_variant) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m;
  rc_stats st;
  rc_kernel *k = lowered(&d, &m, "examples/thesis/fig4_3a.rir", "lower[noflow]", &st);
  CHECK(k != NULL);
  if (!k) return;
  /* Fig. 4.3c (without the flow blocks that are the default): P = {C}, P0 = {C}, Q = {A, B}; B's
   * zeroing is the redundant one, and the lean lowering leaves it out: A dominates B and the wave
   * cannot come back to B but through A */
  CHECK_EQ_INT(stat_of(&st, "zero_inits"), 1);
  CHECK(zeroes(k, "A", "m.X") && !zeroes(k, "B", "m.X"));
  CHECK(moves(k, "C", "m.X"));
  CHECK(restores(k, "X", "m.X"));
  rc_stats_free(&st);
  rc_module_free(m);
  /* Fig. 4.3b, the default lowering: a flow block with predecessors C and D; no zeroing left */
  k = lowered(&d, &m, "examples/thesis/fig4_3a.rir", "lower", &st);
  CHECK(k != NULL);
  if (!k) return;
  CHECK_EQ_INT(stat_of(&st, "zero_inits"), 0);
  CHECK_EQ_INT(stat_of(&st, "rejoin_flow_blocks"), 1);
  rc_block *f = rc_kernel_find_block(k, "X.flow");
  CHECK(f && (f->bflags & RC_BLOCK_FLOW));
  if (f) {
    CHECK_EQ_INT(f->npreds, 2);
    CHECK(rc_block_has_pred(f, rc_kernel_find_block(k, "C")) && rc_block_has_pred(f, rc_kernel_find_block(k, "D")));
    CHECK(restores(k, "X.flow", "m.X"));
  }
  CHECK(!restores(k, "X", "m.X"));
  CHECK(!zeroes(k, "A", "m.X") && !zeroes(k, "B", "m.X"));
  rc_stats_free(&st);
  rc_module_free(m);
  check_alike(&d, "examples/thesis/fig4_3a.rir", "lower[noflow]");
  check_alike(&d, "examples/thesis/fig4_3a.rir", "lower");
}

TEST(fig4_4a_virtual_split_zeroes_after_the_restore) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m;
  rc_stats st;
  rc_kernel *k = lowered(&d, &m, "examples/thesis/fig4_4a.rir", "lower[noflow]", &st);
  CHECK(k != NULL);
  if (!k) return;
  /* Fig. 4.4c (without the flow blocks that are the default): P = {A, B}, P0 = {A}, Q = {D_tail} */
  CHECK_EQ_INT(stat_of(&st, "virtual_splits"), 1);
  CHECK(moves(k, "A", "m.D"));
  CHECK(ors(k, "B", "m.D"));
  CHECK(restores(k, "D", "m.D"));
  /* D_tail's zeroing comes right after D_head's restore */
  rc_instr *set = find_op(k, "D", RC_OP_SETEXEC, 0);
  CHECK(set && set->next && set->next->op == RC_OP_RSET && strcmp(set->next->u.reg->name, "m.D") == 0 &&
        set->next->ops[0]->kind == RC_V_CONST);
  /* the loop's exit E: D accumulates (it is its own predecessor); Q = {A, B, C}, whose nearest
   * common dominator A zeroes m.E for all three (the wave never gets from E back to B or C) */
  CHECK(ors(k, "D", "m.E"));
  CHECK(zeroes(k, "A", "m.E") && !zeroes(k, "B", "m.E") && !zeroes(k, "C", "m.E"));
  rc_stats_free(&st);
  rc_module_free(m);
  /* by default a flow block comes before D: D's self loop no longer enters the re-join, no split */
  k = lowered(&d, &m, "examples/thesis/fig4_4a.rir", "lower", &st);
  CHECK(k && stat_of(&st, "virtual_splits") == 0 && stat_of(&st, "rejoin_flow_blocks") == 1);
  rc_stats_free(&st);
  rc_module_free(m);
  check_alike(&d, "examples/thesis/fig4_4a.rir", "lower[noflow]");
  check_alike(&d, "examples/thesis/fig4_4a.rir", "lower");
}

TEST(secondary_of_one_branch_primary_of_another) {
  const char *path = "tests/golden/lower/secondary_primary.rir";
  test_diags d;
  test_diags_init(&d);
  rc_module *m, *mo;
  rc_stats st;
  rc_kernel *k = lowered(&d, &m, path, "lower[noflow]", &st);
  rc_kernel *o = original(&d, &mo, path);
  CHECK(k && o);
  if (!k || !o) return;
  CHECK(zeroes(k, "p1", "m.Y")); /* p1 is in Q for Y */
  CHECK(restores(k, "Y", "m.Y"));
  for (uint32_t W = 1; W <= 64; W *= 4) CHECK(runs_alike(&d, o, k, W));
  /* without that zeroing, the lanes Y restored in the previous iteration run Y again */
  for (rc_instr *i = rc_kernel_find_block(k, "p1")->first; i; i = i->next)
    if (i->op == RC_OP_RSET && strcmp(i->u.reg->name, "m.Y") == 0) {
      rc_instr_detach(i);
      break;
    }
  test_diags quiet;
  test_diags_init(&quiet);
  CHECK(!zeroes(k, "p1", "m.Y"));
  CHECK(!runs_alike(&quiet, o, k, 32));
  rc_stats_free(&st);
  rc_module_free(m);
  rc_module_free(mo);
}

TEST(refuses_a_kernel_that_is_not_reconverging) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = load(&d, "examples/anantpur/fig1.rir");
  CHECK(m != NULL);
  if (!m) return;
  CHECK(rc_pipeline_run(&d.ctx, m->kernels[0], "lower", NULL, NULL) != 0);
  CHECK_STR_CONTAINS(d.text, "not reconverging");
  CHECK_STR_CONTAINS(d.text, "block B1"); /* B1 -> B3 | B2: neither post-dominates B1 */
  CHECK_STR_CONTAINS(d.text, "run reconverge first");
  CHECK(m->kernels[0]->level == RC_LEVEL_THREAD);
  rc_module_free(m);
  /* unknown options are errors too */
  test_diags_init(&d);
  m = load(&d, "examples/thesis/fig4_1b.rir");
  CHECK(rc_pipeline_run(&d.ctx, m->kernels[0], "lower[fast]", NULL, NULL) != 0);
  CHECK_STR_CONTAINS(d.text, "unknown option 'fast'");
  rc_module_free(m);
}

TEST(scalar_and_vector_instructions) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d,
                            "kernel @k(ptr %out, ptr %in, i32 %n) !run \"--global 64 --arg out=i32[N] "
                            "--arg in=i32[N]:seq --arg n=5\" {\n"
                            "entry:\n"
                            "  %tid = call i32 @global_id(i32 0)\n"
                            "  %a = mul i32 %n, 3\n"
                            "  %b = sdiv i32 %a, 4\n"
                            "  %c = sdiv i32 %a, %n\n"
                            "  %p = gep %in, i32 %b, 4\n"
                            "  %v = load i32, %p\n"
                            "  %w = add i32 %v, 1\n"
                            "  %e = add i32 %tid, %a\n"
                            "  %g = call i32 @group_id(i32 0)\n"
                            "  %q = gep %out, i32 %tid, 4\n"
                            "  %s = add i32 %e, %c\n"
                            "  %s2 = add i32 %s, %w\n"
                            "  %s3 = add i32 %s2, %g\n"
                            "  store i32 %s3, %q\n"
                            "  ret\n"
                            "}\n");
  CHECK(m != NULL);
  if (!m) return;
  rc_kernel *orig = rc_kernel_clone(m, m->kernels[0], "orig");
  rc_kernel *k = m->kernels[0];
  CHECK(rc_pipeline_run(&d.ctx, k, "lower", NULL, NULL) == 0);
  const char *scalar[] = {"a", "b", "p", "g"}, *vector[] = {"tid", "c", "v", "w", "e", "q", "s3"};
  for (size_t i = 0; i < sizeof scalar / sizeof *scalar; i++) {
    rc_value *v = rc_kernel_find_value(k, scalar[i]);
    CHECK(v && (((rc_instr *)v)->iflags & RC_IF_SCALAR));
  }
  for (size_t i = 0; i < sizeof vector / sizeof *vector; i++) {
    rc_value *v = rc_kernel_find_value(k, vector[i]);
    CHECK(v && !(((rc_instr *)v)->iflags & RC_IF_SCALAR));
  }
  CHECK(runs_alike(&d, orig, k, 32));
  rc_module_free(m);
  /* noscalar: nothing runs once per wave */
  test_diags_init(&d);
  m = load(&d, "tests/golden/lower/secondary_primary.rir");
  CHECK(m && rc_pipeline_run(&d.ctx, m->kernels[0], "lower[noscalar]", NULL, NULL) == 0);
  bool any = false;
  for (uint32_t b = 0; m && b < m->kernels[0]->nblocks; b++)
    for (rc_instr *i = m->kernels[0]->blocks[b]->first; i; i = i->next) any |= (i->iflags & RC_IF_SCALAR) != 0;
  CHECK(!any);
  for (uint32_t r = 0; m && r < m->kernels[0]->nregs; r++)
    if (m->kernels[0]->regs[r]->type != RC_MASK) CHECK(!m->kernels[0]->regs[r]->scalar);
  if (m) rc_module_free(m);
}

TEST(noskip_keeps_the_skip_only_where_needed) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m;
  rc_stats st;
  /* acyclic secondary regions: no brexecz at all */
  rc_kernel *k = lowered(&d, &m, "examples/thesis/fig4_1b.rir", "lower[noskip]", &st);
  CHECK(k && stat_of(&st, "empty_exec_skips") == 0);
  CHECK(k && !find_op(k, "A", RC_OP_BREXECZ, 0) && find_op(k, "A", RC_OP_JMP, 0));
  rc_stats_free(&st);
  rc_module_free(m);
  /* D's secondary successor is D itself: with an empty exec the loop would never end */
  k = lowered(&d, &m, "examples/thesis/fig4_4a.rir", "lower[noskip]", &st);
  CHECK(k && stat_of(&st, "empty_exec_skips") == 1);
  CHECK(k && find_op(k, "D", RC_OP_BREXECZ, 0) && !find_op(k, "A", RC_OP_BREXECZ, 0));
  rc_stats_free(&st);
  rc_module_free(m);
  check_alike(&d, "examples/thesis/fig4_1b.rir", "lower[noskip]");
  check_alike(&d, "examples/thesis/fig4_4a.rir", "lower[noskip]");
  check_alike(&d, "examples/thesis/fig4_2a.rir", "lower[noskip,flow]");
}

TEST(lowered_code_round_trips_and_verifies) {
  const char *files[] = {"examples/thesis/fig4_1b.rir", "examples/thesis/fig4_4a.rir",
                         "tests/golden/lower/secondary_primary.rir", "examples/darm/fig1_bitonic.rir"};
  for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
    test_diags d;
    test_diags_init(&d);
    rc_module *m = load(&d, files[f]);
    CHECK(m != NULL);
    if (!m) continue;
    CHECK(rc_pipeline_run(&d.ctx, m->kernels[0], "reconverge,lower", NULL, NULL) == 0);
    char *a = test_print(m);
    rc_module *m2 = rc_parse_module(&d.ctx, "again.rir", a, strlen(a));
    CHECK(m2 != NULL);
    if (m2) {
      char *b = test_print(m2);
      CHECK(strcmp(a, b) == 0);
      free(b);
      rc_module_free(m2);
    }
    free(a);
    rc_module_free(m);
  }
}

/* A random kernel where, after reconverge, a flow block at the header of an inner loop merges lanes
 * that took the inner back edge with lanes that went around the outer loop: its dispatch branch is
 * uniform for the uniformity analysis (different iterations) but divergent at wave level. */
static rc_kernel *inner_outer_loops(rc_module *m) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.seed = 104;
  o.blocks = 28;
  o.loops = 3;
  o.divergent = 0.4;
  return rc_gen_kernel(m, &o, NULL);
}

TEST(divergence_at_wave_level_reruns_reconverge) {
  const char *path = "tests/golden/lower/iterations.rir";
  test_diags d;
  test_diags_init(&d);
  rc_module *m, *mo;
  rc_stats st;
  rc_kernel *o = original(&d, &mo, path);
  rc_kernel *k = lowered(&d, &m, path, "lower", &st);
  CHECK(o && k);
  if (!o || !k) return;
  CHECK_EQ_INT(stat_of(&st, "wave_divergent_branches"), 2); /* F and Y */
  CHECK_EQ_INT(stat_of(&st, "reconverge_reruns"), 1);
  for (uint32_t W = 1; W <= 16; W *= 4) CHECK(runs_alike(&d, o, k, W));
  rc_stats_free(&st);
  rc_module_free(m);
  /* norepair: the branch is named instead */
  test_diags_init(&d);
  m = load(&d, path);
  CHECK(m && rc_pipeline_run(&d.ctx, m->kernels[0], "lower[norepair]", NULL, NULL) != 0);
  CHECK_STR_CONTAINS(d.text, "at wave level");
  CHECK_STR_CONTAINS(d.text, "block F");
  if (m) rc_module_free(m);
  rc_module_free(mo);
}

TEST(wave_divergence_refinement_marks_the_merged_phi) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = rc_module_new(&d.ctx, "gen");
  rc_kernel *k = inner_outer_loops(m);
  CHECK(k && rc_pipeline_run(&d.ctx, k, "reconverge[order=dfpd]", NULL, NULL) == 0); /* DFPD makes FLOW1 */
  if (!k) return;
  rc_analysis a;
  rc_analysis_build(&a, k, 0);
  rc_block *f = rc_kernel_find_block(k, "FLOW1");
  CHECK(f && !a.unif.divergent_branch[f->id]); /* LLVM's model: uniform */
  rc_u32vec br = {0};
  uint32_t n = rc_wave_divergence(k, &a.cfg, &a.pdom, &a.unif, &br);
  CHECK(n >= 1 && f && a.unif.divergent_branch[f->id]);
  bool listed = false;
  for (uint32_t i = 0; f && i < br.len; i++) listed |= br.data[i] == f->id;
  CHECK(listed);
  CHECK(f && a.unif.divergent_value[f->first->v.id]); /* the dispatch phi */
  rc_vec_free(&br);
  rc_analysis_free(&a);
  rc_module_free(m);
}
