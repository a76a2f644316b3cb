/* Running host code in a child process (host_child.h): shared buffers between guard pages, the
 * report page, the child's signal handlers and JIT, the parent's wait and the faults it reports. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "host_child.h"

#include <llvm-c/Core.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Target.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
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

#define ALTSTACK_BYTES ((size_t)64 << 10)
#define COMPILE_SECONDS 120.0 /* the JIT compiling the module */
/* The run may take this long plus 1 ns per instruction the step budget allows all work-items: far
 * more than a kernel within its budget needs natively, so what exceeds it is an endless loop. */
#define RUN_BASE_SECONDS 5.0

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

size_t host_page_size(void) {
  long p = sysconf(_SC_PAGESIZE);
  return p > 0 ? (size_t)p : 4096;
}

double host_run_limit(const rc_run_spec *s) {
  uint64_t steps = s->step_budget ? s->step_budget : RC_DEFAULT_STEP_BUDGET;
  return RUN_BASE_SECONDS + (double)rc_run_spec_threads(s) * (double)steps * 1e-9;
}

/* ---- the child: faults ------------------------------------------------------------------------------
 * Signal handlers and LLVM's fatal-error handler take no argument of ours; they find the report
 * through the alternate signal stack, whose lowest bytes hold its address (the handler's frames are
 * at the other end). So the library keeps no global state, not even in the child. */

static host_report *child_report(void) {
  stack_t ss;
  if (sigaltstack(NULL, &ss) != 0 || !ss.ss_sp) return NULL;
  return *(host_report **)ss.ss_sp;
}

/* The end of the child: the report says how it ended, and the parent, which polls it, kills the
 * child. Ending itself would run code in a copy of the parent abandoned mid-run: exit() flushes
 * stdio buffers the parent still holds, and even after _exit() valgrind checks that copy for leaks
 * (a SIGKILL from another process is the one ending nothing intercepts). If the parent is gone,
 * the child leaves after a while on its own. */
void host_child_exit(host_report *r, int code) {
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

/* Record what happened and end (async-signal-safe: host_child_exit only writes and sleeps). Should
 * the report be out of reach, SA_RESETHAND has restored the default action: the faulting
 * instruction faults again and ends the child with the signal, which the parent sees. */
static void on_signal(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  host_report *r = child_report();
  if (!r) return;
  r->signo = sig;
  r->code = si->si_code;
  r->addr = (uint64_t)(uintptr_t)si->si_addr;
  host_child_exit(r, 128 + sig);
}

void host_child_fail(host_report *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->message, sizeof r->message, fmt, ap);
  va_end(ap);
  r->has_message = 1;
  host_child_exit(r, 3);
}

static void on_llvm_fatal(const char *reason) {
  host_report *r = child_report();
  if (r) host_child_fail(r, "LLVM cannot compile the kernel for this machine: %s", reason);
  host_child_exit(NULL, 4);
}

