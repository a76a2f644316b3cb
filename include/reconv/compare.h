/* reconv's comparison engine (src/compare/): run a kernel under a strategy — a machine and the
 * passes that prepare the kernel for it — check the run against the thread-level interpreter and
 * measure it; and every strategy of `reconv compare` side by side, modelled (the wave machines'
 * issue counts, docs/cost.md) and, with `native`, measured on this machine's clock (the native wave
 * backend, the thread-level kernel one work-item at a time, pocl). The CLI's `compare`, `sim` and
 * `report` print what it returns. */
#ifndef RECONV_COMPARE_H
#define RECONV_COMPARE_H

#include "reconv/sim.h"
#include "reconv/transform.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- one run ------------------------------------------------------------------------------------ */

/* The machines (rc_machine_name: "thread", "ipdom", "wave", and "native" for the two measured
 * rows of a native comparison: the thread-level kernel compiled by LLVM for the host and run one
 * work-item at a time, and the OpenCL C kernel on pocl). */
enum { RC_MACHINE_THREAD, RC_MACHINE_IPDOM, RC_MACHINE_WAVE, RC_MACHINE_NATIVE_SCALAR, RC_MACHINE_POCL };
const char *rc_machine_name(int machine);

typedef struct rc_exec_request {
  int mode;             /* RC_MACHINE_* */
  const char *pipeline; /* wave mode, thread-level input: the passes that lower it; IPDOM mode: passes
                           that keep it at thread level (e.g. linearize), or NULL */
  bool check;           /* compare with the thread-level interpreter */
  bool effects;         /* compare effect traces (docs/meld.md) instead of block traces; implied
                           by a pipeline that runs meld (rc_pipeline_needs_effects) */
  bool timeline;        /* record wave timeline_wave */
  uint32_t timeline_wave;
  const char *llvm_passes; /* wave mode: LLVM passes run on the kernel first (exported to LLVM IR
                              and imported back), e.g. LLVM's structurizer; needs the LLVM bridge */
  const char *before_llvm; /* with llvm_passes: reconv passes run on the thread-level kernel before
                              it goes to LLVM (e.g. meld in front of LLVM's structurizer) */
  bool native;          /* wave mode: run the wave kernel on the host's SIMD unit (the native wave
                           backend, include/reconv/native_wave.h) instead of the wave simulator;
                           the check compares memory only */
  uint32_t repeat;      /* native: timed runs after the first */
  uint32_t threads;     /* native: worker threads */
  bool vector_math;     /* native: math through the host's vector math library */
} rc_exec_request;

typedef struct rc_exec_result {
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
  uint32_t native_math_ulps; /* vector_math: the largest error bound of the vector math used (0:
                                none, the memory is compared exactly) */
  uint64_t native_max_ulps;  /* ... the largest distance of one of its results from the interpreter's */
  uint64_t native_float_ulps;/* ... and of a float in memory */
} rc_exec_result;

/* Returns 0 when the machine ran (check the fault and the verdict in res), -1 after reporting an
 * error (bad input, a failing pipeline, a fault of the thread-level run used for the check). In
 * wave mode a thread-level k is copied (into a module of its own, under its name) and transformed
 * by the pipeline. res must be freed with rc_exec_result_free either way. */
int rc_exec(rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const rc_exec_request *req, rc_exec_result *res);
void rc_exec_result_free(rc_exec_result *res);
/* Does the pipeline run a pass that changes which blocks a thread runs (meld), so that it must be
 * checked by effect traces (docs/meld.md) rather than block traces? */
bool rc_pipeline_needs_effects(const char *pipeline);

/* A copy of k in a module of its own (*own, freed by the caller even on failure): transformed by
 * before_llvm (reconv passes, NULL: none) and then LLVM's passes when llvm_passes is set (exported
 * to LLVM IR and imported back), with device functions inlined, then transformed by pipeline
 * (NULL: none). The statistics of both reconv pipelines go into stats, which may be NULL. NULL
 * after reporting an error. */
rc_kernel *rc_transform_copy(rc_ctx *ctx, rc_kernel *k, const char *before_llvm, const char *llvm_passes,
                             const char *pipeline, rc_module **own, rc_stats *stats);

/* Static counts of a kernel: blocks, and blocks flagged !flow / !guard / !virtual. */
uint32_t rc_count_blocks(const rc_kernel *k, uint32_t flags);

/* ---- every strategy ------------------------------------------------------------------------------ */

typedef struct rc_strategy {
  const char *name;        /* the row's label */
  int mode;                /* RC_MACHINE_IPDOM: the original on the IPDOM stack; RC_MACHINE_WAVE: lowered */
  const char *pipeline;    /* wave mode: the passes from the thread-level kernel to a wave kernel */
  const char *thread_passes; /* wave mode: the part of the pipeline before lower (NULL: none) */
  const char *llvm_passes; /* wave mode: LLVM's passes first, run by LLVM (needs the LLVM bridge) */
  const char *before_llvm; /* wave mode: reconv's passes before LLVM's (NULL: none) */
} rc_strategy;

/* LLVM's structurizer as AMDGPU prepares it (its pre-ISel passes): no switches, one return (AMDGPU
 * merges the divergent ones; the new pass manager of LLVM 14 only has mergereturn, which merges
 * all), a reducible CFG, loops with one exit, then StructurizeCFG (which under the new pass manager
 * structurizes uniform regions too). */
#define RC_LLVM_STRUCTURIZER "lowerswitch,mergereturn,fix-irreducible,unify-loop-exits,structurizecfg"
/* The same with StructurizeCFG's skip-uniform-regions mode, which AMDGPU's users can turn on
 * (-structurizecfg-skip-uniform-regions): regions whose branches LLVM's uniformity analysis finds
 * uniform keep their CFG. Spelled as LLVM 20 spells it; on older LLVMs opt's legacy pass runs it. */
