/* reconv IR -> LLVM IR: the module, kernel signatures and metadata, and writing .ll / .bc.
 *
 * A kernel imported from LLVM keeps what the original module said about it: its function type
 * (pointee types and address spaces of pointer parameters), calling convention, linkage,
 * attributes and kernel metadata (kernel_arg_*). The importer keeps the original module as the
 * reconv module's origin (bitcode); export starts from a copy of it, replaces each kernel by one
 * with the new body, and drops what no kernel uses any more. Kernels written in .rir become
 * amdgcn kernels (amdgpu_kernel calling convention, OpenCL kernel metadata). The body is built by
 * export_instr.c; reconv's flat pointers are generic pointers there. */
#ifdef __linux__
#define _GNU_SOURCE /* memfd_create */
#include <sys/mman.h>
#endif
#include "bridge.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/DebugInfo.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What clang uses for amdgcn-amd-amdhsa (LLVM 14). */
static const char amdgcn_triple[] = "amdgcn-amd-amdhsa";
static const char amdgcn_layout[] =
    "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-i64:64-v16:16-v24:32-v32:32-"
    "v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7";

static bool starts(const char *s, const char *p) {
  return s && strncmp(s, p, strlen(p)) == 0;
}

/* Address spaces: amdgcn and nvptx have a generic (flat) space 0; SPIR's generic space is 4. */
static void address_spaces(exporter *ex, unsigned *global_as) {
  const char *t = LLVMGetTarget(ex->lmod);
  bool gpu = starts(t, "amdgcn") || starts(t, "spir") || starts(t, "nvptx");
  ex->flat_as = starts(t, "spir") ? 4 : 0;
  ex->local_as = gpu ? 3 : 0;
  *global_as = gpu ? 1 : 0;
}

static LLVMMetadataRef md_string(exporter *ex, const char *s) {
  return LLVMMDStringInContext2(ex->lctx, s, strlen(s));
}

static const char *cl_type_name(rc_type t) {
  switch (t) {
  case RC_I1: return "bool";
  case RC_I8: return "char";
  case RC_I16: return "short";
  case RC_I32: return "int";
  case RC_I64: return "long";
  case RC_F32: return "float";
  case RC_F64: return "double";
  default: return "char*";
  }
}

/* The kernel_arg_* metadata clang writes for OpenCL kernels (with -cl-kernel-arg-info). */
static void kernel_metadata(exporter *ex, const rc_kernel *k, LLVMValueRef fn, unsigned global_as) {
  static const char *const kinds[] = {"kernel_arg_addr_space", "kernel_arg_access_qual", "kernel_arg_type",
                                      "kernel_arg_base_type", "kernel_arg_type_qual", "kernel_arg_name"};
  uint32_t n = k->nparams;
  LLVMMetadataRef *ops = rc_xcalloc(n ? n : 1, sizeof *ops);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ex->lctx);
  for (int kind = 0; kind < 6; kind++) {
    for (uint32_t i = 0; i < n; i++) {
      rc_type t = (rc_type)k->params[i]->type;
      switch (kind) {
      case 0: ops[i] = LLVMValueAsMetadata(LLVMConstInt(i32, t == RC_PTR ? global_as : 0, 0)); break;
      case 1: ops[i] = md_string(ex, "none"); break;
      case 2: case 3: ops[i] = md_string(ex, cl_type_name(t)); break;
      case 4: ops[i] = md_string(ex, ""); break;
      default: ops[i] = md_string(ex, k->params[i]->name ? k->params[i]->name : ""); break;
      }
    }
    unsigned id = LLVMGetMDKindIDInContext(ex->lctx, kinds[kind], (unsigned)strlen(kinds[kind]));
    LLVMGlobalSetMetadata(fn, id, LLVMMDNodeInContext2(ex->lctx, ops, n));
  }
  free(ops);
}

