/* The native oracle, part 2: running a prepared module (native.c) for every work-item of a launch
 * (docs/native.md).
 *
 * Everything that executes the kernel happens in a child process: LLVM's MCJIT compiles the module
 * there and the work-items run there, so that a crash, an LLVM error or an endless loop of the
 * kernel ends the child, which the parent reports as a fault. The buffers live in MAP_SHARED
 * mappings that the child writes in place, each between two inaccessible guard pages so that an
 * access just outside a buffer faults; a shared report page says what the child was doing (phase,
 * work-item, signal, message).
 *
 * Work-groups run one after another, x fastest, as in reconv's interpreter. Without barriers the
 * work-items of a group run one after the other on the child's stack. With barriers each work-item
 * is a coroutine (ucontext) with a stack of its own: a barrier switches back to the scheduler, which
 * resumes them all when every one waits at the same barrier; a work-item that returns while others
 * wait, or two that wait at different barriers, is barrier divergence. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "native_internal.h"

#include <llvm-c/ErrorHandling.h>
#include <llvm-c/ExecutionEngine.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h> /* coroutine stacks are announced, so valgrind does not take a switch to
                                  one for a stack overflow */
#endif
#endif
#ifndef VALGRIND_STACK_REGISTER
#define VALGRIND_STACK_REGISTER(lo, hi) 0
#endif

#define STACK_BYTES ((size_t)512 << 10) /* per work-item with barriers */
#define ALTSTACK_BYTES ((size_t)64 << 10)
#define COMPILE_SECONDS 120.0           /* the JIT compiling the module */
/* The run may take this long plus 1 ns per instruction the step budget allows all work-items: far
 * more than a kernel within its budget needs natively, so what exceeds it is an endless loop. */
#define RUN_BASE_SECONDS 5.0

/* The page the child reports through (MAP_SHARED). */
typedef struct native_report {
  volatile uint32_t phase; /* 0 compiling, 1 running, 2 finished */
  volatile uint64_t wi;    /* linear global id of the work-item running */
  volatile int signo, code;
  volatile uint64_t addr;  /* the faulting address of SIGSEGV/SIGBUS */
  volatile uint64_t stacks_lo, stacks_hi; /* the coroutine stacks, each with a guard page below */
  volatile uint32_t has_message;
  volatile uint32_t ended; /* the child is done (and waits for the parent to kill it) */
  volatile int exit_code;
  char message[sizeof(((rc_fault *)0)->message) - 64];
} native_report;

/* A buffer in shared memory: [guard page][pages, the data ending at most 15 bytes before the
 * end][guard page]. */
typedef struct shared_buf {
  uint8_t *map, *data;
  size_t map_len;
  uint64_t bytes;
} shared_buf;

enum { WI_NEW, WI_RUNNING, WI_WAITING, WI_DONE };

typedef struct native_group {
  rc_native *n;
  native_report *rep;
  uint64_t *slots;
  void (*entry)(uint64_t *);
  void (*set_self)(void *);
  void (*zero_locals)(void);
  /* the current work-group */
  native_wi *wis;
  uint32_t nwi;
  /* coroutines (kernels with barriers) */
  ucontext_t sched, *uc;
  uint8_t *state;
  uint64_t *site;
  uint8_t *stacks;
  size_t stack_stride;
} native_group;

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static size_t page_size(void) {
  long p = sysconf(_SC_PAGESIZE);
  return p > 0 ? (size_t)p : 4096;
}

/* ---- the child: faults ------------------------------------------------------------------------------
 * Signal handlers and LLVM's fatal-error handler take no argument of ours; they find the report
 * through the alternate signal stack, whose lowest bytes hold its address (the handler's frames are
 * at the other end). So the library keeps no global state, not even in the child. */

static native_report *child_report(void) {
  stack_t ss;
  if (sigaltstack(NULL, &ss) != 0 || !ss.ss_sp) return NULL;
  return *(native_report **)ss.ss_sp;
}

/* The end of the child: the report says how it ended, and the parent, which polls it, kills the
 * child. Ending itself would run code in a copy of the parent abandoned mid-run: exit() flushes
 * stdio buffers the parent still holds, and even after _exit() valgrind checks that copy for leaks
 * (a SIGKILL from another process is the one ending nothing intercepts). If the parent is gone,
 * the child leaves after a while on its own. */
