/* The native oracle, part 1: preparing an LLVM module so that the host's JIT can run one of its
 * kernels (docs/native.md). The module is read as the importer reads it, retargeted to the host
 * (triple, data layout, the C calling convention instead of SPIR's), and linked with the runtime
 * library (native_rt.cl, compiled by clang for the module's own target so that mangled names and
 * vector arguments agree). Then the host gets its handles: an entry wrapper that takes the kernel's
 * arguments from an array of 64-bit slots (so C never calls a function of unknown signature), the
 * slot holding the running work-item, and a function that zeroes the __local variables. Calls of
 * functions nobody provides become calls of a hook that faults with their name, and `unreachable`
 * traps, so that neither runs into undefined native behaviour. Running it: native_launch.c. */
#include "native_internal.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Comdat.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SPIR's calling conventions (llvm/IR/CallingConv.h), which the host's code generator lacks. */
enum { CC_SPIR_FUNC = 75, CC_SPIR_KERNEL = 76 };

static bool starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- the target ---------------------------------------------------------------------------------- */

/* The host's triple and data layout (malloc'ed), from a target machine for the default triple. */
static int host_target(rc_ctx *ctx, char **triple, char **layout) {
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter())
    return rc_error(ctx, "the native oracle needs LLVM's code generator for this machine, which this "
                         "LLVM does not have");
  char *t = LLVMGetDefaultTargetTriple(), *err = NULL;
  LLVMTargetRef target;
  if (LLVMGetTargetFromTriple(t, &target, &err)) {
    rc_error(ctx, "the native oracle cannot generate code for this machine (%s): %s", t, err);
    LLVMDisposeMessage(err);
    LLVMDisposeMessage(t);
    return -1;
  }
  /* the generic CPU of the architecture, not the host's own: the code, and so what the oracle
   * says, must not depend on the machine (a CPU with FMA would fuse llvm.fmuladd) */
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, t, "", "", LLVMCodeGenLevelDefault,
                                                    LLVMRelocDefault, LLVMCodeModelJITDefault);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
  char *dl = LLVMCopyStringRepOfTargetData(td);
  *triple = rc_xstrdup(t);
  *layout = rc_xstrdup(dl);
  LLVMDisposeMessage(dl);
  LLVMDisposeTargetData(td);
  LLVMDisposeTargetMachine(tm);
  LLVMDisposeMessage(t);
  return 0;
}

static size_t arch_len(const char *triple) {
  const char *dash = strchr(triple, '-');
  return dash ? (size_t)(dash - triple) : strlen(triple);
}

/* spir64 modules (OpenCL's portable target, whose types are the host's) and modules of the host's
 * own architecture can run here; GPU targets cannot (their intrinsics, address spaces and ABI are
 * the GPU's), nor 32-bit SPIR (its pointers are 32 bits wide). */
static int check_target(rc_ctx *ctx, const char *path, const char *triple, const char *host) {
  if (starts_with(triple, "spir64")) return 0;
  if (*triple && arch_len(triple) == arch_len(host) && strncmp(triple, host, arch_len(host)) == 0)
    return 0;
  return rc_report(ctx, RC_SEV_ERROR, path, 0, 0,
                   "the native oracle runs spir64 modules; compile the .cl file with --target spir64 "
                   "(this module's target is %s)", *triple ? triple : "not given");
}

/* Make m a module of the host: its triple and data layout (spir64's types and layout are the
 * host's), and no CPU of its own for any function (the generic CPU, as in host_target). */
void native_retarget(LLVMModuleRef m, const char *triple, const char *layout) {
  LLVMSetTarget(m, triple);
  LLVMSetDataLayout(m, layout);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "target-cpu", 10);
    LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "target-features", 15);
    LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "tune-cpu", 8);
  }
}

/* SPIR's calling conventions become C's, on functions and on calls alike: caller and callee are
 * both in the module, so they agree whatever the host's C convention does with vectors. */