static LLVMValueRef synthesize(exporter *ex, const rc_kernel *k) {
  unsigned global_as;
  address_spaces(ex, &global_as);
  LLVMTypeRef *params = rc_xcalloc(k->nparams ? k->nparams : 1, sizeof *params);
  for (uint32_t i = 0; i < k->nparams; i++) {
    rc_type t = (rc_type)k->params[i]->type;
    params[i] = t == RC_PTR ? LLVMPointerType(LLVMInt8TypeInContext(ex->lctx), global_as) : ex_type(ex, t);
  }
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(ex->lctx), params, k->nparams, 0);
  free(params);
  LLVMValueRef fn = LLVMAddFunction(ex->lmod, k->name, fty);
  const char *t = LLVMGetTarget(ex->lmod);
  if (starts(t, "amdgcn")) LLVMSetFunctionCallConv(fn, LLVMAMDGPUKERNELCallConv);
  else if (starts(t, "spir")) LLVMSetFunctionCallConv(fn, LLVMSPIRKERNELCallConv);
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ex->lctx, nounwind, 0));
  kernel_metadata(ex, k, fn, global_as);
  return fn;
}

/* A kernel with no function of its own in the origin module (written in .rir, generated, or a
 * copy of an imported one) gets a new function, its body built by export_instr.c. */
static int synthesize_kernel(exporter *ex, const rc_kernel *k) {
  LLVMValueRef clash = LLVMGetNamedFunction(ex->lmod, k->name);
  if (clash) LLVMSetValueName2(clash, "", 0); /* the new one takes the name */
  LLVMValueRef fn = synthesize(ex, k);
  for (uint32_t i = 0; i < k->nparams; i++)
    if (k->params[i]->name) LLVMSetValueName2(LLVMGetParam(fn, i), k->params[i]->name, strlen(k->params[i]->name));
  if (k->run_spec) {
    LLVMMetadataRef s = md_string(ex, k->run_spec);
    LLVMGlobalSetMetadata(fn, ex->md_run, LLVMMDNodeInContext2(ex->lctx, &s, 1));
  }
  ex->k = k;
  ex->fn = fn;
  return ex_body(ex);
}

static bool has_metadata(LLVMValueRef fn, unsigned kind) {
  size_t n = 0;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(fn, &n);
  bool has = false;
  for (size_t i = 0; i < n; i++) has |= LLVMValueMetadataEntriesGetKind(md, (unsigned)i) == kind;
  if (md) LLVMDisposeValueMetadataEntries(md);
  return has;
}

/* A copy of function fn named `name`, for a kernel copied from the one fn stands for (its origin
 * is taken already): blocks and instructions in the same order, so that the copy's view finds
 * them by position; without debug locations, which belong to fn's subprogram. */
