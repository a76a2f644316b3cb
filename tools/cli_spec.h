/* Run specifications on the command line (docs/cli.md, "Run specifications"), shared by the
 * commands that run kernels: the run-spec words are collected while the command parses its own
 * options, then applied on top of the chosen kernel's `!run` defaults. */
#ifndef RECONV_CLI_SPEC_H
#define RECONV_CLI_SPEC_H

#include "cli.h"
#include "reconv/sim.h"

typedef struct cli_spec_words {
  char **w;
  int n, cap;
  bool has_global; /* --global was given */
} cli_spec_words;

/* If argv[*i] is a run-spec option, check it, append it (and its value) to w, advance *i past it
 * and return 1; 0 when it is not a run-spec option; -1 after a usage message when it is malformed. */
int cli_spec_opt(const char *cmd, int argc, char **argv, int *i, cli_spec_words *w);
void cli_spec_words_free(cli_spec_words *w);

/* The run spec of kernel k: its `!run` string, the words on top, checked against k. Reports
 * errors through ctx and returns -1 (s is left initialised either way). */
int cli_spec_build(rc_ctx *ctx, rc_run_spec *s, const rc_kernel *k, const cli_spec_words *w);

/* Help text for the run-spec options, for the commands' --help. */
extern const char cli_spec_help[];

#endif
