/* The comparison engine, part 1: running a kernel under a strategy (include/reconv/compare.h): the
 * copy a strategy transforms (through LLVM's passes when it has some), the machine it runs on (the
 * interpreter, the IPDOM-stack model, the wave simulator, the native wave backend), and the check
 * against the thread-level interpreter (traces and memory; memory alone for native runs). */
#include "reconv/compare.h"

#ifdef RECONV_HAVE_LLVM
#include "reconv/llvm.h"
#include "reconv/native_wave.h"
#endif

#include <stdio.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *rc_machine_name(int mode) {
  switch (mode) {
  case RC_MACHINE_THREAD: return "thread";
  case RC_MACHINE_IPDOM: return "ipdom";
  case RC_MACHINE_NATIVE_SCALAR: case RC_MACHINE_POCL: return "native";
  default: return "wave";
  }
}

uint32_t rc_count_blocks(const rc_kernel *k, uint32_t flags) {
  uint32_t n = 0;
  for (uint32_t b = 0; b < k->nblocks; b++)
    if (!flags || (k->blocks[b]->bflags & flags)) n++;
  return n;
}

/* k after LLVM's passes: exported to LLVM IR, imported back through the passes (run by LLVM in a
 * child process; the blocks they insert come back marked !flow or !virtual), in a module of its
 * own. */
static rc_kernel *llvm_copy(rc_ctx *ctx, rc_module **own, rc_kernel *k, const char *passes) {
#ifdef RECONV_HAVE_LLVM
  rc_llvm_export_opts eo = {k, false, false, false};
  char *text = NULL;
  size_t len = 0;
  if (rc_llvm_export(ctx, k->mod, &eo, &text, &len) != 0) return NULL;
  rc_strbuf name;
  rc_sb_init(&name);
  rc_sb_printf(&name, "%s, @%s exported.ll", k->mod->filename ? k->mod->filename : "kernel", k->name);
  rc_llvm_import_opts io = {0};
  io.passes = passes;
  io.data = text;
  io.data_len = len;
  *own = rc_llvm_import_file(ctx, name.data, &io);
  rc_sb_free(&name);
  free(text);
  rc_kernel *c = *own ? rc_module_find_kernel(*own, k->name) : NULL;
  if (*own && !c) rc_error(ctx, "@%s did not come back from LLVM", k->name);
  return c;
#else
  (void)own;
  (void)k;
  rc_error(ctx, "LLVM passes '%s': reconv was built without the LLVM bridge", passes);
  return NULL;
#endif
}

/* Does every function f calls have its copy in `into` already? */
static bool callees_in(const rc_module *into, const rc_kernel *f) {
  for (uint32_t b = 0; b < f->nblocks; b++)
    for (const rc_instr *i = f->blocks[b]->first; i; i = i->next)
      if (i->op == RC_OP_CALLFN && i->u.callee && !rc_module_find_kernel(into, i->u.callee->name)) return false;
  return true;
}

/* The device functions of `from` copied into `into`, callees before their callers (the copies'
 * calls find their callees by name; OpenCL C has no recursion, so every function gets its turn).
 * `run` is left out: when the function itself is what runs (a device function launched as a
 * kernel, as `reconv run` does), its copy is made under its name by the caller; a function that
 * calls it is not needed then (without recursion, `run` cannot reach its callers). */
static void clone_functions(rc_module *into, const rc_module *from, const rc_kernel *run) {
  for (bool progress = true; progress;) {
    progress = false;
    for (uint32_t f = 0; f < from->nkernels; f++) {
      const rc_kernel *fn = from->kernels[f];
      if (!fn->is_function || fn == run || rc_module_find_kernel(into, fn->name) || !callees_in(into, fn))
        continue;
      progress = rc_kernel_clone(into, fn, fn->name) != NULL;
    }
  }
}