static LLVMValueRef clone_function(exporter *ex, LLVMValueRef fn, const char *name) {
  LLVMValueRef nf = LLVMAddFunction(ex->lmod, name, LLVMGlobalGetValueType(fn));
  LLVMSetFunctionCallConv(nf, LLVMGetFunctionCallConv(fn));
  LLVMSetLinkage(nf, LLVMGetLinkage(fn));
  unsigned np = LLVMCountParams(fn);
  for (long idx = -1; idx <= (long)np; idx++) {
    LLVMAttributeIndex ai = idx < 0 ? (LLVMAttributeIndex)LLVMAttributeFunctionIndex : (LLVMAttributeIndex)idx;
    unsigned n = LLVMGetAttributeCountAtIndex(fn, ai);
    LLVMAttributeRef *attrs = rc_xcalloc(n ? n : 1, sizeof *attrs);
    LLVMGetAttributesAtIndex(fn, ai, attrs);
    for (unsigned i = 0; i < n; i++) LLVMAddAttributeAtIndex(nf, ai, attrs[i]);
    free(attrs);
  }
  unsigned dbg = LLVMGetMDKindIDInContext(ex->lctx, "dbg", 3);
  size_t nmd = 0;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(fn, &nmd);
  for (size_t i = 0; i < nmd; i++)
    if (LLVMValueMetadataEntriesGetKind(md, (unsigned)i) != dbg)
      LLVMGlobalSetMetadata(nf, LLVMValueMetadataEntriesGetKind(md, (unsigned)i), LLVMValueMetadataEntriesGetMetadata(md, (unsigned)i));
  if (md) LLVMDisposeValueMetadataEntries(md);
  ptrmap map; /* old value (argument, block, instruction) -> new */
  ptrmap_init(&map);
  for (unsigned i = 0; i < np; i++) {
    size_t n;
    const char *pn = LLVMGetValueName2(LLVMGetParam(fn, i), &n);
    LLVMSetValueName2(LLVMGetParam(nf, i), pn, n);
    ptrmap_put(&map, LLVMGetParam(fn, i), LLVMGetParam(nf, i));
  }
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    size_t n;
    const char *bn = LLVMGetValueName2(LLVMBasicBlockAsValue(bb), &n);
    LLVMBasicBlockRef nb = LLVMAppendBasicBlockInContext(ex->lctx, nf, bn);
    ptrmap_put(&map, LLVMBasicBlockAsValue(bb), LLVMBasicBlockAsValue(nb));
  }
  RC_VEC(LLVMValueRef) made = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMPositionBuilderAtEnd(ex->b, LLVMValueAsBasicBlock(ptrmap_get(&map, LLVMBasicBlockAsValue(bb))));
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      size_t n;
      const char *iname = LLVMGetValueName2(i, &n);
      LLVMValueRef c = LLVMIsAPHINode(i) ? LLVMBuildPhi(ex->b, LLVMTypeOf(i), iname) : LLVMInstructionClone(i);
      if (!LLVMIsAPHINode(i)) LLVMInsertIntoBuilderWithName(ex->b, c, iname);
      LLVMSetMetadata(c, dbg, NULL);
      ptrmap_put(&map, i, c);
      rc_vec_push(&made, i);
    }
  }
  for (uint32_t k = 0; k < made.len; k++) {
    LLVMValueRef i = made.data[k], c = ptrmap_get(&map, i);
    if (LLVMIsAPHINode(i)) {
      for (unsigned e = 0; e < LLVMCountIncoming(i); e++) {
        LLVMValueRef v = LLVMGetIncomingValue(i, e), nv = ptrmap_get(&map, v);
        LLVMBasicBlockRef from = LLVMValueAsBasicBlock(ptrmap_get(&map, LLVMBasicBlockAsValue(LLVMGetIncomingBlock(i, e))));
        LLVMValueRef use = nv ? nv : v;
        LLVMAddIncoming(c, &use, &from, 1);
      }
      continue;
    }
    for (int o = 0; o < LLVMGetNumOperands(i); o++) {
      LLVMValueRef nv = ptrmap_get(&map, LLVMGetOperand(i, (unsigned)o));
      if (nv) LLVMSetOperand(c, (unsigned)o, nv);
    }
  }
  rc_vec_free(&made);
  ptrmap_free(&map);
  return nf;
}

/* The origin module's functions and globals by position, as the importer numbered them. */
static void index_module(exporter *ex) {
  RC_VEC(LLVMValueRef) f = {0}, g = {0};
  for (LLVMValueRef v = LLVMGetFirstFunction(ex->lmod); v; v = LLVMGetNextFunction(v)) rc_vec_push(&f, v);
  for (LLVMValueRef v = LLVMGetFirstGlobal(ex->lmod); v; v = LLVMGetNextGlobal(v)) rc_vec_push(&g, v);
  ex->functions = f.data;
  ex->nfunctions = f.len;
  ex->globals = g.data;
  ex->nglobals = g.len;
}

/* When one kernel is exported: remove the other kernels, and whatever became unused (internal
 * functions and globals, declarations). */