static void to_c_calls(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    unsigned cc = LLVMGetFunctionCallConv(f);
    if (cc == CC_SPIR_FUNC || cc == CC_SPIR_KERNEL) LLVMSetFunctionCallConv(f, LLVMCCallConv);
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
        if (!LLVMIsACallInst(i)) continue;
        cc = LLVMGetInstructionCallConv(i);
        if (cc == CC_SPIR_FUNC || cc == CC_SPIR_KERNEL) LLVMSetInstructionCallConv(i, LLVMCCallConv);
      }
  }
}

/* ---- the kernel and its parameters ------------------------------------------------------------------ */

static LLVMValueRef find_kernel(rc_native *n, const rc_kernel *k, const char *name) {
  LLVMValueRef f = LLVMGetNamedFunction(n->mod, name ? name : k->name);
  if (!f && !name && k->origin) { /* the name reconv gave it may differ from LLVM's (docs/llvm.md) */
    uint32_t i = 1;
    for (f = LLVMGetFirstFunction(n->mod); f && i < k->origin; f = LLVMGetNextFunction(f)) i++;
  }
  if (!f || LLVMIsDeclaration(f)) {
    rc_report(n->ctx, RC_SEV_ERROR, n->path, 0, 0, "the native oracle finds no function @%s with a body",
              name ? name : k->name);
    return NULL;
  }
  return f;
}

/* Integers, floating point and pointers are passed in slots (a byval pointer too: see
 * copy_byval_params); the rest (vectors, integers wider than 64 bits) a run specification cannot
 * give anyway. */
static int check_params(rc_native *n, LLVMValueRef f, const rc_kernel *k) {
  unsigned np = LLVMCountParams(f);
  if (np != k->nparams)
    return rc_report(n->ctx, RC_SEV_ERROR, n->path, 0, 0, "function @%s has %u parameters, kernel @%s "
                     "%u: the native oracle needs the kernel imported from the same function",
                     n->kernel, np, k->name, k->nparams);
  n->nparams = np;
  n->params = rc_xcalloc(np ? np : 1, sizeof *n->params);
  for (unsigned i = 0; i < np; i++) {
    LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(f, i));
    native_param *p = &n->params[i];
    p->name = rc_xstrdup(k->params[i]->name ? k->params[i]->name : "");
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind:
      p->kind = NP_INT;
      p->bits = LLVMGetIntTypeWidth(t);
      if (p->bits <= 64) continue;
      break;
    case LLVMFloatTypeKind: p->kind = NP_FLOAT; continue;
    case LLVMDoubleTypeKind: p->kind = NP_DOUBLE; continue;
    case LLVMPointerTypeKind: p->kind = NP_PTR; continue;
    default: break;
    }
    char *ts = LLVMPrintTypeToString(t);
    rc_report(n->ctx, RC_SEV_ERROR, n->path, 0, 0, "kernel @%s: parameter %u (%%%s) has type %s; the "
              "native oracle passes integers of up to 64 bits, float, double and pointers", n->kernel,
              i, p->name, ts);
    LLVMDisposeMessage(ts);
    return -1;
  }
  return 0;
}

/* A byval pointer parameter (clang's spir64 form of a struct kernel argument) points at the
 * callee's own copy of the struct, which the kernel may write (LangRef, "byval"). The host passes
 * the address of the run specification's buffer, shared by every work-item, so the kernel copies
 * it into a private alloca at its entry and uses the copy. */
static void copy_byval_params(LLVMValueRef f, LLVMBuilderRef b) {
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(f);
  for (unsigned i = 0; i < LLVMCountParams(f); i++) {
    LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(f, i + 1, byval);
    if (!a) continue;
    LLVMTypeRef t = LLVMGetTypeAttributeValue(a);
    LLVMValueRef p = LLVMGetParam(f, i);
    LLVMRemoveEnumAttributeAtIndex(f, i + 1, byval);
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    if (first) LLVMPositionBuilderBefore(b, first);
    else LLVMPositionBuilderAtEnd(b, entry);
    LLVMValueRef copy = LLVMBuildAlloca(b, t, "byval.copy");
    LLVMSetAlignment(copy, 16);
    LLVMValueRef use = LLVMTypeOf(copy) == LLVMTypeOf(p) ? copy : LLVMBuildAddrSpaceCast(b, copy, LLVMTypeOf(p), "");
    LLVMReplaceAllUsesWith(p, use);
    LLVMBuildMemCpy(b, copy, 16, p, 1, LLVMSizeOf(t));
  }
}

