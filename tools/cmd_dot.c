/* reconv dot: draw a kernel's CFG as Graphviz DOT. */
#include "cli.h"
#include "commands.h"

#include "reconv/analysis.h"

#include <string.h>

static const char help[] =
    "usage: reconv dot [options] FILE\n\n"
    "Write the CFG of each kernel (or of --kernel NAME) as Graphviz DOT: blocks by name,\n"
    "conditional edges labelled T/F, blocks inserted by transforms dashed.\n"
    "Render with e.g. `reconv dot f.rir | dot -Tsvg -o f.svg`.\n\n"
    "options:\n"
    "  -o, --output FILE   write to FILE instead of standard output\n"
    "  --kernel NAME       draw only this kernel\n"
    "  --instructions      list the instructions inside each block\n"
    "  --analysis          run the uniformity analysis: divergent branches filled red, the\n"
    "                      edges of uniform branches dotted\n"
    "  --all-divergent     with --analysis: treat every conditional branch as divergent\n"
    "  --llvm-passes P, --target T, -O N, -D NAME[=V]   import options for .ll/.bc/.cl\n"
    "  -h, --help          show this help\n";

int cmd_dot(int argc, char **argv) {
  const char *out = NULL, *kname = NULL, *file = NULL;
  cli_input_opts in = {0};
  rc_dot_opts dopts = {0};
  bool analysis = false;
  unsigned flags = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r;
    if (cli_flag(a, "-h", "--help")) {
      fputs(help, stdout);
      return EXIT_OK;
    }
    if (cli_flag(a, NULL, "--instructions")) {
      dopts.show_instructions = true;
    } else if (cli_flag(a, NULL, "--analysis")) {
      analysis = true;
    } else if (cli_flag(a, NULL, "--all-divergent")) {
      flags |= RC_UNIF_ALL_DIVERGENT;
    } else if ((r = cli_opt("dot", argc, argv, &i, "-o", "--output", &out)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_opt("dot", argc, argv, &i, NULL, "--kernel", &kname)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_input_opt("dot", argc, argv, &i, &in)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("dot", "unknown option '%s'", a);
    } else if (file) {
      return cli_usage_error("dot", "more than one input file");
    } else {
      file = a;
    }
  }
  if (!file) return cli_usage_error("dot", "no input file");
  if (flags && !analysis) return cli_usage_error("dot", "--all-divergent needs --analysis");
  rc_ctx ctx;
  cli_ctx_init(&ctx);
  rc_module *m = cli_load(&ctx, file, &in);
  if (!m) return EXIT_BAD_INPUT;
  rc_strbuf sb;
  rc_sb_init(&sb);
  int rc = EXIT_OK;
  for (uint32_t i = 0; i < m->nkernels; i++) {
    rc_kernel *k = m->kernels[i];
    if (kname && strcmp(k->name, kname[0] == '@' ? kname + 1 : kname) != 0) continue;
    if (analysis) {
      cli_dot_analysis(k, flags, dopts.show_instructions, true, &sb);
    } else {
      rc_dot_kernel(k, &dopts, &sb);
    }
  }
  if (kname && !cli_pick_kernel(&ctx, m, kname)) rc = EXIT_BAD_INPUT;
  if (rc == EXIT_OK) {
    const char *inputs[] = {file};
    rc = cli_write_string(out, sb.data ? sb.data : "", sb.len, inputs, 1);
  }
  rc_sb_free(&sb);
  rc_module_free(m);
  return rc;
}
