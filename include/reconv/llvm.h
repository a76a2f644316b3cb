/* The LLVM bridge (built when LLVM's development files are present; RECONV_HAVE_LLVM is defined
 * then): import of LLVM IR (.ll, .bc) and OpenCL C (.cl, compiled by clang), export of thread-level
 * reconv IR back to LLVM IR, and running LLVM's own passes (e.g. structurizecfg) as a peer. */
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
} rc_llvm_import_opts;

/* Import every kernel of a .ll, .bc or .cl file. Errors (including unsupported instructions, named
 * with their source line when debug info has it) are reported through ctx; returns NULL then. */
rc_module *rc_llvm_import_file(rc_ctx *ctx, const char *path, const rc_llvm_import_opts *opts);
/* Export a module of thread-level kernels to LLVM IR text (.ll) or bitcode (.bc, by extension). */
int rc_llvm_export_file(rc_ctx *ctx, const rc_module *m, const char *path);

#ifdef __cplusplus
}
#endif
#endif