static void prune(exporter *ex, LLVMValueRef *exported, uint32_t n) {
  for (LLVMValueRef f = LLVMGetFirstFunction(ex->lmod), next; f; f = next) {
    next = LLVMGetNextFunction(f);
    bool keep = false;
    for (uint32_t i = 0; i < n; i++) keep |= exported[i] == f;
    if (!keep && bridge_is_kernel(ex->lmod, f)) LLVMDeleteFunction(f);
  }
  bool changed = true;
  while (changed) {
    changed = false;
    for (LLVMValueRef f = LLVMGetFirstFunction(ex->lmod), next; f; f = next) {
      next = LLVMGetNextFunction(f);
      LLVMLinkage l = LLVMGetLinkage(f);
      if (!LLVMIsDeclaration(f) && (l == LLVMInternalLinkage || l == LLVMPrivateLinkage) && !LLVMGetFirstUse(f)) {
        LLVMDeleteFunction(f);
        changed = true;
      }
    }
    for (LLVMValueRef g = LLVMGetFirstGlobal(ex->lmod), next; g; g = next) {
      next = LLVMGetNextGlobal(g);
      LLVMLinkage l = LLVMGetLinkage(g);
      if ((l == LLVMInternalLinkage || l == LLVMPrivateLinkage) && !LLVMGetFirstUse(g)) {
        LLVMDeleteGlobal(g);
        changed = true;
      }
    }
    for (LLVMValueRef f = LLVMGetFirstFunction(ex->lmod), next; f; f = next) {
      next = LLVMGetNextFunction(f);
      if (LLVMIsDeclaration(f) && !LLVMGetFirstUse(f)) {
        LLVMDeleteFunction(f);
        changed = true;
      }
    }
  }
}

/* Instructions in all of m's functions: the in-place export finds the LLVM instruction of a
 * reconv instruction by its position (rc_instr.origin), so a copy must have the origin's. */
static size_t count_instructions(LLVMModuleRef m) {
  size_t n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) n++;
  return n;
}

/* The module to write: the origin itself when the caller exports it for the last time, else a copy
 * of it (through bitcode, which is faster than LLVMCloneModule on big modules), or a new amdgcn
 * module when there is no origin. Bitcode is not always a faithful copy: the reader upgrades what
 * it reads, e.g. an amdgcn module without a datalayout gets one whose allocas are in address
 * space 0, and an `alloca addrspace(5)` comes back with casts added; the in-place export would
 * then edit the wrong instructions (a crash in LLVM). Such a module is copied by LLVMCloneModule. */
static LLVMModuleRef open_module(exporter *ex, const rc_module *m, bool last) {
  if (m->origin) {
    bridge_origin *o = m->origin;
    LLVMModuleRef mod = NULL;
    if (last) {
      mod = o->mod;
      o->mod = NULL; /* the export owns it now */
    } else if (o->mod) {
      LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(o->mod);
      if (LLVMParseBitcodeInContext2(o->ctx, buf, &mod)) mod = NULL;
      LLVMDisposeMemoryBuffer(buf);
      if (mod && count_instructions(mod) != count_instructions(o->mod)) {
        LLVMDisposeModule(mod);
        mod = LLVMCloneModule(o->mod);
      }
    }
    /* as LLVM's tools name a module they read: after the file */
    if (mod && m->filename) LLVMSetModuleIdentifier(mod, m->filename, strlen(m->filename));
    return mod;
  }
  LLVMModuleRef mod = LLVMModuleCreateWithNameInContext(m->filename ? m->filename : "reconv", ex->lctx);
  LLVMSetTarget(mod, amdgcn_triple);
  LLVMSetDataLayout(mod, amdgcn_layout);
  return mod;
}

/* The module as LLVM IR text, appended to out. LLVMPrintModuleToString prints into an unbuffered
 * stream, and LLVM's printer then tracks columns byte run by byte run: on a 36 MB module that is
 * a third of the export. A file is printed through a buffer (as `opt -S` does), so on Linux the
 * text goes to an anonymous memory file and is read back. */
static void print_module(LLVMModuleRef lmod, rc_strbuf *out) {
#ifdef __linux__
  int fd = memfd_create("reconv-export", 0);
  if (fd >= 0) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    char *err = NULL;
    bool ok = !LLVMPrintModuleToFile(lmod, path, &err);
    LLVMDisposeMessage(err);
    off_t size = ok ? lseek(fd, 0, SEEK_END) : -1;
    if (size >= 0 && lseek(fd, 0, SEEK_SET) == 0) {
      size_t at = out->len, want = (size_t)size;
      rc_sb_reserve(out, want);
      size_t got = 0;
      for (ssize_t r; got < want && (r = read(fd, out->data + at + got, want - got)) > 0;) got += (size_t)r;
      if (got == want) {
        out->len = at + got;
        out->data[out->len] = '\0';
        close(fd);
        return;
      }
      out->len = at;
      out->data[at] = '\0';
    }
    close(fd);
  }
