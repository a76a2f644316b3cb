/* libFuzzer harness for the wave pipeline (make fuzz; scripts/fuzz.sh): what `reconv sim` and
 * `reconv compare` run. The input is either .rir text (when it parses and verifies: every
 * thread-level kernel of it that the interpreter runs) or, otherwise, bytes that choose a kernel of
 * `reconv gen` (as fuzz_reconverge does). Each kernel runs on the thread-level interpreter; when
 * that run succeeds, the IPDOM-stack model on the kernel itself and the wave simulator on the
 * kernel after `reconverge[order=...],lower[...]` (an ordering that respects post-dominance, a
 * lowering variant and a wave size chosen by the input) must give every thread the same trace and
 * leave the same memory (thesis 4.2; tests/property/prop_wave_equiv.c checks the same from a PRNG).
 *
 * The work per input is bounded so that the harness stays fast: parsed launches are cut to 256
 * work-items, 4 MiB of buffers and 20,000 steps per thread; generated ones have at most 62 blocks
 * and 70 threads. Parsed kernels lose their !uniform and !divergent annotations first: a false
 * !uniform claim of the input makes the wave simulator fault, by design (docs/cli.md, "Faults");
 * and those with a barrier in divergent control flow run on the interpreter only. */
#include "reconv/analysis.h"
#include "reconv/gen.h"
#include "reconv/sim.h"
#include "reconv/transform.h"
#include "../property/wave_outcome.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void quiet(void *user, const rc_diag *d) {
  (void)user;
  (void)d;
}

static const char *const orders[] = {"auto", "dfpd", "bfpd", "rpot", "domreg"};
static const char *const variants[] = {"", "[flow]", "[noskip]", "[noscalar]", "[flow,noskip]", "[skip-threshold=0]"};
static const uint32_t waves[] = {1, 2, 3, 4, 7, 8, 16, 32, 33, 64};

static void fail(const char *what, const rc_kernel *k, const char *pipeline, uint32_t W, const char *why) {
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_print_kernel(k, &sb);
  fprintf(stderr, "fuzz_wave: %s (%s, W=%u): %s\n--- kernel:\n%s\n", what, pipeline, W, why, sb.data ? sb.data : "");
  rc_sb_free(&sb);
  abort();
}

/* Can this launch run within the harness's bounds? */
static bool small_enough(const rc_run_spec *s) {
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < s->nargs; i++) {
    const rc_arg_spec *a = &s->args[i];
    if (a->init == RC_INIT_FILE) return false;
    if (a->is_buffer) bytes += rc_arg_count(a, s) * 8;
  }
  return bytes <= ((uint64_t)4 << 20);
}

/* Has k a barrier in divergent control flow? A wave meets it with only some of its lanes, which
 * the wave-level machines fault at by design (docs/cli.md, "reconv sim"), while the threads may
 * all get there in the end. */
static bool divergent_barriers(const rc_kernel *k) {
  rc_analysis a;
  rc_analysis_build(&a, k, 0);
  uint32_t n = rc_divergent_barriers(k, &a, NULL);
  rc_analysis_free(&a);
  return n > 0;
}

/* k (thread level, verified) against its lowered form and the IPDOM model; choice picks the
 * ordering, the lowering variant and the wave size. */
static void check_kernel(rc_ctx *ctx, rc_kernel *k, const rc_run_spec *given, uint32_t choice) {
  rc_run_spec s;
  rc_run_spec_copy(&s, given);
  s.wave = waves[choice % 10];
  char pipeline[96];
  snprintf(pipeline, sizeof pipeline, "reconverge[order=%s],lower%s", orders[(choice / 10) % 5],
           variants[(choice / 50) % 6]);
  outcome ref, ip, wv;
  run_on(ctx, MACHINE_THREADS, k, &s, &ref);
  if (ref.rc == 0) {
    char why[700] = "";
    run_on(ctx, MACHINE_IPDOM, k, &s, &ip);
    if (!same_outcome(k, &ref, k, &ip, why, sizeof why)) fail("the IPDOM model differs", k, "", s.wave, why);
    outcome_free(&ip);
    rc_kernel *w = rc_kernel_clone(k->mod, k, "fuzz.lowered");
    if (!w || rc_pipeline_run(ctx, w, pipeline, NULL, NULL) != 0) fail("the pipeline failed", k, pipeline, s.wave, "");
    run_on(ctx, MACHINE_WAVE, w, &s, &wv);
    if (!same_outcome(k, &ref, w, &wv, why, sizeof why)) fail("the wave simulator differs", k, pipeline, s.wave, why);
    outcome_free(&wv);
    rc_module_remove_kernel(k->mod, w);
  }
  outcome_free(&ref);
  rc_run_spec_free(&s);
}

