/* Uniformity analysis on hand-made kernels, one rule at a time: sources, data dependence, sync
 * dependence at joins (and not at blocks that only look like joins), temporal divergence, irreducible
 * cycles, private memory, annotations and the all-divergent flag. */
#include "reconv/analysis.h"
#include "test.h"

#include <stdlib.h>

typedef struct fixture {
  test_diags d;
  rc_module *m;
  rc_kernel *k;
  rc_analysis a;
} fixture;

static bool setup(fixture *f, const char *text, unsigned flags) {
  test_diags_init(&f->d);
  f->m = test_parse(&f->d, text);
  if (!f->m) {
    fprintf(stderr, "parse failed: %s\n", f->d.text);
    return false;
  }
  f->k = f->m->kernels[0];
  rc_analysis_build(&f->a, f->k, flags);
  return true;
}

static void teardown(fixture *f) {
  rc_analysis_free(&f->a);
  rc_module_free(f->m);
}

static int vdiv(fixture *f, const char *name) {
  rc_value *v = rc_kernel_find_value(f->k, name);
  if (!v) {
    fprintf(stderr, "no value %%%s\n", name);
    return -1;
  }
  return f->a.unif.divergent_value[v->id];
}

static int bdiv(fixture *f, const char *name) {
  rc_block *b = rc_kernel_find_block(f->k, name);
  if (!b) {
    fprintf(stderr, "no block %s\n", name);
    return -1;
  }
  return f->a.unif.divergent_branch[b->id];
}

static int join(fixture *f, const char *name) {
  rc_block *b = rc_kernel_find_block(f->k, name);
  return b ? f->a.unif.sync_join[b->id] : -1;
}

TEST(uniformity_sources_and_parameters) {
  fixture f;
  if (!setup(&f,
             "kernel @k(ptr %out, i32 %n) {\n"
             "entry:\n"
             "  %gid = call i32 @global_id(i32 0)\n"
             "  %lid = call i32 @local_id(i32 1)\n"
             "  %lane = call i32 @lane_id()\n"
             "  %grp = call i32 @group_id(i32 0)\n"
             "  %lsz = call i32 @local_size(i32 0)\n"
             "  %ws = call i32 @wave_size()\n"
             "  %old = call i32 @atomic_add(ptr %out, i32 1)\n"
             "  %pn = mul i32 %n, 2\n"
             "  %q = add i32 %grp, %lsz\n"
             "  %lm = localmem 64\n"
             "  store i32 %ws, %lm\n"
             "  ret\n"
             "}\n",
             0))
    { CHECK(0); return; }
  CHECK_EQ_INT(vdiv(&f, "gid"), 1);
  CHECK_EQ_INT(vdiv(&f, "lid"), 1);
  CHECK_EQ_INT(vdiv(&f, "lane"), 1);
  CHECK_EQ_INT(vdiv(&f, "old"), 1);
  CHECK_EQ_INT(vdiv(&f, "grp"), 0);
  CHECK_EQ_INT(vdiv(&f, "lsz"), 0);
  CHECK_EQ_INT(vdiv(&f, "ws"), 0);
  CHECK_EQ_INT(vdiv(&f, "n"), 0);
  CHECK_EQ_INT(vdiv(&f, "out"), 0);
  CHECK_EQ_INT(vdiv(&f, "pn"), 0);
  CHECK_EQ_INT(vdiv(&f, "q"), 0);
  CHECK_EQ_INT(vdiv(&f, "lm"), 0);
  teardown(&f);
}

