/* The comparison engine, part 2: the strategies of `reconv compare` (include/reconv/compare.h), each
 * run and checked against the thread-level interpreter (traces and memory). */
#include "compare_internal.h"

#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const rc_strategy rc_compare_strategies[] = {
    {"ipdom", RC_MACHINE_IPDOM, NULL, NULL, NULL, NULL},
    {"reconverge[auto]+lower", RC_MACHINE_WAVE, "reconverge[order=auto],lower", "reconverge[order=auto]", NULL, NULL},
    {"reconverge[dfpd]+lower", RC_MACHINE_WAVE, "reconverge[order=dfpd],lower", "reconverge[order=dfpd]", NULL, NULL},
    {"reconverge[df]+lower", RC_MACHINE_WAVE, "reconverge[order=df],lower", "reconverge[order=df]", NULL, NULL},
    {"reconverge[bf]+lower", RC_MACHINE_WAVE, "reconverge[order=bf],lower", "reconverge[order=bf]", NULL, NULL},
    {"reconverge[bfpd]+lower", RC_MACHINE_WAVE, "reconverge[order=bfpd],lower", "reconverge[order=bfpd]", NULL, NULL},
    {"reconverge[rpot]+lower", RC_MACHINE_WAVE, "reconverge[order=rpot],lower", "reconverge[order=rpot]", NULL, NULL},
    {"reconverge[domreg]+lower", RC_MACHINE_WAVE, "reconverge[order=domreg],lower", "reconverge[order=domreg]", NULL, NULL},
    /* Anantpur and Govindarajan 2014: the linearized kernel on the IPDOM stack, and lowered */
    {"linearize[opt=0]+ipdom", RC_MACHINE_IPDOM, "linearize[opt=0]", NULL, NULL, NULL},
    {"linearize[opt=3]+ipdom", RC_MACHINE_IPDOM, "linearize[opt=3]", NULL, NULL, NULL},
    {"linearize[opt=3]+lower", RC_MACHINE_WAVE, "linearize[opt=3],reconverge,lower", "linearize[opt=3]", NULL, NULL},
    {"blockip", RC_MACHINE_WAVE, "blockip", NULL, NULL, NULL},
    {"full-linearize", RC_MACHINE_WAVE, "full-linearize", NULL, NULL, NULL},
    /* DARM's melding first (docs/meld.md); checked by effect traces, since melding changes which
     * blocks a thread runs (rc_pipeline_needs_effects) */
    {"meld+reconverge+lower", RC_MACHINE_WAVE, "meld,reconverge,lower", "meld,reconverge", NULL, NULL},
#ifdef RECONV_HAVE_LLVM
    {"llvm-structurizecfg+lower", RC_MACHINE_WAVE, "lower[norepair]", NULL, RC_LLVM_STRUCTURIZER, NULL},
    /* the structurizer as AMDGPU's users can run it, leaving regions LLVM finds uniform alone */
    {"llvm-structurizecfg[skip-uniform]+lower", RC_MACHINE_WAVE, "lower[norepair]", NULL,
     RC_LLVM_STRUCTURIZER_SKIP_UNIFORM, NULL},
    /* on the clock only (rc_compare_opts.native): the thread-level kernel as LLVM compiles it for
     * this CPU at -O2, one work-item at a time, and the OpenCL C kernel on pocl (native_rows.c) */
    {"native-scalar", RC_MACHINE_NATIVE_SCALAR, NULL, NULL, NULL, NULL},
    {"pocl", RC_MACHINE_POCL, NULL, NULL, NULL, NULL},
    /* melding helps every scheme: meld, then LLVM's structurizer pipeline (exported to LLVM after
     * meld), then lower; checked by effect traces as the meld row */
    {"meld+llvm-structurizecfg+lower", RC_MACHINE_WAVE, "lower[norepair]", NULL, RC_LLVM_STRUCTURIZER, "meld"},
#endif
};
const int rc_compare_nstrategies = sizeof rc_compare_strategies / sizeof rc_compare_strategies[0];

/* The first error of a strategy goes into its row instead of standard error. */
static void keep_first_error(void *user, const rc_diag *d) {
  rc_compare_row *r = user;
  if (d->severity != RC_SEV_ERROR || r->error[0]) return;
  if (d->file) snprintf(r->error, sizeof r->error, "%s: %s", d->file, d->message);
  else snprintf(r->error, sizeof r->error, "%s", d->message);
}

