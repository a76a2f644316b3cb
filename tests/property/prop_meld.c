/* Property: meld (DARM control-flow melding, docs/meld.md) keeps every thread's effects. For 6,000
 * random kernels of `reconv gen --similar` (duplicated, slightly varied code on both sides of
 * divergent branches; diamonds with isomorphic and non-isomorphic sides; loops, irreducible loops,
 * several exits and switches mixed in), melded at thresholds 0, 0.1, 0.2 and 0.4:
 *   - the melded kernel, at thread level, performs per thread the same stores, atomics and barriers
 *     with the same addresses and values, in the same order (effect traces), and leaves the same
 *     memory as the original (rc_effects_equivalent, rc_memory_equal); it never faults where the
 *     original does not (an unaligned load or division runs only for the threads that ran it);
 *   - on a sample, meld,reconverge,lower runs on the wave simulator at wave sizes 1..64 with the
 *     same effect traces and memory;
 *   - the IR is valid after every pass on a sample (ctx.verify_each).
 * Irreducible and multi-exit kernels are included: regions meld cannot handle are left alone and
 * counted in its statistics (meld_left_alone_*), which this test sums up. */
#include "test.h"

#include "reconv/gen.h"
#include "reconv/sim.h"
#include "reconv/transform.h"

#include <stdlib.h>
#include <string.h>

static const uint32_t waves[] = {1, 3, 4, 7, 16, 32, 33, 64};
static const char *thresholds[] = {"0.2", "0.1", "0.4", "0"};

typedef struct outcome {
  rc_memory mem;
  rc_traces tr;
  rc_fault fault;
  int rc;
} outcome;

static void outcome_free(outcome *o) {
  rc_memory_free(&o->mem);
  rc_traces_free(&o->tr);
}

static void run_on(rc_ctx *ctx, bool wave, const rc_kernel *k, const rc_run_spec *s, outcome *o) {
  memset(o, 0, sizeof *o);
  o->rc = rc_memory_init(ctx, &o->mem, s, k);
  if (o->rc) return;
  if (!wave) o->rc = rc_interp_run(ctx, k, s, &o->mem, &o->tr, NULL, &o->fault);
  else o->rc = rc_wave_run(ctx, k, s, &o->mem, &o->tr, NULL, &o->fault, NULL);
}

static bool same(const outcome *a, const outcome *b, char *why, size_t n) {
  if (b->rc) {
    snprintf(why, n, "%s", b->fault.happened ? b->fault.message : "error");
    return false;
  }
  return rc_effects_equivalent(&a->tr, &b->tr, why, n) && rc_memory_equal(&a->mem, &b->mem, why, n);
}

static rc_kernel *kernel_for(rc_module *m, unsigned it) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.seed = 7000 + it;
  o.similar = true;
  o.blocks = 5 + it % 36;
  o.exits = 1 + (it % 7 == 3) + (it % 11 == 5) * (o.blocks >= 9);
  o.loops = o.blocks / 10 + (it % 4 == 0);
  o.irreducible = it % 6 == 0 && o.blocks >= 8;
  if (o.irreducible && o.loops == 0) o.loops = 1;
  o.switches = it % 9 == 2;
  o.divergent = 0.3 + (it % 7) / 10.0;
  o.threads = 1 + (it * 37) % 100;
  return rc_gen_kernel(m, &o, NULL);
}

static void report(const char *what, unsigned it, const char *pipeline, uint32_t W, const char *why,
                   const test_diags *d) {
  fprintf(stderr, "%s: kernel %u (reconv gen --similar --seed %u), %s, W=%u: %s\n%s", what, it, 7000 + it,
          pipeline, W, why, d->text);
}

/* why meld left a region alone (docs/meld.md) */
static const char *why_stats[] = {"meld_left_alone_no_exit", "meld_left_alone_shared_blocks",
                                  "meld_left_alone_multi_entry", "meld_left_alone_cyclic",
                                  "meld_left_alone_unsupported"};
#define NWHY (int)(sizeof why_stats / sizeof why_stats[0])

static int64_t stat(const rc_stats *s, const char *name) {
  const rc_stat *st = rc_stats_get(s, name);
  return st ? st->ival : 0;
}