/* ---- the host's handles ----------------------------------------------------------------------------------- */

static LLVMValueRef add_function(LLVMModuleRef m, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                                 unsigned np) {
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  return f ? f : LLVMAddFunction(m, name, LLVMFunctionType(ret, params, np, 0));
}

/* The calls of barriers (and of wait_group_events, which is one) are numbered: before each, the
 * number is stored in a slot that __reconv_native_site() reads, so that the host knows which barrier
 * a work-item waits at (the return address would not do: the code generator may merge the calls
 * of two branches). */
static bool is_barrier(LLVMValueRef callee) {
  const char *name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName(callee) : "";
  return strcmp(name, "_Z7barrierj") == 0 || starts_with(name, "_Z18work_group_barrier") ||
         starts_with(name, "_Z17wait_group_events");
}

static void number_barriers(rc_native *n, LLVMBuilderRef b) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(n->lctx);
  LLVMValueRef slot = LLVMAddGlobal(n->mod, i64, "__reconv_native_site.slot");
  LLVMSetInitializer(slot, LLVMConstInt(i64, 0, 0));
  LLVMSetLinkage(slot, LLVMInternalLinkage);
  RC_VEC(char *) sites = {0};
  for (LLVMValueRef f = LLVMGetFirstFunction(n->mod); f; f = LLVMGetNextFunction(f)) {
    uint32_t index = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb), index++)
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
        if (!LLVMIsACallInst(i) || !is_barrier(LLVMGetCalledValue(i))) continue;
        LLVMPositionBuilderBefore(b, i);
        LLVMBuildStore(b, LLVMConstInt(i64, sites.len + 1, 0), slot);
        rc_strbuf where;
        rc_sb_init(&where);
        const char *bn = LLVMGetBasicBlockName(bb);
        if (*bn) rc_sb_printf(&where, "@%s, block %%%s", LLVMGetValueName(f), bn);
        else rc_sb_printf(&where, "@%s, block %u", LLVMGetValueName(f), index);
        rc_vec_push(&sites, where.data);
      }
  }
  n->sites = sites.data;
  n->nsites = sites.len;
}

static void define_site(rc_native *n, LLVMBuilderRef b) {
  LLVMValueRef f = LLVMGetNamedFunction(n->mod, NATIVE_SITE);
  if (!f) return;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(n->lctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(n->lctx, f, "entry"));
  LLVMBuildRet(b, LLVMBuildLoad2(b, i64, LLVMGetNamedGlobal(n->mod, "__reconv_native_site.slot"), "site"));
  LLVMSetLinkage(f, LLVMInternalLinkage);
}

/* __reconv_native_self() loads a slot that __reconv_native_set_self(wi) stores: the host switches
 * work-items by setting it. */
static void define_self(rc_native *n, LLVMBuilderRef b) {
  LLVMContextRef c = n->lctx;
  LLVMValueRef self = LLVMGetNamedFunction(n->mod, NATIVE_SELF);
  LLVMTypeRef i8p = LLVMPointerType(LLVMInt8TypeInContext(c), 0);
  LLVMTypeRef t = self ? LLVMGetReturnType(LLVMGlobalGetValueType(self)) : i8p;
  if (!self) self = add_function(n->mod, NATIVE_SELF, t, NULL, 0);
  LLVMValueRef slot = LLVMAddGlobal(n->mod, t, "__reconv_native_self.slot");
  LLVMSetInitializer(slot, LLVMConstNull(t));
  LLVMSetLinkage(slot, LLVMInternalLinkage);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, self, "entry"));
  LLVMBuildRet(b, LLVMBuildLoad2(b, t, slot, "self"));
  LLVMSetLinkage(self, LLVMInternalLinkage);
  LLVMSetFunctionCallConv(self, LLVMCCallConv);
  LLVMValueRef set = add_function(n->mod, NATIVE_SET_SELF, LLVMVoidTypeInContext(c), &i8p, 1);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, set, "entry"));
  LLVMBuildStore(b, LLVMBuildPointerCast(b, LLVMGetParam(set, 0), t, ""), slot);
  LLVMBuildRetVoid(b);
}

