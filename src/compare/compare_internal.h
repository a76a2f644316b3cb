/* Internal interface of the comparison engine (include/reconv/compare.h):
 *
 *   exec.c         one strategy's run and its check
 *   strategies.c   the table of strategies, every row
 *   clock.c        the rows on this machine's clock: the native wave backend, native-scalar
 *   pocl.c         the pocl row: the OpenCL C kernel on pocl's CPU device
 *
 * Not installed. */
#ifndef RECONV_COMPARE_INTERNAL_H
#define RECONV_COMPARE_INTERNAL_H

#include "reconv/compare.h"

/* What the clock's rows share: the launch, scaled, and the interpreter's memory for it. */
typedef struct compare_clock {
  rc_ctx *ctx;
  rc_kernel *k;
  rc_run_spec s;          /* the spec, scaled */
  rc_memory ref;          /* the interpreter's memory for it */
  const rc_compare_opts *o;
  uint32_t repeat, threads;
  uint64_t items;
  char why[600];          /* when open failed: why no row is measured */
  bool unavailable;       /* ... because this build has no native backend (not the kernel's fault) */
} compare_clock;

/* 0, or -1 with clock->why set (the scaled launch does not fit, the interpreter faults on it, no
 * native backend). */
int compare_clock_open(const rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const rc_compare_opts *o,
                       compare_clock *clock);
/* Measure row r: a wave row (its lowered kernel) on the native wave backend, or the native-scalar
 * or pocl row; fills r->native. */
void compare_clock_row(compare_clock *clock, rc_compare_row *r);
void compare_clock_close(compare_clock *clock);

/* pocl.c: the kernel of OpenCL C file `path` on pocl (an OpenCL platform's CPU device), launched by
 * spec s of kernel k (k's parameters give the arguments' kinds), in a child process, the memory left
 * in mem (from rc_memory_init for s and k); best_ns: its fastest run by the OpenCL event profile.
 * 0; 1 with why filled when this machine cannot run it (no runner, no OpenCL library, no pocl);
 * -1 with why filled when pocl could not (a build error, a fault). */
int compare_pocl_run(rc_ctx *ctx, const char *path, const char *const *defines, unsigned ndefines,
                     const rc_kernel *k, const rc_run_spec *s, uint32_t repeat, uint32_t threads, rc_memory *mem,
                     uint64_t *best_ns, char *why, size_t len);

#endif