static void child_exit(native_report *r, int code)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;
static void child_exit(native_report *r, int code) {
  if (r) {
    r->exit_code = code;
    r->ended = 1;
    for (int i = 0; i < 6000; i++) { /* 60 s */
      struct timespec t = {0, 10000000};
      nanosleep(&t, NULL);
    }
  }
  _exit(code);
}

/* Record what happened and end (async-signal-safe: child_exit only writes and sleeps). Should the
 * report be out of reach, SA_RESETHAND has restored the default action: the faulting instruction
 * faults again and ends the child with the signal, which the parent sees. */
static void on_signal(int sig, siginfo_t *si, void *uc) {
  native_report *r = child_report();
  if (!r) return;
  r->signo = sig;
  r->code = si->si_code;
  r->addr = (uint64_t)(uintptr_t)si->si_addr;
  child_exit(r, 128 + sig);
}

static void child_fail(native_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;
static void child_fail(native_report *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->message, sizeof r->message, fmt, ap);
  va_end(ap);
  r->has_message = 1;
  child_exit(r, 3);
}

static void on_llvm_fatal(const char *reason) {
  native_report *r = child_report();
  if (r) child_fail(r, "LLVM cannot compile the kernel for this machine: %s", reason);
  child_exit(NULL, 4);
}

static void child_handlers(native_report *r) {
  uint8_t *alt = mmap(NULL, ALTSTACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (alt == MAP_FAILED) child_fail(r, "no memory for a signal stack");
  memcpy(alt, &r, sizeof r);
  stack_t ss = {.ss_sp = alt, .ss_size = ALTSTACK_BYTES, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT};
  for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) sigaction(fatal[i], &sa, NULL);
  LLVMInstallFatalErrorHandler(on_llvm_fatal);
}

/* ---- the child: hooks the runtime library calls --------------------------------------------------------- */

/* swapcontext, spelt with getcontext and setcontext: AddressSanitizer intercepts swapcontext and
 * warns on standard error at the first call, which would end up in reconv's output. */
static void switch_context(ucontext_t *from, const ucontext_t *to) {
  volatile bool resumed = false;
  getcontext(from);
  if (resumed) return; /* someone switched back to `from` */
  resumed = true;
  setcontext(to);
}

static void hook_barrier(native_wi *wi, uint64_t site) {
  native_group *g = wi->group;
  uint32_t i = (uint32_t)wi->local_linear_id;
  g->state[i] = WI_WAITING;
  g->site[i] = site;
  switch_context(&g->uc[i], &g->sched);
}

static void hook_unsupported(native_wi *wi, const char *name) {
  native_group *g = wi->group;
  child_fail(g->rep, "calls %s, which the native runtime library does not provide", name);
}

/* ---- the child: work-groups ----------------------------------------------------------------------------- */

/* The work-item's ids in a group of `size` work-items (local[] per dimension) at group[]. */
static void fill_wi(native_wi *w, const rc_run_spec *s, const uint32_t local[3], const uint64_t group[3],
                    const uint64_t size[3], uint64_t lid, native_group *g) {
  uint64_t l[3] = {lid % size[0], lid / size[0] % size[1], lid / (size[0] * size[1])};
  uint64_t lin = 0, mul = 1;
  for (int d = 0; d < 3; d++) {
    uint64_t gs = d < (int)s->dims ? s->global[d] : 1, ls = d < (int)s->dims ? local[d] : 1;
    w->local_id[d] = l[d];
    w->group_id[d] = group[d];
    w->global_size[d] = gs;
    w->local_size[d] = size[d];
    w->enqueued_local_size[d] = ls;
    w->num_groups[d] = (gs + ls - 1) / ls;
    w->global_id[d] = group[d] * ls + l[d];
    lin += w->global_id[d] * mul;
    mul *= gs;
  }
  w->work_dim = s->dims;
  w->local_linear_id = lid;
  w->local_linear_size = size[0] * size[1] * size[2];
  w->global_linear_id = lin;
  w->group = g;
}

/* makecontext passes ints: the work-item's address in two halves. */
static void coroutine_main(int hi, int lo) {
  native_wi *wi = (native_wi *)(uintptr_t)((uint64_t)(uint32_t)hi << 32 | (uint32_t)lo);
  native_group *g = wi->group;
  g->entry(g->slots);
  g->state[wi->local_linear_id] = WI_DONE; /* then uc_link resumes the scheduler */
}

static const char *site_name(const rc_native *n, uint64_t site) {
  return site >= 1 && site <= n->nsites ? n->sites[site - 1] : "an unknown call";
}

