/* Property (issue 4): on thousands of kernels from the generator (reconv gen: nested loops,
 * irreducible loops, one or several exits, switches, mixes of uniform and divergent branches), for
 * every ordering, reconverge gives a kernel that verifies, is reconverging by the analysis, keeps
 * the uniform branches (same block, still a two-way branch; all of them for the post-dominance
 * orderings, the launch-invariant ones for DF and BF), is trace equivalent to the input at several
 * thread counts within the generator's step budget (inserted blocks cost no steps), and leaves an
 * already reconverging input untouched. */
#include "test.h"

#include "reconv/analysis.h"
#include "reconv/gen.h"
#include "reconv/sim.h"
#include "reconv/transform.h"

#include <stdlib.h>

static const char *orders[] = {"dfpd", "df", "bf", "bfpd", "rpot", "domreg"};

static int run(rc_ctx *ctx, const rc_kernel *k, uint32_t threads, uint64_t seed, rc_memory *mem,
               rc_traces *tr) {
  rc_run_spec s;
  rc_run_spec_init(&s);
  int rc = rc_run_spec_parse_string(ctx, &s, k->run_spec);
  if (rc == 0) {
    rc_run_spec_resize(&s, threads);
    s.seed_offset = seed;
    rc = rc_memory_init(ctx, mem, &s, k);
  }
  rc_fault fault = {0};
  rc_run_stats st;
  memset(&st, 0, sizeof st);
  if (rc == 0) rc = rc_interp_run(ctx, k, &s, mem, tr, &st, &fault);
  if (fault.happened) fprintf(stderr, "fault: %s\n", fault.message);
  rc_run_stats_free(&st);
  rc_run_spec_free(&s);
  return rc;
}

/* Every uniform two-way branch of `in` is still a two-way branch of `out`, or folded into a flow
 * block's condition (then no branch remains to diverge). With all == false only
 * those on launch-invariant conditions: DF and BF, which do not wait for post-dominators, may let
 * lanes from different iterations of a uniform loop meet, so a per-iteration uniform branch (the
 * loop's counter test) can become divergent, and the transform then reroutes it (the wave simulator
 * shows the lanes disagree if it is kept; docs/reconverge.md). */
static bool keeps_uniform_branches(const rc_kernel *in, const rc_kernel *out, bool all, char *why, size_t n) {
  rc_analysis a;
  rc_analysis_build(&a, in, 0);
  uint8_t *inv = rc_xcalloc(in->nvalues + 1, 1);
  bool ok = true;
  for (uint32_t b = 0; b < in->nblocks && ok; b++) {
    rc_instr *t = rc_block_term(in->blocks[b]);
    if (!t || t->op != RC_OP_BR || t->targets[0] == t->targets[1] || a.unif.divergent_branch[b]) continue;
    if (!all && !rc_launch_invariant(t->ops[0], inv)) continue;
    rc_block *ob = rc_kernel_find_block(out, in->blocks[b]->name);
    rc_instr *ot = ob ? rc_block_term(ob) : NULL;
    if ((!ot || ot->op != RC_OP_BR || ot->targets[0] == ot->targets[1]) && !(ob && rc_branch_folded_into_flow(ob))) {
      snprintf(why, n, "uniform branch of %s was not kept", in->blocks[b]->name);
      ok = false;
    }
  }
  free(inv);
  rc_analysis_free(&a);
  return ok;
}