/* The __local variables (address space 3) are shared by a work-group; reconv's interpreter zeroes
 * them when a group starts, and so does the host, through this function. */
static void define_zero_locals(rc_native *n, LLVMBuilderRef b) {
  LLVMContextRef c = n->lctx;
  LLVMValueRef f = add_function(n->mod, NATIVE_ZERO_LOCALS, LLVMVoidTypeInContext(c), NULL, 0);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(n->mod);
  for (LLVMValueRef g = LLVMGetFirstGlobal(n->mod); g; g = LLVMGetNextGlobal(g)) {
    if (LLVMIsDeclaration(g) || LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 3) continue;
    unsigned long long size = LLVMABISizeOfType(td, LLVMGlobalGetValueType(g));
    LLVMBuildMemSet(b, g, LLVMConstInt(LLVMInt8TypeInContext(c), 0, 0),
                    LLVMConstInt(LLVMInt64TypeInContext(c), size, 0), 1);
  }
  LLVMBuildRetVoid(b);
}

/* __reconv_native_entry(i64 *slots): load each argument from its slot (the host stores integers
 * zero- or sign-extended, floats in the low bytes, pointers whole) and call the kernel. */
static void define_entry(rc_native *n, LLVMBuilderRef b, LLVMValueRef kernel) {
  LLVMContextRef c = n->lctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c), slots_t = LLVMPointerType(i64, 0);
  LLVMValueRef f = add_function(n->mod, NATIVE_ENTRY, LLVMVoidTypeInContext(c), &slots_t, 1);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
  LLVMValueRef *args = rc_xcalloc(n->nparams ? n->nparams : 1, sizeof *args);
  for (uint32_t i = 0; i < n->nparams; i++) {
    LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(kernel, i));
    LLVMValueRef idx = LLVMConstInt(i64, i, 0);
    LLVMValueRef p = LLVMBuildGEP2(b, i64, LLVMGetParam(f, 0), &idx, 1, "");
    args[i] = LLVMBuildLoad2(b, t, LLVMBuildBitCast(b, p, LLVMPointerType(t, 0), ""), "");
  }
  LLVMValueRef call = LLVMBuildCall2(b, LLVMGlobalGetValueType(kernel), kernel, args, n->nparams, "");
  LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(kernel));
  LLVMBuildRetVoid(b);
  free(args);
}

/* A function that is declared, not defined, and not something the process provides (the runtime's
 * C library functions and hooks): its calls fault with its name instead of failing the JIT's
 * linking, so that kernels that never reach the call still run. */