static void run_coroutines(native_group *g) {
  for (uint32_t i = 0; i < g->nwi; i++) {
    getcontext(&g->uc[i]);
    g->uc[i].uc_stack.ss_sp = g->stacks + (size_t)i * g->stack_stride + page_size();
    g->uc[i].uc_stack.ss_size = g->stack_stride - page_size();
    g->uc[i].uc_link = &g->sched;
    uint64_t p = (uint64_t)(uintptr_t)&g->wis[i];
    makecontext(&g->uc[i], (void (*)(void))coroutine_main, 2, (int)(uint32_t)(p >> 32), (int)(uint32_t)p);
    g->state[i] = WI_NEW;
  }
  for (;;) {
    for (uint32_t i = 0; i < g->nwi; i++) {
      if (g->state[i] != WI_NEW && g->state[i] != WI_RUNNING) continue;
      g->state[i] = WI_RUNNING;
      g->rep->wi = g->wis[i].global_linear_id;
      g->set_self(&g->wis[i]);
      switch_context(&g->sched, &g->uc[i]);
    }
    uint32_t waiting = RC_NONE, done = RC_NONE;
    for (uint32_t i = 0; i < g->nwi; i++) {
      if (g->state[i] == WI_WAITING && waiting == RC_NONE) waiting = i;
      if (g->state[i] == WI_DONE && done == RC_NONE) done = i;
    }
    if (waiting == RC_NONE) return;
    g->rep->wi = g->wis[waiting].global_linear_id;
    if (done != RC_NONE)
      child_fail(g->rep, "barrier divergence: it waits at a barrier but work-item %" PRIu64 " of its "
                 "work-group has returned", g->wis[done].global_linear_id);
    for (uint32_t i = 0; i < g->nwi; i++) {
      if (g->site[i] != g->site[waiting])
        child_fail(g->rep, "barrier divergence: it waits at the barrier of %s and work-item %" PRIu64
                   " of its work-group at the barrier of %s", site_name(g->n, g->site[waiting]),
                   g->wis[i].global_linear_id, site_name(g->n, g->site[i]));
      g->state[i] = WI_RUNNING; /* released: resumed by the next pass */
    }
  }
}

static void *child_alloc(native_report *r, size_t len, const char *what) {
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) child_fail(r, "no memory for %s (%zu bytes)", what, len);
  return p;
}

static uint64_t function_address(LLVMExecutionEngineRef ee, native_report *r, const char *name) {
  uint64_t a = LLVMGetFunctionAddress(ee, name);
  if (!a) child_fail(r, "the JIT has no function %s (a bug of reconv)", name);
  return a;
}