TEST(uniformity_data_dependence) {
  fixture f;
  if (!setup(&f,
             "kernel @k(ptr %out, i32 %n) {\n"
             "entry:\n"
             "  %tid = call i32 @global_id(i32 0)\n"
             "  %x = add i32 %tid, 1\n"
             "  %y = mul i32 %n, 3\n"
             "  %cu = icmp slt i32 %y, 7\n"
             "  %s = select i32 %cu, %x, %y\n"
             "  %t = sext i32 %y to i64\n"
             "  %a = gep %out, i32 %y, 4\n"
             "  %v = load i32, %a\n"
             "  %ad = gep %out, i32 %x, 4\n"
             "  %vd = load i32, %ad\n"
             "  %cd = icmp slt i32 %x, %v\n"
             "  br %cd, A, B\n"
             "A:\n"
             "  br %cu, B, C\n"
             "B:\n"
             "  ret\n"
             "C:\n"
             "  ret\n"
             "}\n",
             0))
    { CHECK(0); return; }
  CHECK_EQ_INT(vdiv(&f, "x"), 1);
  CHECK_EQ_INT(vdiv(&f, "y"), 0);
  CHECK_EQ_INT(vdiv(&f, "cu"), 0);
  CHECK_EQ_INT(vdiv(&f, "s"), 1);
  CHECK_EQ_INT(vdiv(&f, "t"), 0);
  CHECK_EQ_INT(vdiv(&f, "a"), 0);
  CHECK_EQ_INT(vdiv(&f, "v"), 0); /* a load from a uniform global address */
  CHECK_EQ_INT(vdiv(&f, "ad"), 1);
  CHECK_EQ_INT(vdiv(&f, "vd"), 1);
  CHECK_EQ_INT(bdiv(&f, "entry"), 1);
  CHECK_EQ_INT(bdiv(&f, "A"), 0);
  teardown(&f);
}

/* if-then-else on %tid: the phi at the join is sync dependent; a phi with one value on every
 * path is not; a join of a uniform branch is uniform. */
TEST(uniformity_sync_dependence_diamond) {
  fixture f;
  if (!setup(&f,
             "kernel @k(ptr %out, i32 %n) {\n"
             "entry:\n"
             "  %tid = call i32 @global_id(i32 0)\n"
             "  %c = icmp slt i32 %tid, %n\n"
             "  br %c, A, B\n"
             "A:\n"
             "  jmp J\n"
             "B:\n"
             "  jmp J\n"
             "J:\n"
             "  %p = phi i32 [1, A], [2, B]\n"
             "  %same = phi i32 [%n, A], [%n, B]\n"
             "  %und = phi i32 [undef, A], [5, B]\n"
             "  %u = icmp slt i32 %n, 3\n"
             "  br %u, C, D\n"
             "C:\n"
             "  jmp E\n"
             "D:\n"
             "  jmp E\n"
             "E:\n"
             "  %q = phi i32 [1, C], [2, D]\n"
             "  ret\n"
             "}\n",
             0))
    { CHECK(0); return; }
  CHECK_EQ_INT(bdiv(&f, "entry"), 1);
  CHECK_EQ_INT(vdiv(&f, "p"), 1);
  CHECK_EQ_INT(vdiv(&f, "same"), 0);
  CHECK_EQ_INT(vdiv(&f, "und"), 0);
  CHECK_EQ_INT(join(&f, "J"), 1);
  CHECK_EQ_INT(bdiv(&f, "J"), 0);
  CHECK_EQ_INT(vdiv(&f, "q"), 0);
  CHECK_EQ_INT(join(&f, "E"), 0);
  teardown(&f);
}

/* A block reached from one side of a divergent branch and from the other side of an earlier
 * uniform branch is no join: within a wave every thread came the same way. (An iterated
 * dominance frontier of the branch's successors would wrongly include it.) Joins further down,
 * where both sides of the divergent branch meet, are found, including one reached through a
 * uniform branch on one side. */
TEST(uniformity_sync_dependence_only_at_disjoint_paths) {
  fixture f;
  if (!setup(&f,
             "kernel @k(ptr %out, i32 %n) {\n"
             "entry:\n"
             "  %tid = call i32 @global_id(i32 0)\n"
             "  %u = icmp slt i32 %n, 3\n"
             "  %d = icmp slt i32 %tid, %n\n"
             "  br %u, B, C\n"
             "B:\n"
             "  br %d, S1, S2\n"
             "C:\n"
             "  jmp J\n"
             "S1:\n"
             "  br %u, J, Y\n"
             "S2:\n"
             "  jmp Y\n"
             "J:\n"
             "  %pj = phi i32 [1, S1], [2, C]\n"
             "  jmp Z\n"
             "Y:\n"
             "  %py = phi i32 [1, S1], [2, S2]\n"
             "  jmp Z\n"
             "Z:\n"
             "  %pz = phi i32 [1, J], [2, Y]\n"
             "  ret\n"
             "}\n",
             0))
    { CHECK(0); return; }
  CHECK_EQ_INT(bdiv(&f, "B"), 1);
  CHECK_EQ_INT(bdiv(&f, "entry"), 0);
  CHECK_EQ_INT(bdiv(&f, "S1"), 0);
  CHECK_EQ_INT(vdiv(&f, "pj"), 0);
  CHECK_EQ_INT(join(&f, "J"), 0);
  CHECK_EQ_INT(vdiv(&f, "py"), 1);
  CHECK_EQ_INT(vdiv(&f, "pz"), 1); /* B -> S1 -> J -> Z and B -> S2 -> Y -> Z */
  teardown(&f);
}