rc_kernel *rc_transform_copy(rc_ctx *ctx, rc_kernel *k, const char *before_llvm, const char *llvm_passes,
                              const char *pipeline, rc_module **own, rc_stats *stats) {
  rc_kernel *c;
  *own = NULL;
  if (before_llvm && llvm_passes) {
    /* reconv's passes first (e.g. meld), on a copy of their own; that copy goes to LLVM. A kernel
     * that came from LLVM is copied through LLVM (exported, imported back without passes), so that
     * the copy keeps the LLVM module that export edits (its types, globals and attributes). Device
     * functions are inlined after LLVM's passes, as on the llvm-structurizecfg row (the export
     * edits the kernel's own LLVM function, which has the calls). */
    rc_module *pre = NULL;
    rc_kernel *p;
    if (k->mod->origin) {
      p = llvm_copy(ctx, &pre, k, NULL);
    } else {
      pre = rc_module_new(ctx, k->mod->filename);
      clone_functions(pre, k->mod, k);
      p = rc_kernel_clone(pre, k, k->name);
    }
    if (p && rc_pipeline_run(ctx, p, before_llvm, NULL, stats) != 0) p = NULL;
#ifdef RECONV_HAVE_LLVM
    if (p) rc_llvm_guard_structurizer(p); /* LLVM 14's StructurizeCFG and phis of branch compares */
#endif
    c = p ? llvm_copy(ctx, own, p, llvm_passes) : NULL;
    if (pre) rc_module_free(pre);
    if (!c) return NULL;
  } else if (llvm_passes) {
    c = llvm_copy(ctx, own, k, llvm_passes);
    if (!c) return NULL;
  } else {
    *own = rc_module_new(ctx, k->mod->filename);
    clone_functions(*own, k->mod, k);
    c = rc_kernel_clone(*own, k, k->name);
    if (!c) {
      rc_report(ctx, RC_SEV_ERROR, k->mod->filename, k->line, k->col, "@%s: cannot copy it to run", k->name);
      return NULL;
    }
  }
  /* device functions are inlined before the pipeline (as GPU compilers inline them): a callee is
   * reconverged and lowered in its caller, and at wave level runs under the caller's exec mask */
  const rc_instr *stuck = NULL;
  if (rc_inline_calls(c, 100000, &stuck) < 0) {
    rc_report(ctx, RC_SEV_ERROR, k->mod->filename, stuck->line, stuck->col,
              "kernel @%s: its calls of @%s never end (recursion, which OpenCL C does not allow)", k->name,
              stuck->u.callee->name);
    return NULL;
  }
  if (before_llvm && !llvm_passes && rc_pipeline_run(ctx, c, before_llvm, NULL, stats) != 0) return NULL;
  if (pipeline && rc_pipeline_run(ctx, c, pipeline, NULL, stats) != 0) return NULL;
  return c;
}

/* A copy of k, in a module of its own so that it keeps k's name (after LLVM's passes, if any),
 * transformed by the pipeline into a wave kernel. */
static rc_kernel *lower_copy(rc_ctx *ctx, rc_exec_result *res, rc_kernel *k, const rc_exec_request *req) {
  const char *pipeline = req->pipeline;
  rc_kernel *c = rc_transform_copy(ctx, k, req->before_llvm, req->llvm_passes, pipeline, &res->own, &res->pass_stats);
  if (!c) return NULL;
  if (c->level != RC_LEVEL_WAVE) {
    rc_error(ctx, "the pipeline '%s' left @%s at thread level; end it with lower", pipeline, k->name);
    return NULL;
  }
  return c;
}

static int run_machine(rc_ctx *ctx, int mode, const rc_kernel *k, const rc_run_spec *s, rc_memory *mem,
                       rc_traces *tr, rc_run_stats *st, rc_fault *fault, rc_timeline *tl) {
  switch (mode) {
  case RC_MACHINE_THREAD: return rc_interp_run(ctx, k, s, mem, tr, st, fault);
  case RC_MACHINE_IPDOM: return rc_ipdom_run(ctx, k, s, mem, tr, st, fault, tl);
  default: return rc_wave_run(ctx, k, s, mem, tr, st, fault, tl);
  }
}

/* --check: the thread-level interpreter on the original, traces and memory compared. */
static int check_run(rc_ctx *ctx, rc_exec_result *res, const rc_run_spec *s, const rc_traces *tr) {
  rc_memory mem = {0};
  rc_traces ref = {0};
  rc_run_stats st = {0};
  rc_fault fault = {0};
  int rc = rc_memory_init(ctx, &mem, s, res->orig);
  if (rc == 0 && rc_interp_run(ctx, res->orig, s, &mem, &ref, &st, &fault) != 0) {
    if (fault.happened)
      rc_error(ctx, "--check: the thread-level run faults, so there is nothing to compare: %s",
               fault.message);
    rc = -1;
  }
  if (rc == 0) {
    res->checked = true;
    res->equivalent = rc_traces_equivalent(res->orig, &ref, res->ran, tr, res->why, sizeof res->why) &&
                      rc_memory_equal(&mem, &res->mem, res->why, sizeof res->why);
  }
  rc_memory_free(&mem);
  rc_traces_free(&ref);
  rc_run_stats_free(&st);
  return rc;
}

