/* Running host code in a child process, shared by the native oracle (native_launch.c: an LLVM
 * module run one work-item at a time) and the SIMD wave backend (wave_native.c: a lowered kernel
 * run a wave of W lanes at a time in vector registers).
 *
 * Everything that executes generated code happens in a child process: LLVM's MCJIT compiles the
 * module there and the kernel runs there, so that a crash, an LLVM error or an endless loop ends
 * the child, which the parent reports as a fault. The buffers live in MAP_SHARED mappings that the
 * child writes in place, each between two inaccessible guard pages so that an access just outside
 * a buffer faults; a shared report page says what the child was doing (phase, work-item or wave,
 * signal, message) and, for timed runs, how long the kernel took.
 *
 * The library keeps no global state, not even in the child: signal handlers find the report
 * through the alternate signal stack (host_child_handlers). Not installed. */
#ifndef RECONV_HOST_CHILD_H
#define RECONV_HOST_CHILD_H

#include "reconv/sim.h"

#include <llvm-c/ExecutionEngine.h>


/* Phases of the child, in the report. */
enum { HOST_COMPILING = 0, HOST_RUNNING = 1, HOST_FINISHED = 2 };

/* The page the child reports through (MAP_SHARED). */
typedef struct host_report {
  volatile uint32_t phase;  /* HOST_* */
  volatile uint64_t wi;     /* linear global id of the work-item running (of lane 0 of a wave) */
  volatile uint64_t wave;   /* the wave running, in launch order; UINT64_MAX: a work-item runs */
  volatile uint64_t lanes;  /* the lanes of that wave that have a thread (a mask: counted only when
                              a crash is reported, not on every wave) */
  volatile int signo, code;
  volatile uint64_t addr;   /* the faulting address of SIGSEGV/SIGBUS */
  volatile uint64_t stacks_lo, stacks_hi; /* coroutine stacks, each with a guard page below */
  volatile uint64_t stack_bytes;          /* the size of one of them */
  volatile uint32_t has_message;
  volatile uint32_t ended;  /* the child is done (and waits for the parent to kill it) */
  volatile int exit_code;
  volatile uint32_t timed_runs; /* timed runs: how many, and the shortest one's nanoseconds */
  volatile uint64_t best_ns, first_ns;
  volatile uint64_t math_ulps; /* the wave backend's check_math: the largest distance seen */
  char message[sizeof(((rc_fault *)0)->message) - 64];
} host_report;

/* A buffer in shared memory: [guard page][pages, the data ending at most 15 bytes before the
 * end][guard page]. */
typedef struct host_buf {
  uint8_t *map, *data;
  size_t map_len;
  uint64_t bytes;
} host_buf;

/* One run: the report page and the shared copies of a memory's buffers. */
typedef struct host_run {
  rc_ctx *ctx;
  host_report *rep;
  host_buf *bufs; /* one per buffer of mem, in its order */
  rc_memory *mem;
} host_run;

/* Map the report page and copy mem's buffers into shared mappings. 0, or -1 after reporting. */
int host_run_init(host_run *h, rc_ctx *ctx, rc_memory *mem);
void host_run_free(host_run *h);

/* Fork; the child runs child(h, arg), which must end the child with host_child_exit (or
 * host_child_fail); the parent waits, killing the child when compiling takes more than 120 s or
 * running more than run_limit seconds. When the child finished (phase HOST_FINISHED, no signal, no
 * message), the shared buffers are copied back into h->mem and 0 is returned; otherwise fault is
 * filled ("kernel @KERNEL, work-item 5: ...", naming the wave for wave runs) and -1 returned, or
 * -1 after reporting when no process could be started. */
int host_run_fork(host_run *h, void (*child)(host_run *h, void *arg), void *arg, double run_limit,
                  const char *kernel, const rc_run_spec *s, rc_fault *fault);

/* The time limit of a run (docs/native.md): 5 s plus 1 ns per instruction that the step budget
 * allows all work-items. */
double host_run_limit(const rc_run_spec *s);

/* ---- in the child -------------------------------------------------------------------------------- */

/* Signal handlers (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT) and LLVM's fatal-error
 * handler, all writing the report. */
void host_child_handlers(host_report *r);
/* The end of the child: the report says how it ended and the parent kills the child. */
void host_child_exit(host_report *r, int code)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;
void host_child_fail(host_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;
/* MCJIT for module m (which it takes over), code generation at -O2; the functions of `hooks`
 * (name, address pairs, NULL-terminated) are mapped to the process's functions. Fails the child
 * when LLVM cannot take the module. */
typedef struct host_hook {
  const char *name;
  void *addr;
} host_hook;
LLVMExecutionEngineRef host_child_jit(host_report *r, LLVMModuleRef m, const host_hook *hooks);
/* The address of a function or global of the JIT's module (compiles the module on first use). */
uint64_t host_child_symbol(LLVMExecutionEngineRef ee, host_report *r, const char *name, bool function);
/* n coroutine stacks of `bytes` each, every one above an inaccessible guard page (so an overflow
 * faults and is reported as one), announced to valgrind; *stride is the distance between them. */
uint8_t *host_child_stacks(host_report *r, uint64_t n, size_t bytes, size_t *stride);
void *host_child_alloc(host_report *r, size_t len, const char *what);
size_t host_page_size(void);

/* Run the kernel (run(arg)) 1 + repeat times and time each run: every run after the first starts
 * from the launch's initial memory again, and the buffers end up holding what the first run left.
 * The report receives the first run's nanoseconds, the fastest run's and the number of runs. */
void host_child_timed_runs(host_run *h, uint32_t repeat, void (*run)(void *arg), void *arg);


#endif
