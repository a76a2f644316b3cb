/* reconv compare: one kernel, every strategy for running divergent control flow on a wave, one table.
 * A strategy is a machine plus the passes that prepare the kernel for it (reconv's, and LLVM's run
 * by LLVM); adding one is one line in `strategies`. Every row is checked against the
 * thread-level interpreter (traces and memory). */
#include "cli_spec.h"
#include "commands.h"
#include "sim_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct strategy {
  const char *name;     /* the row's label */
  int mode;             /* SIM_MODE_IPDOM: the original on the IPDOM stack; SIM_MODE_WAVE: lowered */
  const char *pipeline; /* wave mode: the passes from the thread-level kernel to a wave kernel */
  const char *llvm_passes; /* wave mode: LLVM's passes first, run by LLVM (needs the LLVM bridge) */
} strategy;

/* LLVM's structurizer as AMDGPU prepares it (its pre-ISel passes): no switches, one return (AMDGPU
 * merges the divergent ones; the new pass manager of LLVM 14 only has mergereturn, which merges
 * all), a reducible CFG, loops with one exit, then StructurizeCFG (which under the new pass manager
 * structurizes uniform regions too). */
#define LLVM_STRUCTURIZER "lowerswitch,mergereturn,fix-irreducible,unify-loop-exits,structurizecfg"

static const strategy strategies[] = {
    {"ipdom", SIM_MODE_IPDOM, NULL, NULL},
    {"reconverge[dfpd]+lower", SIM_MODE_WAVE, "reconverge[order=dfpd],lower", NULL},
    {"reconverge[df]+lower", SIM_MODE_WAVE, "reconverge[order=df],lower", NULL},
    {"reconverge[bf]+lower", SIM_MODE_WAVE, "reconverge[order=bf],lower", NULL},
    {"reconverge[bfpd]+lower", SIM_MODE_WAVE, "reconverge[order=bfpd],lower", NULL},
    {"reconverge[rpot]+lower", SIM_MODE_WAVE, "reconverge[order=rpot],lower", NULL},
    {"reconverge[domreg]+lower", SIM_MODE_WAVE, "reconverge[order=domreg],lower", NULL},
#ifdef RECONV_HAVE_LLVM
    {"llvm-structurizecfg+lower", SIM_MODE_WAVE, "lower[norepair]", LLVM_STRUCTURIZER},
#endif
};
enum { NSTRATEGIES = sizeof strategies / sizeof strategies[0] };

static const char help[] =
    "usage: reconv compare [options] FILE [run specification]\n\n"
    "Run the kernel under every strategy and print one table: the IPDOM reconvergence stack on\n"
    "the original kernel, reconverge (each block ordering) followed by lower on the wave\n"
    "simulator, and (with the LLVM bridge) LLVM's own structurizer pipeline as AMDGPU runs it\n"
    "(" LLVM_STRUCTURIZER ")\n"
    "followed by lower. Columns: blocks and flow blocks of the program that runs; vector, scalar\n"
    "and mask instructions issued; SIMD efficiency; blocks entered by waves; duplicate block\n"
    "executions; and the verdict of comparing every thread with the thread-level interpreter.\n"
    "Exit status: 0 when every strategy is equivalent, 1 when one is not (or faults) or on bad\n"
    "input, 2 wrong usage.\n\n"
    "options:\n"
    "  --only NAME,...     run only these strategies (names as in the table)\n"
    "  --json              one JSON object instead of the table\n"
    "  --kernel NAME       the kernel to compare (needed when FILE has several)\n"
    "  -o, --output FILE   write the report to FILE instead of standard output\n"
    "  --llvm-passes P, --target T, -O N, -D NAME[=V]   import options for .ll/.bc/.cl\n"
    "  -h, --help          show this help\n\n";

typedef struct row {
  const strategy *st;
  rc_ctx ctx;             /* collects the strategy's first error; outlives its lowered copy */
  bool ran;               /* the machine ran (else: error) */
  sim_result res;
  char error[400];
} row;

/* The first error of a strategy goes into its row instead of standard error. */
static void keep_first_error(void *user, const rc_diag *d) {
  row *r = user;
  if (d->severity != RC_SEV_ERROR || r->error[0]) return;
  if (d->file) snprintf(r->error, sizeof r->error, "%s: %s", d->file, d->message);
  else snprintf(r->error, sizeof r->error, "%s", d->message);
}

static const char *verdict(const row *r, char *buf, size_t len) {
  if (!r->ran) snprintf(buf, len, "error: %s", r->error);
  else if (r->res.fault.happened) snprintf(buf, len, "fault: %s", r->res.fault.message);
  else if (!r->res.equivalent) snprintf(buf, len, "NOT equivalent: %s", r->res.why);
  else snprintf(buf, len, "equivalent");
  return buf;
}

static bool selected(const char *only, const char *name) {
  if (!only) return true;
  size_t n = strlen(name);
  for (const char *p = only; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return true;
    if (!e) break;
    p = e + 1;
  }
  return false;
}

