/* The cost model (docs/cost.md; src/sim/wave.c, copies.c, ipdom.c): what a GCN-like machine issues.
 * Each test runs a small kernel on one wave of 4 lanes and checks the counts, with a twin that
 * differs in the one thing the rule looks at, so that a rule that stopped working changes a count:
 * coalesced copies (rules 1-3), merged registers, free ballots and register reads, fused setexecs,
 * jumps that fall through,
 * the IPDOM model's edge copies and exec changes, and the static cost auto uses. */
#include "test.h"

#include "reconv/compare.h"
#include "reconv/cost.h"
#include "reconv/sim.h"

#include <math.h>
#include <stdlib.h>

typedef struct counts {
  uint64_t vector, mask, scalar, memory, barrier;
  double host; /* the run's cost by the host weights */
  int rc;
} counts;

/* Run the first kernel of text with its !run spec: on the IPDOM model when it is thread-level,
 * else on the wave simulator. */
static counts run_counts(const char *text) {
  test_diags d;
  test_diags_init(&d);
  counts c = {0, 0, 0, 0, 0, 0, -2};
  rc_module *m = test_parse(&d, text);
  if (!m) {
    fprintf(stderr, "%s", d.text);
    return c;
  }
  rc_kernel *k = m->kernels[0];
  rc_run_spec s;
  rc_run_spec_init(&s);
  rc_memory mem = {0};
  rc_run_stats st;
  memset(&st, 0, sizeof st);
  rc_fault f = {0};
  c.rc = rc_run_spec_parse_kernel(&d.ctx, &s, k);
  if (c.rc == 0) c.rc = rc_memory_init(&d.ctx, &mem, &s, k);
  if (c.rc == 0)
    c.rc = k->level == RC_LEVEL_WAVE ? rc_wave_run(&d.ctx, k, &s, &mem, NULL, &st, &f, NULL)
                                     : rc_ipdom_run(&d.ctx, k, &s, &mem, NULL, &st, &f, NULL);
  if (c.rc != 0) fprintf(stderr, "%s%s\n", d.text, f.message);
  c.vector = st.vector_instrs;
  c.mask = st.mask_instrs;
  c.scalar = st.scalar_instrs;
  c.memory = st.memory_instrs;
  c.barrier = st.barrier_instrs;
  c.host = rc_run_stats_cost(&st, &rc_cost_weights_host);
  rc_run_stats_free(&st);
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
  rc_module_free(m);
  return c;
}

#define WAVE_HEAD "wave kernel @w(ptr %out) !run \"--global 4 --wave 4 --arg out=i32[N]\" {\n"
/* two vector registers, and each lane's thread id and output address */
#define TWO_REGISTERS                                                                                \
  "  reg vector i32 $a\n  reg vector i32 $b\nentry:\n  %tid = call i32 @global_id(i32 0)\n"            \
  "  %o = gep %out, i32 %tid, 4\n"

TEST(a_value_that_dies_at_its_rset_is_computed_in_place) {
  /* $a <- %x: %x dies there (free); $b <- %y: $b is written another value while %y is still read,
   * so %y cannot live in $b (a move) */
  counts c = run_counts(WAVE_HEAD
                        "  reg vector i32 $a\n"
                        "  reg vector i32 $b\n"
                        "entry:\n"
                        "  %tid = call i32 @global_id(i32 0)\n"
                        "  %o = gep %out, i32 %tid, 4\n"
                        "  %x = add i32 %tid, 1\n"
                        "  rset $a, %x\n"
                        "  %y = add i32 %tid, 2\n"
                        "  rset $b, %y\n"
                        "  rset $b, %tid\n"
                        "  %z = add i32 %y, 1\n"
                        "  jmp next\n"
                        "next:\n"
                        "  %ra = rget $a\n"
                        "  %rb = rget $b\n"
                        "  %s = add i32 %ra, %rb\n"
                        "  %t = add i32 %s, %z\n"
                        "  store i32 %t, %o\n"
                        "  ret\n"
                        "}\n");
  CHECK_EQ_INT(c.rc, 0);
  /* global_id, gep, 4 adds, store, and the move of %y; the rgets cost nothing */
  CHECK_EQ_INT(c.vector, 9);
  CHECK_EQ_INT(c.scalar, 1); /* ret; `jmp next` falls through */
  CHECK_EQ_INT(c.mask, 0);
}