#endif
  char *s = LLVMPrintModuleToString(lmod);
  rc_sb_puts(out, s);
  LLVMDisposeMessage(s);
}

/* rc_llvm_export, or with into_origin rc_llvm_export_into_origin: the origin module edited and
 * nothing written. */
static int export_module(rc_ctx *ctx, const rc_module *m, const rc_llvm_export_opts *opts, bool into_origin,
                         char **data, size_t *len) {
  *data = NULL;
  *len = 0;
  for (uint32_t i = 0; i < m->nkernels; i++) {
    const rc_kernel *k = m->kernels[i];
    if (opts && opts->only && opts->only != k) continue;
    if (k->level != RC_LEVEL_THREAD)
      return rc_report(ctx, RC_SEV_ERROR, m->filename, k->line, k->col,
                       "kernel @%s is wave-level; only thread-level kernels can be exported to LLVM IR",
                       k->name);
    /* export relies on well-formed IR */
    if (!(opts && opts->verified) && rc_verify_kernel(ctx, k)) return -1;
  }
  exporter ex;
  memset(&ex, 0, sizeof ex);
  ex.ctx = ctx;
  bool own_context = !m->origin;
  ex.lctx = own_context ? LLVMContextCreate() : ((const bridge_origin *)m->origin)->ctx;
  bridge_diags diags;
  rc_sb_init(&diags.text);
  if (own_context) bridge_diags_install(ex.lctx, &diags);
  ex.lmod = open_module(&ex, m, into_origin || (opts && opts->last));
  if (!ex.lmod) {
    rc_sb_free(&diags.text);
    return rc_report(ctx, RC_SEV_ERROR, m->filename, 0, 0,
                     "internal error: the LLVM module this module came from was written out already");
  }
  ex.td = LLVMGetModuleDataLayout(ex.lmod);
  unsigned global_as;
  address_spaces(&ex, &global_as);
  ex.ptr = LLVMPointerType(LLVMInt8TypeInContext(ex.lctx), ex.flat_as);
  ex.md_flow = LLVMGetMDKindIDInContext(ex.lctx, "reconv.flow", 11);
  ex.md_guard = LLVMGetMDKindIDInContext(ex.lctx, "reconv.guard", 12);
  ex.md_virtual = LLVMGetMDKindIDInContext(ex.lctx, "reconv.virtual", 14);
  ex.md_uniform = LLVMGetMDKindIDInContext(ex.lctx, "reconv.uniform", 14);
  ex.md_divergent = LLVMGetMDKindIDInContext(ex.lctx, "reconv.divergent", 16);
  ex.md_run = LLVMGetMDKindIDInContext(ex.lctx, "reconv.run", 10);
  ex.b = LLVMCreateBuilderInContext(ex.lctx);
  index_module(&ex);
  LLVMValueRef *exported = rc_xcalloc(m->nkernels ? m->nkernels : 1, sizeof *exported);
  bool *claimed = rc_xcalloc(ex.nfunctions + 1, sizeof *claimed);
  uint32_t nexported = 0;
  int rc = 0;
  rc_strbuf runs; /* the run specifications, as comments of the text (the module keeps its metadata) */
  rc_sb_init(&runs);
  for (uint32_t i = 0; i < m->nkernels && rc == 0; i++) {
    const rc_kernel *k = m->kernels[i];
    if (opts && opts->only && opts->only != k && !k->is_function) continue;
    if (m->origin && k->origin && k->origin <= ex.nfunctions && !claimed[k->origin - 1]) {
      claimed[k->origin - 1] = true;
      ex.fn = ex.functions[k->origin - 1];
      rc = ex_inplace(&ex, k, ex.fn);
      if (k->run_spec && !has_metadata(ex.fn, ex.md_run)) {
        if (opts && opts->bitcode) {
          LLVMMetadataRef spec = md_string(&ex, k->run_spec);
          LLVMGlobalSetMetadata(ex.fn, ex.md_run, LLVMMDNodeInContext2(ex.lctx, &spec, 1));
        } else {
          size_t n;
          rc_sb_printf(&runs, "; reconv-run(%s): %s\n", LLVMGetValueName2(ex.fn, &n), k->run_spec);
        }
      }
    } else if (k->is_function && m->origin) {
      continue; /* a copy of a device function: the original serves the calls */
    } else if (m->origin && k->origin && k->origin <= ex.nfunctions) {
      /* a copy of a kernel whose function another kernel took: a copy of that function */
      LLVMValueRef clash = LLVMGetNamedFunction(ex.lmod, k->name);
      if (clash) LLVMSetValueName2(clash, "", 0);
      ex.fn = clone_function(&ex, ex.functions[k->origin - 1], k->name);
      rc = ex_inplace(&ex, k, ex.fn);
    } else {
      rc = synthesize_kernel(&ex, k);
    }
    exported[nexported++] = ex.fn;
  }
  free(claimed);
  if (rc == 0) {
    if (opts && opts->only) prune(&ex, exported, nexported);
    char *msg = NULL;
    if (LLVMVerifyModule(ex.lmod, LLVMReturnStatusAction, &msg)) {
      rc = rc_report(ctx, RC_SEV_ERROR, m->filename, 0, 0,
                     "internal error: the exported LLVM module does not verify:\n%s", msg);
    } else if (into_origin) {
      /* the caller's module is the result */
    } else if (opts && opts->bitcode) {
      LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(ex.lmod);
      *len = LLVMGetBufferSize(buf);
      *data = rc_xmalloc(*len ? *len : 1);
      memcpy(*data, LLVMGetBufferStart(buf), *len);
      LLVMDisposeMemoryBuffer(buf);
    } else {
      print_module(ex.lmod, &runs);
      *data = runs.data;
      *len = runs.len;
      runs.data = NULL;
    }
    LLVMDisposeMessage(msg);
  }
  rc_sb_free(&runs);
  free(exported);
  free(ex.functions);
  free(ex.globals);
  LLVMDisposeBuilder(ex.b);
  if (!into_origin) LLVMDisposeModule(ex.lmod);
  if (own_context) LLVMContextDispose(ex.lctx);
  rc_sb_free(&diags.text);
  return rc;
}