/* The thread-level interpreter on k: its traces and the memory it leaves. 0, or -1 (a fault, in *fault,
 * or an error). */
static int interp_run(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, rc_memory *mem, rc_traces *tr,
                      rc_fault *fault) {
  rc_run_stats st = {0};
  int rc = rc_memory_init(ctx, mem, s, k);
  if (rc == 0) rc = rc_interp_run(ctx, k, s, mem, tr, &st, fault);
  rc_run_stats_free(&st);
  return rc;
}

/* A kernel that LLVM's passes prepared (req->llvm_passes) and reconv's pipeline lowered is not
 * equivalent: is LLVM's output itself, at thread level, before the pipeline? Says which in res->why,
 * so that a difference LLVM made is not taken for one of lower's or the wave simulator's (LLVM 14's
 * StructurizeCFG miscompiles some kernels: docs/llvm.md, "reconv against LLVM"). This runs LLVM's
 * passes again, on a copy of its own; only a failed check pays for it. */
static void check_llvm_output(rc_ctx *ctx, rc_exec_result *res, rc_kernel *k, const rc_run_spec *s,
                              const char *passes) {
  rc_module *own = NULL;
  rc_kernel *c = rc_transform_copy(ctx, k, NULL, passes, NULL, &own, NULL);
  rc_memory ma = {0}, mb = {0};
  rc_traces ta = {0}, tb = {0};
  rc_fault fa = {0}, fb = {0};
  char why[sizeof res->why];
  size_t n = strlen(res->why);
  if (!c) snprintf(res->why + n, sizeof res->why - n, "; LLVM's output could not be checked alone");
  else if (interp_run(ctx, res->orig, s, &ma, &ta, &fa) != 0 || interp_run(ctx, c, s, &mb, &tb, &fb) != 0)
    snprintf(res->why + n, sizeof res->why - n, "; LLVM's output, before %s, %s%s", res->pipeline,
             fb.happened ? "faults: " : "could not be run alone", fb.happened ? fb.message : "");
  else if (!rc_traces_equivalent(res->orig, &ta, c, &tb, why, sizeof why) ||
           !rc_memory_equal(&ma, &mb, why, sizeof why))
    snprintf(res->why + n, sizeof res->why - n, "; LLVM's output, before %s, is not equivalent either: %s",
             res->pipeline, why);
  else
    snprintf(res->why + n, sizeof res->why - n, "; LLVM's output, before %s, is equivalent", res->pipeline);
  rc_memory_free(&ma);
  rc_memory_free(&mb);
  rc_traces_free(&ta);
  rc_traces_free(&tb);
  if (own) rc_module_free(own);
}

static int exec_with_spec(rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const rc_exec_request *req,
                            rc_exec_result *res);

/* The wave kernel on the native wave backend: 0 when it ran (a fault is in res->fault), -1 after
 * reporting. */
static int native_run(rc_ctx *ctx, rc_exec_result *res, const rc_run_spec *s, const rc_exec_request *req) {
#ifdef RECONV_HAVE_LLVM
  rc_native_wave_opts o = {.wave = s->wave, .vector_math = req->vector_math, .check_math = req->check};
  rc_native_wave *n = rc_native_wave_open(ctx, res->ran, &o);
  if (!n) return -1;
  snprintf(res->native_target, sizeof res->native_target, "%s", rc_native_wave_target(n));
  res->native_math_ulps = rc_native_wave_math_ulps(n);
  rc_native_timing t = {.repeat = req->repeat, .threads = req->threads};
  int rc = rc_native_wave_run(n, s, &res->mem, &t, &res->fault);
  if (rc != 0 && res->fault.happened) rc = 0;
  res->native_first_ns = t.first_ns;
  res->native_best_ns = t.best_ns;
  res->native_max_ulps = t.math_ulps;
  rc_native_wave_close(n);
  return rc;
#else
  (void)res, (void)s, (void)req;
  return rc_error(ctx, "--native needs the LLVM bridge, which this reconv lacks");
#endif
}