/* The child: compile, run every group, report. Never returns. */
static void child_main(native_group *g, const rc_run_spec *s, const uint64_t *local_bytes) {
  rc_native *n = g->n;
  native_report *r = g->rep;
  child_handlers(r);
  LLVMLinkInMCJIT();
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  struct LLVMMCJITCompilerOptions o;
  LLVMInitializeMCJITCompilerOptions(&o, sizeof o);
  o.OptLevel = 2;
  LLVMExecutionEngineRef ee;
  char *err = NULL;
  if (LLVMCreateMCJITCompilerForModule(&ee, n->mod, &o, sizeof o, &err))
    child_fail(r, "LLVM's JIT cannot take the kernel: %s", err ? err : "no reason given");
  LLVMValueRef hook = LLVMGetNamedFunction(n->mod, NATIVE_HOOK_BARRIER);
  if (hook) LLVMAddGlobalMapping(ee, hook, (void *)hook_barrier);
  hook = LLVMGetNamedFunction(n->mod, NATIVE_HOOK_UNSUPPORTED);
  if (hook) LLVMAddGlobalMapping(ee, hook, (void *)hook_unsupported);
  uint64_t a = function_address(ee, r, NATIVE_ENTRY); /* compiles the whole module */
  memcpy(&g->entry, &a, sizeof a);
  a = function_address(ee, r, NATIVE_SET_SELF);
  memcpy(&g->set_self, &a, sizeof a);
  a = function_address(ee, r, NATIVE_ZERO_LOCALS);
  memcpy(&g->zero_locals, &a, sizeof a);

  /* local: arguments, one block per parameter for the group */
  uint8_t **locals = calloc(n->nparams ? n->nparams : 1, sizeof *locals);
  for (uint32_t p = 0; locals && p < n->nparams; p++)
    if (local_bytes[p]) g->slots[p] = (uint64_t)(uintptr_t)(locals[p] = child_alloc(r, local_bytes[p], "local memory"));
  uint32_t local[3];
  rc_run_spec_local(s, local);
  uint64_t max_wi = (uint64_t)local[0] * local[1] * local[2];
  g->wis = calloc(max_wi, sizeof *g->wis);
  if (!g->wis || !locals) child_fail(r, "no memory for %" PRIu64 " work-items", max_wi);
  if (n->has_barrier) {
    g->stack_stride = STACK_BYTES + page_size();
    g->stacks = child_alloc(r, g->stack_stride * max_wi, "work-item stacks");
    r->stacks_lo = (uint64_t)(uintptr_t)g->stacks;
    r->stacks_hi = r->stacks_lo + g->stack_stride * max_wi;
    for (uint64_t i = 0; i < max_wi; i++) {
      mprotect(g->stacks + i * g->stack_stride, page_size(), PROT_NONE); /* overflow faults */
      (void)VALGRIND_STACK_REGISTER(g->stacks + i * g->stack_stride + page_size(),
                                    g->stacks + (i + 1) * g->stack_stride);
    }
    g->uc = calloc(max_wi, sizeof *g->uc);
    g->state = calloc(max_wi, 1);
    g->site = calloc(max_wi, sizeof *g->site);
    if (!g->uc || !g->state || !g->site) child_fail(r, "no memory for %" PRIu64 " work-items", max_wi);
  }

  r->phase = 1;
  uint64_t groups[3], gid[3], size[3];
  for (int d = 0; d < 3; d++) {
    uint64_t gs = d < (int)s->dims ? s->global[d] : 1, ls = d < (int)s->dims ? local[d] : 1;
    groups[d] = (gs + ls - 1) / ls;
  }
  for (gid[2] = 0; gid[2] < groups[2]; gid[2]++)
    for (gid[1] = 0; gid[1] < groups[1]; gid[1]++)
      for (gid[0] = 0; gid[0] < groups[0]; gid[0]++) {
        for (int d = 0; d < 3; d++) { /* the last group of a dimension may be smaller */
          uint64_t gs = d < (int)s->dims ? s->global[d] : 1, ls = d < (int)s->dims ? local[d] : 1;
          size[d] = gs - gid[d] * ls < ls ? gs - gid[d] * ls : ls;
        }
        g->nwi = (uint32_t)(size[0] * size[1] * size[2]);
        for (uint32_t i = 0; i < g->nwi; i++) fill_wi(&g->wis[i], s, local, gid, size, i, g);
        g->zero_locals();
        for (uint32_t p = 0; p < n->nparams; p++)
          if (locals[p]) memset(locals[p], 0, local_bytes[p]);
        if (n->has_barrier) {
          run_coroutines(g);
          continue;
        }
        for (uint32_t i = 0; i < g->nwi; i++) {
          r->wi = g->wis[i].global_linear_id;
          g->set_self(&g->wis[i]);
          g->entry(g->slots);
        }
      }
  r->phase = 2;
  child_exit(r, 0);
}

/* ---- the parent ------------------------------------------------------------------------------------------ */

static int shared_alloc(rc_ctx *ctx, shared_buf *b, const rc_buffer *from) {
  size_t page = page_size();
  b->bytes = from->count * rc_type_size(from->elem);
  uint64_t padded = (b->bytes + 15) & ~(uint64_t)15; /* vector loads may want 16-byte alignment */
  size_t pages = (size_t)((padded + page - 1) / page);
  if (!pages) pages = 1;
  b->map_len = (pages + 2) * page;
  b->map = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (b->map == MAP_FAILED) {
    b->map = NULL;
    return rc_error(ctx, "no shared memory for buffer %%%s (%" PRIu64 " bytes): %s", from->param,
                    b->bytes, strerror(errno));
  }
  mprotect(b->map, page, PROT_NONE);
  mprotect(b->map + (pages + 1) * page, page, PROT_NONE);
  b->data = b->map + (pages + 1) * page - padded;
  memcpy(b->data, from->data, b->bytes);
  return 0;
}

/* Each parameter's slot: buffers by their shared address, scalars by value, local: arguments by the
 * size the child allocates. */
