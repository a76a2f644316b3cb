/* Printing a comparison of the strategies (the comparison engine's rows, include/reconv/compare.h):
 * the table of `reconv compare` and its JSON. */
#ifndef RECONV_COMPARE_REPORT_H
#define RECONV_COMPARE_REPORT_H

#include "cli.h"
#include "reconv/compare.h"

void compare_report_text(FILE *f, const rc_kernel *k, const rc_run_spec *s, const rc_compare_row *rows, int n);
void compare_report_json(FILE *f, const rc_kernel *k, const rc_run_spec *s, const rc_compare_row *rows, int n);

/* The clock's options of `compare` and `report`: --native, --scale K, --repeat N, --threads N. */
typedef struct compare_clock_words {
  bool native, vector_math;
  uint64_t scale, repeat, threads; /* 64, 5, 1 unless given */
  bool timing_given;               /* --scale, --repeat or --threads was given */
} compare_clock_words;
#define COMPARE_CLOCK_HELP                                                                          \
  "  --native            also on this machine's clock: every wave row on the native wave backend\n" \
  "                      (docs/native.md), and two rows that have no issue counts: native-scalar\n" \
  "                      (the kernel compiled by LLVM for this CPU at -O2, one work-item at a\n"   \
  "                      time; needs .cl, .ll or .bc) and pocl (the OpenCL C kernel on pocl's CPU\n" \
  "                      device; needs .cl and pocl); adds ns/item: nanoseconds per work-item of\n" \
  "                      the fastest run, memory checked against the interpreter on every row\n"   \
  "  --scale K           --native: the launch K times as large (default 64), long enough to time\n" \
  "  --repeat N          --native: the fastest of N timed runs after a warm-up (default 5)\n"     \
  "  --threads N         --native: the wave rows and pocl on N threads (default 1)\n"              \
  "  --vector-math       --native: the wave rows' transcendental math through libmvec, as pocl\n" \
  "                      has its own (floats then checked within any distance, the largest said)\n"
void compare_clock_words_init(compare_clock_words *c);
/* argv[*i] as one of the clock's options: 1 taken (with its value), 0 not one of them, -1 wrong
 * usage (said on stderr). */
int compare_clock_opt(const char *cmd, int argc, char **argv, int *i, compare_clock_words *c);
/* After the options: 0, or EXIT_USAGE after saying that --scale, --repeat or --threads came
 * without --native. */
int compare_clock_check(const char *cmd, const compare_clock_words *c);

#endif
