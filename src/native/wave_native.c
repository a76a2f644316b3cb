/* The SIMD wave backend, its library interface (include/reconv/native_wave.h): compile a wave
 * kernel for the host CPU (wave_codegen*.c), run it in a child process (host_child.c) on the
 * runtime of wave_runtime.c, or write the host module.
 *
 * The code is generated for the host's own CPU, by LLVM's name and feature list for it (so
 * AVX-512 where the CPU has it, AVX2 or SSE elsewhere: nothing is assumed), with 512-bit vectors
 * allowed where AVX-512 is there (LLVM prefers 256 bits on some of those CPUs for auto-vectorised
 * loops; here every vector is an explicit wave). The module is optimised at -O2 by LLVM's pass
 * pipeline for that target before MCJIT or the object writer generate code. */
#include "host_child.h"
#include "wave_codegen.h"

#include "../sim/decode.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Support.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rc_native_wave {
  rc_ctx *ctx;
  char *name;             /* the kernel's name */
  char *desc_name;        /* reconv_wave_NAME */
  uint32_t W;
  LLVMContextRef lc;
  LLVMModuleRef mod;
  LLVMTargetMachineRef tm;
  char *cpu, *features, *triple, *target_text;
  uint32_t nparams;
  char **param_names;
  uint8_t *param_kinds;
  uint32_t math_ulps;     /* > 0: math goes through libmvec, within this many ulp */
};

#define VECTOR_MATH_LIBRARY "libmvec.so.1" /* glibc's vector math, on every x86-64 Debian machine */

/* Does the host's vector math library have every function the code calls? */
static int check_vector_math(rc_native_wave *n, const wcg *g) {
  if (!g->math_fns.len) return 0;
  void *h = dlopen(VECTOR_MATH_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    return rc_error(n->ctx, "kernel @%s: --vector-math needs glibc's vector math library (%s), which this machine "
                            "lacks", n->name, VECTOR_MATH_LIBRARY);
  int rc = 0;
  for (uint32_t f = 0; f < g->math_fns.len && rc == 0; f++)
    if (!dlsym(h, g->math_fns.data[f]))
      rc = rc_error(n->ctx, "kernel @%s: the vector math library (%s) has no %s (an older glibc); run without "
                            "--vector-math", n->name, VECTOR_MATH_LIBRARY, g->math_fns.data[f]);
  dlclose(h);
  return rc;
}

/* ---- checks ---------------------------------------------------------------------------------------- */

static int refuse(rc_ctx *ctx, const rc_kernel *k, const char *name, const rc_instr *i, const char *why) {
  rc_strbuf text;
  rc_sb_init(&text);
  rc_print_instr(i, &text);
  int rc = rc_report(ctx, RC_SEV_ERROR, k->mod->filename, i->line, i->col,
                     "kernel @%s, block %s, instruction `%s`: the native wave backend cannot compile it: %s", name,
                     i->parent->name, text.data ? text.data : "", why);
  rc_sb_free(&text);
  return rc;
}

static bool scalar_type(rc_type t) {
  return t == RC_VOID || (rc_type_is_scalar(t) && (!rc_type_is_int(t) || rc_type_bits(t) <= 64));
}

/* The machines' form has scalars only; what remains that the backend does not generate. */
static int check_kernel(rc_ctx *ctx, const rc_kernel *k, const char *name) {
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      bool ok = scalar_type((rc_type)i->v.type);
      for (uint32_t o = 0; ok && o < i->nops; o++) ok = scalar_type((rc_type)i->ops[o]->type);
      switch ((rc_opcode)i->op) {
      case RC_OP_PHI: case RC_OP_CALLFN: case RC_OP_EXTRACTELT: case RC_OP_INSERTELT: case RC_OP_SHUFFLE:
      case RC_OP_EXTRACTVAL: case RC_OP_INSERTVAL:
        ok = false;
        break;
      default: break;
      }
      if (!ok) return refuse(ctx, k, name, i, "it is not in the machines' scalar form (docs/native.md)");
    }
  return 0;
}