static void stub_unprovided(rc_native *n, LLVMBuilderRef b, const rc_strmap *host) {
  LLVMContextRef c = n->lctx;
  LLVMTypeRef i8p = LLVMPointerType(LLVMInt8TypeInContext(c), 0);
  LLVMTypeRef hook_params[2] = {i8p, i8p};
  LLVMValueRef self = LLVMGetNamedFunction(n->mod, NATIVE_SELF);
  LLVMValueRef hook = NULL;
  for (LLVMValueRef f = LLVMGetFirstFunction(n->mod); f; f = LLVMGetNextFunction(f)) {
    const char *name = LLVMGetValueName(f);
    if (!LLVMIsDeclaration(f) || LLVMGetIntrinsicID(f) || rc_strmap_get(host, name) || f == hook)
      continue;
    if (!hook) hook = add_function(n->mod, NATIVE_HOOK_UNSUPPORTED, LLVMVoidTypeInContext(c), hook_params, 2);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "unprovided"));
    LLVMValueRef args[2] = {
        LLVMBuildPointerCast(b, LLVMBuildCall2(b, LLVMGlobalGetValueType(self), self, NULL, 0, ""), i8p, ""),
        LLVMBuildPointerCast(b, LLVMBuildGlobalStringPtr(b, name, "unprovided.name"), i8p, "")};
    LLVMBuildCall2(b, LLVMGlobalGetValueType(hook), hook, args, 2, "");
    LLVMBuildUnreachable(b);
    LLVMSetLinkage(f, LLVMInternalLinkage);
  }
}

/* `unreachable` reached is undefined behaviour; natively it would run into whatever code follows.
 * A trap before it makes it a fault (SIGILL), as in reconv's interpreter. */
static void trap_unreachable(rc_native *n, LLVMBuilderRef b) {
  LLVMContextRef c = n->lctx;
  LLVMValueRef trap = add_function(n->mod, "llvm.trap", LLVMVoidTypeInContext(c), NULL, 0);
  for (LLVMValueRef f = LLVMGetFirstFunction(n->mod); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
      if (!t || LLVMGetInstructionOpcode(t) != LLVMUnreachable) continue;
      LLVMPositionBuilderBefore(b, t);
      LLVMBuildCall2(b, LLVMGlobalGetValueType(trap), trap, NULL, 0, "");
    }
}

/* Only the host's handles stay visible: everything else of the module becomes internal, so that
 * globaldce drops what the kernel does not use (the module's other kernels, say) before the JIT
 * compiles it, run after run. */
static void internalize(rc_native *n) {
  for (LLVMValueRef f = LLVMGetFirstFunction(n->mod); f; f = LLVMGetNextFunction(f)) {
    const char *name = LLVMGetValueName(f);
    if (LLVMIsDeclaration(f) || strcmp(name, NATIVE_ENTRY) == 0 || strcmp(name, NATIVE_SET_SELF) == 0 ||
        strcmp(name, NATIVE_ZERO_LOCALS) == 0)
      continue;
    LLVMSetLinkage(f, LLVMInternalLinkage);
    LLVMSetVisibility(f, LLVMDefaultVisibility);
    LLVMSetComdat(f, NULL);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(n->mod); g; g = LLVMGetNextGlobal(g)) {
    if (LLVMIsDeclaration(g)) continue;
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetVisibility(g, LLVMDefaultVisibility);
    LLVMSetComdat(g, NULL);
  }
}

static int run_pass(rc_native *n, const char *pipeline) {
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(n->mod, pipeline, NULL, po);
  LLVMDisposePassBuilderOptions(po);
  if (!e) return 0;
  char *msg = LLVMGetErrorMessage(e);
  rc_error(n->ctx, "the native oracle could not run %s on %s: %s", pipeline, n->path, msg);
  LLVMDisposeErrorMessage(msg);
  return -1;
}

/* ---- the whole preparation ------------------------------------------------------------------------------- */

/* Since LLVM 17, clang gives OpenCL's event_t (and image and sampler types) on SPIR targets as
 * target extension types, target("spirv.Event"), which the host's code generator cannot lower
 * (it has no size or alignment for them). The runtime library treats events as tokens that are
 * passed around and never looked into, so here they become plain pointers: the module is printed,
 * each `target("spirv....")` is spelled `ptr`, and the text is parsed again. A module without them
 * (every module of LLVM 14, which has no such types) is left as it is. */
