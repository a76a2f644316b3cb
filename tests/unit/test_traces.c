/* Trace equivalence: blocks compared by name, synthetic blocks skipped in either run, the first
 * difference named; and end to end with the interpreter. */
#include "reconv/sim.h"
#include "test.h"

#include <stdlib.h>

static const char *orig_text =
    "kernel @k(ptr %out) {\nentry:\n  %t = call i32 @global_id(i32 0)\n  %c = icmp eq i32 %t, 0\n"
    "  br %c, A, B\nA:\n  jmp C\nB:\n  jmp C\nC:\n  ret\n}\n";
/* the same with a flow block between A and C, and a guard block before B */
static const char *flow_text =
    "kernel @k(ptr %out) {\nentry:\n  %t = call i32 @global_id(i32 0)\n  %c = icmp eq i32 %t, 0\n"
    "  br %c, A, G\nG: !guard\n  jmp B\nA:\n  jmp F\nF: !flow\n  jmp C\nB:\n  jmp C\nC:\n  ret\n}\n";

/* Traces from lists of block names, one string per thread ("entry A C"). */
static void make_traces(rc_traces *t, const rc_kernel *k, const char *const *threads, uint32_t n) {
  memset(t, 0, sizeof *t);
  t->nthreads = n;
  t->start = rc_xcalloc(n + 1, sizeof *t->start);
  t->ids = rc_xmalloc(256 * sizeof *t->ids);
  for (uint32_t i = 0; i < n; i++) {
    t->start[i] = t->len;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", threads[i]);
    for (char *w = strtok(buf, " "); w; w = strtok(NULL, " ")) {
      const rc_block *b = rc_kernel_find_block(k, w);
      CHECK(b != NULL);
      if (b) t->ids[t->len++] = b->id;
    }
  }
  t->start[n] = t->len;
}

typedef struct pair {
  test_diags d;
  rc_module *a, *b;
} pair;

static bool load_pair(pair *p, const char *ta, const char *tb) {
  test_diags_init(&p->d);
  p->a = test_parse(&p->d, ta);
  p->b = test_parse(&p->d, tb);
  CHECK(p->a && p->b);
  return p->a && p->b;
}

static void free_pair(pair *p) {
  if (p->a) rc_module_free(p->a);
  if (p->b) rc_module_free(p->b);
}

/* Compare traces given as names; returns the verdict and leaves the message in why. */
static bool compare(pair *p, const char *const *ta, uint32_t na, const char *const *tb, uint32_t nb,
                    char *why, size_t len) {
  rc_traces a, b;
  make_traces(&a, p->a->kernels[0], ta, na);
  make_traces(&b, p->b->kernels[0], tb, nb);
  why[0] = 0;
  bool same = rc_traces_equivalent(p->a->kernels[0], &a, p->b->kernels[0], &b, why, len);
  rc_traces_free(&a);
  rc_traces_free(&b);
  return same;
}

TEST(traces_synthetic_blocks_are_skipped) {
  pair p;
  if (!load_pair(&p, orig_text, flow_text)) return;
  const char *ta[2] = {"entry A C", "entry B C"};
  const char *tb[2] = {"entry A F C", "entry G B C"};
  char why[256];
  CHECK(compare(&p, ta, 2, tb, 2, why, sizeof why));
  /* and in the other direction: synthetic blocks of the first run are skipped too */
  pair q = {.a = p.b, .b = p.a};
  CHECK(compare(&q, tb, 2, ta, 2, why, sizeof why));
  free_pair(&p);
}

TEST(traces_difference_named) {
  pair p;
  if (!load_pair(&p, orig_text, flow_text)) return;
  const char *ta[2] = {"entry A C", "entry B C"};
  const char *tb[2] = {"entry A F C", "entry G A F C"};
  char why[256];
  CHECK(!compare(&p, ta, 2, tb, 2, why, sizeof why));
  CHECK_STR_CONTAINS(why, "thread 1, position 1: expected block B, got A");
  /* a run that stops early or goes on */
  const char *shorter[2] = {"entry A C", "entry G B"};
  CHECK(!compare(&p, ta, 2, shorter, 2, why, sizeof why));
  CHECK_STR_CONTAINS(why, "thread 1: expected 3 blocks, got 2 (position 2: expected C, got the end)");
  const char *longer[2] = {"entry A F C F", "entry B C"};
  CHECK(compare(&p, ta, 2, longer, 2, why, sizeof why)); /* a trailing flow block is skipped */
  const char *longer2[2] = {"entry A F C C", "entry B C"};
  CHECK(!compare(&p, ta, 2, longer2, 2, why, sizeof why));
  CHECK_STR_CONTAINS(why, "thread 0: expected 3 blocks, got 4 (position 3: expected the end, got C)");
  /* another number of threads */
  CHECK(!compare(&p, ta, 2, tb, 1, why, sizeof why));
  CHECK_STR_CONTAINS(why, "expected 2 threads, got 1");
  free_pair(&p);
}