#define RC_LLVM_STRUCTURIZER_SKIP_UNIFORM \
  "lowerswitch,mergereturn,fix-irreducible,unify-loop-exits,structurizecfg<skip-uniform-regions>"

extern const rc_strategy rc_compare_strategies[];
extern const int rc_compare_nstrategies;
/* the row of reconv's default pipeline (reconverge with its default ordering, then lower) */
#define RC_COMPARE_DEFAULT "reconverge[auto]+lower"

/* A row measured on this machine's clock (rc_compare_opts.native). */
typedef struct rc_compare_native {
  bool ran;          /* it ran natively (else `note` says why not) */
  bool unavailable;  /* it did not run because this machine or this input cannot (no pocl, no LLVM,
                        not an OpenCL C file): said in `note`, not a failure of the row */
  bool equivalent;   /* its memory was the interpreter's (floats within `float_ulps` for the
                        rows whose floats may differ: fused mad, another math library) */
  double ns_per_item;/* the fastest run's nanoseconds per work-item */
  uint64_t best_ns, items;
  uint64_t float_ulps;
  char note[600];    /* why it did not run or differs, or a remark */
} rc_compare_native;

typedef struct rc_compare_row {
  const rc_strategy *st;
  rc_ctx ctx;      /* collects the strategy's first error; outlives its lowered copy */
  bool ran;        /* the machine ran (else: error) */
  rc_exec_result res;
  char error[400];
  rc_compare_native native;
} rc_compare_row;

/* How to compare. */
typedef struct rc_compare_opts {
  const char *only;       /* the strategies to run (comma-separated names; NULL: all) */
  bool timeline;          /* the default strategy's row records wave 0's timeline */
  bool native;            /* also on the clock: every wave row on the native wave backend, and the
                             rows native-scalar (needs an LLVM module: .cl, .ll, .bc) and pocl
                             (needs OpenCL C and an OpenCL platform) */
  uint32_t scale;         /* native: the launch this many times larger (rc_run_spec_scale); 0: 1 */
  uint32_t repeat;        /* native: timed runs after the first (the warm-up); 0: 5 */
  uint32_t threads;       /* native wave rows and pocl: worker threads; 0: 1 */
  bool vector_math;       /* native wave rows: transcendental math through the host's vector math
                             library (libmvec) instead of the interpreter's functions per lane; the
                             rows' floats may then differ from the interpreter's (within OpenCL's
                             bounds, docs/native.md, "Vector math") */
  const char *path;       /* the kernel's file, for native-scalar and pocl */
  const void *import;     /* the rc_llvm_import_opts it was read with (NULL: defaults) */
} rc_compare_opts;

/* Is name one of the comma-separated names of `only` (NULL: every name)? */
bool rc_compare_selected(const char *only, const char *name);
/* Run every selected strategy on k (rows: rc_compare_nstrategies entries). Returns the number of
 * rows. The measured rows (RC_MACHINE_NATIVE_SCALAR, RC_MACHINE_POCL) are there with o->native
 * only. */
int rc_compare_run_opts(const rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const rc_compare_opts *o,
                        rc_compare_row *rows);
/* The same with only `only` and `timeline`. */
int rc_compare_run(const rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const char *only, bool timeline,
                   rc_compare_row *rows);
void rc_compare_rows_free(rc_compare_row *rows, int n);
bool rc_compare_row_ok(const rc_compare_row *r);
/* what a row costs: every instruction the waves issue (vector, scalar or mask), one slot each */
uint64_t rc_compare_issued(const rc_compare_row *r);
/* the cheapest equivalent row, or -1 */
int rc_compare_best(const rc_compare_row *rows, int n);
const char *rc_compare_verdict(const rc_compare_row *r, char *buf, size_t len);

/* Spearman's rank correlation of n pairs (ties get their mean rank); NAN when n < 3 or one side is
 * constant. */
double rc_rank_correlation(const double *x, const double *y, int n);
/* ... of the wave rows' issued counts (the cost model) and their measured ns/item (the clock), over
 * the rows that ran on both. */
double rc_compare_model_clock_correlation(const rc_compare_row *rows, int n);

/* ---- oclgrind, a third oracle (src/compare/oclgrind.c) ------------------------------------------ */

enum { RC_OCLGRIND_RAN, RC_OCLGRIND_UNCHECKABLE, RC_OCLGRIND_FAILED };

typedef struct rc_oclgrind_result {
  int status;              /* RC_OCLGRIND_*: ran; not checkable there (why: not SPIR, oclgrind's
                              known limits, oclgrind missing); failed (why) */
  bool no_uninitialized;   /* ran without --uninitialized ... */
  const char *uninitialized_why; /* ... because (the kernel has freeze, where it stops; it crashed) */
  char why[512];
  rc_strbuf diagnostics;   /* oclgrind's messages (data races, uninitialised values, out-of-bounds
                              accesses, barrier divergence), the first line of each */
} rc_oclgrind_result;

/* Is oclgrind-kernel there ($RECONV_OCLGRIND, else on PATH)? */
bool rc_oclgrind_available(void);
/* Run kernel k (of a SPIR module) on oclgrind, launched as s, on the buffers of mem (initialised
 * by rc_memory_init), which then hold what oclgrind left in them. Returns 0 (see r->status), or -1
 * after reporting an error; r is freed with rc_oclgrind_result_free either way. */
int rc_oclgrind_run(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, rc_memory *mem, rc_oclgrind_result *r);
void rc_oclgrind_result_free(rc_oclgrind_result *r);

#ifdef __cplusplus
}
#endif
#endif
