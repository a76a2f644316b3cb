/* The native oracle (docs/native.md): an LLVM IR kernel runs on this machine's CPU, compiled by
 * LLVM's JIT, once per work-item of a launch, on the buffers of a reconv run. It shares nothing with
 * reconv's interpreter, so comparing the memory that two modules leave natively checks a transform
 * (or reconv's own reading of LLVM IR) against LLVM's semantics as the host's code generator
 * implements them: `reconv equiv --native A B` is the command.
 *
 * Only modules the host can run are taken: spir64 (compile OpenCL C with --target spir64) and
 * modules of the host's own architecture. The OpenCL built-ins come from a runtime library in
 * OpenCL C that reconv compiles with clang for the module's target and links in. Every run happens in
 * a child process, so that a crash, an endless loop or an unsupported construct of the kernel is a
 * fault of the run (rc_fault), never a crash of the caller.
 *
 * Built only with the LLVM bridge (RECONV_HAVE_LLVM). */
#ifndef RECONV_NATIVE_H
#define RECONV_NATIVE_H

#include "reconv/llvm.h"
#include "reconv/native_wave.h" /* rc_native_timing */
#include "reconv/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A kernel of an LLVM module made ready for native runs. */
typedef struct rc_native rc_native;

/* Read the module at `path` (.ll, .bc or .cl, with the options of rc_llvm_import_file), check that
 * the host can run it, link the runtime library in and prepare kernel `kernel` (its LLVM function
 * name; NULL: the function reconv kernel k was imported from). k gives the parameters' names for
 * the run specification: its parameters must be the LLVM function's, in the same order. `share`: a
 * kernel prepared before (or NULL) whose compiled runtime library this one reuses when the targets
 * agree, since compiling it takes clang about a second. Returns NULL after reporting through ctx
 * (bad input: not a host-runnable target, unsupported parameter types, no such function); ctx must
 * outlive the result. */
rc_native *rc_native_open(rc_ctx *ctx, const char *path, const rc_llvm_import_opts *opts,
                          const rc_kernel *k, const char *kernel, const rc_native *share);

/* Run the kernel natively for every work-item of launch s (work-group by work-group, x fastest, as
 * reconv's interpreter does) on the buffers of mem (from rc_memory_init for the same spec and the
 * kernel k given to rc_native_open); the buffers receive what the kernel wrote. Returns 0; -1 with
 * *fault filled when the run faults (a crash, more time than the step budget allows, barrier
 * divergence, a call of a function the runtime library does not provide); -1 with fault->happened
 * false after reporting through ctx (bad input, no resources). mem is left as it was after a fault. */
int rc_native_run(rc_native *n, const rc_run_spec *s, rc_memory *mem, rc_fault *fault);

/* rc_native_run, timed (t->repeat more runs after the first, each on the launch's initial memory;
 * t->threads is not used: the oracle runs one work-item at a time); t may be NULL. */
int rc_native_run_timed(rc_native *n, const rc_run_spec *s, rc_memory *mem, rc_native_timing *t, rc_fault *fault);

/* Compile the module for this machine's own CPU (LLVM's name and features for it) and optimise it
 * again at -O2 for that target (so LLVM's auto-vectorisation may use its vector unit), instead of
 * the architecture's generic CPU the oracle uses: the one-work-item-at-a-time baseline of the
 * native comparisons (bench/native_wave.c, reconv compare --native). llvm.fmuladd stays a
 * multiply and an add (the interpreter's numerics; a CPU with FMA would fuse it). 0, or -1 after
 * reporting. */
int rc_native_tune_for_host(rc_native *n);

void rc_native_close(rc_native *n);

#ifdef __cplusplus
}
#endif
#endif