/* ---- the target ------------------------------------------------------------------------------------- */

static bool has_feature(const char *features, const char *f) {
  size_t n = strlen(f);
  for (const char *p = features; (p = strstr(p, f)) != NULL; p += n)
    if (p > features && p[-1] == '+' && (p[n] == ',' || p[n] == 0)) return true;
  return false;
}

static int make_target(rc_native_wave *n, const rc_native_wave_opts *o) {
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter())
    return rc_error(n->ctx, "the native wave backend needs LLVM's code generator for this machine, which this "
                            "LLVM does not have");
  char *t = LLVMGetDefaultTargetTriple(), *err = NULL;
  LLVMTargetRef target;
  if (LLVMGetTargetFromTriple(t, &target, &err)) {
    rc_error(n->ctx, "the native wave backend cannot generate code for this machine (%s): %s", t, err);
    LLVMDisposeMessage(err);
    LLVMDisposeMessage(t);
    return -1;
  }
  n->triple = rc_xstrdup(t);
  LLVMDisposeMessage(t);
  char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
  n->cpu = rc_xstrdup(o->cpu ? o->cpu : cpu);
  n->features = rc_xstrdup(o->features ? o->features : features);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  n->tm = LLVMCreateTargetMachine(target, n->triple, n->cpu, n->features, LLVMCodeGenLevelDefault, LLVMRelocPIC,
                                  LLVMCodeModelDefault);
  const char *unit = has_feature(n->features, "avx512f") ? "avx512f"
                     : has_feature(n->features, "avx2")  ? "avx2"
                     : has_feature(n->features, "sse2")  ? "sse2"
                                                         : "no vector unit LLVM knows";
  rc_strbuf s;
  rc_sb_init(&s);
  rc_sb_printf(&s, "W=%u, %s, cpu %s, %s", n->W, n->triple, n->cpu, unit);
  n->target_text = s.data;
  return 0;
}

static void add_attr(LLVMContextRef lc, LLVMValueRef f, const char *k, const char *v) {
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(lc, k, (unsigned)strlen(k), v, (unsigned)strlen(v)));
}

/* ---- the descriptor ---------------------------------------------------------------------------------- */

static LLVMValueRef const_string(rc_native_wave *n, const char *s, const char *name) {
  LLVMValueRef str = LLVMConstStringInContext(n->lc, s, (unsigned)strlen(s), 0);
  LLVMValueRef gv = LLVMAddGlobal(n->mod, LLVMTypeOf(str), name);
  LLVMSetInitializer(gv, str);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMPrivateLinkage);
  return LLVMConstBitCast(gv, LLVMPointerType(LLVMInt8TypeInContext(n->lc), 0));
}

static LLVMValueRef const_strings(rc_native_wave *n, char *const *s, uint32_t count, const char *name) {
  LLVMTypeRef i8p = LLVMPointerType(LLVMInt8TypeInContext(n->lc), 0);
  LLVMValueRef *e = rc_xcalloc(count + 1, sizeof *e);
  for (uint32_t i = 0; i < count; i++) e[i] = const_string(n, s[i], "rc_wave_str");
  LLVMValueRef arr = LLVMConstArray(i8p, e, count);
  free(e);
  LLVMValueRef gv = LLVMAddGlobal(n->mod, LLVMTypeOf(arr), name);
  LLVMSetInitializer(gv, arr);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMPrivateLinkage);
  return LLVMConstBitCast(gv, LLVMPointerType(i8p, 0));
}

