/* Running a kernel on a chosen machine and reporting the metrics, shared by `reconv sim` and
 * `reconv compare`: sim_execute transforms (wave mode), runs, optionally checks against the
 * thread-level interpreter, and keeps everything a report needs. */
#ifndef RECONV_SIM_REPORT_H
#define RECONV_SIM_REPORT_H

#include "cli.h"
#include "reconv/sim.h"
#include "reconv/transform.h"

enum { SIM_MODE_THREAD, SIM_MODE_IPDOM, SIM_MODE_WAVE };
const char *sim_mode_name(int mode);

typedef struct sim_request {
  int mode;
  const char *pipeline; /* wave mode, thread-level input: the passes that lower it; IPDOM mode: passes
                           that keep it at thread level (e.g. linearize), or NULL */
  bool check;           /* compare with the thread-level interpreter */
  bool effects;         /* compare effect traces (docs/meld.md) instead of block traces; implied
                           by a pipeline that runs meld (sim_pipeline_needs_effects) */
  bool timeline;        /* record wave timeline_wave */
  uint32_t timeline_wave;
  const char *llvm_passes; /* wave mode: LLVM passes run on the kernel first (exported to LLVM IR
                              and imported back), e.g. LLVM's structurizer; needs the LLVM bridge */
  const char *before_llvm; /* with llvm_passes: reconv passes run on the thread-level kernel before
                              it goes to LLVM (e.g. meld in front of LLVM's structurizer) */
  bool native;          /* wave mode: run the wave kernel on the host's SIMD unit (the native wave
                           backend) instead of the wave simulator; --check compares memory only */
  uint32_t repeat;      /* native: timed runs after the first */
  uint32_t threads;     /* native: worker threads */
  bool vector_math;     /* native: math through the host's vector math library */
} sim_request;

typedef struct sim_result {
  int mode;
  const rc_kernel *orig; /* the input kernel */
  rc_kernel *ran;        /* the kernel that ran: the input, or its transformed copy */
  rc_module *own;        /* the module of that copy */
  const char *pipeline;  /* the passes applied, or NULL */
  rc_stats pass_stats;
  rc_memory mem;         /* the memory the run left */
  rc_run_stats stats;
  rc_fault fault;
  bool checked, equivalent;
  bool effects;          /* the check compared effect traces */
  char why[640];
  rc_timeline timeline;
  bool native;           /* ran on the native wave backend: no issue counts, no traces */
  uint64_t native_first_ns, native_best_ns;
  char native_target[200];
  uint32_t native_math_ulps; /* --vector-math: the largest error bound of the vector math used (0:
                                none, the memory is compared exactly) */
  uint64_t native_max_ulps;  /* ... the largest distance of one of its results from the interpreter's */
  uint64_t native_float_ulps;/* ... and of a float in memory */
} sim_result;

/* Returns 0 when the machine ran (check the fault and the verdict in res), -1 after reporting an
 * error (bad input, a failing pipeline, a fault of the thread-level run used for --check). In wave
 * mode a thread-level k is copied (into a module of its own, under its name) and transformed by the
 * pipeline. res must be freed with sim_result_free either way. */
int sim_execute(rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const sim_request *req,
                sim_result *res);
void sim_result_free(sim_result *res);
/* Does the pipeline run a pass that changes which blocks a thread runs (meld), so that it must be
 * checked by effect traces (docs/meld.md) rather than block traces? */
bool sim_pipeline_needs_effects(const char *pipeline);

void sim_report_text(FILE *f, const sim_result *res, const rc_run_spec *s);
void sim_report_json(FILE *f, const sim_result *res, const rc_run_spec *s);

/* A copy of k in a module of its own (*own, freed by the caller even on failure): transformed by
 * before_llvm (reconv passes, NULL: none) and then LLVM's passes when llvm_passes is set (exported
 * to LLVM IR and imported back), with device functions inlined, then transformed by pipeline
 * (NULL: none). The statistics of both reconv pipelines go into stats, which may be NULL. NULL
 * after reporting an error. */
rc_kernel *sim_transform_copy(rc_ctx *ctx, rc_kernel *k, const char *before_llvm, const char *llvm_passes,
                              const char *pipeline, rc_module **own, rc_stats *stats);

/* Static counts of a kernel: blocks, and blocks flagged !flow / !guard / !virtual. */
uint32_t sim_count_blocks(const rc_kernel *k, uint32_t flags);

#endif
