/* reconv gen: write a random kernel of a chosen shape (include/reconv/gen.h). */
#include "cli.h"
#include "commands.h"
#include "reconv/gen.h"
#include "reconv/llvm.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: reconv gen [options]\n\n"
    "Write a .rir module with one random kernel of the requested shape. The same options and seed\n"
    "always give the same kernel. Divergent branches depend on @global_id, uniform ones only on\n"
    "kernel parameters; every thread terminates (a step counter bounds divergent loops, uniform\n"
    "loops run %trips times); every block mixes its number into out[tid]; the kernel carries a\n"
    "!run specification, so `reconv run` works on it directly.\n\n"
    "options:\n"
    "  --seed S            random seed (default 1)\n"
    "  --blocks N          number of blocks, at least 1 (default 16)\n"
    "  --exits K           number of ret blocks (default 1; needs N >= 2K-1)\n"
    "  --loops L           number of loops (default N/8)\n"
    "  --nesting D         deepest loop nesting (default 3)\n"
    "  --divergent P       share of divergent branches and loops, 0..1 (default 0.5)\n"
    "  --far F             share of extra branch targets anywhere ahead rather than within\n"
    "                      8 blocks, 0..1 (default 0.15; 0 keeps the CFG local)\n"
    "  --irreducible       give at least one loop a second entry (an irreducible cycle)\n"
    "  --switches          also end blocks in multi-way switches\n"
    "  --annotate          mark generated branches !uniform or !divergent\n"
    "  --similar           every block also runs a slightly varied copy of one sequence of\n"
    "                      arithmetic, loads and stores: duplicated code on both sides of\n"
    "                      divergent branches, for meld (docs/meld.md)\n"
    "  --threads T         global size in the !run specification, 1..16777216 (default 64)\n"
    "  --kernel NAME       name of the kernel (default gen)\n"
    "  -o, --output FILE   write to FILE instead of standard output; FILE.ll is LLVM IR text,\n"
    "                      FILE.bc bitcode (an amdgcn kernel, through the LLVM bridge)\n"
    "  --emit-llvm         write LLVM IR text whatever the output's name\n"
    "  --json              print what was generated (counts) as JSON on standard output;\n"
    "                      needs -o for the module\n"
    "  -h, --help          show this help\n";

static bool parse_u32(const char *opt, const char *v, uint32_t *out) {
  uint64_t x;
  if (!cli_parse_u64("gen", opt, v, &x)) return false;
  if (x > UINT32_MAX) {
    cli_usage_error("gen", "%s is too large: %s", opt, v);
    return false;
  }
  *out = (uint32_t)x;
  return true;
}

static bool parse_share(const char *opt, const char *v, double *out) {
  char *end;
  errno = 0;
  double d = strtod(v, &end);
  if (errno || end == v || *end || !(d >= 0.0 && d <= 1.0)) {
    cli_usage_error("gen", "%s expects a number between 0 and 1, not '%s'", opt, v);
    return false;
  }
  *out = d;
  return true;
}

static void print_json(const rc_gen_info *g, const rc_gen_opts *o) {
  printf("{\"kernel\": ");
  cli_json_string(stdout, o->name);
  printf(", \"seed\": %" PRIu64 ", \"blocks\": %u, \"exits\": %u, \"loops\": %u, "
         "\"uniform_loops\": %u, \"irreducible_loops\": %u, \"max_depth\": %u, "
         "\"divergent_branches\": %u, \"uniform_branches\": %u, \"switches\": %u, "
         "\"budget\": %u, \"trips\": %u, \"max_blocks_per_thread\": %" PRIu64
         ", \"max_instrs_per_block\": %u}\n",
         o->seed, g->blocks, g->exits, g->loops, g->uniform_loops, g->irreducible_loops,
         g->max_depth, g->divergent_branches, g->uniform_branches, g->switches, g->budget, g->trips,
         g->max_blocks_per_thread, g->max_instrs_per_block);
}

/* The module as LLVM IR (docs/llvm.md, "Writing LLVM IR"), so that generated kernels can be fed to
 * LLVM's own passes (opt -passes=structurizecfg) and timed against reconverge. */
static int write_llvm(rc_ctx *ctx, const rc_module *m, const char *out, bool bitcode) {
#ifdef RECONV_HAVE_LLVM
  rc_llvm_export_opts lo = {NULL, bitcode, true, false};
  char *data = NULL;
  size_t len = 0;
  int rc = rc_llvm_export(ctx, m, &lo, &data, &len) != 0 ? EXIT_BAD_INPUT
                                                        : cli_write_string(out, data, len, NULL, 0);
  free(data);
  return rc;
#else
  (void)m;
  (void)bitcode;
  rc_report(ctx, RC_SEV_ERROR, NULL, 0, 0,
            "reconv was built without the LLVM bridge; it cannot write LLVM IR");
  return EXIT_BAD_INPUT;
#endif
}

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = s ? strlen(s) : 0, k = strlen(suffix);
  return n > k && strcmp(s + n - k, suffix) == 0;
}