/* A register's old value read after the new one is defined (the lost-copy shape) keeps the copy. */
static const char *lost_copy(bool old_read_late) {
  static char text[1024];
  const char *store = "  store i32 %old, %o\n";
  snprintf(text, sizeof text,
           "%s"
           "  reg vector i32 $v\n"
           "entry:\n"
           "  %%tid = call i32 @global_id(i32 0)\n"
           "  %%o = gep %%out, i32 %%tid, 4\n"
           "  %%old = rget $v\n"
           "%s"
           "  %%new = add i32 %%old, 1\n"
           "  rset $v, %%new\n"
           "%s"
           "  ret\n"
           "}\n",
           WAVE_HEAD, old_read_late ? "" : store, old_read_late ? store : "");
  return text;
}

TEST(an_old_value_still_needed_keeps_the_copy) {
  counts early = run_counts(lost_copy(false)), late = run_counts(lost_copy(true));
  CHECK_EQ_INT(early.rc, 0);
  CHECK_EQ_INT(late.rc, 0);
  CHECK_EQ_INT(early.vector, 4); /* global_id, gep, store, add: the rset is coalesced */
  CHECK_EQ_INT(late.vector, 5);  /* and a move: %old must survive the write of $v */
}

/* rset $b, (rget $a): free when $a and $b can be one register; `clobber` writes $a while $b's
 * value is still to be stored, so they cannot. */
static const char *register_copy(bool clobber) {
  static char text[2048];
  snprintf(text, sizeof text,
           "%s"
           "  %%x = add i32 %%tid, 1\n"
           "  rset $a, %%x\n"
           "  jmp n\n"
           "n:\n"
           "  %%ra = rget $a\n"
           "  rset $b, %%ra\n"
           "  jmp m\n"
           "m:\n"
           "  %%rb = rget $b\n"
           "%s"
           "  store i32 %%rb, %%o\n"
           "  ret\n"
           "}\n",
           WAVE_HEAD TWO_REGISTERS, clobber ? "  %y = add i32 %tid, 2\n  rset $a, %y\n" : "");
  return text;
}

TEST(registers_that_do_not_interfere_are_merged) {
  counts merged = run_counts(register_copy(false));
  CHECK_EQ_INT(merged.rc, 0);
  CHECK_EQ_INT(merged.vector, 4); /* global_id, gep, add, store */
  counts apart = run_counts(register_copy(true));
  CHECK_EQ_INT(apart.rc, 0);
  CHECK_EQ_INT(apart.vector, 6); /* and the second add, and the copy $b <- $a */
}

/* `rset $b, %ra` with %ra read from $a earlier and still read after the write (the lowering copies
 * a value into the primary successor's register at a divergent branch while the lanes that go on
 * still read it): writing $b the value $a holds clobbers nothing, so the back copy $a <- $b merges
 * the two, and both copies are free. `other` writes $b another value there instead: then $b's write
 * clobbers %ra and the back copy stays a move. */
static const char *same_value_copy(bool other) {
  static char text[2048];
  snprintf(text, sizeof text,
           "%s"
           "  rset $a, %%tid\n"
           "  jmp n\n"
           "n:\n"
           "  %%ra = rget $a\n"
           "  jmp p\n"
           "p:\n"
           "%s"
           "  %%y = add i32 %%ra, 1\n"
           "  store i32 %%y, %%o\n"
           "  jmp m\n"
           "m:\n"
           "  %%rb = rget $b\n"
           "  rset $a, %%rb\n"
           "  %%z = rget $a\n"
           "  store i32 %%z, %%o\n"
           "  ret\n"
           "}\n",
           WAVE_HEAD TWO_REGISTERS, other ? "  %w = add i32 %ra, 2\n  rset $b, %w\n" : "  rset $b, %ra\n");
  return text;
}

