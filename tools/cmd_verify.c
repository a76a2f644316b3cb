/* reconv verify: check a module against the IR rules; the exit code says whether it is valid. */
#include "cli.h"
#include "commands.h"

#include <string.h>

static const char help[] =
    "usage: reconv verify [options] FILE\n\n"
    "Parse FILE and check every kernel against the rules of docs/ir.md (CFG shape, types, phis,\n"
    "SSA dominance, level rules). Prints the first problem as file:line:col and exits 1, or\n"
    "prints a summary and exits 0.\n\n"
    "options:\n"
    "  --kernel NAME       report only on this kernel\n"
    "  -q, --quiet         print nothing on success\n"
    "  --llvm-passes P, --target T, -O N, -D NAME[=V]   import options for .ll/.bc/.cl\n"
    "  -h, --help          show this help\n";

int cmd_verify(int argc, char **argv) {
  const char *kname = NULL, *file = NULL;
  bool quiet = false;
  cli_input_opts in = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r;
    if (cli_flag(a, "-h", "--help")) {
      fputs(help, stdout);
      return EXIT_OK;
    }
    if (cli_flag(a, "-q", "--quiet")) {
      quiet = true;
    } else if ((r = cli_opt("verify", argc, argv, &i, NULL, "--kernel", &kname)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_input_opt("verify", argc, argv, &i, &in)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("verify", "unknown option '%s'", a);
    } else if (file) {
      return cli_usage_error("verify", "more than one input file");
    } else {
      file = a;
    }
  }
  if (!file) return cli_usage_error("verify", "no input file");
  rc_ctx ctx;
  cli_ctx_init(&ctx);
  rc_module *m = cli_load(&ctx, file, &in); /* loading verifies */
  if (!m) return EXIT_BAD_INPUT;
  int rc = EXIT_OK;
  if (kname && !cli_pick_kernel(&ctx, m, kname)) rc = EXIT_BAD_INPUT;
  if (rc == EXIT_OK && !quiet) {
    const char *shown = m->filename ? m->filename : file; /* "<stdin>" for "-" */
    if (kname)
      printf("%s: kernel @%s is valid\n", shown, kname[0] == '@' ? kname + 1 : kname);
    else
      printf("%s: %u kernel%s valid\n", shown, m->nkernels, m->nkernels == 1 ? " is" : "s are");
  }
  rc_module_free(m);
  return rc;
}