void host_child_handlers(host_report *r) {
  uint8_t *alt = mmap(NULL, ALTSTACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (alt == MAP_FAILED) host_child_fail(r, "no memory for a signal stack");
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

void *host_child_alloc(host_report *r, size_t len, const char *what) {
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) host_child_fail(r, "no memory for %s (%zu bytes)", what, len);
  return p;
}

uint8_t *host_child_stacks(host_report *r, uint64_t n, size_t bytes, size_t *stride) {
  size_t page = host_page_size();
  *stride = bytes + page;
  uint8_t *stacks = host_child_alloc(r, *stride * n, "coroutine stacks");
  r->stacks_lo = (uint64_t)(uintptr_t)stacks;
  r->stacks_hi = r->stacks_lo + *stride * n;
  r->stack_bytes = bytes;
  for (uint64_t i = 0; i < n; i++) {
    mprotect(stacks + i * *stride, page, PROT_NONE); /* overflow faults */
    (void)VALGRIND_STACK_REGISTER(stacks + i * *stride + page, stacks + (i + 1) * *stride);
  }
  return stacks;
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void host_child_timed_runs(host_run *h, uint32_t repeat, void (*run)(void *arg), void *arg) {
  host_report *r = h->rep;
  uint32_t nb = h->mem->nbufs;
  uint8_t **initial = NULL, **result = NULL;
  if (repeat) {
    initial = rc_xcalloc(nb + 1, sizeof *initial);
    result = rc_xcalloc(nb + 1, sizeof *result);
    for (uint32_t b = 0; b < nb; b++) {
      initial[b] = rc_xmalloc(h->bufs[b].bytes + 1);
      result[b] = rc_xmalloc(h->bufs[b].bytes + 1);
      memcpy(initial[b], h->bufs[b].data, h->bufs[b].bytes);
    }
  }
  uint64_t best = UINT64_MAX;
  for (uint32_t i = 0; i <= repeat; i++) {
    if (i > 0)
      for (uint32_t b = 0; b < nb; b++) memcpy(h->bufs[b].data, initial[b], h->bufs[b].bytes);
    uint64_t t0 = now_ns();
    run(arg);
    uint64_t dt = now_ns() - t0;
    if (i == 0) r->first_ns = dt;
    if (dt < best) best = dt;
    if (i == 0 && repeat)
      for (uint32_t b = 0; b < nb; b++) memcpy(result[b], h->bufs[b].data, h->bufs[b].bytes);
  }
  for (uint32_t b = 0; repeat && b < nb; b++) {
    memcpy(h->bufs[b].data, result[b], h->bufs[b].bytes);
    free(initial[b]);
    free(result[b]);
  }
  free(initial);
  free(result);
  r->best_ns = best;
  r->timed_runs = repeat + 1;
}

LLVMExecutionEngineRef host_child_jit(host_report *r, LLVMModuleRef m, const host_hook *hooks) {
  LLVMLinkInMCJIT();
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  struct LLVMMCJITCompilerOptions o;
  LLVMInitializeMCJITCompilerOptions(&o, sizeof o);
  o.OptLevel = 2;
  LLVMExecutionEngineRef ee;
  char *err = NULL;
  if (LLVMCreateMCJITCompilerForModule(&ee, m, &o, sizeof o, &err))
    host_child_fail(r, "LLVM's JIT cannot take the kernel: %s", err ? err : "no reason given");
  for (const host_hook *h = hooks; h && h->name; h++) {
    LLVMValueRef f = LLVMGetNamedFunction(m, h->name);
    if (!f) f = LLVMGetNamedGlobal(m, h->name);
    if (f) LLVMAddGlobalMapping(ee, f, h->addr);
  }
  return ee;
}

uint64_t host_child_symbol(LLVMExecutionEngineRef ee, host_report *r, const char *name, bool function) {
  uint64_t a = function ? LLVMGetFunctionAddress(ee, name) : LLVMGetGlobalValueAddress(ee, name);
  if (!a) host_child_fail(r, "the JIT has no %s %s (a bug of reconv)", function ? "function" : "global", name);
  return a;
}

/* ---- the parent ------------------------------------------------------------------------------------------ */

static int shared_alloc(rc_ctx *ctx, host_buf *b, const rc_buffer *from) {
  size_t page = host_page_size();
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

int host_run_init(host_run *h, rc_ctx *ctx, rc_memory *mem) {
  memset(h, 0, sizeof *h);
  h->ctx = ctx;
  h->mem = mem;
  h->bufs = rc_xcalloc(mem->nbufs ? mem->nbufs : 1, sizeof *h->bufs);
  h->rep = mmap(NULL, sizeof(host_report), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (h->rep == MAP_FAILED) {
    h->rep = NULL;
    return rc_error(ctx, "no shared memory for a native run: %s", strerror(errno));
  }
  h->rep->wave = UINT64_MAX;
  for (uint32_t i = 0; i < mem->nbufs; i++)
    if (shared_alloc(ctx, &h->bufs[i], &mem->bufs[i])) return -1;
  return 0;
}

void host_run_free(host_run *h) {
  for (uint32_t i = 0; h->mem && i < h->mem->nbufs; i++)
    if (h->bufs[i].map) munmap(h->bufs[i].map, h->bufs[i].map_len);
  if (h->rep) munmap(h->rep, sizeof(host_report));
  free(h->bufs);
  memset(h, 0, sizeof *h);
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
static void describe_addr(const host_run *h, char *buf, size_t len) {
  const host_report *r = h->rep;
  uint64_t a = r->addr;
  if (a < 0x10000) {
    snprintf(buf, len, "an access through a null pointer (address 0x%" PRIx64 ")", a);
    return;
  }
  for (uint32_t i = 0; i < h->mem->nbufs; i++) {
    const host_buf *b = &h->bufs[i];
    uint64_t lo = (uint64_t)(uintptr_t)b->map, hi = lo + b->map_len;
    uint64_t d = (uint64_t)(uintptr_t)b->data, end = d + b->bytes;
    if (a < lo || a >= hi) continue;
    /* (no address: it changes from run to run, the distance does not) */
    if (a >= end)
      snprintf(buf, len, "an access %" PRIu64 " bytes past the end of buffer %%%s (%" PRIu64 " bytes)",
               a - end, h->mem->bufs[i].param, b->bytes);
    else
      snprintf(buf, len, "an access %" PRIu64 " bytes before the start of buffer %%%s", d - a,
               h->mem->bufs[i].param);
    return;
  }
  if (a >= r->stacks_lo && a < r->stacks_hi) {
    snprintf(buf, len, "a stack overflow (the %s's stack has %" PRIu64 " KiB)",
             r->wave == UINT64_MAX ? "work-item" : "wave", r->stack_bytes >> 10);
    return;
  }
  snprintf(buf, len, "an access at 0x%" PRIx64 ", outside every buffer", a);
}

static void fault_of(const host_run *h, const char *kernel, const rc_run_spec *s, int status, double timed_out,
                     rc_fault *fault) {
  const host_report *r = h->rep;
  char who[128];
  if (r->phase == HOST_COMPILING) snprintf(who, sizeof who, "JIT compilation");
  else if (r->wave != UINT64_MAX)
    snprintf(who, sizeof who, "wave %" PRIu64 " (threads %" PRIu64 "..%" PRIu64 ")", r->wave, r->wi,
             r->wi + (r->lanes ? (uint64_t)__builtin_popcountll(r->lanes) - 1 : 0));
  else wi_name(s, r->wi, who, sizeof who);
  rc_strbuf m;
  rc_sb_init(&m);
  if (r->has_message && r->message[0] == '@') { /* the child named the place itself */
    rc_sb_printf(&m, "kernel %.*s", (int)sizeof r->message, r->message);
  } else {
    rc_sb_printf(&m, "kernel @%s, %s: ", kernel, who);
    if (timed_out > 0) {
      rc_sb_printf(&m, "the native run takes longer than %.1f s, the time it may take (%.0f s, and 1 ns per "
                   "instruction the step budget allows all work-items; raise it with --steps)",
                   timed_out, RUN_BASE_SECONDS);
    } else if (r->has_message) {
      rc_sb_printf(&m, "%.*s", (int)sizeof r->message, r->message);
    } else if (r->signo || WIFSIGNALED(status)) {
      int sig = r->signo ? r->signo : WTERMSIG(status);
      char where[240] = "";
      if (r->signo && (sig == SIGSEGV || sig == SIGBUS)) describe_addr(h, where, sizeof where);
      else if (sig == SIGFPE) snprintf(where, sizeof where, "an integer division by zero or overflow");
      else if (sig == SIGILL) snprintf(where, sizeof where, "`unreachable` reached, or llvm.trap");
      rc_sb_printf(&m, "native run crashed: signal %d (%s)%s%s", sig, strsignal(sig), where[0] ? ": " : "",
                   where);
    } else {
      rc_sb_printf(&m, "the native run ended with exit status %d",
                   r->ended ? r->exit_code : WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
  }
  fault->happened = true;
  snprintf(fault->message, sizeof fault->message, "%s", m.data);
  rc_sb_free(&m);
}

/* Wait for the child; kill it when compiling or running takes too long. Returns the seconds it was
 * allowed when it was killed for that, else 0. */
static double wait_child(pid_t pid, const host_report *r, double run_limit, int *status) {
  double start = now_seconds(), run_start = 0;
  long delay_ns = 100000;
  for (;;) {
    pid_t w = waitpid(pid, status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) return 0;
    if (r->ended) { /* host_child_exit */
      kill(pid, SIGKILL);
      while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
      }
      return 0;
    }
    double t = now_seconds(), limit = 0;
    if (r->phase == HOST_COMPILING && t - start > COMPILE_SECONDS) limit = COMPILE_SECONDS;
    if (r->phase >= HOST_RUNNING && run_start == 0) run_start = t;
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

int host_run_fork(host_run *h, void (*child)(host_run *h, void *arg), void *arg, double run_limit,
                  const char *kernel, const rc_run_spec *s, rc_fault *fault) {
  memset(fault, 0, sizeof *fault);
  fflush(NULL); /* the child must not write out what the parent's stdio buffers hold */
  pid_t pid = fork();
  if (pid < 0) return rc_error(h->ctx, "cannot start a process for the native run: %s", strerror(errno));
  if (pid == 0) {
    child(h, arg);
    host_child_exit(h->rep, 0);
  }
  int status = 0;
  double timed_out = wait_child(pid, h->rep, run_limit, &status);
  const host_report *r = h->rep;
  if (timed_out == 0 && r->ended && r->phase == HOST_FINISHED && !r->signo && !r->has_message) {
    for (uint32_t i = 0; i < h->mem->nbufs; i++) memcpy(h->mem->bufs[i].data, h->bufs[i].data, h->bufs[i].bytes);
    return 0;
  }
  fault_of(h, kernel, s, status, timed_out, fault);
  return -1;
}