static int fill_slots(rc_native *n, const rc_run_spec *s, rc_memory *mem, const shared_buf *bufs,
                      uint64_t *slots, uint64_t *local_bytes) {
  for (uint32_t p = 0; p < n->nparams; p++) {
    const native_param *np = &n->params[p];
    const rc_arg_spec *a = rc_run_spec_find_arg(s, np->name);
    if (!a) return rc_error(n->ctx, "kernel @%s: parameter %%%s has no value", n->kernel, np->name);
    if ((a->is_buffer || a->is_local) && np->kind != NP_PTR)
      return rc_error(n->ctx, "kernel @%s: --arg %s: parameter %%%s is not a pointer", n->kernel, a->text,
                      np->name);
    if (a->is_local) {
      local_bytes[p] = rc_arg_count(a, s) * rc_type_size(a->elem);
      if (!local_bytes[p]) local_bytes[p] = 1;
    } else if (a->is_buffer) {
      rc_buffer *b = rc_memory_find(mem, np->name);
      if (!b) return rc_error(n->ctx, "kernel @%s: the memory has no buffer for %%%s", n->kernel, np->name);
      slots[p] = (uint64_t)(uintptr_t)bufs[b - mem->bufs].data;
    } else if (np->kind == NP_FLOAT || np->kind == NP_DOUBLE) {
      double d = a->scalar_is_float ? a->scalar_f : (double)rc_arg_scalar_int(a, s);
      float f = (float)d;
      if (np->kind == NP_FLOAT) memcpy(&slots[p], &f, sizeof f); /* the low bytes: little-endian */
      else memcpy(&slots[p], &d, sizeof d);
    } else {
      uint64_t v = (uint64_t)rc_arg_scalar_int(a, s);
      slots[p] = np->kind == NP_INT && np->bits < 64 ? v & ((UINT64_C(1) << np->bits) - 1) : v;
    }
  }
  return 0;
}

/* "work-item 5" with its global id in 2 and 3 dimensions. */
static void wi_name(const rc_run_spec *s, uint64_t lin, char *buf, size_t len) {
  if (s->dims <= 1) {
    snprintf(buf, len, "work-item %" PRIu64, lin);
    return;
  }
  uint64_t x = s->global[0], y = s->global[1];
  snprintf(buf, len, "work-item %" PRIu64 " (global id %" PRIu64 ",%" PRIu64 ",%" PRIu64 ")", lin, lin % x,
           lin / x % y, lin / (x * y));
}

/* What the faulting address was: near a buffer, in a stack's guard page, null. */
static void describe_addr(const native_report *r, const rc_memory *mem, const shared_buf *bufs, char *buf,
                          size_t len) {
  uint64_t a = r->addr;
  if (a < 0x10000) {
    snprintf(buf, len, "an access through a null pointer (address 0x%" PRIx64 ")", a);
    return;
  }
  for (uint32_t i = 0; i < mem->nbufs; i++) {
    uint64_t lo = (uint64_t)(uintptr_t)bufs[i].map, hi = lo + bufs[i].map_len;
    uint64_t d = (uint64_t)(uintptr_t)bufs[i].data, end = d + bufs[i].bytes;
    if (a < lo || a >= hi) continue;
    /* (no address: it changes from run to run, the distance does not) */
    if (a >= end)
      snprintf(buf, len, "an access %" PRIu64 " bytes past the end of buffer %%%s (%" PRIu64 " bytes)",
               a - end, mem->bufs[i].param, bufs[i].bytes);
    else
      snprintf(buf, len, "an access %" PRIu64 " bytes before the start of buffer %%%s", d - a,
               mem->bufs[i].param);
    return;
  }
  if (a >= r->stacks_lo && a < r->stacks_hi) {
    snprintf(buf, len, "a stack overflow (the work-item's stack has %zu KiB)", STACK_BYTES >> 10);
    return;
  }
  snprintf(buf, len, "an access at 0x%" PRIx64 ", outside every buffer", a);
}

