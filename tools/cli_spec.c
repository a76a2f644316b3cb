/* Run specifications on the command line (see cli_spec.h). */
#include "cli_spec.h"

#include <stdlib.h>
#include <string.h>

const char cli_spec_help[] =
    "run specification (applied on top of the kernel's !run \"...\" defaults; docs/cli.md):\n"
    "  --global N[,N[,N]]  work-items per dimension (default 1)\n"
    "  --local L[,L[,L]]   work-group size (default min(global, 64) in dimension 0)\n"
    "  --wave W            wave size for @lane_id and @wave_size, 1..64 (default 32)\n"
    "  --steps N           instructions per thread before a fault (default 1000000)\n"
    "  --seed S            added to every rand(SEED) seed (default 0)\n"
    "  --arg NAME=VALUE    a scalar: 7, -1, 0x1f, 2.5, true, null, N (the number of work-items)\n"
    "  --arg NAME=TYPE[COUNT][:INIT]   a buffer for a ptr parameter; COUNT may be N, N*K, N+K;\n"
    "                      INIT: zeros, seq, seq(START,STEP), rand(SEED), rand(SEED,LO,HI),\n"
    "                      fill(V), file(PATH)\n"
    "  --arg NAME=local:TYPE[COUNT]    per-work-group local memory for a ptr parameter\n"
    "  --arg NAME={V,V,...}            a vector, struct or array: its scalar elements in order\n";

int cli_spec_opt(const char *cmd, int argc, char **argv, int *i, cli_spec_words *w) {
  int arity = rc_run_spec_option_arity(argv[*i]);
  if (arity == 0) return 0;
  if (*i + arity > argc) {
    cli_usage_error(cmd, "option %s needs a value", argv[*i]);
    return -1;
  }
  /* check the words now, so that a typo is a usage error before any file is read */
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  rc_run_spec scratch;
  rc_run_spec_init(&scratch);
  bool consumed[2] = {false, false};
  int r = rc_run_spec_parse(&ctx, &scratch, arity, argv + *i, consumed);
  rc_run_spec_free(&scratch);
  if (r != 0) {
    fprintf(stderr, "(see `reconv %s --help`)\n", cmd);
    return -1;
  }
  if (strncmp(argv[*i], "--global", 8) == 0) w->has_global = true;
  for (int k = 0; k < arity; k++) {
    if (w->n == w->cap) {
      w->cap = w->cap ? w->cap * 2 : 16;
      w->w = rc_xrealloc(w->w, (size_t)w->cap * sizeof *w->w);
    }
    w->w[w->n++] = argv[*i + k];
  }
  *i += arity - 1;
  return 1;
}

void cli_spec_words_free(cli_spec_words *w) {
  free(w->w);
  memset(w, 0, sizeof *w);
}

int cli_spec_build(rc_ctx *ctx, rc_run_spec *s, const rc_kernel *k, const cli_spec_words *w) {
  rc_run_spec_init(s);
  if (rc_run_spec_parse_kernel(ctx, s, k) != 0) return -1;
  bool *consumed = rc_xcalloc((size_t)w->n + 1, sizeof *consumed);
  int r = rc_run_spec_parse(ctx, s, w->n, w->w, consumed);
  free(consumed);
  if (r != 0) return -1;
  return rc_run_spec_check(ctx, s, k);
}
