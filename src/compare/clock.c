/* The comparison on this machine's clock (compare_internal.h): every wave row's lowered kernel on
 * the native wave backend (include/reconv/native_wave.h), the thread-level kernel compiled by LLVM
 * for this CPU at -O2 and run one work-item at a time (native-scalar: the native oracle's launcher,
 * tuned for the host), and the OpenCL C kernel on pocl (pocl.c). All run the same launch, scaled up
 * so that a run lasts long enough to time, as the fastest of `repeat` runs after a warm-up, and
 * leave their memory to be checked against the interpreter's on that launch: exactly for the wave
 * rows (their math is the interpreter's), floats allowed to differ for native-scalar and pocl
 * (LLVM fuses OpenCL's mad where the CPU has FMA, pocl has its own math library). */
#include "compare_internal.h"

#ifdef RECONV_HAVE_LLVM
#include "reconv/llvm.h"
#include "reconv/native.h"
#include "reconv/native_wave.h"
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A context whose first error goes into a buffer. */
typedef struct captured {
  rc_ctx ctx;
  char first[512];
} captured;

static void capture(void *user, const rc_diag *d) {
  captured *c = user;
  if (d->severity == RC_SEV_ERROR && !c->first[0]) snprintf(c->first, sizeof c->first, "%s", d->message);
}

static void captured_init(captured *c, const rc_ctx *from) {
  memset(c, 0, sizeof *c);
  c->ctx = *from;
  c->ctx.diag = capture;
  c->ctx.diag_user = c;
}

int compare_clock_open(const rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const rc_compare_opts *o,
                       compare_clock *clock) {
  memset(clock, 0, sizeof *clock);
  clock->ctx = (rc_ctx *)ctx;
  clock->k = k;
  clock->o = o;
  clock->repeat = o->repeat ? o->repeat : 5;
  clock->threads = o->threads ? o->threads : 1;
#ifndef RECONV_HAVE_LLVM
  snprintf(clock->why, sizeof clock->why, "reconv was built without the LLVM bridge, which native runs need");
  clock->unavailable = true;
  return -1;
#else
  rc_run_spec_copy(&clock->s, s);
  if (o->scale > 1 && rc_run_spec_scale(&clock->s, o->scale) != 0) {
    snprintf(clock->why, sizeof clock->why, "the launch scaled by %u has more than %llu work-items", o->scale,
             (unsigned long long)RC_MAX_THREADS);
    rc_run_spec_free(&clock->s);
    return -1;
  }
  clock->items = rc_run_spec_threads(&clock->s);
  captured c;
  captured_init(&c, ctx);
  rc_fault fault = {0};
  if (rc_memory_init(&c.ctx, &clock->ref, &clock->s, k) != 0 ||
      rc_interp_run(&c.ctx, k, &clock->s, &clock->ref, NULL, NULL, &fault) != 0) {
    snprintf(clock->why, sizeof clock->why, "the interpreter cannot run the scaled launch: %s",
             fault.happened ? fault.message : c.first);
    rc_memory_free(&clock->ref);
    rc_run_spec_free(&clock->s);
    return -1;
  }
  return 0;
#endif
}

void compare_clock_close(compare_clock *clock) {
  rc_memory_free(&clock->ref);
  rc_run_spec_free(&clock->s);
}

#ifdef RECONV_HAVE_LLVM

/* The verdict on a measured run's memory: exact, or (floats_may_differ) floats within any distance
 * and everything else exact. */
static void judge(compare_clock *clock, rc_compare_native *nt, const rc_memory *mem, bool floats_may_differ) {
  char why[400];
  nt->equivalent = floats_may_differ
                       ? rc_memory_equal_ulps(&clock->ref, mem, UINT64_MAX - 1, &nt->float_ulps, why, sizeof why)
                       : rc_memory_equal(&clock->ref, mem, why, sizeof why);
  if (!nt->equivalent) snprintf(nt->note, sizeof nt->note, "%s", why);
  else if (nt->float_ulps)
    snprintf(nt->note, sizeof nt->note, "floats up to %" PRIu64 " ulp from the interpreter's", nt->float_ulps);
}

static void timed(compare_clock *clock, rc_compare_native *nt, uint64_t best_ns) {
  nt->ran = true;
  nt->best_ns = best_ns;
  nt->items = clock->items;
  nt->ns_per_item = clock->items ? (double)best_ns / (double)clock->items : 0;
}