TEST(traces_blocks_matched_by_name_not_id) {
  /* the second kernel has its blocks in another order and one block the first lacks */
  pair p;
  if (!load_pair(&p, orig_text,
                 "kernel @k(ptr %out) {\nentry:\n  %t = call i32 @global_id(i32 0)\n  %c = icmp eq i32 %t, 0\n"
                 "  br %c, A, X\nC:\n  ret\nX:\n  jmp C\nA:\n  jmp C\n}\n"))
    return;
  CHECK(rc_kernel_find_block(p.b->kernels[0], "A")->id != rc_kernel_find_block(p.a->kernels[0], "A")->id);
  const char *ta[2] = {"entry A C", "entry B C"};
  const char *tb[2] = {"entry A C", "entry X C"};
  char why[256];
  CHECK(!compare(&p, ta, 2, tb, 2, why, sizeof why));
  CHECK_STR_CONTAINS(why, "thread 1, position 1: expected block B, got X");
  const char *tb2[2] = {"entry A C", "entry A C"};
  CHECK(!compare(&p, ta, 2, tb2, 2, why, sizeof why));
  CHECK_STR_CONTAINS(why, "thread 1, position 1: expected block B, got A");
  const char *tb3[1] = {"entry A C"};
  const char *ta3[1] = {"entry A C"};
  CHECK(compare(&p, ta3, 1, tb3, 1, why, sizeof why));
  free_pair(&p);
}

/* Run a kernel on n threads with traces. */
static int run_traced(test_diags *d, const rc_kernel *k, uint32_t n, rc_traces *t) {
  rc_run_spec s;
  rc_run_spec_init(&s);
  char spec[64];
  snprintf(spec, sizeof spec, "--global %u --arg out=i32[1]", n);
  rc_memory mem;
  int r = rc_run_spec_parse_string(&d->ctx, &s, spec);
  if (r == 0) r = rc_memory_init(&d->ctx, &mem, &s, k);
  if (r == 0) {
    r = rc_interp_run(&d->ctx, k, &s, &mem, t, NULL, NULL);
    rc_memory_free(&mem);
  }
  rc_run_spec_free(&s);
  return r;
}

TEST(traces_end_to_end_with_the_interpreter) {
  pair p;
  if (!load_pair(&p, orig_text, flow_text)) return;
  rc_traces a, b;
  CHECK_EQ_INT(run_traced(&p.d, p.a->kernels[0], 5, &a), 0);
  CHECK_EQ_INT(run_traced(&p.d, p.b->kernels[0], 5, &b), 0);
  char why[256] = "";
  CHECK(rc_traces_equivalent(p.a->kernels[0], &a, p.b->kernels[0], &b, why, sizeof why));
  CHECK_EQ_INT(a.nthreads, 5);
  CHECK_EQ_INT(a.len, 15);
  CHECK_EQ_INT(b.len, 16 + 4); /* thread 0 passes F, threads 1-4 pass G */
  rc_traces_free(&a);
  rc_traces_free(&b);
  /* swap the branch targets in the second program: thread 0 now differs first */
  free_pair(&p);
  if (!load_pair(&p, orig_text,
                 "kernel @k(ptr %out) {\nentry:\n  %t = call i32 @global_id(i32 0)\n  %c = icmp eq i32 %t, 0\n"
                 "  br %c, B, A\nA:\n  jmp C\nB:\n  jmp C\nC:\n  ret\n}\n"))
    return;
  CHECK_EQ_INT(run_traced(&p.d, p.a->kernels[0], 5, &a), 0);
  CHECK_EQ_INT(run_traced(&p.d, p.b->kernels[0], 5, &b), 0);
  CHECK(!rc_traces_equivalent(p.a->kernels[0], &a, p.b->kernels[0], &b, why, sizeof why));
  CHECK_STR_CONTAINS(why, "thread 0, position 1: expected block A, got B");
  rc_traces_free(&a);
  rc_traces_free(&b);
  free_pair(&p);
}

