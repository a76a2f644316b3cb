/* Structure checks on hand-made CFGs: reducible (Def. 6), structured by maximal folding (Defs.
 * 7-14: sequence, selection, loop patterns), Anantpur's unstructured edges (Def. 1) with each of
 * its three conditions, reconverging (Def. 15), and where each check fails. Kernels are written as
 * edge lists; every conditional branch is on %tid unless the test says otherwise. */
#include "reconv/analysis.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

typedef struct fixture {
  test_diags d;
  rc_module *m;
  rc_kernel *k;
  rc_analysis a;
  rc_u32vec where;
} fixture;

/* Build a kernel from lines "A: B C" (A branches to B and C; no successor = ret). Branches are on
 * %tid, or on %n when the block name starts with 'u'. */
static bool setup(fixture *f, const char *cfg, unsigned flags) {
  char text[8192];
  size_t len = 0;
  len += (size_t)snprintf(text + len, sizeof text - len, "kernel @k(i32 %%n) {\n");
  char spec[1024];
  snprintf(spec, sizeof spec, "%s", cfg);
  bool first = true;
  char *save1 = NULL;
  for (char *clause = strtok_r(spec, ";", &save1); clause; clause = strtok_r(NULL, ";", &save1)) {
    char *colon = strchr(clause, ':');
    if (!colon) break;
    *colon = 0;
    char *save2 = NULL, *name = strtok_r(clause, " ", &save2), *succ[4];
    int ns = 0;
    for (char *t = strtok_r(colon + 1, " ", &save2); t && ns < 4;
         t = strtok_r(NULL, " ", &save2))
      succ[ns++] = t;
    len += (size_t)snprintf(text + len, sizeof text - len, "%s:\n", name);
    if (first) len += (size_t)snprintf(text + len, sizeof text - len, "  %%tid = call i32 @global_id(i32 0)\n");
    first = false;
    const char *src = name[0] == 'u' ? "%n" : "%tid";
    if (ns == 0) {
      len += (size_t)snprintf(text + len, sizeof text - len, "  ret\n");
    } else if (ns == 1) {
      len += (size_t)snprintf(text + len, sizeof text - len, "  jmp %s\n", succ[0]);
    } else if (ns == 2) {
      len += (size_t)snprintf(text + len, sizeof text - len, "  %%c_%s = icmp slt i32 %s, 3\n  br %%c_%s, %s, %s\n",
                              name, src, name, succ[0], succ[1]);
    } else {
      len += (size_t)snprintf(text + len, sizeof text - len, "  switch i32 %s, %s [", src, succ[0]);
      for (int i = 1; i < ns; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%d: %s", i > 1 ? ", " : "", i, succ[i]);
      len += (size_t)snprintf(text + len, sizeof text - len, "]\n");
    }
  }
  snprintf(text + len, sizeof text - len, "}\n");
  test_diags_init(&f->d);
  f->m = test_parse(&f->d, text);
  if (!f->m) {
    fprintf(stderr, "parse failed: %s\n%s", f->d.text, text);
    return false;
  }
  f->k = f->m->kernels[0];
  rc_analysis_build(&f->a, f->k, flags);
  f->where = (rc_u32vec){0};
  return true;
}

static void teardown(fixture *f) {
  rc_vec_free(&f->where);
  rc_analysis_free(&f->a);
  rc_module_free(f->m);
}

/* the names of the blocks in f->where, space separated */
static const char *where_names(fixture *f, bool pairs) {
  static char buf[512];
  size_t len = 0;
  buf[0] = 0;
  for (uint32_t i = 0; i < f->where.len; i++) {
    const char *sep = i == 0 ? "" : pairs && i % 2 ? "->" : " ";
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", sep, f->k->blocks[f->where.data[i]]->name);
  }
  f->where.len = 0;
  return buf;
}

static bool reducible(fixture *f) { return rc_is_reducible(&f->a.cfg, &f->where); }
static bool structured(fixture *f) { return rc_is_structured(&f->a.cfg, &f->a.dom, &f->a.pdom, &f->where); }
static bool no_unstructured(fixture *f) {
  return rc_unstructured_edges(&f->a.cfg, &f->a.dom, &f->a.pdom, &f->a.cycles, &f->where);
}
static bool reconverging(fixture *f) {
  return rc_is_reconverging(f->k, &f->a.cfg, &f->a.pdom, &f->a.unif, &f->where);
}

#define SETUP(f, cfg, flags)   \
  if (!setup(&f, cfg, flags)) { \
    CHECK(0);                  \
    return;                    \
  }

TEST(structure_base_patterns_fold) {
  fixture f;
  /* sequence, if-then, if-then-else, a switch of three bodies */
  SETUP(f, "A: B; B: C D; C: D; D: E F; E: G; F: G; G: H I J; H: K; I: K; J: K; K:", 0);
  CHECK(structured(&f));
  CHECK(reducible(&f));
  CHECK(no_unstructured(&f));
  teardown(&f);
  /* while loop, do-while loop (self loop), a loop with a two-block body that folds first */
  SETUP(f, "A: H; H: B X; B: H; X: D; D: D Y; Y: W; W: P Z; P: Q; Q: W; Z:", 0);
  CHECK(structured(&f));
  teardown(&f);
  /* nested: an if-then-else inside a while loop inside an if-then */
  SETUP(f, "A: H Z; H: C X; C: T E; T: J; E: J; J: H; X: Z; Z:", 0);
  CHECK(structured(&f));
  teardown(&f);
}

TEST(structure_unstructured_by_folding) {
  fixture f;
  /* a loop with a break: two exits from the loop */
  SETUP(f, "A: H; H: B X; B: H X; X:", 0);
  CHECK(!structured(&f));
  CHECK_STR_CONTAINS(where_names(&f, false), "H");
  CHECK(reducible(&f));
  teardown(&f);
  /* two exits (rets) are not one node */
  SETUP(f, "A: B C; B:; C:", 0);
  CHECK(!structured(&f));
  CHECK_EQ_INT(strcmp(where_names(&f, false), "A"), 0);
  teardown(&f);
  /* thesis Fig. 4.1b: nested branches sharing their join */
  SETUP(f, "A: D B; B: D C; C: D; D:", 0);
  CHECK(!structured(&f));
  CHECK_EQ_INT(strcmp(where_names(&f, false), "A B"), 0);
  teardown(&f);
}

TEST(structure_reducible_and_where_it_fails) {
  fixture f;
  /* thesis Fig. 2.2: two entries into the cycle B <-> C */
  SETUP(f, "A: B C; B: C X; C: B X; X:", 0);
  CHECK(!reducible(&f));
  CHECK_EQ_INT(strcmp(where_names(&f, false), "B C"), 0);
  CHECK(!structured(&f));
  teardown(&f);
  /* an irreducible cycle nested in a natural loop */
  SETUP(f, "A: H; H: P Q; P: Q R; Q: P R; R: H X; X:", 0);
  CHECK(!reducible(&f));
  CHECK_EQ_INT(strcmp(where_names(&f, false), "P Q"), 0);
  teardown(&f);
  /* natural loops with several back edges stay reducible */
  SETUP(f, "A: H; H: B C; B: H D; C: H D; D:", 0);
  CHECK(reducible(&f));
  teardown(&f);
}

TEST(structure_unstructured_edges_anantpur) {
  fixture f;
  /* Fig. 1: condition 1 only */
  SETUP(f, "B1: B3 B2; B2: B3 B5; B3: B4 B5; B4: B6; B5: B6; B6:", 0);
  CHECK(!no_unstructured(&f));
  CHECK_EQ_INT(strcmp(where_names(&f, true), "B2->B3 B2->B5 B3->B5"), 0);
  teardown(&f);
  /* condition 2: jumping into a loop at a block that does not dominate it (Fig. 6-like) */
  SETUP(f, "B1: B2 B5; B2: B3 B6; B3: B4; B4: B5; B5: B3 B6; B6:", 0);
  CHECK(!no_unstructured(&f));
  CHECK_EQ_INT(strcmp(where_names(&f, true), "B1->B5 B2->B3"), 0);
  teardown(&f);
  /* condition 3: leaving a loop from a block that does not post-dominate it (Fig. 5-like) */
  SETUP(f, "B1: B2; B2: B3 B5; B3: B4 B6; B4: B2; B5: B6; B6:", 0);
  CHECK(!no_unstructured(&f));
  CHECK_EQ_INT(strcmp(where_names(&f, true), "B2->B5 B3->B6"), 0);
  teardown(&f);
  /* a while loop: leaving from the header, which post-dominates the body, is structured */
  SETUP(f, "A: H; H: B X; B: H; X:", 0);
  CHECK(no_unstructured(&f));
  teardown(&f);
}

TEST(structure_reconverging_def15) {
  fixture f;
  /* Fig. 4.1b: every divergent branch has a post-dominating successor */
  SETUP(f, "A: D B; B: D C; C: D; D:", 0);
  CHECK(reconverging(&f));
  teardown(&f);
  /* a divergent if-then-else: neither side post-dominates the branch */
  SETUP(f, "A: B C; B: D; C: D; D:", 0);
  CHECK(!reconverging(&f));
  CHECK_EQ_INT(strcmp(where_names(&f, false), "A"), 0);
  teardown(&f);
  /* the same with a uniform branch is reconverging */
  SETUP(f, "uA: B C; B: D; C: D; D:", 0);
  CHECK(reconverging(&f));
  teardown(&f);
  /* ... unless every branch counts as divergent */
  SETUP(f, "uA: B C; B: D; C: D; D:", RC_UNIF_ALL_DIVERGENT);
  CHECK(!reconverging(&f));
  teardown(&f);
  /* a divergent switch is never reconverging, even when its successors all meet */
  SETUP(f, "A: B C D; B: E; C: E; D: E; E:", 0);
  CHECK(!reconverging(&f));
  CHECK_EQ_INT(strcmp(where_names(&f, false), "A"), 0);
  teardown(&f);
  /* a loop with a divergent exit at the latch: the exit post-dominates it */
  SETUP(f, "A: H; H: B; B: H X; X:", 0);
  CHECK(reconverging(&f));
  teardown(&f);
  /* a divergent branch to two different exits: only the virtual exit post-dominates it */
  SETUP(f, "A: B C; B:; C:", 0);
  CHECK(!reconverging(&f));
  teardown(&f);
}
