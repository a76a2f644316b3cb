/* The SIMD wave backend (docs/native.md, "Wave kernels on the host's vector unit"): a wave kernel
 * (the output of lower, blockip, full-linearize, and so of every pipeline `reconv compare` lowers)
 * compiled by LLVM for the host CPU, so that a wave of W lanes runs in SIMD registers: vector
 * values as <W x T>, exec as a lane mask, a vector instruction merged under exec where a later read
 * can see the inactive lanes, memory through masked loads and stores or gathers and scatters so
 * that inactive lanes never touch it, traps made safe on inactive lanes, the waves of a work-group
 * as coroutines that switch at barriers.
 *
 * Two parts:
 * - the compiler (rc_native_wave_*): needs the LLVM bridge (RECONV_HAVE_LLVM); runs kernels in a
 *   child process like the native oracle, or writes the host module (.ll, .bc, .o);
 * - the runtime ABI (rc_wave_*): what a written module and libreconv agree on, so that a C program
 *   links the module with libreconv and launches the kernel (examples/native_wave/). */
#ifndef RECONV_NATIVE_WAVE_H
#define RECONV_NATIVE_WAVE_H

#include "reconv/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the runtime ABI ---------------------------------------------------------------------------- */

#define RC_WAVE_ABI 1u     /* rc_wave_kernel.abi: the version of the structures below */
#define RC_WAVE_MAX_LANES 64u

/* What a wave's code reads about the wave that runs it (filled by the runtime before the wave
 * starts; the code only reads it). Ids of dimensions beyond the launch's are 0, sizes 1. The code
 * addresses the fields by their order (src/native/wave_codegen.h): 8-byte fields and arrays. */
typedef struct rc_wave_ctx {
  uint64_t exists;          /* the lanes that have a thread (exec at the entry) */
  uint64_t flags;           /* RC_WAVE_* */
  const uint64_t *args;     /* the kernel's parameters, one 64-bit slot each (rc_wave_kernel) */
  uint8_t *local_mem;       /* the work-group's local memory (rc_wave_kernel.local_bytes) */
  uint8_t *private_mem;     /* lane l's private memory starts at private_mem + l * private_stride */
  uint64_t private_stride;
  uint64_t wave_index;      /* in launch order */
  uint64_t work_dim;
  uint64_t group_id[3], global_size[3], local_size[3], num_groups[3];
  /* per lane (a launch has at most 2^24 work-items: RC_MAX_THREADS); in a wave whose flags say
   * RC_WAVE_CONSECUTIVE_X only lane 0's entries are filled (lane l's are lane 0's, + l in x) */
  uint32_t global_id[3][RC_WAVE_MAX_LANES], local_id[3][RC_WAVE_MAX_LANES];
  uint64_t linear_id[RC_WAVE_MAX_LANES]; /* linear global id, for messages (filled as the ids) */
  void *rt;                 /* the runtime's own */
} rc_wave_ctx;

enum {
  RC_WAVE_CONSECUTIVE_X = 1u << 0, /* lane l's ids in dimension 0 are lane 0's + l */
  RC_WAVE_UNIFORM_Y = 1u << 1,     /* every lane has lane 0's ids in dimension 1 */
  RC_WAVE_UNIFORM_Z = 1u << 2,     /* ... in dimension 2 */
};

/* How a parameter's value sits in its slot. */
enum { RC_WAVE_ARG_INT = 0, RC_WAVE_ARG_F32 = 1, RC_WAVE_ARG_F64 = 2, RC_WAVE_ARG_PTR = 3,
       RC_WAVE_ARG_F16 = 4 };

