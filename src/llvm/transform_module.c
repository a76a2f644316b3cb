/* An LLVM module transformed in place by a reconv pipeline: what the pass plugin
 * (src/plugin/reconv_plugin.cpp, docs/llvm.md "The pass plugin") does to the module `opt` or clang
 * hands it. The steps are those of `reconv opt -p PIPELINE in.ll -o out.ll` (tools/cmd_opt.c and
 * cli_load in tools/cli.c), so that the plugin's output is reconv's: import the module, the device
 * functions' parameter uniformity from their calls, the pipeline on every kernel and device
 * function, and the in-place export (export_inplace.c) into the caller's module itself. */
#include "bridge.h"

#include "reconv/analysis.h"
#include "reconv/transform.h"

int rc_llvm_transform_module(rc_ctx *ctx, struct LLVMOpaqueModule *mod, const char *pipeline) {
  rc_module *m = rc_llvm_import_module(ctx, mod, NULL);
  if (!m) return -1;
  int rc = 0;
  if (m->nkernels == 0) { /* nothing reconv can read: nothing to do (in a pipeline, not an error) */
    rc_module_free(m);
    return 0;
  }
  /* as cli_load: unless the target's calling convention says what its backend assumes (amdgcn:
   * divergent unless `inreg`) */
  if (m->nkernels && !rc_uniformity_target_flags(m->kernels[0]) && rc_module_param_uniformity(m, 0)) rc = -1;
  for (uint32_t i = 0; i < m->nkernels && rc == 0; i++) {
    rc_stats st;
    rc_stats_init(&st);
    rc = rc_pipeline_run(ctx, m->kernels[i], pipeline, NULL, &st);
    rc_stats_free(&st);
  }
  /* with the verifier after every pass, each kernel was verified after its last one (as reconv opt) */
  if (rc == 0) rc = rc_llvm_export_into_origin(ctx, m, ctx->verify_each);
  rc_module_free(m);
  return rc;
}