/* The library reports without a file position; say which command speaks. */
static void report(void *user, const rc_diag *d) {
  char buf[1024];
  rc_diag_format(d, buf, sizeof buf);
  fprintf(stderr, "reconv gen: %s", buf);
}

int cmd_gen(int argc, char **argv) {
  rc_gen_opts o;
  rc_gen_opts_init(&o);
  const char *out = NULL, *v;
  bool loops_given = false, json = false, emit_llvm = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r;
    if (cli_flag(a, "-h", "--help")) {
      fputs(help, stdout);
      return EXIT_OK;
    }
    if (cli_flag(a, NULL, "--irreducible")) {
      o.irreducible = true;
    } else if (cli_flag(a, NULL, "--switches")) {
      o.switches = true;
    } else if (cli_flag(a, NULL, "--annotate")) {
      o.annotate = true;
    } else if (cli_flag(a, NULL, "--similar")) {
      o.similar = true;
    } else if (cli_flag(a, NULL, "--json")) {
      json = true;
    } else if (cli_flag(a, NULL, "--emit-llvm")) {
      emit_llvm = true;
    } else if ((r = cli_opt("gen", argc, argv, &i, "-o", "--output", &out)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_opt("gen", argc, argv, &i, NULL, "--kernel", &v)) != 0) {
      if (r < 0) return EXIT_USAGE;
      o.name = v[0] == '@' ? v + 1 : v;
    } else if ((r = cli_opt("gen", argc, argv, &i, NULL, "--seed", &v)) != 0) {
      if (r < 0 || !cli_parse_u64("gen", "--seed", v, &o.seed)) return EXIT_USAGE;
    } else if ((r = cli_opt("gen", argc, argv, &i, NULL, "--blocks", &v)) != 0) {
      if (r < 0 || !parse_u32("--blocks", v, &o.blocks)) return EXIT_USAGE;
    } else if ((r = cli_opt("gen", argc, argv, &i, NULL, "--exits", &v)) != 0) {
      if (r < 0 || !parse_u32("--exits", v, &o.exits)) return EXIT_USAGE;
    } else if ((r = cli_opt("gen", argc, argv, &i, NULL, "--loops", &v)) != 0) {
      if (r < 0 || !parse_u32("--loops", v, &o.loops)) return EXIT_USAGE;
      loops_given = true;
    } else if ((r = cli_opt("gen", argc, argv, &i, NULL, "--nesting", &v)) != 0) {
      if (r < 0 || !parse_u32("--nesting", v, &o.nesting)) return EXIT_USAGE;
    } else if ((r = cli_opt("gen", argc, argv, &i, NULL, "--divergent", &v)) != 0) {
      if (r < 0 || !parse_share("--divergent", v, &o.divergent)) return EXIT_USAGE;
    } else if ((r = cli_opt("gen", argc, argv, &i, NULL, "--far", &v)) != 0) {
      if (r < 0 || !parse_share("--far", v, &o.far)) return EXIT_USAGE;
    } else if ((r = cli_opt("gen", argc, argv, &i, NULL, "--threads", &v)) != 0) {
      if (r < 0 || !parse_u32("--threads", v, &o.threads)) return EXIT_USAGE;
    } else {
      return cli_usage_error("gen", a[0] == '-' ? "unknown option '%s'" : "unexpected argument '%s' "
                             "(gen reads no input file)", a);
    }
  }
  if (!loops_given) o.loops = o.blocks / 8;
  if (o.irreducible && !loops_given && o.loops == 0) o.loops = 1;
  if (json && (!out || strcmp(out, "-") == 0))
    return cli_usage_error("gen", "--json prints the summary on standard output; write the module "
                                  "with -o FILE");
  rc_ctx ctx;
  cli_ctx_init(&ctx);
  ctx.diag = report;
  rc_module *m = rc_module_new(&ctx, "<gen>");
  rc_gen_info info;
  rc_kernel *k = rc_gen_kernel(m, &o, &info);
  if (!k) {
    rc_module_free(m);
    return EXIT_USAGE; /* the options cannot be satisfied */
  }
  int rc;
  bool bitcode = has_suffix(out, ".bc") && !emit_llvm;
  if (emit_llvm || bitcode || has_suffix(out, ".ll")) {
    rc = write_llvm(&ctx, m, out, bitcode);
  } else {
    rc_strbuf sb;
    rc_sb_init(&sb);
    rc_print_module(m, &sb);
    rc = cli_write_string(out, sb.data ? sb.data : "", sb.len, NULL, 0);
    rc_sb_free(&sb);
  }
  rc_module_free(m);
  if (rc == EXIT_OK && json) print_json(&info, &o);
  return rc;
}