const char *rc_compare_verdict(const rc_compare_row *r, char *buf, size_t len) {
  const rc_compare_native *nt = &r->native;
  if (r->st->mode == RC_MACHINE_NATIVE_SCALAR || r->st->mode == RC_MACHINE_POCL) {
    if (!nt->ran) snprintf(buf, len, "not run: %s", nt->note);
    else if (!nt->equivalent) snprintf(buf, len, "NOT equivalent: %s", nt->note);
    else if (nt->note[0]) snprintf(buf, len, "equivalent (%s)", nt->note);
    else snprintf(buf, len, "equivalent");
    return buf;
  }
  if (!r->ran) snprintf(buf, len, "error: %s", r->error);
  else if (r->res.fault.happened) snprintf(buf, len, "fault: %s", r->res.fault.message);
  else if (!r->res.equivalent) snprintf(buf, len, "NOT equivalent: %s", r->res.why);
  else if (nt->ran && !nt->equivalent) snprintf(buf, len, "equivalent; native: NOT equivalent: %s", nt->note);
  else if (!nt->ran && nt->note[0]) snprintf(buf, len, "equivalent; native: not run: %s", nt->note);
  else snprintf(buf, len, "equivalent");
  return buf;
}

bool rc_compare_selected(const char *only, const char *name) {
  if (!only) return true;
  size_t n = strlen(name);
  for (const char *p = only; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return true;
    if (!e) break;
    p = e + 1;
  }
  return false;
}

bool rc_compare_row_ok(const rc_compare_row *r) {
  if (r->st->mode == RC_MACHINE_NATIVE_SCALAR || r->st->mode == RC_MACHINE_POCL)
    return r->native.unavailable || (r->native.ran && r->native.equivalent);
  return r->ran && !r->res.fault.happened && r->res.equivalent && (!r->native.ran || r->native.equivalent);
}

uint64_t rc_compare_issued(const rc_compare_row *r) {
  const rc_run_stats *st = &r->res.stats;
  return st->vector_instrs + st->scalar_instrs + st->mask_instrs;
}

static bool measured_only(const rc_compare_row *r) {
  return r->st->mode == RC_MACHINE_NATIVE_SCALAR || r->st->mode == RC_MACHINE_POCL;
}

int rc_compare_best(const rc_compare_row *rows, int n) {
  int best = -1;
  for (int i = 0; i < n; i++)
    if (!measured_only(&rows[i]) && rc_compare_row_ok(&rows[i]) &&
        (best < 0 || rc_compare_issued(&rows[i]) < rc_compare_issued(&rows[best])))
      best = i;
  return best;
}

int rc_compare_run(const rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const char *only, bool timeline,
                   rc_compare_row *rows) {
  rc_compare_opts o = {.only = only, .timeline = timeline};
  return rc_compare_run_opts(ctx, k, s, &o, rows);
}

int rc_compare_run_opts(const rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const rc_compare_opts *o,
                        rc_compare_row *rows) {
  int n = 0;
  compare_clock clock;
  bool native = o->native && compare_clock_open(ctx, k, s, o, &clock) == 0;
  for (int i = 0; i < rc_compare_nstrategies; i++) {
    const rc_strategy *st = &rc_compare_strategies[i];
    if (!rc_compare_selected(o->only, st->name)) continue;
    bool measured = st->mode == RC_MACHINE_NATIVE_SCALAR || st->mode == RC_MACHINE_POCL;
    if (measured && !o->native) continue;
    rc_compare_row *r = &rows[n++];
    memset(r, 0, sizeof *r);
    r->st = st;
    r->ctx = *ctx;
    r->ctx.diag = keep_first_error;
    r->ctx.diag_user = r;
    if (measured) { /* rows of the clock alone: no model, no traces */
      if (native) {
        compare_clock_row(&clock, r);
      } else {
        snprintf(r->native.note, sizeof r->native.note, "%s", clock.why);
        r->native.unavailable = clock.unavailable;
      }
      r->ran = r->native.ran;
      if (!r->ran) snprintf(r->error, sizeof r->error, "%.399s", r->native.note);
      continue;
    }
    rc_exec_request req = {0};
    req.mode = r->st->mode;
    req.pipeline = r->st->pipeline;
    req.llvm_passes = r->st->llvm_passes;
    req.before_llvm = r->st->before_llvm;
    req.check = true;
    req.timeline = o->timeline && strcmp(r->st->name, RC_COMPARE_DEFAULT) == 0;
    r->ran = rc_exec(&r->ctx, k, s, &req, &r->res) == 0;
    if (!r->ran && !r->error[0]) snprintf(r->error, sizeof r->error, "failed");
    if (o->native && r->ran && r->res.ran && r->res.ran->level == RC_LEVEL_WAVE) {
      if (native) compare_clock_row(&clock, r);
      else snprintf(r->native.note, sizeof r->native.note, "%s", clock.why);
    }
  }
  if (native) compare_clock_close(&clock);
  return n;
}

void rc_compare_rows_free(rc_compare_row *rows, int n) {
  for (int i = 0; i < n; i++) rc_exec_result_free(&rows[i].res);
}
