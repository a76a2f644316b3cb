/* reconv compare: one kernel, every strategy for running divergent control flow on a wave, one table.
 * The strategies and their runs are in rc_compare_run.c (shared with reconv report); adding one is one
 * line in rc_compare_strategies. Every row is checked against the thread-level interpreter (traces and
 * memory). */
#include "cli_spec.h"
#include "commands.h"
#include "compare_report.h"

#include "reconv/llvm.h"

#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: reconv compare [options] FILE [run specification]\n\n"
    "Run the kernel under every strategy and print one table: the IPDOM reconvergence stack on\n"
    "the original kernel, reconverge (each block ordering) followed by lower on the wave\n"
    "simulator, the sweep lowerings blockip (per-lane block labels, the Beignet note) and\n"
    "full-linearize (every block predicated), and (with the LLVM bridge) LLVM's own structurizer\n"
    "pipeline as AMDGPU runs it\n"
    "(" RC_LLVM_STRUCTURIZER ")\n"
    "followed by lower, and that pipeline with uniform regions left alone (StructurizeCFG's\n"
    "skip-uniform-regions, as AMDGPU's users can turn on). Columns: blocks and flow blocks of\n"
    "the program that runs; vector, scalar and mask instructions issued, and their sum (issued:\n"
    "the cost of the row); SIMD efficiency; blocks entered by waves; duplicate block executions;\n"
    "and the verdict of comparing every thread with the thread-level interpreter. * marks the\n"
    "cheapest equivalent row; `note:` lines under the table say what the columns mean (scripts\n"
    "reading rows can skip them).\n"
    "Exit status: 0 when every strategy is equivalent, 1 when one is not (or faults) or on bad\n"
    "input, 2 wrong usage.\n\n"
    "options:\n"
    "  --only NAME,...     run only these strategies (names as in the table)\n"
    COMPARE_CLOCK_HELP
    "  --json              one JSON object instead of the table\n"
    "  --kernel NAME       the kernel to compare (needed when FILE has several)\n"
    "  -o, --output FILE   write the report to FILE instead of standard output\n"
    "  --llvm-passes P, --target T, -O N, -D NAME[=V]   import options for .ll/.bc/.cl\n"
    "  -h, --help          show this help\n\n";

int cmd_compare(int argc, char **argv) {
  const char *file = NULL, *out = NULL, *kname = NULL, *only = NULL;
  bool json = false;
  compare_clock_words clock;
  compare_clock_words_init(&clock);
  cli_input_opts in = {0};
  cli_spec_words w = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r;
    if (cli_flag(a, "-h", "--help")) {
      fputs(help, stdout);
      fputs(cli_spec_help, stdout);
      cli_spec_words_free(&w);
      return EXIT_OK;
    }
    if ((r = cli_opt("compare", argc, argv, &i, "-o", "--output", &out)) != 0 ||
        (r = cli_opt("compare", argc, argv, &i, NULL, "--kernel", &kname)) != 0 ||
        (r = cli_opt("compare", argc, argv, &i, NULL, "--only", &only)) != 0 ||
        (r = cli_input_opt("compare", argc, argv, &i, &in)) != 0 ||
        (r = cli_spec_opt("compare", argc, argv, &i, &w)) != 0) {
      if (r < 0) {
        cli_spec_words_free(&w);
        return EXIT_USAGE;
      }
    } else if ((r = compare_clock_opt("compare", argc, argv, &i, &clock)) != 0) {
      if (r < 0) {
        cli_spec_words_free(&w);
        return EXIT_USAGE;
      }
    } else if (cli_flag(a, NULL, "--json")) {
      json = true;
    } else if (a[0] == '-' && a[1]) {
      cli_spec_words_free(&w);
      return cli_usage_error("compare", "unknown option '%s'", a);
    } else if (file) {
      cli_spec_words_free(&w);
      return cli_usage_error("compare", "more than one input file");
    } else {
      file = a;
    }
  }
  if (!file) {
    cli_spec_words_free(&w);
    return cli_usage_error("compare", "no input file");
  }
  if (compare_clock_check("compare", &clock) != 0) {
    cli_spec_words_free(&w);
    return EXIT_USAGE;
  }
  int nsel = 0;
  for (int s = 0; s < rc_compare_nstrategies; s++) nsel += rc_compare_selected(only, rc_compare_strategies[s].name);
  if (!nsel) {
    cli_spec_words_free(&w);
    return cli_usage_error("compare", "--only %s names no strategy (see the table of reconv compare FILE)", only);
  }
  rc_ctx ctx;
  cli_ctx_init(&ctx);
  rc_module *m = cli_load(&ctx, file, &in);
  rc_kernel *k = m ? cli_pick_kernel(&ctx, m, kname) : NULL;
  if (k && k->level != RC_LEVEL_THREAD) {
    rc_error(&ctx, "reconv compare needs a thread-level kernel; @%s is a wave kernel", k->name);
    k = NULL;
  }
  int rc = EXIT_BAD_INPUT;
  rc_run_spec s;
  rc_run_spec_init(&s);
  rc_compare_row *rows = rc_xcalloc((size_t)rc_compare_nstrategies, sizeof *rows);
  int n = 0;
  if (k && cli_spec_build(&ctx, &s, k, &w) == 0) {
    rc_llvm_import_opts io;
    cli_import_opts(&in, &io);
    rc_compare_opts co = {.only = only, .native = clock.native, .scale = (uint32_t)clock.scale,
                          .repeat = (uint32_t)clock.repeat, .threads = (uint32_t)clock.threads, .vector_math = clock.vector_math, .path = file,
                          .import = &io};
    n = rc_compare_run_opts(&ctx, k, &s, &co, rows);
    bool all = true;
    for (int i = 0; i < n; i++) all &= rc_compare_row_ok(&rows[i]);
    int ninputs;
    const char **inputs = cli_spec_inputs(file, &s, &ninputs); /* file(PATH) data too */
    cli_out o;
    rc = cli_out_open(&o, out, inputs, ninputs);
    free(inputs);
    if (rc == 0) {
      if (json) compare_report_json(o.f, k, &s, rows, n);
      else compare_report_text(o.f, k, &s, rows, n);
      rc = cli_out_commit(&o);
    }
    if (rc == 0 && !all) rc = EXIT_BAD_INPUT;
  }
  rc_compare_rows_free(rows, n);
  free(rows);
  rc_run_spec_free(&s);
  cli_spec_words_free(&w);
  if (m) rc_module_free(m);
  return rc;
}
