/* The LLVM bridge (built when LLVM's development files are present; RECONV_HAVE_LLVM is defined
 * then): import of LLVM IR (.ll, .bc) and OpenCL C (.cl, compiled by clang), export of thread-level
 * reconv IR back to LLVM IR, and running LLVM's own passes (e.g. structurizecfg) as a peer.
 * docs/llvm.md describes what is mapped to what, and the `reconv-run` comment convention that gives
 * .cl and .ll kernels a run specification. */
#ifndef RECONV_LLVM_H
#define RECONV_LLVM_H

#include "reconv/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rc_llvm_import_opts {
  const char *passes;          /* LLVM pass pipeline run before import (new pass manager syntax) */
  const char *target;          /* .cl: target triple, default amdgcn-amd-amdhsa */
  const char *opt_level;       /* .cl: "0".."3", default "2" */
  const char *const *defines;  /* .cl: -D NAME[=VALUE] */
  unsigned ndefines;
  const char *data;            /* .ll/.bc: the input itself, in memory (path then only names it and
                                  its extension says which of the two it is); NULL: read path */
  size_t data_len;
  bool llvm_divergence;        /* annotate every conditional branch with the verdict of LLVM's own
                                  divergence analysis (print<divergence> with the target machine):
                                  !divergent or !uniform, which reconv's analyses then trust */
} rc_llvm_import_opts;

/* Import every kernel of a .ll, .bc or .cl file. Errors (including unsupported instructions, named
 * with their source line when debug info has it) are reported through ctx; returns NULL then.
 * The clang used for .cl files is $RECONV_CLANG, else the clang next to llvm-config's bindir, else
 * `clang` on PATH. The module keeps the imported LLVM module as its origin (rc_module.origin). */
rc_module *rc_llvm_import_file(rc_ctx *ctx, const char *path, const rc_llvm_import_opts *opts);

/* LLVM's module type (llvm-c/Types.h: LLVMModuleRef), without LLVM's headers. */
struct LLVMOpaqueModule;
/* Import every kernel and function of an LLVM module the caller owns (e.g. the one `opt` or clang
 * runs passes on: the pass plugin, docs/llvm.md), as rc_llvm_import_file does for a file that holds
 * it: errors name the module's identifier as the file. Of opts only llvm_divergence applies. A
 * module without a function reconv can read (only declarations, or functions left as they are
 * with a warning) gives a module without kernels, not an error. The import does not change the
 * module; the reconv module's origin is it, still the caller's: export
 * with rc_llvm_export_into_origin to edit it in place, and keep it alive until then. */
rc_module *rc_llvm_import_module(rc_ctx *ctx, struct LLVMOpaqueModule *mod, const rc_llvm_import_opts *opts);

/* What the pass plugin does to the module `opt` or clang gives it (src/llvm/transform_module.c):
 * import (rc_llvm_import_module), the device functions' parameter uniformity from their calls, the
 * pipeline (`reconverge[order=dfpd]`, rc_pipeline_run) on every kernel and device function, and
 * export into the module itself. That is what `reconv opt -p PIPELINE in.ll -o out.ll` does to the
 * module in.ll holds. Returns 0, or -1 after reporting through ctx: then the module is the one it
 * was when the import or the pipeline failed, but may be half edited when the export failed. */
int rc_llvm_transform_module(rc_ctx *ctx, struct LLVMOpaqueModule *mod, const char *pipeline);

typedef struct rc_llvm_export_opts {
  const rc_kernel *only; /* export only this kernel of the module (NULL: every kernel) */
  bool bitcode;          /* bitcode instead of LLVM IR text */
  bool last;             /* the caller exports this module no more: export may edit the LLVM module
                            the import kept instead of a copy of it (faster on big modules); a later
                            export of the same module then fails */
  bool verified;         /* the caller ran rc_verify_kernel on every kernel and changed none since
                            (e.g. rc_pipeline_run with ctx->verify_each): export does not verify them
                            again (LLVM's verifier still checks the module it writes) */
} rc_llvm_export_opts;

/* Before a kernel that reconv's passes changed goes to LLVM's structurizer pipeline: every phi
 * whose incoming value is a compare that is also a branch condition reads a copy of the compare
 * (`select c, true, false`, which that pipeline leaves alone) instead. LLVM 14's StructurizeCFG
 * would otherwise flip such a compare in place (simplifyConditions, while the phis' values are
 * parked) and put the flipped compare back into the phis; meld's output has such phis. */
void rc_llvm_guard_structurizer(rc_kernel *k);

/* Export a module of thread-level kernels to LLVM IR: into a malloc'ed buffer (*data, *len; text
 * is NUL-terminated), which the caller frees. The result passes LLVM's verifier. Kernels that came
 * from LLVM keep their signature, calling convention, attributes and kernel metadata; others
 * become amdgcn kernels (or kernels of the origin module's target). Returns 0, or -1 after
 * reporting an error (e.g. a wave-level kernel). */
int rc_llvm_export(rc_ctx *ctx, const rc_module *m, const rc_llvm_export_opts *opts, char **data,
                   size_t *len);
/* For a module rc_llvm_import_module read: export by editing the caller's LLVM module itself (as
 * rc_llvm_export_opts.last does), writing nothing; `verified` as in rc_llvm_export_opts. Returns 0,
 * or -1 after reporting; after a failure of the export itself the module may be half edited. */
int rc_llvm_export_into_origin(rc_ctx *ctx, const rc_module *m, bool verified);
/* Export a module of thread-level kernels to LLVM IR text (.ll) or bitcode (.bc, by extension).
 * The file is written through a temporary name and renamed into place, so a failed export leaves
 * an existing file untouched. */
int rc_llvm_export_file(rc_ctx *ctx, const rc_module *m, const char *path);

#ifdef __cplusplus
}
#endif
#endif