static void add_descriptor(rc_native_wave *n, wcg *g, const rc_kernel *k, LLVMValueRef reset) {
  LLVMContextRef c = n->lc;
  LLVMTypeRef i8 = LLVMInt8TypeInContext(c), i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef i8p = LLVMPointerType(i8, 0), i8pp = LLVMPointerType(i8p, 0);
  LLVMTypeRef reset_t = LLVMPointerType(LLVMFunctionType(LLVMVoidTypeInContext(c), NULL, 0, 0), 0);
  LLVMTypeRef f[13] = {i32, i32, i8p, LLVMTypeOf(g->fn), i32, i8p, i8pp, i64, i64, i32, i32, i8pp, reset_t};
  LLVMTypeRef t = LLVMStructCreateNamed(c, "rc_wave_kernel");
  LLVMStructSetBody(t, f, 13, 0);
  LLVMValueRef kinds;
  {
    LLVMValueRef *e = rc_xcalloc(n->nparams + 1, sizeof *e);
    for (uint32_t p = 0; p < n->nparams; p++) e[p] = LLVMConstInt(i8, n->param_kinds[p], 0);
    LLVMValueRef arr = LLVMConstArray(i8, e, n->nparams);
    free(e);
    LLVMValueRef gv = LLVMAddGlobal(n->mod, LLVMTypeOf(arr), "rc_wave_param_kinds");
    LLVMSetInitializer(gv, arr);
    LLVMSetGlobalConstant(gv, 1);
    LLVMSetLinkage(gv, LLVMPrivateLinkage);
    kinds = LLVMConstBitCast(gv, i8p);
  }
  LLVMValueRef v[13] = {
      LLVMConstInt(i32, RC_WAVE_ABI, 0), LLVMConstInt(i32, n->W, 0), const_string(n, k->name, "rc_wave_name"), g->fn,
      LLVMConstInt(i32, n->nparams, 0), kinds, const_strings(n, n->param_names, n->nparams, "rc_wave_param_names"),
      LLVMConstInt(i64, g->local_bytes, 0), LLVMConstInt(i64, g->private_bytes, 0),
      LLVMConstInt(i32, g->has_barrier, 0), LLVMConstInt(i32, g->sites.len, 0),
      const_strings(n, g->sites.data, g->sites.len, "rc_wave_sites"),
      reset ? reset : LLVMConstNull(reset_t)};
  LLVMValueRef gv = LLVMAddGlobal(n->mod, t, n->desc_name);
  LLVMSetInitializer(gv, LLVMConstNamedStruct(t, v, 13));
  LLVMSetGlobalConstant(gv, 1);
}

/* ---- open -------------------------------------------------------------------------------------------- */