TEST(writing_the_value_a_register_holds_does_not_interfere) {
  counts merged = run_counts(same_value_copy(false));
  CHECK_EQ_INT(merged.rc, 0);
  CHECK_EQ_INT(merged.vector, 5); /* global_id, gep, add, two stores: no copy */
  counts apart = run_counts(same_value_copy(true));
  CHECK_EQ_INT(apart.rc, 0);
  CHECK_EQ_INT(apart.vector, 7); /* and the add of %w, and the back copy $a <- $b */
}

/* A value defined before a loop and copied into an exit's register on every iteration (the
 * lowering's phi copies at a uniform branch are made for every target): the value can live in that
 * register, so the copy is no move. `other` also writes the register the thread id at the top of
 * the body, while the value is still to be copied: then each is a move, on every iteration. */
static const char *invariant_copy(bool other) {
  static char text[2048];
  snprintf(text, sizeof text,
           "%s"
           "  reg vector i32 $a\n"
           "  reg scalar i32 $i\n"
           "entry:\n"
           "  %%tid = call i32 @global_id(i32 0)\n"
           "  %%o = gep %%out, i32 %%tid, 4\n"
           "  %%v = add i32 %%tid, 7\n"
           "  rset $i, 0\n"
           "  jmp loop\n"
           "loop:\n"
           "%s"
           "  %%k = rget $i\n"
           "  %%k1 = add i32 %%k, 1 !scalar\n"
           "  %%c = icmp slt i32 %%k1, 4 !scalar\n"
           "  rset $a, %%v\n"
           "  rset $i, %%k1\n"
           "  br %%c, loop, exit\n"
           "exit:\n"
           "  %%ra = rget $a\n"
           "  store i32 %%ra, %%o\n"
           "  ret\n"
           "}\n",
           WAVE_HEAD, other ? "  rset $a, %tid\n" : "");
  return text;
}

TEST(a_loop_invariant_value_lives_in_the_register_it_is_copied_into) {
  counts lives = run_counts(invariant_copy(false));
  CHECK_EQ_INT(lives.rc, 0);
  CHECK_EQ_INT(lives.vector, 4); /* global_id, gep, add, store: the copy on each of 4 iterations is free */
  counts moves = run_counts(invariant_copy(true));
  CHECK_EQ_INT(moves.rc, 0);
  CHECK_EQ_INT(moves.vector, 12); /* and both copies on each iteration */
}

/* setexec of a mask operation nothing else reads is that operation writing exec. */
static const char *exec_write(bool fused) {
  static char text[1024];
  snprintf(text, sizeof text,
           "%s"
           "entry:\n"
           "  %%lane = call i32 @lane_id()\n"
           "  %%c = icmp ult i32 %%lane, 2\n"
           "  %%b = ballot %%c\n"
           "  %%e = exec\n"
           "  %%r = andn mask %%e, %%b\n"
           "  setexec %s\n"
           "  ret\n"
           "}\n",
           WAVE_HEAD, fused ? "%r" : "%b");
  return text;
}

TEST(ballot_and_exec_are_free_and_setexec_fuses) {
  counts fused = run_counts(exec_write(true)), apart = run_counts(exec_write(false));
  CHECK_EQ_INT(fused.rc, 0);
  CHECK_EQ_INT(apart.rc, 0);
  CHECK_EQ_INT(fused.vector, 2); /* lane_id, icmp */
  CHECK_EQ_INT(fused.mask, 1);   /* s_andn2_b64 exec, exec, vcc */
  CHECK_EQ_INT(apart.mask, 2);   /* andn, then the setexec of a ballot */
}