int rc_llvm_export(rc_ctx *ctx, const rc_module *m, const rc_llvm_export_opts *opts, char **data,
                   size_t *len) {
  return export_module(ctx, m, opts, false, data, len);
}

int rc_llvm_export_into_origin(rc_ctx *ctx, const rc_module *m, bool verified) {
  if (!m->origin || !((const bridge_origin *)m->origin)->borrowed)
    return rc_report(ctx, RC_SEV_ERROR, m->filename, 0, 0,
                     "internal error: export into the origin of a module rc_llvm_import_module did not read");
  rc_llvm_export_opts o = {NULL, false, true, verified};
  char *data;
  size_t len;
  return export_module(ctx, m, &o, true, &data, &len);
}

int rc_llvm_export_file(rc_ctx *ctx, const rc_module *m, const char *path) {
  size_t n = strlen(path);
  rc_llvm_export_opts o = {NULL, n > 3 && strcmp(path + n - 3, ".bc") == 0, false, false};
  char *data;
  size_t len;
  if (rc_llvm_export(ctx, m, &o, &data, &len)) return -1;
  char *tmp = rc_xmalloc(n + 32);
  snprintf(tmp, n + 32, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  bool ok = f != NULL;
  if (ok) {
    ok = fwrite(data, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
  }
  if (ok) ok = rename(tmp, path) == 0;
  int rc = 0;
  if (!ok) {
    rc = rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot write: %s", strerror(errno));
    remove(tmp);
  }
  free(tmp);
  free(data);
  return rc;
}