/* --check of a native run: the thread-level interpreter's memory against the native run's. */
static int native_check(rc_ctx *ctx, rc_exec_result *res, const rc_run_spec *s) {
  rc_memory mem = {0};
  rc_run_stats st = {0};
  rc_fault fault = {0};
  int rc = rc_memory_init(ctx, &mem, s, res->orig);
  if (rc == 0 && rc_interp_run(ctx, res->orig, s, &mem, NULL, &st, &fault) != 0) {
    if (fault.happened)
      rc_error(ctx, "--check: the thread-level run faults, so there is nothing to compare: %s", fault.message);
    rc = -1;
  }
  if (rc == 0) {
    res->checked = true;
    /* with the vector math library, every result of it was checked in place (check_math) against
     * the interpreter's function; what follows from those results may differ in floats (any
     * amount: arithmetic can amplify a last-place difference), not in anything else */
    uint64_t far = 0;
    res->equivalent = res->native_math_ulps
                          ? rc_memory_equal_ulps(&mem, &res->mem, UINT64_MAX - 1, &far, res->why, sizeof res->why)
                          : rc_memory_equal(&mem, &res->mem, res->why, sizeof res->why);
    res->native_float_ulps = far;
  }
  rc_memory_free(&mem);
  rc_run_stats_free(&st);
  return rc;
}

bool rc_pipeline_needs_effects(const char *pipeline) {
  for (const char *p = pipeline; p && (p = strstr(p, "meld")); p += 4) {
    bool start = p == pipeline || p[-1] == ',' || p[-1] == ' ';
    bool end = p[4] == 0 || p[4] == ',' || p[4] == '[' || p[4] == ' ';
    if (start && end) return true;
  }
  return false;
}

int rc_exec(rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const rc_exec_request *req,
                rc_exec_result *res) {
  memset(res, 0, sizeof *res);
  rc_run_spec es; /* the spec with effect traces, when the check compares those */
  bool effects = req->effects || (req->mode == RC_MACHINE_WAVE && k->level == RC_LEVEL_THREAD &&
                                  (rc_pipeline_needs_effects(req->pipeline) ||
                                   rc_pipeline_needs_effects(req->before_llvm)));
  if (effects) {
    rc_run_spec_copy(&es, s);
    es.effect_traces = true;
    s = &es;
  }
  res->effects = effects;
  int rc = exec_with_spec(ctx, k, s, req, res);
  if (effects) rc_run_spec_free(&es);
  return rc;
}

static int exec_with_spec(rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const rc_exec_request *req,
                            rc_exec_result *res) {
  rc_stats_init(&res->pass_stats);
  res->mode = req->mode;
  res->orig = k;
  res->ran = k;
  if (req->mode == RC_MACHINE_WAVE && k->level == RC_LEVEL_THREAD) {
    res->pipeline = req->pipeline;
    res->ran = lower_copy(ctx, res, k, req);
    if (!res->ran) return -1;
  } else if (req->mode == RC_MACHINE_IPDOM && req->pipeline && k->level == RC_LEVEL_THREAD) {
    /* the IPDOM stack runs a transformed thread-level kernel (a linearized one, Anantpur 2014) */
    res->pipeline = req->pipeline;
    res->ran = rc_transform_copy(ctx, k, req->before_llvm, req->llvm_passes, req->pipeline, &res->own,
                                  &res->pass_stats);
    if (!res->ran) return -1;
    if (res->ran->level != RC_LEVEL_THREAD) {
      rc_error(ctx, "the pipeline '%s' makes @%s a wave kernel; the IPDOM model runs thread-level kernels",
               req->pipeline, k->name);
      return -1;
    }
  }
  res->timeline.wave = req->timeline_wave;
  rc_traces tr = {0};
  int rc = rc_memory_init(ctx, &res->mem, s, res->ran);
  if (req->native && req->mode == RC_MACHINE_WAVE) {
    res->native = true;
    if (rc == 0) rc = native_run(ctx, res, s, req);
    if (rc == 0 && req->check && !res->fault.happened) rc = native_check(ctx, res, s);
    return rc;
  }
  if (rc == 0) {
    rc = run_machine(ctx, req->mode, res->ran, s, &res->mem, req->check ? &tr : NULL, &res->stats,
                     &res->fault, req->timeline ? &res->timeline : NULL);
    if (rc != 0 && res->fault.happened) rc = 0; /* a bad run is reported, not an error */
  }
  if (rc == 0 && req->check && !res->fault.happened) rc = check_run(ctx, res, s, &tr);
  /* (not after a transform before LLVM's passes, such as meld: its output is checked by effects, not
   * by the traces this check compares) */
  if (rc == 0 && res->checked && !res->equivalent && req->llvm_passes && res->pipeline && !req->before_llvm)
    check_llvm_output(ctx, res, k, s, req->llvm_passes);
  rc_traces_free(&tr);
  return rc;
}

void rc_exec_result_free(rc_exec_result *res) {
  if (res->own) rc_module_free(res->own);
  rc_stats_free(&res->pass_stats);
  rc_memory_free(&res->mem);
  rc_run_stats_free(&res->stats);
  rc_timeline_free(&res->timeline);
}