TEST(melded_kernels_keep_every_threads_effects) {
  unsigned iters = test_scaled(6000), failures = 0, melded_kernels = 0, waved = 0, irregular = 0,
           irregular_left = 0;
  uint64_t subgraphs = 0, runs = 0, left = 0, regions = 0, replicated = 0, simplified = 0, left_why[NWHY] = {0};
  for (unsigned it = 0; it < iters && failures < 5; it++) {
    test_diags d;
    test_diags_init(&d);
    d.ctx.verify_each = it % 4 == 0;
    rc_module *m = rc_module_new(&d.ctx, "random");
    rc_kernel *k = kernel_for(m, it);
    if (!k) {
      report("gen failed", it, "", 0, "", &d);
      failures++;
      CHECK(!"gen failed");
      rc_module_free(m);
      continue;
    }
    rc_run_spec s;
    rc_run_spec_init(&s);
    CHECK(rc_run_spec_parse_kernel(&d.ctx, &s, k) == 0);
    s.effect_traces = true;
    s.wave = waves[it % 8];
    char pipeline[96];
    snprintf(pipeline, sizeof pipeline, "meld[threshold=%s]", thresholds[it % 4]);
    rc_kernel *mk = rc_kernel_clone(m, k, "melded");
    rc_stats st;
    rc_stats_init(&st);
    outcome ref, got;
    char why[700] = "";
    run_on(&d.ctx, false, k, &s, &ref);
    CHECK_EQ_INT(ref.rc, 0);
    if (rc_pipeline_run(&d.ctx, mk, pipeline, NULL, &st) != 0) {
      report("meld failed", it, pipeline, 0, "", &d);
      failures++;
      CHECK(!"meld failed");
    } else {
      int64_t sg = stat(&st, "meld_subgraphs_melded");
      int64_t la = 0;
      for (int w = 0; w < NWHY; w++) {
        int64_t n = stat(&st, why_stats[w]);
        la += n;
        left_why[w] += (uint64_t)n;
      }
      simplified += (uint64_t)stat(&st, "meld_regions_simplified");
      subgraphs += (uint64_t)sg;
      runs += (uint64_t)stat(&st, "meld_unpredicated_runs");
      regions += (uint64_t)stat(&st, "meld_regions_melded");
      replicated += (uint64_t)stat(&st, "meld_regions_replicated");
      left += (uint64_t)la;
      melded_kernels += sg > 0;
      bool irr = it % 6 == 0 || it % 7 == 3 || it % 11 == 5;
      irregular += irr;
      irregular_left += irr && la > 0;
      run_on(&d.ctx, false, mk, &s, &got);
      if (ref.rc == 0 && !same(&ref, &got, why, sizeof why)) {
        report("melded kernel differs", it, pipeline, 0, why, &d);
        failures++;
        CHECK(!"melded kernel not equivalent");
      }
      outcome_free(&got);
    }
    rc_stats_free(&st);
    if (it % 3 == 0) { /* the whole pipeline, on the wave simulator */
      snprintf(pipeline, sizeof pipeline, "meld[threshold=%s],reconverge,lower", thresholds[(it / 3) % 4]);
      rc_kernel *w = rc_kernel_clone(m, k, "lowered");
      if (rc_pipeline_run(&d.ctx, w, pipeline, NULL, NULL) != 0) {
        report("pipeline failed", it, pipeline, s.wave, "", &d);
        failures++;
        CHECK(!"pipeline failed");
      } else {
        waved++;
        run_on(&d.ctx, true, w, &s, &got);
        if (ref.rc == 0 && !same(&ref, &got, why, sizeof why)) {
          report("wave simulator differs", it, pipeline, s.wave, why, &d);
          failures++;
          CHECK(!"lowered melded kernel not equivalent");
        }
        outcome_free(&got);
      }
    }
    outcome_free(&ref);
    rc_run_spec_free(&s);
    rc_module_free(m);
  }
  printf("%u random kernels (gen --similar) melded at thresholds 0/0.1/0.2/0.4: %u with melds (%llu regions, "
         "%llu subgraph pairs, %llu region replications, %llu unpredicated runs), %u also lowered and run on the wave simulator; "
         "%llu regions left alone; %u of %u irreducible or multi-exit kernels had regions left alone; "
         "%u mismatches\n",
         iters, melded_kernels, (unsigned long long)regions, (unsigned long long)subgraphs, (unsigned long long)replicated, (unsigned long long)runs,
         waved, (unsigned long long)left, irregular_left, irregular, failures);
  printf("regions left alone by reason:");
  for (int w = 0; w < NWHY; w++) printf(" %s %llu", why_stats[w] + strlen("meld_left_alone_"), (unsigned long long)left_why[w]);
  printf("; regions simplified (section IV-A) %llu\n", (unsigned long long)simplified);
  CHECK(melded_kernels * 4 >= iters); /* the property is not vacuous: most kernels meld something */
}

/* ---- region simplification (section IV-A) --------------------------------------------------------------- */