/* The input as .rir text: 1 when it parsed and verified (and its kernels were checked). */
static int check_parsed(rc_ctx *ctx, const uint8_t *data, size_t size, uint32_t choice) {
  rc_module *m = rc_parse_module_unverified(ctx, "fuzz.rir", (const char *)data, size);
  if (!m) return 0;
  if (rc_verify_module(ctx, m) != 0) {
    rc_module_free(m);
    return 0;
  }
  /* inlining and stripping the annotations first, so that every kernel is checked as it is here */
  uint32_t n = m->nkernels;
  for (uint32_t i = 0; i < n; i++) {
    rc_kernel *k = m->kernels[i];
    if (k->is_function || k->level != RC_LEVEL_THREAD) continue;
    for (uint32_t b = 0; b < k->nblocks; b++)
      for (rc_instr *in = k->blocks[b]->first; in; in = in->next) in->iflags &= (uint8_t) ~(RC_IF_UNIFORM | RC_IF_DIVERGENT);
    rc_run_spec s;
    rc_run_spec_init(&s);
    const rc_instr *stuck = NULL;
    if (rc_run_spec_parse_kernel(ctx, &s, k) == 0 && rc_run_spec_check(ctx, &s, k) == 0 &&
        rc_inline_calls(k, 2000, &stuck) >= 0 && rc_verify_kernel(ctx, k) == 0) {
      if (rc_run_spec_threads(&s) > 256) rc_run_spec_resize(&s, 256);
      if (!s.step_budget || s.step_budget > 20000) s.step_budget = 20000;
      if (small_enough(&s) && !divergent_barriers(k)) check_kernel(ctx, k, &s, choice);
    }
    rc_run_spec_free(&s);
  }
  rc_module_free(m);
  return 1;
}

/* The input as options of `reconv gen` (fuzz_reconverge.c reads them the same way). */
static void check_generated(rc_ctx *ctx, const uint8_t *data, size_t size, uint32_t choice) {
  if (size < 8) return;
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  memcpy(&o.seed, data, sizeof o.seed);
  o.blocks = 3 + data[0] % 60;
  o.exits = 1 + data[1] % 3;
  if (o.blocks < 2 * o.exits + 1) o.exits = 1;
  o.loops = data[2] % 6;
  if (o.loops > (o.blocks - 1 - o.exits) / 3) o.loops = (o.blocks - 1 - o.exits) / 3;
  o.nesting = 1 + data[3] % 4;
  o.irreducible = o.loops && (data[4] & 1);
  o.switches = data[4] & 2;
  o.divergent = (data[5] % 5) / 4.0;
  o.far = (data[6] % 4) * 0.2;
  o.threads = 1 + data[7] % 70;
  rc_module *m = rc_module_new(ctx, "fuzz");
  rc_kernel *k = rc_gen_kernel(m, &o, NULL);
  if (k) { /* else options the generator refuses */
    rc_run_spec s;
    rc_run_spec_init(&s);
    if (rc_run_spec_parse_kernel(ctx, &s, k) == 0) check_kernel(ctx, k, &s, choice);
    rc_run_spec_free(&s);
  }
  rc_module_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  ctx.diag = quiet;
  ctx.verify_each = true;
  uint32_t h = 2166136261u; /* FNV-1a of the input: the choices */
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;
  if (!check_parsed(&ctx, data, size, h % 300)) check_generated(&ctx, data, size, h % 300);
  return 0;
}
