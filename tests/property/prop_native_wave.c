/* Property: the native wave backend runs every wave kernel like the threads. Random kernels of
 * `reconv gen` (irreducible loops, several exits, switches, uniform and divergent branches and
 * loops, barriers in uniform control flow, the duplicated code meld looks for) go through every wave
 * lowering (reconverge + lower under several orderings and options, linearize + reconverge + lower,
 * meld + reconverge + lower, blockip, full-linearize) and run natively, a wave of W = 4, 8, 16, 32
 * or 64 lanes in the host's vector registers; the memory they leave must be the interpreter's. (The
 * traces are the simulator's business: prop_wave_equiv.c, prop_sweep.c.)
 *
 * And the test of the test: with the merges under exec dropped (rc_native_wave_opts.drop_merges,
 * the mistake of a backend that lets a vector instruction overwrite its inactive lanes), some of
 * these kernels must come out different. */
#include "test.h"

#ifdef RECONV_HAVE_LLVM

#include "barrier_placement.h"
#include "reconv/gen.h"
#include "reconv/native_wave.h"
#include "reconv/sim.h"
#include "reconv/transform.h"
#include "wave_outcome.h"

#include <stdlib.h>

static const uint32_t waves[] = {4, 8, 16, 32, 64};
static const char *pipelines[] = {
    "reconverge,lower",
    "blockip",
    "reconverge[order=bfpd],lower[noflow]",
    "full-linearize",
    "linearize,reconverge,lower",
    "meld,reconverge,lower",
    "reconverge[order=rpot],lower[noskip,noscalar]",
    "reconverge[order=dfpd],lower[skip-threshold=0]",
    "reconverge[order=dfpd],lower[noflow,zero-max=0]",
};
#define NPIPELINES (sizeof pipelines / sizeof *pipelines)

static rc_kernel *kernel_for(rc_module *m, unsigned it, bool *barriers) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  o.seed = 120000 + it;
  o.blocks = 4 + it % 37;
  o.exits = 1 + (it % 7 == 3) + (it % 11 == 5) * (o.blocks >= 9);
  o.loops = o.blocks / 8 + (it % 3 == 0);
  o.irreducible = it % 3 == 0 && o.blocks >= 8;
  o.switches = it % 5 == 2;
  o.divergent = (it % 10) / 10.0;
  o.similar = it % NPIPELINES == 5; /* meld's row: code worth melding */
  o.threads = 1 + (it * 37) % 150;
  rc_kernel *k = rc_gen_kernel(m, &o, NULL);
  *barriers = k && it % 4 == 3 && place_barriers(k) > 0;
  return k;
}

/* The lowered kernel natively: 0 with mem filled, or -1 (fault or error: *why says which). */
static int native_run(rc_ctx *ctx, const rc_kernel *w, const rc_run_spec *s, bool drop_merges, rc_memory *mem,
                      char *why, size_t n) {
  rc_native_wave_opts o = {.wave = s->wave, .drop_merges = drop_merges};
  rc_native_wave *nw = rc_native_wave_open(ctx, w, &o);
  if (!nw) {
    snprintf(why, n, "the backend refused the kernel");
    return -1;
  }
  rc_fault fault;
  int rc = rc_memory_init(ctx, mem, s, w) == 0 ? rc_native_wave_run(nw, s, mem, NULL, &fault) : -1;
  if (rc != 0) snprintf(why, n, "%s", fault.happened ? fault.message : "the run failed");
  rc_native_wave_close(nw);
  return rc;
}

typedef struct native_case {
  test_diags d;
  rc_module *m;
  rc_kernel *k, *w;
  rc_run_spec s;
  outcome ref;
  const char *pipeline;
  bool barriers;
} native_case;

/* Kernel it, lowered by its pipeline at its wave size, and the interpreter's run of it. false when
 * the pipeline refused it (allowed for linearize and meld only: they may decline a kernel). */
static bool case_init(native_case *c, unsigned it) {
  memset(c, 0, sizeof *c);
  test_diags_init(&c->d);
  c->m = rc_module_new(&c->d.ctx, "random");
  c->k = kernel_for(c->m, it, &c->barriers);
  CHECK(c->k != NULL);
  if (!c->k) return false;
  c->pipeline = pipelines[it % NPIPELINES];
  rc_run_spec_init(&c->s);
  CHECK(rc_run_spec_parse_kernel(&c->d.ctx, &c->s, c->k) == 0);
  c->s.wave = waves[(it / NPIPELINES) % 5];
  run_on(&c->d.ctx, MACHINE_THREADS, c->k, &c->s, &c->ref);
  CHECK_EQ_INT(c->ref.rc, 0);
  c->w = rc_kernel_clone(c->m, c->k, "lowered");
  if (rc_pipeline_run(&c->d.ctx, c->w, c->pipeline, NULL, NULL) != 0) return false;
  return c->ref.rc == 0;
}

static void case_free(native_case *c) {
  outcome_free(&c->ref);
  rc_run_spec_free(&c->s);
  if (c->m) rc_module_free(c->m);
}

TEST(random_wave_kernels_run_natively_like_the_threads) {
  unsigned iters = test_scaled(80), failures = 0, runs = 0, with_barriers = 0, refused = 0;
  for (unsigned it = 0; it < iters && failures < 5; it++) {
    native_case c;
    if (!case_init(&c, it)) {
      refused++;
      CHECK(strstr(c.pipeline, "linearize,") || strstr(c.pipeline, "meld"));
      case_free(&c);
      continue;
    }
    rc_memory mem = {0};
    char why[700] = "";
    int rc = native_run(&c.d.ctx, c.w, &c.s, false, &mem, why, sizeof why);
    if (rc == 0 && !rc_memory_equal(&c.ref.mem, &mem, why, sizeof why)) rc = -1;
    if (rc != 0) {
      fprintf(stderr, "kernel %u (reconv gen --seed %u), %s, W=%u: %s\n%s", it, 120000 + it, c.pipeline, c.s.wave,
              why, c.d.text);
      failures++;
      CHECK(!"the native run differs from the interpreter's");
    }
    runs++;
    with_barriers += c.barriers;
    rc_memory_free(&mem);
    case_free(&c);
  }
  printf("%u random kernels (%u with barriers) x %zu wave lowerings x W = 4..64: %u native runs equivalent to "
         "the interpreter, %u declined by the pipeline\n",
         iters, with_barriers, NPIPELINES, runs - failures, refused);
}

TEST(a_backend_that_drops_the_merges_under_exec_is_caught) {
  unsigned tried = 0, caught = 0;
  for (unsigned it = 0; it < 400 && !caught; it++) {
    native_case c;
    if (!case_init(&c, it)) {
      case_free(&c);
      continue;
    }
    tried++;
    rc_memory mem = {0};
    char why[700] = "";
    if (native_run(&c.d.ctx, c.w, &c.s, true, &mem, why, sizeof why) != 0 ||
        !rc_memory_equal(&c.ref.mem, &mem, why, sizeof why)) {
      caught++;
      printf("dropped merges: kernel %u (%s, W=%u) differs: %s\n", it, c.pipeline, c.s.wave, why);
    }
    rc_memory_free(&mem);
    case_free(&c);
  }
  CHECK(caught > 0);
  printf("dropped merges caught after %u kernels\n", tried);
}

#else
TEST(native_wave_backend_needs_llvm) {
  printf("reconv was built without the LLVM bridge: the native wave backend is not there\n");
}
#endif