/* The IPDOM model: a diamond whose join has a phi. The copy of %b on E's edge is coalesced (%b is
 * E's own and dies there); the value T's edge brings is a move when it is not T's own. */
static const char *diamond(bool t_copy_is_a_move) {
  static char text[2048];
  snprintf(text, sizeof text,
           "kernel @d(ptr %%out) !run \"--global 4 --wave 4 --arg out=i32[N]\" {\n"
           "entry:\n"
           "  %%tid = call i32 @global_id(i32 0)\n"
           "  %%o = gep %%out, i32 %%tid, 4\n"
           "  %%c = icmp ult i32 %%tid, 2\n"
           "  br %%c, T, E\n"
           "T:\n"
           "  %%a = add i32 %%tid, 1\n"
           "  jmp J\n"
           "E:\n"
           "  %%b = add i32 %%tid, 2\n"
           "  jmp J\n"
           "J:\n"
           "  %%p = phi i32 [%s, T], [%%b, E]\n"
           "  store i32 %%p, %%o\n"
           "  ret\n"
           "}\n",
           t_copy_is_a_move ? "%tid" : "%a");
  return text;
}

TEST(ipdom_model_counts_edge_copies_and_exec_changes) {
  counts free_copies = run_counts(diamond(false)), one_move = run_counts(diamond(true));
  CHECK_EQ_INT(free_copies.rc, 0);
  CHECK_EQ_INT(one_move.rc, 0);
  /* 3 in entry, one add per side, the store */
  CHECK_EQ_INT(free_copies.vector, 6);
  CHECK_EQ_INT(one_move.vector, 7);
  /* the waiting side's mask at the branch, and exec written for T, for E and at J */
  CHECK_EQ_INT(free_copies.mask, 4);
  CHECK_EQ_INT(free_copies.scalar, 3); /* br, T's jmp, ret; E's jmp falls through to J */
}

TEST(static_cost_weights_loops_and_skips_free_instructions) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, "wave kernel @w(i32 %n) {\n"
                                "  reg scalar i32 $i\n"
                                "entry:\n"
                                "  rset $i, 0\n"
                                "  jmp L\n"
                                "L:\n"
                                "  %i = rget $i\n"
                                "  %j = add i32 %i, 1 !scalar\n"
                                "  %c = icmp slt i32 %j, %n !scalar\n"
                                "  rset $i, %j\n"
                                "  br %c, L, X\n"
                                "X:\n"
                                "  ret\n"
                                "}\n");
  CHECK(m != NULL);
  if (!m) return;
  /* entry: the move of 0 (its jmp falls through to L); L, in a cycle: add, icmp, br (8 each; the
   * rget and the coalesced rset are free); X: ret */
  CHECK_EQ_INT(rc_wave_static_cost(m->kernels[0]), 1 + 3 * 8 + 1);
  rc_module_free(m);
}

TEST(writing_a_register_its_own_value_is_no_instruction) {
  /* %x is read again after the rset, so without the rule the rset would be a move */
  counts c = run_counts(WAVE_HEAD "  reg vector i32 $v\n"
                                  "entry:\n"
                                  "  %tid = call i32 @global_id(i32 0)\n"
                                  "  %o = gep %out, i32 %tid, 4\n"
                                  "  %x = rget $v\n"
                                  "  rset $v, %x\n"
                                  "  store i32 %x, %o\n"
                                  "  ret\n"
                                  "}\n");
  CHECK_EQ_INT(c.rc, 0);
  CHECK_EQ_INT(c.vector, 3); /* global_id, gep, store */
}