/* A small deterministic generator (splitmix64), so that a kernel is named by its number. */
static uint64_t next_rand(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A divergent if-then-else that is not simple as a whole (regions gen --similar hardly makes): each
 * side is a chain of 1-3 blocks of similar code (a load, a multiply, an add and a store, with other
 * constants per side); a block may leave its side early, on a condition of its value, to the
 * side's own return, a return both sides share, a block S both sides may skip to (phis in S and X
 * tell the predecessors apart), the join X, or (true side only) into a block of the false side
 * (which then is not entered only from its side). Sometimes the false side's last block loops back
 * to its first (a cycle in the side), or the sides have different lengths. */
static void simplify_kernel(rc_strbuf *sb, unsigned it) {
  uint64_t st = 0x5eed0000u + it;
  unsigned n[2] = {1 + (unsigned)(next_rand(&st) % 3), 0};
  n[1] = next_rand(&st) % 4 == 0 ? 1 + (unsigned)(next_rand(&st) % 3) : n[0];
  bool loop = next_rand(&st) % 8 == 0 && n[1] >= 2;
  unsigned threads = 1 + (unsigned)(next_rand(&st) % 100);
  rc_sb_printf(sb, "kernel @simplify(ptr %%in, ptr %%out) !run \"--global %u --arg in=i32[N]:rand(%u,0,99) "
                   "--arg out=i32[N]\" {\nentry:\n  %%tid = call i32 @global_id(i32 0)\n"
                   "  %%pi = gep %%in, i32 %%tid, 4\n  %%po = gep %%out, i32 %%tid, 4\n  %%x = load i32, %%pi\n"
                   "  %%c = icmp ult i32 %%x, %u\n  br %%c, t0, f0\n",
               threads, it % 97, 20 + (unsigned)(next_rand(&st) % 60));
  /* per block: where its early exit goes (-1: none) */
  const char *side = "tf";
  RC_VEC(char *) s_preds = {0}, x_preds = {0};
  for (int sd = 0; sd < 2; sd++)
    for (unsigned i = 0; i < n[sd]; i++) {
      char name[16], next[16];
      snprintf(name, sizeof name, "%c%u", side[sd], i);
      if (i + 1 < n[sd]) snprintf(next, sizeof next, "%c%u", side[sd], i + 1);
      else snprintf(next, sizeof next, "X");
      unsigned k1 = 3 + 2 * (unsigned)sd + (unsigned)(next_rand(&st) % 2), k2 = 7 + (unsigned)(next_rand(&st) % 9);
      rc_sb_printf(sb, "%s:\n  %%%s.v = load i32, %%po\n  %%%s.m = mul i32 %%%s.v, %u\n  %%%s.s = add i32 %%%s.m, %u\n"
                       "  store i32 %%%s.s, %%po\n",
                   name, name, name, name, k1, name, name, k2, name);
      unsigned how = (unsigned)(next_rand(&st) % 7);
      const char *to = NULL;
      char cross[16];
      switch (how) {
      case 0: to = sd ? "Rf" : "Rt"; break;
      case 1: to = "R"; break;
      case 2: case 3: to = "S"; break;
      case 4: to = "X"; break;
      case 5:
        if (sd == 0 && n[1] > 1) {
          snprintf(cross, sizeof cross, "f%u", 1 + (unsigned)(next_rand(&st) % (n[1] - 1)));
          to = cross;
        }
        break;
      default: break;
      }
      if (loop && sd == 1 && i + 1 == n[1]) { /* the false side's last block: a bounded loop */
        rc_sb_printf(sb, "  %%%s.l = icmp ult i32 %%%s.s, %u\n  br %%%s.l, f0, %s\n", name, name,
                     100 + (unsigned)(next_rand(&st) % 400), name, to && !strcmp(to, "S") ? "S" : "X");
        rc_vec_push(to && !strcmp(to, "S") ? &s_preds : &x_preds, rc_xstrdup(name));
        continue;
      }
      if (to && !(to[0] == 'X' && !strcmp(next, "X"))) {
        rc_sb_printf(sb, "  %%%s.e = icmp sgt i32 %%%s.s, %u\n  br %%%s.e, %s, %s\n", name, name,
                     60 + (unsigned)(next_rand(&st) % 300), name, to, next);
        if (!strcmp(to, "S")) rc_vec_push(&s_preds, rc_xstrdup(name));
        if (!strcmp(to, "X")) rc_vec_push(&x_preds, rc_xstrdup(name));
      } else {
        rc_sb_printf(sb, "  jmp %s\n", next);
      }
      if (!strcmp(next, "X")) rc_vec_push(&x_preds, rc_xstrdup(name));
    }
  rc_sb_puts(sb, "Rt:\n  ret\nRf:\n  %rf = add i32 %x, 1\n  store i32 %rf, %po\n  ret\nR:\n  %r = load i32, %po\n"
                 "  %r.1 = xor i32 %r, 3\n  store i32 %r.1, %po\n  ret\nS:\n");
  if (s_preds.len) {
    rc_sb_puts(sb, "  %s.p = phi i32");
    for (uint32_t i = 0; i < s_preds.len; i++)
      rc_sb_printf(sb, "%s [%%%s.s, %s]", i ? "," : "", s_preds.data[i], s_preds.data[i]);
    rc_sb_puts(sb, "\n  %s.v = sub i32 %s.p, 100\n  store i32 %s.v, %po\n");
  }
  rc_sb_puts(sb, "  jmp X\nX:\n  %y = phi i32");
  for (uint32_t i = 0; i < x_preds.len; i++) rc_sb_printf(sb, " [%%%s.s, %s],", x_preds.data[i], x_preds.data[i]);
  rc_sb_puts(sb, " [%x, S]\n  %y.1 = add i32 %y, 1\n  store i32 %y.1, %po\n  ret\n}\n");
  for (uint32_t i = 0; i < s_preds.len; i++) free(s_preds.data[i]);
  for (uint32_t i = 0; i < x_preds.len; i++) free(x_preds.data[i]);
  rc_vec_free(&s_preds);
  rc_vec_free(&x_preds);
}