/* A loop left at a divergent exit: threads leave in different iterations, so the values defined
 * in the loop and used after it are divergent; a value used only inside stays uniform. A loop
 * with a uniform exit keeps its values uniform. */
TEST(uniformity_temporal_divergence) {
  fixture f;
  if (!setup(&f,
             "kernel @k(ptr %out, i32 %n) {\n"
             "entry:\n"
             "  %tid = call i32 @global_id(i32 0)\n"
             "  jmp H\n"
             "H:\n"
             "  %i = phi i32 [0, entry], [%i1, H]\n"
             "  %i1 = add i32 %i, 1\n"
             "  %inv = mul i32 %n, 5\n"
             "  %a = gep %out, i32 %inv, 4\n"
             "  store i32 %inv, %a\n"
             "  %d = icmp sgt i32 %i1, %tid\n"
             "  br %d, X, H\n"
             "X:\n"
             "  %r = add i32 %i1, 0\n"
             "  jmp H2\n"
             "H2:\n"
             "  %j = phi i32 [0, X], [%j1, H2]\n"
             "  %j1 = add i32 %j, 1\n"
             "  %u = icmp slt i32 %j1, %n\n"
             "  br %u, H2, X2\n"
             "X2:\n"
             "  %s = add i32 %j1, 0\n"
             "  ret\n"
             "}\n",
             0))
    { CHECK(0); return; }
  CHECK_EQ_INT(bdiv(&f, "H"), 1);
  CHECK_EQ_INT(vdiv(&f, "i1"), 1);
  CHECK_EQ_INT(vdiv(&f, "r"), 1);
  CHECK_EQ_INT(vdiv(&f, "inv"), 0); /* used only inside the loop */
  CHECK_EQ_INT(f.a.cycles.ncycles, 2);
  uint32_t c1 = f.a.cycles.innermost[rc_kernel_find_block(f.k, "H")->id];
  uint32_t c2 = f.a.cycles.innermost[rc_kernel_find_block(f.k, "H2")->id];
  CHECK_EQ_INT(f.a.unif.temporal_cycle[c1], 1);
  CHECK_EQ_INT(f.a.unif.temporal_cycle[c2], 0);
  CHECK_EQ_INT(bdiv(&f, "H2"), 0);
  CHECK_EQ_INT(vdiv(&f, "j1"), 0);
  CHECK_EQ_INT(vdiv(&f, "s"), 0);
  teardown(&f);
}

/* A divergent break out of a loop whose latch branch is uniform: the exit reached from inside
 * the body in different iterations is a divergent exit (found through the header's exits). The
 * value that leaves only through the exit's phis stays uniform (each copy is made on its exit
 * edge, inside the loop) and the phis diverge; read directly outside the loop, it is divergent. */
static const char *latch_exit_text(const char *use_in_exit) {
  static char buf[1024];
  snprintf(buf, sizeof buf,
           "kernel @k(ptr %%out, i32 %%n) {\n"
           "entry:\n"
           "  %%tid = call i32 @global_id(i32 0)\n"
           "  jmp H\n"
           "H:\n"
           "  %%i = phi i32 [0, entry], [%%i1, L]\n"
           "  %%i1 = add i32 %%i, 1\n"
           "  %%d = icmp eq i32 %%i1, %%tid\n"
           "  br %%d, X, L\n"
           "L:\n"
           "  %%u = icmp slt i32 %%i1, %%n\n"
           "  br %%u, H, X\n"
           "X:\n"
           "  %%r = phi i32 [%%i1, H], [%%i1, L]\n"
           "  %%k = phi i32 [1, H], [2, L]\n"
           "%s"
           "  ret\n"
           "}\n",
           use_in_exit);
  return buf;
}

