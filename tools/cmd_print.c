/* reconv print: parse, verify and print a module (a round trip through the text form), or export
 * it to LLVM IR (-o FILE.ll / FILE.bc, or --emit-llvm). */
#include "cli.h"
#include "commands.h"

#include "reconv/llvm.h"

#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: reconv print [options] FILE\n\n"
    "Parse FILE (.rir, or .ll/.bc/.cl through the LLVM bridge), verify it and print it in the .rir\n"
    "text form. Printing what print wrote gives the same text again. With an output file ending in\n"
    ".ll or .bc, or with --emit-llvm, write LLVM IR instead (thread-level kernels; docs/llvm.md).\n\n"
    "options:\n"
    "  -o, --output FILE   write to FILE instead of standard output (.ll: LLVM IR, .bc: bitcode)\n"
    "  --emit-llvm         write LLVM IR text whatever the output's name\n"
    "  --kernel NAME       print only this kernel\n"
    "  --llvm-passes P, --target T, -O N, -D NAME[=V]   import options for .ll/.bc/.cl\n"
    "  -h, --help          show this help\n";

/* Write the module (or one kernel) as LLVM IR; frees m. */
static int export_llvm(rc_ctx *ctx, rc_module *m, const char *file, const char *out, const char *kname,
                       bool bitcode) {
#ifdef RECONV_HAVE_LLVM
  rc_llvm_export_opts o = {NULL, bitcode, true, false};
  int rc = EXIT_OK;
  if (kname && !(o.only = cli_pick_kernel(ctx, m, kname))) rc = EXIT_BAD_INPUT;
  char *data = NULL;
  size_t len = 0;
  if (rc == EXIT_OK && rc_llvm_export(ctx, m, &o, &data, &len)) rc = EXIT_BAD_INPUT;
  if (rc == EXIT_OK) {
    const char *inputs[] = {file};
    rc = cli_write_string(out, data, len, inputs, 1);
  }
  free(data);
  rc_module_free(m);
  return rc;
#else
  (void)kname;
  (void)bitcode;
  rc_report(ctx, RC_SEV_ERROR, out ? out : file, 0, 0,
            "reconv was built without the LLVM bridge; it cannot write LLVM IR");
  rc_module_free(m);
  return EXIT_BAD_INPUT;
#endif
}

int cmd_print(int argc, char **argv) {
  const char *out = NULL, *kname = NULL, *file = NULL;
  bool emit_llvm = false;
  cli_input_opts in = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r;
    if (cli_flag(a, "-h", "--help")) {
      fputs(help, stdout);
      return EXIT_OK;
    }
    if (cli_flag(a, NULL, "--emit-llvm")) {
      emit_llvm = true;
    } else if ((r = cli_opt("print", argc, argv, &i, "-o", "--output", &out)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_opt("print", argc, argv, &i, NULL, "--kernel", &kname)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_input_opt("print", argc, argv, &i, &in)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("print", "unknown option '%s'", a);
    } else if (file) {
      return cli_usage_error("print", "more than one input file");
    } else {
      file = a;
    }
  }
  if (!file) return cli_usage_error("print", "no input file");
  rc_ctx ctx;
  cli_ctx_init(&ctx);
  rc_module *m = cli_load(&ctx, file, &in);
  if (!m) return EXIT_BAD_INPUT;
  size_t olen = out ? strlen(out) : 0;
  bool bitcode = olen > 3 && strcmp(out + olen - 3, ".bc") == 0 && !emit_llvm;
  if (emit_llvm || bitcode || (olen > 3 && strcmp(out + olen - 3, ".ll") == 0))
    return export_llvm(&ctx, m, file, out, kname, bitcode);
  rc_strbuf sb;
  rc_sb_init(&sb);
  int rc = EXIT_OK;
  if (kname) {
    rc_kernel *k = cli_pick_kernel(&ctx, m, kname);
    if (k) rc_print_kernel(k, &sb); else rc = EXIT_BAD_INPUT;
  } else {
    rc_print_module(m, &sb);
  }
  if (rc == EXIT_OK) {
    const char *inputs[] = {file};
    rc = cli_write_string(out, sb.data ? sb.data : "", sb.len, inputs, 1);
  }
  rc_sb_free(&sb);
  rc_module_free(m);
  return rc;
}
