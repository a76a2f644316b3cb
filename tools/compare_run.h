/* The strategies of `reconv compare` and running them, shared by `compare` (its table) and
 * `report` (its page). A strategy is a machine plus the passes that prepare the kernel for it. */
#ifndef RECONV_COMPARE_RUN_H
#define RECONV_COMPARE_RUN_H

#include "sim_report.h"

typedef struct strategy {
  const char *name;        /* the row's label */
  int mode;                /* SIM_MODE_IPDOM: the original on the IPDOM stack; SIM_MODE_WAVE: lowered */
  const char *pipeline;    /* wave mode: the passes from the thread-level kernel to a wave kernel */
  const char *thread_passes; /* wave mode: the part of the pipeline before lower (NULL: none) */
  const char *llvm_passes; /* wave mode: LLVM's passes first, run by LLVM (needs the LLVM bridge) */
  const char *before_llvm; /* wave mode: reconv's passes before LLVM's (NULL: none) */
} strategy;

/* LLVM's structurizer as AMDGPU prepares it (its pre-ISel passes): no switches, one return (AMDGPU
 * merges the divergent ones; the new pass manager of LLVM 14 only has mergereturn, which merges
 * all), a reducible CFG, loops with one exit, then StructurizeCFG (which under the new pass manager
 * structurizes uniform regions too). */
#define LLVM_STRUCTURIZER "lowerswitch,mergereturn,fix-irreducible,unify-loop-exits,structurizecfg"

extern const strategy compare_strategies[];
extern const int compare_nstrategies;
/* the row of reconv's default pipeline (reconverge with its default ordering, then lower) */
#define COMPARE_DEFAULT "reconverge[auto]+lower"

typedef struct compare_row {
  const strategy *st;
  rc_ctx ctx;      /* collects the strategy's first error; outlives its lowered copy */
  bool ran;        /* the machine ran (else: error) */
  sim_result res;
  char error[400];
} compare_row;

/* Is name one of the comma-separated names of `only` (NULL: every name)? */
bool compare_selected(const char *only, const char *name);
/* Run every selected strategy on k (rows: compare_nstrategies entries); the default strategy's row
 * records wave 0's timeline when `timeline` is set. Returns the number of rows. */
int compare_run(const rc_ctx *ctx, rc_kernel *k, const rc_run_spec *s, const char *only, bool timeline,
                compare_row *rows);
void compare_rows_free(compare_row *rows, int n);
bool compare_row_ok(const compare_row *r);
/* what a row costs: every instruction the waves issue (vector, scalar or mask), one slot each */
uint64_t compare_issued(const compare_row *r);
/* the cheapest equivalent row, or -1 */
int compare_best(const compare_row *rows, int n);
const char *compare_verdict(const compare_row *r, char *buf, size_t len);

void compare_report_text(FILE *f, const rc_kernel *k, const rc_run_spec *s, const compare_row *rows, int n);
void compare_report_json(FILE *f, const rc_kernel *k, const rc_run_spec *s, const compare_row *rows, int n);

#endif