TEST(uniformity_temporal_divergence_through_the_latch) {
  fixture f;
  if (!setup(&f, latch_exit_text(""), 0)) { CHECK(0); return; }
  CHECK_EQ_INT(bdiv(&f, "H"), 1);
  CHECK_EQ_INT(vdiv(&f, "i1"), 0);
  CHECK_EQ_INT(vdiv(&f, "r"), 1);
  CHECK_EQ_INT(vdiv(&f, "k"), 1); /* H -> X and H -> L -> X */
  CHECK_EQ_INT(f.a.unif.temporal_cycle[0], 1);
  teardown(&f);
  if (!setup(&f, latch_exit_text("  %z = add i32 %i1, 7\n"), 0)) { CHECK(0); return; }
  CHECK_EQ_INT(vdiv(&f, "i1"), 1);
  CHECK_EQ_INT(vdiv(&f, "z"), 1);
  teardown(&f);
  /* an i1 that leaves through an exit's phi stays divergent: there it is a lane mask */
  CHECK(setup(&f, latch_exit_text("  %q = phi i1 [false, H], [%u, L]\n"), 0));
  CHECK_EQ_INT(vdiv(&f, "i1"), 0);
  CHECK_EQ_INT(vdiv(&f, "u"), 1);
  CHECK_EQ_INT(vdiv(&f, "q"), 1);
  teardown(&f);
}

/* An irreducible cycle {A, B} entered at both entries by a divergent branch: every value defined
 * in it is divergent (the entry phis and values computed only from parameters alike), and the
 * cycle is marked assumed divergent. Entered by a uniform branch, it stays uniform. */
static const char *irreducible_text(const char *cond) {
  static char buf[1024];
  snprintf(buf, sizeof buf,
           "kernel @k(ptr %%out, i32 %%n) {\n"
           "entry:\n"
           "  %%tid = call i32 @global_id(i32 0)\n"
           "  %%c = icmp slt i32 %s, 4\n"
           "  %%u = icmp slt i32 %%n, 9\n"
           "  br %%c, A, B\n"
           "A:\n"
           "  %%pa = phi i32 [0, entry], [%%b1, B]\n"
           "  %%a1 = add i32 %%pa, 1\n"
           "  %%w = mul i32 %%n, 7\n"
           "  br %%u, B, X\n"
           "B:\n"
           "  %%pb = phi i32 [0, entry], [%%a1, A]\n"
           "  %%b1 = add i32 %%pb, 2\n"
           "  %%u2 = icmp slt i32 %%b1, %%n\n"
           "  br %%u2, A, X\n"
           "X:\n"
           "  %%px = phi i32 [1, A], [2, B]\n"
           "  ret\n"
           "}\n",
           cond);
  return buf;
}

TEST(uniformity_irreducible_cycle_entered_divergently) {
  fixture f;
  if (!setup(&f, irreducible_text("%tid"), 0)) { CHECK(0); return; }
  CHECK_EQ_INT(f.a.cycles.ncycles, 1);
  CHECK_EQ_INT(f.a.cycles.cycles[0].reducible, 0);
  CHECK_EQ_INT(f.a.unif.assumed_divergent[0], 1);
  CHECK_EQ_INT(vdiv(&f, "pa"), 1);
  CHECK_EQ_INT(vdiv(&f, "pb"), 1);
  CHECK_EQ_INT(vdiv(&f, "w"), 1);  /* defined in the cycle: threads are out of step in it */
  CHECK_EQ_INT(vdiv(&f, "u2"), 1);
  CHECK_EQ_INT(bdiv(&f, "B"), 1);
  CHECK_EQ_INT(bdiv(&f, "A"), 0); /* %u is defined outside the cycle */
  CHECK_EQ_INT(vdiv(&f, "px"), 1); /* the exits have labels of their own */
  teardown(&f);
  if (!setup(&f, irreducible_text("%n"), 0)) { CHECK(0); return; }
  CHECK_EQ_INT(f.a.unif.assumed_divergent[0], 0);
  CHECK_EQ_INT(vdiv(&f, "pa"), 0);
  CHECK_EQ_INT(vdiv(&f, "w"), 0);
  CHECK_EQ_INT(vdiv(&f, "px"), 0);
  CHECK_EQ_INT(bdiv(&f, "entry"), 0);
  teardown(&f);
}