/* A compiled wave kernel, as a written module defines it (the global `reconv_wave_NAME`). */
typedef struct rc_wave_kernel {
  uint32_t abi;                     /* RC_WAVE_ABI */
  uint32_t wave;                    /* W, the lanes of a wave */
  const char *name;                 /* the kernel's name */
  void (*run)(rc_wave_ctx *ctx);    /* one wave, from the entry until it returns */
  uint32_t nparams;
  const uint8_t *param_kinds;       /* RC_WAVE_ARG_* per parameter */
  const char *const *param_names;
  uint64_t local_bytes;             /* the kernel's local memory (localmem, __local variables) */
  uint64_t private_bytes;           /* per lane (alloca) */
  uint32_t has_barrier;             /* waves of a group must run as coroutines */
  uint32_t nsites;
  const char *const *sites;         /* "block B, instruction `...`": where a fault can happen */
  void (*reset)(void);              /* gives the module's writable globals their initial bytes, as
                                       every launch starts (NULL: it has none) */
} rc_wave_kernel;

/* A launch of a compiled kernel. */
typedef struct rc_wave_launch {
  uint32_t dims, global[3], local[3]; /* local[d] == 0: min(global, 64) in dimension 0, 1 above */
  const uint64_t *args;       /* per parameter: integers and pointers as they are, floats as
                                 their bits; for a parameter with local_arg_bytes, nothing */
  const uint64_t *local_arg_bytes; /* per parameter (or NULL): bytes of per-group local memory
                                 the runtime allocates and passes (OpenCL's __local arguments) */
  uint32_t threads;           /* worker threads the work-groups are spread over (0 or 1: the
                                 calling thread alone) */
  void (*observe)(void *user, const rc_wave_ctx *ctx); /* called as each wave starts (or NULL) */
  void *user;
  uint64_t math_ulps;         /* out: the largest distance rc_wave_rt_check_math saw */
  char error[512];            /* out: the fault that ended the launch ("@k, block B, instruction
                                 `...`, thread 17 (wave 1, lane 1): division by zero") */
} rc_wave_launch;

/* Run every work-group of the launch (x fastest). Returns 0, or -1 with l->error set: a fault of
 * the kernel (division by zero, unreachable reached, barrier divergence, a scalar branch whose
 * lanes disagree, a builtin's fault) or a launch the runtime cannot make (no memory, bad sizes).
 * Memory faults (an access outside every buffer) are signals, as in any C program. */
int rc_wave_run_launch(const rc_wave_kernel *k, rc_wave_launch *l);

/* Hooks the generated code calls (internal to the ABI; listed so that the JIT maps them). */
void rc_wave_rt_barrier(rc_wave_ctx *ctx, uint32_t site);
void rc_wave_rt_fault(rc_wave_ctx *ctx, uint32_t site, uint32_t kind, uint32_t lane, int64_t a, int64_t b)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;
/* One lane of a math builtin of class F1..F3 (reconv's interpreter's functions), on values in the
 * simulators' slot encoding (docs/native.md). */
uint64_t rc_wave_rt_math(uint32_t builtin, uint32_t type, uint64_t a, uint64_t b, uint64_t c);
/* One lane of any other builtin the interpreter runs (class OTHER: the long tail of OpenCL's math,
 * integer and conversion functions, those writing through a pointer, async copies, atomic_inc/dec),
 * described by a constant of the module; args: its nargs arguments in the slot encoding. */
typedef struct rc_wave_call {
  uint32_t builtin;   /* rc_builtin */
  uint32_t nargs;     /* at most 4 */
  int64_t imm;        /* the call's modifiers */
  uint16_t type;      /* the result type (rc_type of the machines' form: scalars) */
  uint16_t atypes[4]; /* the argument types */
} rc_wave_call;
uint64_t rc_wave_rt_builtin(rc_wave_ctx *ctx, const rc_wave_call *call, uint32_t site, uint32_t lane,
                            const uint64_t *args);
/* check_math: the active lanes of a vector math result (got) against the interpreter's function on
 * their operands (a, b: W lanes each, slot encoding); a lane further than `ulps` faults. */
void rc_wave_rt_check_math(rc_wave_ctx *ctx, const rc_wave_call *call, uint32_t site, uint64_t exec, uint32_t ulps,
                           const uint64_t *a, const uint64_t *b, const uint64_t *got);

enum { /* rc_wave_rt_fault's kinds */
  RC_WAVE_FAULT_DIV_ZERO, RC_WAVE_FAULT_DIV_OVERFLOW, RC_WAVE_FAULT_UNREACHABLE,
  RC_WAVE_FAULT_BRANCH_EMPTY, RC_WAVE_FAULT_BRANCH_DISAGREE, RC_WAVE_FAULT_BARRIER_DIVERGENT,
  RC_WAVE_FAULT_OPAQUE
};