static int spirv_types_as_pointers(rc_native *n) {
  char *text = LLVMPrintModuleToString(n->mod);
  static const char tag[] = "target(\"spirv.";
  if (!strstr(text, tag)) {
    LLVMDisposeMessage(text);
    return 0;
  }
  rc_strbuf out;
  rc_sb_init(&out);
  for (const char *p = text; *p;) {
    if (strncmp(p, tag, sizeof tag - 1) != 0) {
      rc_sb_putc(&out, *p++);
      continue;
    }
    /* to the closing parenthesis, past the quoted name and any type or integer parameters */
    const char *q = p + strlen("target(");
    bool quoted = false;
    int depth = 1;
    for (; *q && depth > 0; q++) {
      if (*q == '"') quoted = !quoted;
      else if (!quoted && *q == '(') depth++;
      else if (!quoted && *q == ')') depth--;
    }
    rc_sb_puts(&out, "ptr");
    p = q;
  }
  LLVMDisposeMessage(text);
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(out.data, out.len, n->path);
  rc_sb_free(&out);
  LLVMModuleRef m = NULL;
  char *msg = NULL;
  if (LLVMParseIRInContext(n->lctx, buf, &m, &msg)) { /* takes the buffer */
    rc_error(n->ctx, "the native oracle cannot give %s's SPIR-V types as pointers (a bug of reconv): %s", n->path,
             msg ? msg : "no reason given");
    LLVMDisposeMessage(msg);
    return -1;
  }
  LLVMDisposeModule(n->mod);
  n->mod = m;
  return 0;
}

static int prepare(rc_native *n, const rc_llvm_import_opts *opts, const rc_kernel *k, const char *kernel,
                   const rc_native *share) {
  char *source = NULL, *host_triple = NULL, *layout = NULL;
  size_t source_len;
  int rc = bridge_load(n->ctx, n->path, opts, n->lctx, &n->diags, &n->mod, &source, &source_len);
  free(source);
  if (rc) return -1;
  n->triple = rc_xstrdup(LLVMGetTarget(n->mod));
  /* nothing needs it natively, and a definition linked over a declaration would keep the
   * declaration's !dbg, which the verifier rejects */
  LLVMStripModuleDebugInfo(n->mod);
  rc_strmap host;
  rc_strmap_init(&host);
  native_names names = {0};
  LLVMBuilderRef b = NULL;
  rc = -1;
  if (host_target(n->ctx, &host_triple, &layout) || check_target(n->ctx, n->path, n->triple, host_triple))
    goto out;
  LLVMValueRef f = find_kernel(n, k, kernel);
  if (!f) goto out;
  n->kernel = rc_xstrdup(LLVMGetValueName(f));
  if (check_params(n, f, k)) goto out;
  native_retarget(n->mod, host_triple, layout);
  b = LLVMCreateBuilderInContext(n->lctx);
  copy_byval_params(f, b);
  number_barriers(n, b);
  if (native_add_runtime(n, share, host_triple, layout, &host, &names)) goto out;
  to_c_calls(n->mod);
  define_site(n, b);
  define_self(n, b);
  define_zero_locals(n, b);
  define_entry(n, b, LLVMGetNamedFunction(n->mod, n->kernel));
  stub_unprovided(n, b, &host);
  internalize(n);
  if (run_pass(n, "globaldce")) goto out;
  LLVMValueRef barrier = LLVMGetNamedFunction(n->mod, NATIVE_HOOK_BARRIER);
  n->has_barrier = barrier && LLVMGetFirstUse(barrier);
  trap_unreachable(n, b);
  if (spirv_types_as_pointers(n)) goto out;
  char *msg = NULL;
  if (LLVMVerifyModule(n->mod, LLVMReturnStatusAction, &msg)) {
    rc_error(n->ctx, "the native oracle made an invalid module of %s (a bug of reconv):\n%s", n->path, msg);
    LLVMDisposeMessage(msg);
    goto out;
  }
  LLVMDisposeMessage(msg);
  rc = 0;
out:
  if (b) LLVMDisposeBuilder(b);
  for (uint32_t i = 0; i < names.len; i++) free(names.data[i]);
  rc_vec_free(&names);
  rc_strmap_free(&host);
  free(host_triple);
  free(layout);
  return rc;
}