TEST(uniformity_private_memory) {
  fixture f;
  if (!setup(&f,
             "kernel @k(ptr %out, ptr %g, i32 %n) {\n"
             "entry:\n"
             "  %m = alloca 16\n"
             "  store i32 %n, %m\n"
             "  %l = load i32, %m\n"
             "  %m4 = gep %m, i32 1, 4\n"
             "  %l4 = load i32, %m4\n"
             "  %lg = load i32, %out\n"
             "  %pg = load ptr, %g\n"
             "  %lpg = load i32, %pg\n"
             "  ret\n"
             "}\n",
             0))
    { CHECK(0); return; }
  CHECK_EQ_INT(vdiv(&f, "m"), 1);
  CHECK_EQ_INT(vdiv(&f, "l"), 1); /* private memory, even though a uniform value was stored */
  CHECK_EQ_INT(vdiv(&f, "l4"), 1);
  CHECK_EQ_INT(vdiv(&f, "lg"), 0);
  CHECK_EQ_INT(vdiv(&f, "pg"), 0);
  CHECK_EQ_INT(vdiv(&f, "lpg"), 0); /* no private address ever went to memory */
  teardown(&f);
  /* a private address stored to memory can come back through any load */
  if (!setup(&f,
             "kernel @k(ptr %out, ptr %g, i32 %n) {\n"
             "entry:\n"
             "  %m = alloca 16\n"
             "  store ptr %m, %g\n"
             "  %pg = load ptr, %out\n"
             "  %lpg = load i32, %pg\n"
             "  ret\n"
             "}\n",
             0))
    { CHECK(0); return; }
  CHECK_EQ_INT(vdiv(&f, "pg"), 0);
  CHECK_EQ_INT(vdiv(&f, "lpg"), 1);
  teardown(&f);
}

static const char *annotated_text(const char *cond, const char *note) {
  static char buf[1024];
  snprintf(buf, sizeof buf,
           "kernel @k(ptr %%out, i32 %%n) {\n"
           "entry:\n"
           "  %%tid = call i32 @global_id(i32 0)\n"
           "  %%c = icmp slt i32 %s, 4\n"
           "  br %%c, A, B%s\n"
           "A:\n"
           "  jmp J\n"
           "B:\n"
           "  jmp J\n"
           "J:\n"
           "  %%p = phi i32 [1, A], [2, B]\n"
           "  %%s = icmp slt i32 %%n, 2\n"
           "  switch i32 %%n, X [1: Y, 2: Z]\n"
           "X:\n"
           "  jmp W\n"
           "Y:\n"
           "  jmp W\n"
           "Z:\n"
           "  jmp W\n"
           "W:\n"
           "  %%q = phi i32 [1, X], [2, Y], [3, Z]\n"
           "  ret\n"
           "}\n",
           cond, note);
  return buf;
}

TEST(uniformity_annotations_override) {
  fixture f;
  if (!setup(&f, annotated_text("%tid", " !uniform"), 0)) { CHECK(0); return; }
  CHECK_EQ_INT(vdiv(&f, "c"), 1);
  CHECK_EQ_INT(bdiv(&f, "entry"), 0); /* trusted: no sync dependence either */
  CHECK_EQ_INT(vdiv(&f, "p"), 0);
  teardown(&f);
  if (!setup(&f, annotated_text("%n", " !divergent"), 0)) { CHECK(0); return; }
  CHECK_EQ_INT(vdiv(&f, "c"), 0);
  CHECK_EQ_INT(bdiv(&f, "entry"), 1);
  CHECK_EQ_INT(vdiv(&f, "p"), 1);
  CHECK_EQ_INT(bdiv(&f, "J"), 0);
  CHECK_EQ_INT(vdiv(&f, "q"), 0);
  teardown(&f);
}

TEST(uniformity_all_divergent_flag) {
  fixture f;
  if (!setup(&f, annotated_text("%n", " !uniform"), RC_UNIF_ALL_DIVERGENT)) { CHECK(0); return; }
  CHECK_EQ_INT(bdiv(&f, "entry"), 1); /* the flag wins over the annotation */
  CHECK_EQ_INT(bdiv(&f, "J"), 1);     /* switches too */
  CHECK_EQ_INT(bdiv(&f, "A"), 0);     /* jmp is no conditional branch */
  CHECK_EQ_INT(vdiv(&f, "p"), 1);
  CHECK_EQ_INT(vdiv(&f, "q"), 1);
  CHECK_EQ_INT(vdiv(&f, "c"), 0); /* values keep their own verdict */
  teardown(&f);
}