static void wave_row(compare_clock *clock, rc_compare_row *r, captured *c) {
  rc_compare_native *nt = &r->native;
  rc_native_wave_opts wo = {.wave = clock->s.wave, .vector_math = clock->o->vector_math};
  rc_native_wave *n = rc_native_wave_open(&c->ctx, r->res.ran, &wo);
  rc_memory mem = {0};
  rc_fault fault = {0};
  rc_native_timing t = {.repeat = clock->repeat, .threads = clock->threads};
  if (n && rc_memory_init(&c->ctx, &mem, &clock->s, r->res.ran) == 0 &&
      rc_native_wave_run(n, &clock->s, &mem, &t, &fault) == 0) {
    timed(clock, nt, t.best_ns);
    judge(clock, nt, &mem, rc_native_wave_math_ulps(n) > 0); /* libmvec's floats are not the interpreter's */
  } else {
    snprintf(nt->note, sizeof nt->note, "%s", fault.happened ? fault.message : c->first);
  }
  rc_memory_free(&mem);
  rc_native_wave_close(n);
}

static bool has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n > e && strcmp(path + n - e, ext) == 0;
}

static void scalar_row(compare_clock *clock, rc_compare_row *r, captured *c) {
  rc_compare_native *nt = &r->native;
  const char *path = clock->o->path;
  if (!path || !(has_ext(path, ".cl") || has_ext(path, ".ll") || has_ext(path, ".bc"))) {
    snprintf(nt->note, sizeof nt->note, "needs an LLVM module (.cl, .ll, .bc), which LLVM compiles for this CPU");
    nt->unavailable = true;
    return;
  }
  rc_llvm_import_opts io = {0};
  if (clock->o->import) io = *(const rc_llvm_import_opts *)clock->o->import;
  io.llvm_divergence = false;
  if (has_ext(path, ".cl")) io.target = "spir64-unknown-unknown"; /* the host runs spir64 */
  rc_native *n = rc_native_open(&c->ctx, path, &io, clock->k, NULL, NULL);
  rc_memory mem = {0};
  rc_fault fault = {0};
  rc_native_timing t = {.repeat = clock->repeat};
  if (n && rc_native_tune_for_host(n) == 0 && rc_memory_init(&c->ctx, &mem, &clock->s, clock->k) == 0 &&
      rc_native_run_timed(n, &clock->s, &mem, &t, &fault) == 0) {
    timed(clock, nt, t.best_ns);
    judge(clock, nt, &mem, true);
  } else {
    snprintf(nt->note, sizeof nt->note, "%s", fault.happened ? fault.message : c->first);
  }
  rc_memory_free(&mem);
  rc_native_close(n);
}

static void pocl_row(compare_clock *clock, rc_compare_row *r, captured *c) {
  rc_compare_native *nt = &r->native;
  const char *path = clock->o->path;
  if (!path || !has_ext(path, ".cl")) {
    snprintf(nt->note, sizeof nt->note, "pocl runs OpenCL C (.cl)");
    nt->unavailable = true;
    return;
  }
  const rc_llvm_import_opts *io = clock->o->import;
  rc_memory mem = {0};
  uint64_t best = 0;
  int rc = -1;
  if (rc_memory_init(&c->ctx, &mem, &clock->s, clock->k) == 0)
    rc = compare_pocl_run(&c->ctx, path, io ? io->defines : NULL, io ? io->ndefines : 0, clock->k, &clock->s,
                          clock->repeat, clock->threads, &mem, &best, nt->note, sizeof nt->note);
  if (rc == 0) {
    timed(clock, nt, best);
    judge(clock, nt, &mem, true);
  } else if (rc == 1) {
    nt->unavailable = true;
  } else if (!nt->note[0]) {
    snprintf(nt->note, sizeof nt->note, "%s", c->first);
  }
  rc_memory_free(&mem);
}

void compare_clock_row(compare_clock *clock, rc_compare_row *r) {
  captured c;
  captured_init(&c, clock->ctx);
  memset(&r->native, 0, sizeof r->native);
  r->native.items = clock->items; /* the launch it runs, or would have */
  switch (r->st->mode) {
  case RC_MACHINE_NATIVE_SCALAR: scalar_row(clock, r, &c); break;
  case RC_MACHINE_POCL: pocl_row(clock, r, &c); break;
  default: wave_row(clock, r, &c); break;
  }
}

#else

void compare_clock_row(compare_clock *clock, rc_compare_row *r) {
  snprintf(r->native.note, sizeof r->native.note, "%s", clock->why);
  r->native.unavailable = true;
}

#endif