/* ---- the compiler (with the LLVM bridge) ------------------------------------------------------------ */

typedef struct rc_native_wave rc_native_wave;

typedef struct rc_native_wave_opts {
  uint32_t wave;          /* W: 4, 8, 16, 32 or 64 */
  bool vector_math;       /* math builtins through the host's vector math (glibc's libmvec) where
                             LLVM can map them, instead of one call per lane of the interpreter's
                             functions (results within OpenCL's ulp bounds, not bit-identical) */
  const char *cpu;        /* NULL: the host's, as LLVM names it */
  const char *features;   /* NULL: the host's, as LLVM detects them */
  bool check_math;        /* with vector_math: every result of the vector math library is compared,
                             lane by lane, with the interpreter's function on the same operands, and
                             one further from it than OpenCL 1.2's bound (section 7.4) faults */
  bool drop_merges;       /* for the tests of the tests only: vector results and vector register
                             writes replace the inactive lanes' elements instead of merging under
                             exec (wrong code, which tests/property/prop_native_wave.c must catch) */
} rc_native_wave_opts;

/* Compile wave kernel k (not changed; a private copy in the machines' form is compiled, see
 * docs/ir.md "Wave level") for the host. NULL after reporting: not a wave kernel, a width the
 * backend does not generate, a construct it cannot run, a CPU without the vector unit asked for. */
rc_native_wave *rc_native_wave_open(rc_ctx *ctx, const rc_kernel *k, const rc_native_wave_opts *o);

/* Timing of rc_native_wave_run (NULL: none). */
typedef struct rc_native_timing {
  uint32_t repeat;      /* in: timed runs after the first (each on the launch's initial memory) */
  uint32_t threads;     /* in: worker threads (0, 1: one) */
  uint64_t first_ns;    /* out: the first run (the one whose memory is returned) */
  uint64_t best_ns;     /* out: the fastest of all runs */
  uint64_t math_ulps;   /* out, with check_math: the largest distance of a vector math result from
                           the interpreter's, in ulp */
} rc_native_timing;

/* Run the kernel for launch s (s->wave must be the compiled W) on mem (rc_memory_init for the same
 * spec and kernel), in a child process, as the native oracle runs modules. Returns 0; -1 with
 * *fault filled when the run faults; -1 after reporting (bad input, no resources). */
int rc_native_wave_run(rc_native_wave *n, const rc_run_spec *s, rc_memory *mem, rc_native_timing *t,
                       rc_fault *fault);

/* The host module as textual IR (RC_NATIVE_LL), bitcode (RC_NATIVE_BC) or an object file for the
 * host (RC_NATIVE_OBJ), in *data (malloc'ed, *len bytes): it defines `const rc_wave_kernel
 * reconv_wave_NAME` (NAME: the kernel's name, other characters than letters and digits as '_') and
 * calls the runtime's hooks, so a C program links it with libreconv (docs/native.md). 0, or -1
 * after reporting. */
typedef enum rc_native_format { RC_NATIVE_LL, RC_NATIVE_BC, RC_NATIVE_OBJ } rc_native_format;
int rc_native_wave_emit(rc_native_wave *n, rc_native_format format, char **data, size_t *len);
/* The format a file name asks for (.ll, .bc, .o), or -1. */
int rc_native_format_of(const char *path);

/* What the code was generated for: "W=16, x86_64-pc-linux-gnu, cpu znver3, avx512f". */
const char *rc_native_wave_target(const rc_native_wave *n);

/* With vector_math: the largest error bound, in ulp (OpenCL 1.2 section 7.4), of the math
 * functions the code computes with the vector math library; 0 when it computes none (every result
 * is then the interpreter's, bit for bit). */
uint32_t rc_native_wave_math_ulps(const rc_native_wave *n);

void rc_native_wave_close(rc_native_wave *n);

#ifdef __cplusplus
}
#endif
#endif
