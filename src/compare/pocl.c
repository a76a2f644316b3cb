/* The pocl row of a native comparison (compare_internal.h): the kernel's OpenCL C source built and
 * run by pocl, the OpenCL implementation people use on CPUs (Debian's pocl-opencl-icd), through the
 * OpenCL API, with the buffers, sizes and work-group size of reconv's runs, its time from the
 * OpenCL event profile (the kernel alone: no build, no copies).
 *
 * pocl runs in a program of its own, reconv-ocl-runner (tools/ocl_runner/), which this file starts
 * with a shared memory file holding the request and the buffers (ocl_request.h): pocl compiles with
 * LLVM 15, reconv links LLVM 14, and the two in one process crash. The runner is found next to the
 * program that runs (build/bin, or ../bin from build/bench), or at $RECONV_OCL_RUNNER, or where
 * reconv was installed; without it, or without an OpenCL platform, the row says so. */
#define _GNU_SOURCE /* memfd_create */
#include "compare_internal.h"
#include "ocl_request.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POCL_SECONDS 300.0 /* building (pocl compiles with clang) and every run */

static bool executable(const char *path) { return access(path, X_OK) == 0; }

/* Where the runner is: $RECONV_OCL_RUNNER, next to this program, in ../bin from it, or installed. */
static bool find_runner(char *out, size_t len) {
  const char *env = getenv("RECONV_OCL_RUNNER");
  if (env && *env) {
    snprintf(out, len, "%s", env);
    return executable(out);
  }
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    snprintf(out, len, "%s/%s", self, OCL_RUNNER);
    if (executable(out)) return true;
    snprintf(out, len, "%s/../bin/%s", self, OCL_RUNNER);
    if (executable(out)) return true;
  }
#ifdef RECONV_INSTALL_BINDIR
  snprintf(out, len, "%s/%s", RECONV_INSTALL_BINDIR, OCL_RUNNER);
  if (executable(out)) return true;
#endif
  return false;
}

/* The request for kernel k launched by s: its arguments by the run specification. */
static int fill_request(ocl_request *q, uint8_t *file, const char *path, const char *const *defines, unsigned nd,
                        const rc_kernel *k, const rc_run_spec *s, const rc_memory *mem, const uint64_t *offsets,
                        char *why, size_t len) {
  q->magic = OCL_REQUEST_MAGIC;
  q->version = OCL_REQUEST_VERSION;
  q->dims = s->dims;
  uint32_t local[3];
  rc_run_spec_local(s, local);
  for (int d = 0; d < 3; d++) q->global[d] = s->global[d], q->local[d] = local[d];
  snprintf(q->kernel, sizeof q->kernel, "%s", k->name);
  if (!realpath(path, q->source)) snprintf(q->source, sizeof q->source, "%s", path);
  size_t used = (size_t)snprintf(q->options, sizeof q->options, "-cl-std=CL1.2");
  for (unsigned d = 0; d < nd && used < sizeof q->options; d++)
    used += (size_t)snprintf(q->options + used, sizeof q->options - used, " -D %s", defines[d]);
  if (k->nparams > OCL_MAX_ARGS) {
    snprintf(why, len, "the kernel has more than %u parameters", OCL_MAX_ARGS);
    return -1;
  }
  q->nargs = k->nparams;
  for (uint32_t p = 0; p < k->nparams; p++) {
    const char *name = k->params[p]->name ? k->params[p]->name : "";
    const rc_arg_spec *a = rc_run_spec_find_arg(s, name);
    ocl_arg *x = &q->args[p];
    if (!a) {
      snprintf(why, len, "parameter %%%s has no value", name);
      return -1;
    }
    if (a->is_aggregate) {
      snprintf(why, len, "parameter %%%s is a vector, struct or array, whose {...} value is not passed to pocl", name);
      return -1;
    }
    if (a->is_local) {
      x->kind = OCL_ARG_LOCAL;
      x->size = rc_arg_count(a, s) * rc_type_size(a->elem);
    } else if (a->is_buffer) {
      const rc_buffer *b = rc_memory_find(mem, name);
      uint32_t i = (uint32_t)(b - mem->bufs);
      x->kind = OCL_ARG_BUFFER;
      x->size = b->count * rc_type_size(b->elem);
      x->offset = offsets[i];
      memcpy(file + x->offset, b->data, x->size);
    } else {
      rc_type t = (rc_type)k->params[p]->type;
      x->kind = OCL_ARG_SCALAR;
      x->size = rc_type_size(t);
      double d = a->scalar_is_float ? a->scalar_f : (double)rc_arg_scalar_int(a, s);
      if (t == RC_F32) {
        float f = (float)d;
        memcpy(x->value, &f, 4);
      } else if (t == RC_F64) {
        memcpy(x->value, &d, 8);
      } else {
        int64_t v = rc_arg_scalar_int(a, s);
        memcpy(x->value, &v, 8); /* little-endian: the low bytes are the value */
      }
    }
  }
  return 0;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Wait for pid at most `limit` seconds (then kill it): 0 when it exited with status 0. */
static int wait_limited(pid_t pid, double limit, char *why, size_t len) {
  double start = now_seconds();
  int status = 0;
  for (long delay = 100000;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      snprintf(why, len, "lost the OpenCL runner: %s", strerror(errno));
      return -1;
    }
    if (now_seconds() - start > limit) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      snprintf(why, len, "pocl took longer than %.0f s", limit);
      return -1;
    }
    struct timespec ts = {0, delay};
    nanosleep(&ts, NULL);
    if (delay < 10000000) delay *= 2;
  }
  if (WIFSIGNALED(status)) {
    snprintf(why, len, "the OpenCL runner crashed: signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    return -1;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    snprintf(why, len, "the OpenCL runner ended with exit status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return -1;
  }
  return 0;
}