/* llvm.fmuladd as a multiply and an add, each rounded: the numerics of reconv's interpreter and of
 * the native wave backend, which a CPU with FMA would otherwise not have (LLVM fuses fmuladd where it
 * can), so that a comparison compares the same arithmetic. */
static void unfuse_fmuladd(rc_native *n) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(n->lctx);
  for (LLVMValueRef f = LLVMGetFirstFunction(n->mod); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        LLVMValueRef callee = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
        if (!callee || !LLVMIsAFunction(callee) || !starts_with(LLVMGetValueName(callee), "llvm.fmuladd.")) continue;
        LLVMPositionBuilderBefore(b, i);
        LLVMValueRef p = LLVMBuildFMul(b, LLVMGetOperand(i, 0), LLVMGetOperand(i, 1), "");
        LLVMValueRef sum = LLVMBuildFAdd(b, p, LLVMGetOperand(i, 2), "");
        LLVMReplaceAllUsesWith(i, sum);
        LLVMInstructionEraseFromParent(i);
      }
  LLVMDisposeBuilder(b);
}

int rc_native_tune_for_host(rc_native *n) {
  unfuse_fmuladd(n);
  char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures(), *t = LLVMGetDefaultTargetTriple(), *err = NULL;
  LLVMTargetRef target;
  int rc = 0;
  if (LLVMGetTargetFromTriple(t, &target, &err)) {
    rc = rc_error(n->ctx, "cannot generate code for this machine (%s): %s", t, err);
    LLVMDisposeMessage(err);
  } else {
    for (LLVMValueRef f = LLVMGetFirstFunction(n->mod); f; f = LLVMGetNextFunction(f)) {
      if (LLVMIsDeclaration(f)) continue;
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(n->lctx, "target-cpu", 10, cpu, (unsigned)strlen(cpu)));
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(n->lctx, "target-features", 15, features, (unsigned)strlen(features)));
    }
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, t, cpu, features, LLVMCodeGenLevelDefault,
                                                      LLVMRelocDefault, LLVMCodeModelJITDefault);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(n->mod, "default<O2>", tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
      char *msg = LLVMGetErrorMessage(e);
      rc = rc_error(n->ctx, "%s: LLVM's optimiser failed on it: %s", n->path, msg);
      LLVMDisposeErrorMessage(msg);
    }
    LLVMDisposeTargetMachine(tm);
  }
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  LLVMDisposeMessage(t);
  return rc;
}

static bool has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n > e && strcmp(path + n - e, ext) == 0;
}

rc_native *rc_native_open(rc_ctx *ctx, const char *path, const rc_llvm_import_opts *opts,
                          const rc_kernel *k, const char *kernel, const rc_native *share) {
  if (!has_ext(path, ".ll") && !has_ext(path, ".bc") && !has_ext(path, ".cl")) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "the native oracle runs LLVM modules (.ll, .bc or .cl files)");
    return NULL;
  }
  rc_native *n = rc_xcalloc(1, sizeof *n);
  n->ctx = ctx;
  n->path = rc_xstrdup(path);
  n->lctx = LLVMContextCreate();
  rc_sb_init(&n->diags.text);
  bridge_diags_install(n->lctx, &n->diags);
  if (prepare(n, opts, k, kernel, share) == 0) return n;
  rc_native_close(n);
  return NULL;
}

void rc_native_close(rc_native *n) {
  if (!n) return;
  if (n->mod) LLVMDisposeModule(n->mod);
  LLVMContextDispose(n->lctx);
  rc_sb_free(&n->diags.text);
  free(n->path);
  free(n->kernel);
  free(n->triple);
  for (uint32_t i = 0; n->params && i < n->nparams; i++) free(n->params[i].name);
  for (uint32_t i = 0; i < n->nsites; i++) free(n->sites[i]);
  free(n->sites);
  free(n->params);
  native_lib_free(&n->rt);
  native_lib_free(&n->conv);
  free(n);
}