static void fault_of(rc_native *n, const rc_run_spec *s, const native_report *r, const rc_memory *mem,
                     const shared_buf *bufs, int status, double timed_out, rc_fault *fault) {
  char who[96];
  wi_name(s, r->wi, who, sizeof who);
  rc_strbuf m;
  rc_sb_init(&m);
  rc_sb_printf(&m, "kernel @%s, %s: ", n->kernel, r->phase == 0 ? "JIT compilation" : who);
  if (timed_out > 0) {
    rc_sb_printf(&m, "the native run takes longer than %.1f s, the time it may take (%.0f s, and 1 ns per "
                 "instruction the step budget allows all work-items; raise it with --steps)",
                 timed_out, RUN_BASE_SECONDS);
  } else if (r->has_message) {
    rc_sb_printf(&m, "%.*s", (int)sizeof r->message, r->message);
  } else if (r->signo || WIFSIGNALED(status)) {
    int sig = r->signo ? r->signo : WTERMSIG(status);
    char where[240] = "";
    if (r->signo && (sig == SIGSEGV || sig == SIGBUS)) describe_addr(r, mem, bufs, where, sizeof where);
    else if (sig == SIGFPE) snprintf(where, sizeof where, "an integer division by zero or overflow");
    else if (sig == SIGILL) snprintf(where, sizeof where, "`unreachable` reached, or llvm.trap");
    rc_sb_printf(&m, "native run crashed: signal %d (%s)%s%s", sig, strsignal(sig), where[0] ? ": " : "",
                 where);
  } else {
    rc_sb_printf(&m, "the native run ended with exit status %d",
                 r->ended ? r->exit_code : WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  fault->happened = true;
  snprintf(fault->message, sizeof fault->message, "%s", m.data);
  rc_sb_free(&m);
}

/* Wait for the child; kill it when compiling or running takes too long. Returns the seconds it was
 * allowed when it was killed for that, else 0. */
static double wait_child(pid_t pid, const native_report *r, double run_limit, int *status) {
  double start = now_seconds(), run_start = 0;
  long delay_ns = 100000;
  for (;;) {
    pid_t w = waitpid(pid, status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) return 0;
    if (r->ended) { /* child_exit */
      kill(pid, SIGKILL);
      while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
      }
      return 0;
    }
    double t = now_seconds(), limit = 0;
    if (r->phase == 0 && t - start > COMPILE_SECONDS) limit = COMPILE_SECONDS;
    if (r->phase >= 1 && run_start == 0) run_start = t;
    if (run_start > 0 && t - run_start > run_limit) limit = run_limit;
    if (limit > 0) {
      kill(pid, SIGKILL);
      while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
      }
      return limit;
    }
    struct timespec ts = {0, delay_ns};
    nanosleep(&ts, NULL);
    if (delay_ns < 10000000) delay_ns *= 2;
  }
}

int rc_native_run(rc_native *n, const rc_run_spec *s, rc_memory *mem, rc_fault *fault) {
  memset(fault, 0, sizeof *fault);
  native_group g;
  memset(&g, 0, sizeof g);
  g.n = n;
  shared_buf *bufs = rc_xcalloc(mem->nbufs ? mem->nbufs : 1, sizeof *bufs);
  g.slots = rc_xcalloc(n->nparams ? n->nparams : 1, sizeof *g.slots);
  uint64_t *local_bytes = rc_xcalloc(n->nparams ? n->nparams : 1, sizeof *local_bytes);
  int rc = -1;
  g.rep = mmap(NULL, sizeof(native_report), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (g.rep == MAP_FAILED) {
    g.rep = NULL;
    rc_error(n->ctx, "no shared memory for a native run: %s", strerror(errno));
    goto out;
  }
  for (uint32_t i = 0; i < mem->nbufs; i++)
    if (shared_alloc(n->ctx, &bufs[i], &mem->bufs[i])) goto out;
  if (fill_slots(n, s, mem, bufs, g.slots, local_bytes)) goto out;
  uint64_t steps = s->step_budget ? s->step_budget : RC_DEFAULT_STEP_BUDGET;
  double run_limit = RUN_BASE_SECONDS + (double)rc_run_spec_threads(s) * (double)steps * 1e-9;
  fflush(NULL); /* the child must not write out what the parent's stdio buffers hold */
  pid_t pid = fork();
  if (pid < 0) {
    rc_error(n->ctx, "cannot start a process for the native run: %s", strerror(errno));
    goto out;
  }
  if (pid == 0) child_main(&g, s, local_bytes);
  int status = 0;
  double timed_out = wait_child(pid, g.rep, run_limit, &status);
  if (timed_out == 0 && g.rep->ended && g.rep->phase == 2 && !g.rep->signo && !g.rep->has_message) {
    for (uint32_t i = 0; i < mem->nbufs; i++) memcpy(mem->bufs[i].data, bufs[i].data, bufs[i].bytes);
    rc = 0;
  } else {
    fault_of(n, s, g.rep, mem, bufs, status, timed_out, fault);
  }
out:
  for (uint32_t i = 0; i < mem->nbufs; i++)
    if (bufs[i].map) munmap(bufs[i].map, bufs[i].map_len);
  if (g.rep) munmap(g.rep, sizeof(native_report));
  free(bufs);
  free(g.slots);
  free(local_bytes);
  return rc;
}