int compare_pocl_run(rc_ctx *ctx, const char *path, const char *const *defines, unsigned ndefines,
                     const rc_kernel *k, const rc_run_spec *s, uint32_t repeat, uint32_t threads, rc_memory *mem,
                     uint64_t *best_ns, char *why, size_t len) {
  (void)ctx;
  char runner[PATH_MAX + 32];
  if (!find_runner(runner, sizeof runner)) {
    snprintf(why, len, "no %s next to reconv (built with it where the OpenCL headers are: Debian's ocl-icd-opencl-dev)",
             OCL_RUNNER);
    return 1;
  }
  uint64_t *offsets = rc_xcalloc(mem->nbufs + 1, sizeof *offsets);
  uint64_t bytes = (sizeof(ocl_request) + 63) & ~(uint64_t)63;
  for (uint32_t i = 0; i < mem->nbufs; i++) {
    offsets[i] = bytes;
    bytes += (mem->bufs[i].count * rc_type_size(mem->bufs[i].elem) + 63) & ~(uint64_t)63;
  }
  int rc = -1, fd = memfd_create("reconv-ocl", 0);
  uint8_t *file = MAP_FAILED;
  if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0 ||
      (file = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
    snprintf(why, len, "no shared memory for pocl's run: %s", strerror(errno));
    goto out;
  }
  ocl_request *q = (ocl_request *)file;
  memset(q, 0, sizeof *q);
  if (fill_request(q, file, path, defines, ndefines, k, s, mem, offsets, why, len) != 0) goto out;
  q->bytes = bytes;
  q->repeat = repeat;
  q->threads = threads ? threads : 1;
  q->status = -1;
  snprintf(q->message, sizeof q->message, "the OpenCL runner did not finish");
  char fdarg[16];
  snprintf(fdarg, sizeof fdarg, "%d", fd);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(why, len, "cannot start the OpenCL runner: %s", strerror(errno));
    goto out;
  }
  if (pid == 0) {
    char *args[3] = {runner, fdarg, NULL};
    execv(runner, args);
    _exit(127);
  }
  uint64_t steps = s->step_budget ? s->step_budget : RC_DEFAULT_STEP_BUDGET; /* as the native runs' limit */
  double run_limit = 5.0 + (double)rc_run_spec_threads(s) * (double)steps * 1e-9;
  if (wait_limited(pid, POCL_SECONDS + run_limit * (1 + repeat), why, len) != 0) goto out;
  if (q->status != OCL_RAN) {
    snprintf(why, len, "%s", q->message);
    rc = q->status == OCL_UNAVAILABLE ? 1 : -1;
    goto out;
  }
  for (uint32_t i = 0; i < mem->nbufs; i++)
    memcpy(mem->bufs[i].data, file + offsets[i], mem->bufs[i].count * rc_type_size(mem->bufs[i].elem));
  *best_ns = q->best_ns;
  rc = 0;
out:
  if (file != MAP_FAILED) munmap(file, bytes);
  if (fd >= 0) close(fd);
  free(offsets);
  return rc;
}