static void report_text(FILE *f, const rc_kernel *k, const rc_run_spec *s, const row *rows, int n) {
  fprintf(f, "kernel @%s: %" PRIu64 " threads, waves of %u lanes\n", k->name, rc_run_spec_threads(s), s->wave);
  fprintf(f, "%-26s %6s %5s %9s %8s %8s %9s %8s %6s  %s\n", "strategy", "blocks", "flow", "vector", "scalar",
          "mask", "SIMD eff", "entered", "dup", "verdict");
  for (int i = 0; i < n; i++) {
    const row *r = &rows[i];
    char v[700];
    if (!r->ran) {
      fprintf(f, "%-26s %6s %5s %9s %8s %8s %9s %8s %6s  %s\n", r->st->name, "-", "-", "-", "-", "-", "-", "-", "-",
              verdict(r, v, sizeof v));
      continue;
    }
    const rc_run_stats *st = &r->res.stats;
    fprintf(f, "%-26s %6u %5u %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8.1f%% %8" PRIu64 " %6" PRIu64 "  %s\n",
            r->st->name, sim_count_blocks(r->res.ran, 0), sim_count_blocks(r->res.ran, RC_BLOCK_FLOW),
            st->vector_instrs, st->scalar_instrs, st->mask_instrs, 100.0 * rc_simd_efficiency(st),
            st->blocks_entered, st->duplicate_blocks, verdict(r, v, sizeof v));
  }
}

static void report_json(FILE *f, const rc_kernel *k, const rc_run_spec *s, const row *rows, int n) {
  fputs("{\"kernel\": ", f);
  cli_json_string(f, k->name);
  fprintf(f, ", \"threads\": %" PRIu64 ", \"wave\": %u, \"strategies\": [", rc_run_spec_threads(s), s->wave);
  for (int i = 0; i < n; i++) {
    const row *r = &rows[i];
    char v[700];
    fputs(i ? ", {\"name\": " : "{\"name\": ", f);
    cli_json_string(f, r->st->name);
    fprintf(f, ", \"mode\": \"%s\", \"pipeline\": ", sim_mode_name(r->st->mode));
    if (r->st->pipeline) cli_json_string(f, r->st->pipeline); else fputs("null", f);
    if (r->ran) {
      const rc_run_stats *st = &r->res.stats;
      fprintf(f, ", \"blocks\": %u, \"flow_blocks\": %u, \"vector_instructions\": %" PRIu64
                 ", \"scalar_instructions\": %" PRIu64 ", \"mask_instructions\": %" PRIu64
                 ", \"active_lane_instructions\": %" PRIu64 ", \"simd_efficiency\": %.6f, \"blocks_entered\": %" PRIu64
                 ", \"duplicate_blocks\": %" PRIu64 ", \"max_stack_depth\": %" PRIu64,
              sim_count_blocks(r->res.ran, 0), sim_count_blocks(r->res.ran, RC_BLOCK_FLOW), st->vector_instrs,
              st->scalar_instrs, st->mask_instrs, st->active_lane_instrs, rc_simd_efficiency(st), st->blocks_entered,
              st->duplicate_blocks, st->max_stack_depth);
    }
    bool eq = r->ran && !r->res.fault.happened && r->res.equivalent;
    fprintf(f, ", \"equivalent\": %s, \"verdict\": ", eq ? "true" : "false");
    cli_json_string(f, verdict(r, v, sizeof v));
    fputc('}', f);
  }
  fputs("]}\n", f);
}

int cmd_compare(int argc, char **argv) {
  const char *file = NULL, *out = NULL, *kname = NULL, *only = NULL;
  bool json = false;
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
  int nsel = 0;
  for (int s = 0; s < NSTRATEGIES; s++) nsel += selected(only, strategies[s].name);
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
  row rows[NSTRATEGIES];
  int n = 0;
  if (k && cli_spec_build(&ctx, &s, k, &w) == 0) {
    bool all = true;
    for (int i = 0; i < NSTRATEGIES; i++) {
      if (!selected(only, strategies[i].name)) continue;
      row *r = &rows[n++];
      memset(r, 0, sizeof *r);
      r->st = &strategies[i];
      r->ctx = ctx;
      r->ctx.diag = keep_first_error;
      r->ctx.diag_user = r;
      sim_request req = {0};
      req.mode = strategies[i].mode;
      req.pipeline = strategies[i].pipeline;
      req.llvm_passes = strategies[i].llvm_passes;
      req.check = true;
      r->ran = sim_execute(&r->ctx, k, &s, &req, &r->res) == 0;
      if (!r->ran && !r->error[0]) snprintf(r->error, sizeof r->error, "failed");
      all &= r->ran && !r->res.fault.happened && r->res.equivalent;
    }
    int ninputs;
    const char **inputs = cli_spec_inputs(file, &s, &ninputs); /* file(PATH) data too */
    cli_out o;
    rc = cli_out_open(&o, out, inputs, ninputs);
    free(inputs);
    if (rc == 0) {
      if (json) report_json(o.f, k, &s, rows, n);
      else report_text(o.f, k, &s, rows, n);
      rc = cli_out_commit(&o);
    }
    if (rc == 0 && !all) rc = EXIT_BAD_INPUT;
  }
  for (int i = 0; i < n; i++) sim_result_free(&rows[i].res);
  rc_run_spec_free(&s);
  cli_spec_words_free(&w);
  if (m) rc_module_free(m);
  return rc;
}
