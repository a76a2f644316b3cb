/* Shared pieces of the reconv command-line tool: option parsing, loading inputs of any supported
 * kind, choosing kernels, and writing outputs without ever clobbering an input. */
#ifndef RECONV_CLI_H
#define RECONV_CLI_H

#include "reconv/ir.h"
#include "reconv/llvm.h"
#include "reconv/sim.h"

#include <stdio.h>

/* Exit codes that scripts can trust. */
enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

/* ---- options --------------------------------------------------------------------------------- */

/* Is argv[*i] the flag short/long ("-h", "--help")? Either name may be NULL. */
bool cli_flag(const char *arg, const char *shortname, const char *longname);
/* Is argv[*i] an option with a value ("-o X", "--output X", "--output=X")? Returns 1 and sets *val
 * (advancing *i past a separate value), 0 when it is another argument, -1 (after a usage message)
 * when the value is missing. */
int cli_opt(const char *cmd, int argc, char **argv, int *i, const char *shortname,
            const char *longname, const char **val);
/* Print "reconv CMD: msg" and a pointer to --help; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Parse an unsigned integer option value; on error prints a usage message and returns false. */
bool cli_parse_u64(const char *cmd, const char *opt, const char *s, uint64_t *out);

/* ---- inputs ------------------------------------------------------------------------------------ */

/* How .ll/.bc/.cl inputs are imported (the LLVM bridge); ignored for .rir. */
typedef struct cli_input_opts {
  const char *llvm_passes; /* --llvm-passes=PIPELINE, run before import */
  const char *target;      /* --target TRIPLE for .cl */
  const char *opt_level;   /* -O0..-O3 for .cl */
  const char *defines[32]; /* -D NAME[=VALUE] for .cl */
  unsigned ndefines;
  bool llvm_divergence;    /* --llvm-divergence: branches take LLVM's divergence verdicts */
} cli_input_opts;

/* Consume an input option (--llvm-passes, --llvm-divergence, --target, -O, -D) at argv[*i]: 1 taken,
 * 0 not, -1 error. */
int cli_input_opt(const char *cmd, int argc, char **argv, int *i, cli_input_opts *o);

void cli_ctx_init(rc_ctx *ctx);
/* A fault of a run on standard error: "FILE:LINE:COL: fault: ..." where the faulting instruction
 * has a source line (a .cl kernel's line tables, a .rir line), else "reconv CMD: fault: ...". */
void cli_print_fault(const char *cmd, const rc_fault *f);
/* k's CFG as DOT with the uniformity analysis drawn in: divergent branches red, uniform ones
 * dotted, the edge to each divergent branch's primary successor bold, and a legend if asked. */
void cli_dot_analysis(const rc_kernel *k, unsigned unif_flags, bool show_instructions, bool legend, rc_strbuf *out);
/* Read a whole file ("-" = standard input). Returns NULL after reporting an error. */
char *cli_read_file(rc_ctx *ctx, const char *path, size_t *len);
/* Load a module from .rir (or standard input), or through the LLVM bridge from .ll/.bc/.cl.
 * Reports errors through ctx and returns NULL. */
rc_module *cli_load(rc_ctx *ctx, const char *path, const cli_input_opts *o);
/* The LLVM bridge's import options from the command line's (o NULL: the defaults). */
void cli_import_opts(const cli_input_opts *o, rc_llvm_import_opts *lo);
/* Kernel `name`, or the only kernel when name is NULL; NULL (after an error) otherwise. */
rc_kernel *cli_pick_kernel(rc_ctx *ctx, rc_module *m, const char *name);

/* ---- outputs ------------------------------------------------------------------------------------ */

/* An output file written to a temporary name and renamed into place on commit, so a failed command
 * leaves an existing file untouched. NULL or "-" is standard output. */
typedef struct cli_out {
  FILE *f;
  char *path, *tmp;
  char *direct; /* a path that is not a regular file (/dev/null, a pipe), written in place */
} cli_out;
/* Refuses (EXIT_BAD_INPUT) when path names one of the inputs. Returns 0 or an exit code. */
int cli_out_open(cli_out *o, const char *path, const char *const *inputs, int ninputs);
int cli_out_commit(cli_out *o); /* 0 or EXIT_BAD_INPUT */
void cli_out_abort(cli_out *o);

/* The files a command reads for a kernel: FILE itself and every file(PATH) of the run
 * specification (outputs must not overwrite any of them). Returns a malloc'ed array (free it). */
const char **cli_spec_inputs(const char *file, const rc_run_spec *s, int *n);

/* Write a string to a path (as above); returns 0 or an exit code. */
int cli_write_string(const char *path, const char *data, size_t len, const char *const *inputs,
                     int ninputs);

/* JSON string escaping */
void cli_json_string(FILE *f, const char *s);

#endif