static void name_for_c(const char *s, const char *prefix, char **out) {
  rc_strbuf b;
  rc_sb_init(&b);
  rc_sb_puts(&b, prefix);
  for (; *s; s++) rc_sb_putc(&b, (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ? *s : '_');
  *out = b.data;
}

static uint8_t param_kind(rc_type t) {
  switch (t) {
  case RC_F32: return RC_WAVE_ARG_F32;
  case RC_F64: return RC_WAVE_ARG_F64;
  case RC_F16: return RC_WAVE_ARG_F16;
  default: return rc_type_is_ptr(t) ? RC_WAVE_ARG_PTR : RC_WAVE_ARG_INT;
  }
}

static int run_passes(rc_native_wave *n) {
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(n->mod, "default<O2>", n->tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (!e) return 0;
  char *msg = LLVMGetErrorMessage(e);
  rc_error(n->ctx, "kernel @%s: LLVM's optimiser failed on the wave code: %s", n->name, msg);
  LLVMDisposeErrorMessage(msg);
  return -1;
}

static int generate(rc_native_wave *n, const rc_kernel *k, const rc_kernel *rk, const rc_native_wave_opts *o) {
  if (make_target(n, o) != 0) return -1;
  n->mod = LLVMModuleCreateWithNameInContext(k->name, n->lc);
  LLVMSetTarget(n->mod, n->triple);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(n->tm);
  char *dl = LLVMCopyStringRepOfTargetData(td);
  LLVMSetDataLayout(n->mod, dl);
  LLVMDisposeMessage(dl);
  LLVMDisposeTargetData(td);
  n->nparams = rk->nparams;
  n->param_names = rc_xcalloc(rk->nparams + 1, sizeof *n->param_names);
  n->param_kinds = rc_xcalloc(rk->nparams + 1, 1);
  for (uint32_t p = 0; p < rk->nparams; p++) {
    n->param_names[p] = rc_xstrdup(k->params[p]->name ? k->params[p]->name : "");
    n->param_kinds[p] = param_kind((rc_type)rk->params[p]->type);
  }
  wcg g;
  memset(&g, 0, sizeof g);
  g.ctx = n->ctx;
  g.k = rk;
  g.name = k->name;
  g.W = n->W;
  g.vector_math = o->vector_math;
  g.drop_merges = o->drop_merges;
  g.check_math = o->vector_math && o->check_math;
  g.vector_bits = has_feature(n->features, "avx512f") ? 512 : has_feature(n->features, "avx") ? 256 : 128;
  g.lc = n->lc;
  g.mod = n->mod;
  char *fname;
  name_for_c(k->name, "reconv_wave_run_", &fname);
  int rc = wcg_generate(&g, fname);
  free(fname);
  if (rc == 0) {
    add_attr(n->lc, g.fn, "target-cpu", n->cpu);
    add_attr(n->lc, g.fn, "target-features", n->features);
    if (has_feature(n->features, "avx512f")) { /* the wave's vectors are the point: 512 bits */
      add_attr(n->lc, g.fn, "prefer-vector-width", "512");
      add_attr(n->lc, g.fn, "min-legal-vector-width", "512");
    }
    LLVMValueRef reset = wcg_reset_function(&g);
    if (reset) {
      add_attr(n->lc, reset, "target-cpu", n->cpu);
      add_attr(n->lc, reset, "target-features", n->features);
    }
    add_descriptor(n, &g, k, reset);
    n->math_ulps = g.math_ulps;
    if (check_vector_math(n, &g) != 0) rc = -1;
    char *msg = NULL;
    if (rc == 0 && LLVMVerifyModule(n->mod, LLVMReturnStatusAction, &msg)) {
      rc = rc_error(n->ctx, "kernel @%s: the native wave backend made an invalid module (a bug of reconv):\n%s",
                    k->name, msg);
    }
    LLVMDisposeMessage(msg);
  }
  wcg_free(&g);
  if (rc == 0) rc = run_passes(n);
  return rc;
}

rc_native_wave *rc_native_wave_open(rc_ctx *ctx, const rc_kernel *k, const rc_native_wave_opts *o) {
  rc_native_wave_opts dflt = {16, false, NULL, NULL, false, false};
  if (!o) o = &dflt;
  if (k->level != RC_LEVEL_WAVE) {
    rc_report(ctx, RC_SEV_ERROR, k->mod->filename, k->line, k->col,
              "kernel @%s is a thread-level kernel; the native wave backend runs wave kernels (lower it "
              "first: the pipeline reconverge,lower)", k->name);
    return NULL;
  }
  uint32_t W = o->wave;
  if (W != 4 && W != 8 && W != 16 && W != 32 && W != 64) {
    rc_error(ctx, "the native wave backend generates code for waves of 4, 8, 16, 32 or 64 lanes, not %u", W);
    return NULL;
  }
  const rc_kernel *rk;
  rc_kernel *owned;
  if (sim_run_form(ctx, k, &rk, &owned) != 0) return NULL;
  rc_native_wave *n = NULL;
  if (check_kernel(ctx, rk, k->name) == 0) {
    n = rc_xcalloc(1, sizeof *n);
    n->ctx = ctx;
    n->W = W;
    n->name = rc_xstrdup(k->name);
    name_for_c(k->name, "reconv_wave_", &n->desc_name);
    n->lc = LLVMContextCreate();
    if (generate(n, k, rk, o) != 0) {
      rc_native_wave_close(n);
      n = NULL;
    }
  }
  sim_run_form_free(owned);
  return n;
}

const char *rc_native_wave_target(const rc_native_wave *n) { return n->target_text; }

uint32_t rc_native_wave_math_ulps(const rc_native_wave *n) { return n->math_ulps; }

void rc_native_wave_close(rc_native_wave *n) {
  if (!n) return;
  if (n->mod) LLVMDisposeModule(n->mod);
  if (n->tm) LLVMDisposeTargetMachine(n->tm);
  if (n->lc) LLVMContextDispose(n->lc);
  for (uint32_t p = 0; p < n->nparams; p++) free(n->param_names[p]);
  free(n->param_names);
  free(n->param_kinds);
  free(n->name);
  free(n->desc_name);
  free(n->cpu);
  free(n->features);
  free(n->triple);
  free(n->target_text);
  free(n);
}

/* ---- write -------------------------------------------------------------------------------------------- */

static bool has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n > e && strcmp(path + n - e, ext) == 0;
}

int rc_native_format_of(const char *path) {
  return has_ext(path, ".ll") ? RC_NATIVE_LL : has_ext(path, ".bc") ? RC_NATIVE_BC : has_ext(path, ".o") ? RC_NATIVE_OBJ : -1;
}

static void take_buffer(LLVMMemoryBufferRef mb, char **data, size_t *len) {
  *len = LLVMGetBufferSize(mb);
  *data = rc_xmalloc(*len + 1);
  memcpy(*data, LLVMGetBufferStart(mb), *len);
  (*data)[*len] = 0;
  LLVMDisposeMemoryBuffer(mb);
}

int rc_native_wave_emit(rc_native_wave *n, rc_native_format format, char **data, size_t *len) {
  *data = NULL;
  *len = 0;
  if (format == RC_NATIVE_LL) {
    char *s = LLVMPrintModuleToString(n->mod);
    *data = rc_xstrdup(s);
    *len = strlen(s);
    LLVMDisposeMessage(s);
    return 0;
  }
  if (format == RC_NATIVE_BC) {
    take_buffer(LLVMWriteBitcodeToMemoryBuffer(n->mod), data, len);
    return 0;
  }
  LLVMModuleRef copy = LLVMCloneModule(n->mod); /* code generation changes the IR it runs on */
  LLVMMemoryBufferRef mb = NULL;
  char *err = NULL;
  LLVMBool failed = LLVMTargetMachineEmitToMemoryBuffer(n->tm, copy, LLVMObjectFile, &err, &mb);
  LLVMDisposeModule(copy);
  if (failed) {
    rc_error(n->ctx, "kernel @%s: LLVM cannot write an object file of it: %s", n->name, err ? err : "no reason given");
    LLVMDisposeMessage(err);
    return -1;
  }
  take_buffer(mb, data, len);
  return 0;
}

/* ---- run ----------------------------------------------------------------------------------------------- */

typedef struct wave_child {
  rc_native_wave *n;
  rc_wave_launch *launch;
  rc_native_timing *timing;
  const rc_wave_kernel *kernel; /* in the child: the JIT's */
  host_report *report;
} wave_child;

/* What the report says the child is running, for a crash's message. */
static void observe_wave(void *user, const rc_wave_ctx *c) {
  host_report *r = user;
  r->wave = c->wave_index;
  r->wi = c->linear_id[0]; /* lane 0's */
  r->lanes = c->exists;
}

static void run_launch(void *arg) {
  wave_child *wc = arg;
  if (rc_wave_run_launch(wc->kernel, wc->launch) != 0) host_child_fail(wc->report, "%s", wc->launch->error);
  if (wc->launch->math_ulps > wc->report->math_ulps) wc->report->math_ulps = wc->launch->math_ulps;
}

static void child_main(host_run *h, void *arg) {
  wave_child *wc = arg;
  host_report *r = h->rep;
  host_child_handlers(r);
  if (wc->n->math_ulps && LLVMLoadLibraryPermanently(VECTOR_MATH_LIBRARY))
    host_child_fail(r, "cannot load the vector math library %s", VECTOR_MATH_LIBRARY);
  const host_hook hooks[] = {{"rc_wave_rt_fault", (void *)rc_wave_rt_fault},
                             {"rc_wave_rt_barrier", (void *)rc_wave_rt_barrier},
                             {"rc_wave_rt_math", (void *)rc_wave_rt_math},
                             {"rc_wave_rt_builtin", (void *)rc_wave_rt_builtin},
                             {"rc_wave_rt_check_math", (void *)rc_wave_rt_check_math},
                             {NULL, NULL}};
  LLVMExecutionEngineRef ee = host_child_jit(r, wc->n->mod, hooks);
  const rc_wave_kernel *k = (const rc_wave_kernel *)(uintptr_t)host_child_symbol(ee, r, wc->n->desc_name, false);
  wc->kernel = k;
  wc->report = r;
  wc->launch->observe = observe_wave;
  wc->launch->user = r;
  r->phase = HOST_RUNNING;
  host_child_timed_runs(h, wc->timing ? wc->timing->repeat : 0, run_launch, wc);
  r->phase = HOST_FINISHED;
}

/* The launch's arguments: buffers by their shared address, scalars by value (floats as bits), local:
 * arguments by their size. */
static int fill_args(rc_native_wave *n, const rc_run_spec *s, const host_run *h, uint64_t *args,
                     uint64_t *local_bytes) {
  for (uint32_t p = 0; p < n->nparams; p++) {
    const char *name = n->param_names[p];
    const rc_arg_spec *a = rc_run_spec_find_arg(s, name);
    if (!a) return rc_error(n->ctx, "kernel @%s: parameter %%%s has no value", n->name, name);
    if (a->is_local) {
      local_bytes[p] = rc_arg_count(a, s) * rc_type_size(a->elem);
      if (!local_bytes[p]) local_bytes[p] = 1;
    } else if (a->is_buffer) {
      rc_buffer *b = rc_memory_find(h->mem, name);
      if (!b) return rc_error(n->ctx, "kernel @%s: the memory has no buffer for %%%s", n->name, name);
      args[p] = (uint64_t)(uintptr_t)h->bufs[b - h->mem->bufs].data;
    } else if (n->param_kinds[p] == RC_WAVE_ARG_F32 || n->param_kinds[p] == RC_WAVE_ARG_F64 ||
               n->param_kinds[p] == RC_WAVE_ARG_F16) {
      double d = a->scalar_is_float ? a->scalar_f : (double)rc_arg_scalar_int(a, s);
      float f = (float)d;
      uint32_t fb;
      memcpy(&fb, &f, 4);
      if (n->param_kinds[p] == RC_WAVE_ARG_F32) args[p] = fb;
      else if (n->param_kinds[p] == RC_WAVE_ARG_F16) args[p] = rc_f16_from_double(d);
      else memcpy(&args[p], &d, sizeof d);
    } else {
      args[p] = (uint64_t)rc_arg_scalar_int(a, s);
    }
  }
  return 0;
}

int rc_native_wave_run(rc_native_wave *n, const rc_run_spec *s, rc_memory *mem, rc_native_timing *t,
                       rc_fault *fault) {
  memset(fault, 0, sizeof *fault);
  if (s->wave != n->W)
    return rc_error(n->ctx, "kernel @%s was compiled for waves of %u lanes; the run specification says --wave %u",
                    n->name, n->W, s->wave);
  host_run h;
  uint64_t *args = rc_xcalloc(n->nparams + 1, sizeof *args), *local_bytes = rc_xcalloc(n->nparams + 1, sizeof *local_bytes);
  rc_wave_launch l;
  memset(&l, 0, sizeof l);
  l.dims = s->dims;
  rc_run_spec_local(s, l.local);
  for (int d = 0; d < 3; d++) l.global[d] = s->global[d];
  l.args = args;
  l.local_arg_bytes = local_bytes;
  l.threads = t ? t->threads : 1;
  int rc = -1;
  if (host_run_init(&h, n->ctx, mem) == 0 && fill_args(n, s, &h, args, local_bytes) == 0) {
    wave_child c = {n, &l, t, NULL, NULL};
    rc = host_run_fork(&h, child_main, &c, host_run_limit(s) * (t && t->repeat ? t->repeat + 1 : 1), n->name, s,
                       fault);
    if (rc == 0 && t) {
      t->first_ns = h.rep->first_ns;
      t->best_ns = h.rep->best_ns;
      t->math_ulps = h.rep->math_ulps;
    }
  }
  host_run_free(&h);
  free(args);
  free(local_bytes);
  return rc;
}