TEST(a_local_arrays_uniform_address_stays_scalar) {
  /* the simulators split a multi-index gep into single-index ones and turn a __local global into
   * localmem (src/sim/run_form.c): a !scalar gep of it must stay scalar in its parts, as the IPDOM
   * model counts it */
  counts c = run_counts("global @lds : [4 x i32], addrspace(3)\n"
                        "wave kernel @w(ptr %out) !run \"--global 4 --local 4 --wave 4 --arg out=i32[N]\" {\n"
                        "entry:\n"
                        "  %tid = call i32 @global_id(i32 0)\n"
                        "  %p = gep ptr addrspace(3) @lds, i32 0, 16, i32 1, 4 !scalar\n"
                        "  store i32 %tid, ptr addrspace(3) %p\n"
                        "  ret\n"
                        "}\n");
  CHECK_EQ_INT(c.rc, 0);
  CHECK_EQ_INT(c.vector, 2); /* global_id, store */
  CHECK_EQ_INT(c.scalar, 4); /* localmem, the two geps, ret */
}

TEST(memory_and_barriers_are_counted_apart_for_the_host) {
  counts c = run_counts(WAVE_HEAD "entry:\n"
                                  "  %tid = call i32 @global_id(i32 0)\n"
                                  "  %o = gep %out, i32 %tid, 4\n"
                                  "  %x = load i32, %o\n"
                                  "  call void @barrier()\n"
                                  "  store i32 %x, %o\n"
                                  "  ret\n"
                                  "}\n");
  CHECK_EQ_INT(c.rc, 0);
  CHECK_EQ_INT(c.vector, 5); /* global_id, gep, load, barrier, store */
  CHECK_EQ_INT(c.memory, 2); /* load, store: of the vector instructions */
  CHECK_EQ_INT(c.barrier, 1);
  const rc_cost_weights *w = &rc_cost_weights_host;
  double want = 2 * w->vector + 2 * w->memory + w->barrier + (double)c.mask * w->mask + (double)c.scalar * w->scalar;
  CHECK(c.host > want - 1e-9 && c.host < want + 1e-9);
}

TEST(static_cost_by_weights) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, WAVE_HEAD "entry:\n"
                                          "  %tid = call i32 @global_id(i32 0)\n"
                                          "  %o = gep %out, i32 %tid, 4\n"
                                          "  store i32 1, %o\n"
                                          "  ret\n"
                                          "}\n");
  CHECK(m != NULL);
  if (!m) return;
  rc_cost_weights w = {.name = "test", .vector = 3, .memory = 10, .barrier = 0, .mask = 0, .scalar = 100};
  /* global_id and gep 3 each, the store 10, the ret 100 */
  CHECK(rc_wave_static_cost_weighted(m->kernels[0], &w) == 3 + 3 + 10 + 100);
  CHECK_EQ_INT(rc_wave_static_cost(m->kernels[0]), (int64_t)rc_wave_static_cost_weighted(m->kernels[0], &rc_cost_weights_gcn));
  CHECK(rc_cost_weights_named("host") == &rc_cost_weights_host);
  CHECK(rc_cost_weights_named(NULL) == &rc_cost_weights_gcn);
  CHECK(rc_cost_weights_named("gpu") == NULL);
  rc_module_free(m);
}

TEST(rank_correlation) {
  const double x[] = {1, 2, 3, 4}, up[] = {10, 20, 25, 90}, down[] = {4, 3, 2, 1}, tie[] = {1, 1, 2, 2};
  double r = rc_rank_correlation(x, up, 4);
  CHECK(r > 0.999 && r < 1.001);
  r = rc_rank_correlation(x, down, 4);
  CHECK(r < -0.999 && r > -1.001);
  r = rc_rank_correlation(x, tie, 4); /* ranks 1.5 1.5 3.5 3.5 against 1 2 3 4: 0.894 */
  CHECK(r > 0.89 && r < 0.90);
  CHECK(isnan(rc_rank_correlation(x, up, 2)));
  CHECK(isnan(rc_rank_correlation(x, tie + 0, 1)));
  const double flat[] = {5, 5, 5, 5};
  CHECK(isnan(rc_rank_correlation(x, flat, 4)));
}