TEST(reconverge_generated_kernels_every_ordering) {
  unsigned iters = test_scaled(5000);
  unsigned failures = 0, transforms = 0, runs = 0, already = 0;
  for (unsigned it = 0; it < iters && failures < 3; it++) {
    rc_gen_opts o;
    rc_gen_opts_init(&o);
    o.seed = 500 + it;
    o.blocks = 4 + it % 45;
    o.exits = 1 + (it % 4 == 0) + (it % 8 == 0);
    if (o.blocks < 2 * o.exits) o.exits = 1;
    o.loops = it % 5;
    if (o.loops > (o.blocks - 1 - o.exits) / 3) o.loops = (o.blocks - 1 - o.exits) / 3;
    o.nesting = 1 + it % 3;
    o.irreducible = o.loops > 0 && it % 3 == 0;
    o.switches = it % 7 == 0;
    o.divergent = (double)(it % 5) / 4.0;
    o.far = it % 11 == 3 ? 0.6 : it % 11 == 7 ? 0.0 : 0.15; /* mostly long jumps, or local ones only */
    for (unsigned oi = 0; oi < sizeof orders / sizeof orders[0] && failures < 3; oi++) {
      test_diags d;
      test_diags_init(&d);
      rc_module *m = rc_module_new(&d.ctx, "gen");
      rc_kernel *k = rc_gen_kernel(m, &o, NULL);
      if (!k) {
        fprintf(stderr, "gen failed: %s", d.text);
        CHECK(!"generator failed");
        rc_module_free(m);
        break;
      }
      rc_kernel *t = rc_kernel_clone(m, k, "t");
      char pipeline[64];
      snprintf(pipeline, sizeof pipeline, "reconverge[order=%s]", orders[oi]);
      rc_stats st;
      rc_stats_init(&st);
      char why[512] = "";
      bool ok = rc_pipeline_run(&d.ctx, t, pipeline, NULL, &st) == 0;
      transforms++;
      if (ok) {
        rc_analysis a;
        rc_analysis_build(&a, t, 0);
        rc_u32vec where = {0};
        ok = rc_is_reconverging(t, &a.cfg, &a.pdom, &a.unif, &where);
        if (!ok) snprintf(why, sizeof why, "output not reconverging at %s", t->blocks[where.data[0]]->name);
        rc_vec_free(&where);
        rc_analysis_free(&a);
      }
      bool post_dominance_order = strcmp(orders[oi], "df") && strcmp(orders[oi], "bf");
      if (ok) ok = keeps_uniform_branches(k, t, post_dominance_order, why, sizeof why);
      const rc_stat *al = rc_stats_get(&st, "already_reconverging");
      if (ok && al && al->ival) { /* untouched: the same text */
        already++;
        rc_strbuf x, y;
        rc_sb_init(&x);
        rc_sb_init(&y);
        rc_print_kernel(k, &x);
        rc_print_kernel(t, &y);
        ok = strcmp(strchr(x.data, '\n'), strchr(y.data, '\n')) == 0;
        if (!ok) snprintf(why, sizeof why, "already reconverging but changed");
        rc_sb_free(&x);
        rc_sb_free(&y);
      }
      static const uint32_t sizes[] = {1, 37, 64};
      for (unsigned si = 0; ok && si < 3; si++) {
        rc_memory ma = {0}, mb = {0};
        rc_traces ta = {0}, tb = {0};
        int ra = run(&d.ctx, k, sizes[si], it, &ma, &ta);
        int rb = ra == 0 ? run(&d.ctx, t, sizes[si], it, &mb, &tb) : -1;
        ok = ra == 0 && rb == 0 && rc_traces_equivalent(k, &ta, t, &tb, why, sizeof why) &&
             rc_memory_equal(&ma, &mb, why, sizeof why);
        runs++;
        rc_traces_free(&ta);
        rc_traces_free(&tb);
        rc_memory_free(&ma);
        rc_memory_free(&mb);
      }
      if (!ok) {
        failures++;
        fprintf(stderr, "reconv gen --seed %llu --blocks %u --exits %u --loops %u --nesting %u%s%s "
                        "--divergent %.2f --far %.2f | reconv opt -p '%s': %s\n%s",
                (unsigned long long)o.seed, o.blocks, o.exits, o.loops, o.nesting,
                o.irreducible ? " --irreducible" : "", o.switches ? " --switches" : "", o.divergent,
                o.far, pipeline, why, d.text);
        CHECK(!"property failed");
      }
      rc_stats_free(&st);
      rc_module_free(m);
    }
  }
  printf("%u transforms, %u equivalence runs, %u inputs already reconverging\n", transforms, runs, already);
}