/* A divergent switch: every pair of its successors can join. */
TEST(uniformity_divergent_switch) {
  fixture f;
  if (!setup(&f, annotated_text("%n", ""), 0)) { CHECK(0); return; }
  CHECK_EQ_INT(vdiv(&f, "q"), 0);
  teardown(&f);
  const char *text =
      "kernel @k(ptr %out, i32 %n) {\n"
      "entry:\n"
      "  %tid = call i32 @global_id(i32 0)\n"
      "  switch i32 %tid, X [1: Y, 2: Z]\n"
      "X:\n"
      "  jmp W\n"
      "Y:\n"
      "  jmp V\n"
      "Z:\n"
      "  jmp V\n"
      "V:\n"
      "  %v = phi i32 [1, Y], [2, Z]\n"
      "  jmp W\n"
      "W:\n"
      "  %w = phi i32 [1, X], [2, V]\n"
      "  ret\n"
      "}\n";
  if (!setup(&f, text, 0)) { CHECK(0); return; }
  CHECK_EQ_INT(bdiv(&f, "entry"), 1);
  CHECK_EQ_INT(vdiv(&f, "v"), 1);
  CHECK_EQ_INT(vdiv(&f, "w"), 1);
  teardown(&f);
}

/* Dead code: a divergent branch in an unreachable block is marked but propagates nothing. */
TEST(uniformity_unreachable_block) {
  fixture f;
  if (!setup(&f,
             "kernel @k(ptr %out, i32 %n) {\n"
             "entry:\n"
             "  %tid = call i32 @global_id(i32 0)\n"
             "  jmp J\n"
             "D:\n"
             "  %c = icmp slt i32 %tid, 1\n"
             "  br %c, J, E\n"
             "E:\n"
             "  jmp J\n"
             "J:\n"
             "  %p = phi i32 [1, entry], [2, D], [3, E]\n"
             "  ret\n"
             "}\n",
             0))
    { CHECK(0); return; }
  CHECK_EQ_INT(bdiv(&f, "D"), 1);
  CHECK_EQ_INT(vdiv(&f, "p"), 0);
  teardown(&f);
}

/* Two latches reached from the two sides of a divergent branch in a loop body: the header joins
 * them (threads come back around by different paths), while a phi in the body after a uniform
 * branch stays uniform. */
TEST(uniformity_sync_dependence_at_a_loop_header) {
  fixture f;
  if (!setup(&f,
             "kernel @k(ptr %out, i32 %n) {\n"
             "entry:\n"
             "  %tid = call i32 @global_id(i32 0)\n"
             "  %u = icmp slt i32 %n, 5\n"
             "  jmp H\n"
             "H:\n"
             "  %h = phi i32 [0, entry], [1, L1], [2, L2]\n"
             "  br %u, P, Q\n"
             "P:\n"
             "  jmp M\n"
             "Q:\n"
             "  jmp M\n"
             "M:\n"
             "  %m = phi i32 [1, P], [2, Q]\n"
             "  %d = icmp slt i32 %tid, %h\n"
             "  br %d, L1, L2\n"
             "L1:\n"
             "  br %u, H, X\n"
             "L2:\n"
             "  br %u, H, X\n"
             "X:\n"
             "  ret\n"
             "}\n",
             0))
    { CHECK(0); return; }
  CHECK_EQ_INT(join(&f, "H"), 1);
  CHECK_EQ_INT(vdiv(&f, "h"), 1);
  CHECK_EQ_INT(vdiv(&f, "d"), 1);
  CHECK_EQ_INT(bdiv(&f, "H"), 0);
  CHECK_EQ_INT(vdiv(&f, "m"), 0);
  CHECK_EQ_INT(join(&f, "X"), 1); /* L1 -> X and L2 -> X */
  teardown(&f);
}

/* A phi whose incoming values are one value apart from undef and the phi itself (as SSA repair
 * leaves them at loop headers) is not divergent by sync dependence, even at a join: which way a
 * thread came makes no difference. By data dependence it still can be. */