TEST(simplified_regions_keep_every_threads_effects) {
  unsigned iters = test_scaled(600), failures = 0, simplified_kernels = 0, left_before = 0;
  uint64_t simplified = 0;
  for (unsigned it = 0; it < iters && failures < 5; it++) {
    test_diags d;
    test_diags_init(&d);
    d.ctx.verify_each = true;
    rc_strbuf text;
    rc_sb_init(&text);
    simplify_kernel(&text, it);
    rc_module *m = rc_parse_module(&d.ctx, "simplify.rir", text.data, text.len);
    if (!m) {
      fprintf(stderr, "simplify kernel %u does not parse:\n%s\n%s", it, text.data, d.text);
      failures++;
      CHECK(!"kernel does not parse");
      rc_sb_free(&text);
      continue;
    }
    rc_kernel *k = m->kernels[0];
    rc_run_spec s;
    rc_run_spec_init(&s);
    CHECK(rc_run_spec_parse_kernel(&d.ctx, &s, k) == 0);
    s.effect_traces = true;
    s.wave = waves[it % 8];
    outcome ref, got;
    run_on(&d.ctx, false, k, &s, &ref);
    CHECK_EQ_INT(ref.rc, 0);
    char pipeline[96], why[700] = "";
    /* before: without simplification the region is left alone */
    rc_kernel *nk = rc_kernel_clone(m, k, "plain");
    rc_stats st;
    rc_stats_init(&st);
    snprintf(pipeline, sizeof pipeline, "meld[threshold=%s,nosimplify]", thresholds[it % 4]);
    CHECK(rc_pipeline_run(&d.ctx, nk, pipeline, NULL, &st) == 0);
    left_before += stat(&st, "meld_regions_melded") == 0;
    rc_stats_free(&st);
    for (int wave = 0; wave < 2; wave++) {
      snprintf(pipeline, sizeof pipeline, wave ? "meld[threshold=%s],reconverge,lower" : "meld[threshold=%s]",
               thresholds[it % 4]);
      rc_kernel *mk = rc_kernel_clone(m, k, wave ? "lowered" : "melded");
      rc_stats_init(&st);
      if (rc_pipeline_run(&d.ctx, mk, pipeline, NULL, &st) != 0) {
        fprintf(stderr, "simplify kernel %u: %s failed\n%s\n%s", it, pipeline, text.data, d.text);
        failures++;
        CHECK(!"pipeline failed");
      } else {
        if (!wave) {
          int64_t n = stat(&st, "meld_regions_simplified");
          simplified += (uint64_t)n;
          simplified_kernels += n > 0;
        }
        run_on(&d.ctx, wave, mk, &s, &got);
        if (ref.rc == 0 && !same(&ref, &got, why, sizeof why)) {
          fprintf(stderr, "simplify kernel %u, %s, W=%u: %s\n%s", it, pipeline, s.wave, why, text.data);
          failures++;
          CHECK(!"melded kernel not equivalent");
        }
        outcome_free(&got);
      }
      rc_stats_free(&st);
    }
    outcome_free(&ref);
    rc_run_spec_free(&s);
    rc_module_free(m);
    rc_sb_free(&text);
  }
  printf("%u kernels with regions that are not simple as a whole: %u left alone without region simplification, "
         "%u with regions melded after it (%llu regions); %u mismatches\n",
         iters, left_before, simplified_kernels, (unsigned long long)simplified, failures);
  /* not vacuous: region simplification melds in a good share of them (29% of 600 in the normal
   * build, 23% of the 120 of the sanitizer build's smaller scale; 0 without it) */
  CHECK(simplified_kernels * 8 >= iters);
}