/* Effect traces (docs/meld.md): stores, atomics and barriers per thread with addresses and values,
 * the same from the interpreter and the wave machines; a different stored value, a different order
 * or a missing store is a difference, the blocks a thread runs are not. */
static const char *eff_a =
    "kernel @e(ptr %out) !run \"--global 8 --local 8 --arg out=i32[N]\" {\nentry:\n"
    "  %t = call i32 @global_id(i32 0)\n  %o = gep %out, i32 %t, 4\n  %c = icmp ult i32 %t, 3\n"
    "  br %c, A, B\nA:\n  store i32 1, %o\n  jmp C\nB:\n  store i32 2, %o\n  jmp C\n"
    "C:\n  call void @barrier()\n  %v = call i32 @atomic_add(ptr %o, i32 5)\n  ret\n}\n";
/* other blocks, the same effects */
static const char *eff_b =
    "kernel @e(ptr %out) !run \"--global 8 --local 8 --arg out=i32[N]\" {\nentry:\n"
    "  %t = call i32 @global_id(i32 0)\n  %o = gep %out, i32 %t, 4\n  %c = icmp ult i32 %t, 3\n"
    "  %x = select i32 %c, 1, 2\n  store i32 %x, %o\n  jmp D\nD:\n"
    "  call void @barrier()\n  %v = call i32 @atomic_add(ptr %o, i32 5)\n  ret\n}\n";
/* thread 0 stores 3: the same memory after the atomics? no: a different value stored */
static const char *eff_c =
    "kernel @e(ptr %out) !run \"--global 8 --local 8 --arg out=i32[N]\" {\nentry:\n"
    "  %t = call i32 @global_id(i32 0)\n  %o = gep %out, i32 %t, 4\n  %c = icmp ult i32 %t, 3\n"
    "  %x = select i32 %c, 1, 2\n  %z = icmp eq i32 %t, 0\n  %y = select i32 %z, 3, %x\n"
    "  store i32 %y, %o\n  jmp D\nD:\n"
    "  call void @barrier()\n  %v = call i32 @atomic_add(ptr %o, i32 5)\n  ret\n}\n";

static bool effects_of(test_diags *d, const char *text, int machine, rc_traces *t) {
  rc_module *m = test_parse(d, text);
  CHECK(m != NULL);
  if (!m) {
    fprintf(stderr, "%s", d->text);
    return false;
  }
  rc_run_spec s;
  rc_run_spec_init(&s);
  CHECK(rc_run_spec_parse_kernel(&d->ctx, &s, m->kernels[0]) == 0);
  s.effect_traces = true;
  rc_memory mem = {0};
  CHECK(rc_memory_init(&d->ctx, &mem, &s, m->kernels[0]) == 0);
  int rc = machine == 0 ? rc_interp_run(&d->ctx, m->kernels[0], &s, &mem, t, NULL, NULL)
                        : rc_ipdom_run(&d->ctx, m->kernels[0], &s, &mem, t, NULL, NULL, NULL);
  CHECK_EQ_INT(rc, 0);
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
  rc_module_free(m);
  return rc == 0;
}

TEST(effect_traces_compare_stores_atomics_and_barriers) {
  test_diags d;
  test_diags_init(&d);
  rc_traces a = {0}, b = {0}, c = {0}, w = {0};
  CHECK(effects_of(&d, eff_a, 0, &a) && effects_of(&d, eff_b, 0, &b) && effects_of(&d, eff_c, 0, &c) &&
        effects_of(&d, eff_a, 1, &w));
  CHECK(a.effects && w.effects);
  uint64_t len;
  rc_traces_thread(&a, 0, &len);
  CHECK_EQ_INT((long long)len, 3 * RC_EFFECT_WORDS); /* store, barrier, atomic */
  char why[400] = "";
  CHECK(rc_effects_equivalent(&a, &b, why, sizeof why));
  CHECK(rc_effects_equivalent(&a, &w, why, sizeof why)); /* the IPDOM model records the same */
  CHECK(!rc_effects_equivalent(&a, &c, why, sizeof why));
  CHECK_STR_CONTAINS(why, "thread 0, effect 0: expected store of 4 bytes 0x1");
  CHECK_STR_CONTAINS(why, "got store of 4 bytes 0x3");
  rc_traces_free(&a);
  rc_traces_free(&b);
  rc_traces_free(&c);
  rc_traces_free(&w);
}