TEST(uniformity_phi_of_itself_and_one_value) {
  fixture f;
  if (!setup(&f,
             "kernel @k(ptr %out, i32 %n) {\n"
             "entry:\n"
             "  %tid = call i32 @global_id(i32 0)\n"
             "  %u = icmp slt i32 %n, 5\n"
             "  jmp H\n"
             "H:\n"
             "  %h = phi i32 [0, entry], [1, L1], [2, L2]\n"
             "  %x = phi i32 [%n, entry], [%x, L1], [%x, L2]\n"
             "  %z = phi i32 [%n, entry], [undef, L1], [%z, L2]\n"
             "  %y = phi i32 [%tid, entry], [%y, L1], [%y, L2]\n"
             "  %w = phi i32 [%n, entry], [%x, L1], [%h, L2]\n"
             "  %d = icmp slt i32 %tid, %h\n"
             "  br %d, L1, L2\n"
             "L1:\n"
             "  br %u, H, X\n"
             "L2:\n"
             "  br %u, H, X\n"
             "X:\n"
             "  ret\n"
             "}\n",
             0))
    { CHECK(0); return; }
  CHECK_EQ_INT(join(&f, "H"), 1);
  CHECK_EQ_INT(vdiv(&f, "h"), 1);
  CHECK_EQ_INT(vdiv(&f, "x"), 0);
  CHECK_EQ_INT(vdiv(&f, "z"), 0);
  CHECK_EQ_INT(vdiv(&f, "y"), 1); /* data dependence on %tid */
  CHECK_EQ_INT(vdiv(&f, "w"), 1); /* two values: %n (and %x) and %h */
  teardown(&f);
}

/* Threads that leave a loop at a divergent branch and those that leave later through the
 * header reach the exit along different edges: its phi diverges even with constant inputs.
 * Threads that all leave along one edge, in different iterations, reconverge at the exit: a
 * loop that follows keeps its uniform counter (while the exit is still a divergent exit). */
TEST(uniformity_joins_at_divergent_exits_need_two_edges) {
  fixture f;
  if (!setup(&f,
             "kernel @k(ptr %out, i32 %n) {\n"
             "entry:\n"
             "  %tid = call i32 @global_id(i32 0)\n"
             "  jmp H\n"
             "H:\n"
             "  %i = phi i32 [0, entry], [%i1, L]\n"
             "  %c = icmp slt i32 %i, %n\n"
             "  br %c, B, X\n"
             "B:\n"
             "  %d = icmp slt i32 %tid, %i\n"
             "  br %d, L, X\n"
             "L:\n"
             "  %i1 = add i32 %i, 1\n"
             "  jmp H\n"
             "X:\n"
             "  %r = phi i32 [1, H], [2, B]\n"
             "  jmp H2\n"
             "H2:\n"
             "  %j = phi i32 [0, X], [%j1, H2]\n"
             "  %j1 = add i32 %j, 1\n"
             "  %e = icmp sgt i32 %j1, %tid\n"
             "  br %e, X2, H2\n"
             "X2:\n"
             "  %k = phi i32 [0, H2], [%k1, X2]\n"
             "  %k1 = add i32 %k, 1\n"
             "  %more = icmp slt i32 %k1, %n\n"
             "  br %more, X2, Y\n"
             "Y:\n"
             "  ret\n"
             "}\n",
             0))
    { CHECK(0); return; }
  uint32_t c1 = f.a.cycles.innermost[rc_kernel_find_block(f.k, "H")->id];
  uint32_t c2 = f.a.cycles.innermost[rc_kernel_find_block(f.k, "H2")->id];
  CHECK_EQ_INT(bdiv(&f, "B"), 1);
  CHECK_EQ_INT(bdiv(&f, "H"), 0);
  CHECK_EQ_INT(f.a.unif.temporal_cycle[c1], 1);
  CHECK_EQ_INT(join(&f, "X"), 1);
  CHECK_EQ_INT(vdiv(&f, "r"), 1); /* B -> X now, or B -> L -> H -> X later */
  CHECK_EQ_INT(bdiv(&f, "H2"), 1);
  CHECK_EQ_INT(f.a.unif.temporal_cycle[c2], 1);
  CHECK_EQ_INT(join(&f, "X2"), 0);
  CHECK_EQ_INT(vdiv(&f, "k"), 0); /* everyone came along H2 -> X2 */
  CHECK_EQ_INT(vdiv(&f, "more"), 0);
  CHECK_EQ_INT(bdiv(&f, "X2"), 0);
  teardown(&f);
}
