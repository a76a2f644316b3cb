/* reconv opt: run a pipeline of passes (`-p reconverge[order=bfpd]`) over a module. */
#include "cli.h"
#include "commands.h"

#include "reconv/llvm.h"
#include "reconv/transform.h"
#ifdef RECONV_HAVE_LLVM
#include "reconv/native_wave.h"
#endif

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char help[] =
    "usage: reconv opt -p PIPELINE [options] FILE\n\n"
    "Run a comma-separated pipeline of passes on every kernel of FILE (or on --kernel NAME) and\n"
    "write the result as .rir (or as LLVM IR when -o ends in .ll or .bc and reconv has the LLVM\n"
    "bridge). Pass options go in brackets: reconverge[order=bfpd,all-divergent].\n"
    "When the pipeline makes a wave kernel (it ends with lower, blockip or full-linearize), -o\n"
    "FILE.ll, FILE.bc or FILE.o writes it compiled for this machine's SIMD unit by the native wave\n"
    "backend: a host module that a C program links with libreconv (docs/native.md).\n"
    "The verifier runs after every pass.\n\n"
    "options:\n"
    "  -p, --passes PIPELINE  the passes to run (see --list-passes)\n"
    "  -o, --output FILE      write the result to FILE (default: standard output)\n"
    "  --kernel NAME          transform only this kernel (the others are written unchanged)\n"
    "  --wave W               a wave kernel written as a host module: waves of W lanes (4, 8, 16,\n"
    "                         32 or 64; default 16)\n"
    "  --wave W               a wave kernel written as a host module: waves of W lanes (4, 8, 16,\n"
    "                         32 or 64; default 16)\n"
    "  --print-after-all      print the IR after every pass (to standard error)\n"
    "  --stats                print statistics per kernel: to standard output when the IR goes to\n"
    "                         a file (-o), otherwise to standard error\n"
    "  --json                 statistics as JSON, one object per kernel and line\n"
    "  --list-passes          list the passes and their options\n"
    "  --no-verify            do not run the verifier between passes\n"
    "  --time                 print the time each phase took (read, passes, write) to standard error\n"
    "  --llvm-passes P, --target T, -O N, -D NAME[=V]   import options for .ll/.bc/.cl\n"
    "  -h, --help             show this help\n";

static void print_stats(FILE *f, const rc_kernel *k, const rc_stats *st, bool json) {
  if (json) {
    fputs("{\"kernel\": ", f);
    cli_json_string(f, k->name);
    for (uint32_t i = 0; i < st->n; i++) {
      fprintf(f, ", \"%s\": ", st->items[i].name);
      if (st->items[i].is_string) cli_json_string(f, st->items[i].sval);
      else fprintf(f, "%lld", (long long)st->items[i].ival);
    }
    fputs("}\n", f);
    return;
  }
  fprintf(f, "kernel @%s:\n", k->name);
  for (uint32_t i = 0; i < st->n; i++) {
    if (st->items[i].is_string) fprintf(f, "  %-26s %s\n", st->items[i].name, st->items[i].sval);
    else fprintf(f, "  %-26s %lld\n", st->items[i].name, (long long)st->items[i].ival);
  }
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

int cmd_opt(int argc, char **argv) {
  const char *out = NULL, *kname = NULL, *file = NULL, *pipeline = NULL, *wave = NULL;
  bool stats = false, json = false, print_after = false, timing = false;
  cli_input_opts in = {0};
  rc_ctx ctx;
  cli_ctx_init(&ctx);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r;
    if (cli_flag(a, "-h", "--help")) {
      fputs(help, stdout);
      return EXIT_OK;
    }
    if (cli_flag(a, NULL, "--list-passes")) {
      uint32_t n;
      const rc_pass_info *p = rc_pass_list(&n);
      for (uint32_t j = 0; j < n; j++) printf("%s\n    %s\n", p[j].name, p[j].help);
      return EXIT_OK;
    }
    if (cli_flag(a, NULL, "--stats")) stats = true;
    else if (cli_flag(a, NULL, "--json")) json = true;
    else if (cli_flag(a, NULL, "--print-after-all")) print_after = true;
    else if (cli_flag(a, NULL, "--no-verify")) ctx.verify_each = false;
    else if (cli_flag(a, NULL, "--time")) timing = true;
    else if ((r = cli_opt("opt", argc, argv, &i, "-p", "--passes", &pipeline)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_opt("opt", argc, argv, &i, "-o", "--output", &out)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_opt("opt", argc, argv, &i, NULL, "--kernel", &kname)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_opt("opt", argc, argv, &i, NULL, "--wave", &wave)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_input_opt("opt", argc, argv, &i, &in)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("opt", "unknown option '%s'", a);
    } else if (file) {
      return cli_usage_error("opt", "more than one input file");
    } else {
      file = a;
    }
  }
  if (!file) return cli_usage_error("opt", "no input file");
  if (!pipeline) return cli_usage_error("opt", "no pipeline; give one with -p (e.g. -p reconverge)");
  uint64_t W = 16;
  if (wave && !cli_parse_u64("opt", "--wave", wave, &W)) return EXIT_USAGE;
  bool to_object = out && ends_with(out, ".o");
  bool to_llvm = out && (ends_with(out, ".ll") || ends_with(out, ".bc") || to_object);
#ifndef RECONV_HAVE_LLVM
  if (to_llvm) {
    fprintf(stderr, "reconv opt: error: writing %s needs the LLVM bridge, which this reconv lacks\n", out);
    return EXIT_BAD_INPUT;
  }
#endif
  double t0 = now();
  rc_module *m = cli_load(&ctx, file, &in);
  if (!m) return EXIT_BAD_INPUT;
  double t1 = now();
  int rc = EXIT_OK;
  rc_kernel *only = kname ? cli_pick_kernel(&ctx, m, kname) : NULL;
  if (kname && !only) rc = EXIT_BAD_INPUT;
  FILE *stats_to = out && strcmp(out, "-") != 0 ? stdout : stderr;
  rc_pipeline_opts popts = {print_after, stderr};
  for (uint32_t i = 0; i < m->nkernels && rc == EXIT_OK; i++) {
    rc_kernel *k = m->kernels[i];
    if (only && k != only) continue;
    rc_stats st;
    rc_stats_init(&st);
    if (rc_pipeline_run(&ctx, k, pipeline, &popts, &st) != 0) rc = EXIT_BAD_INPUT;
    else if (stats) print_stats(stats_to, k, &st, json);
    rc_stats_free(&st);
  }
  double t2 = now();
  rc_kernel *wave_kernel = NULL; /* written by the native wave backend */
  uint32_t nwave = 0;
  for (uint32_t i = 0; i < m->nkernels && rc == EXIT_OK && to_llvm; i++)
    if (m->kernels[i]->level == RC_LEVEL_WAVE && (!only || m->kernels[i] == only)) {
      nwave++;
      wave_kernel = m->kernels[i];
    }
  if (nwave > 1) {
    rc_error(&ctx, "%s: the pipeline makes %u wave kernels; a host module holds one: choose it with --kernel", out,
             nwave);
    rc = EXIT_BAD_INPUT;
  } else if (to_object && !wave_kernel && rc == EXIT_OK) {
    rc_error(&ctx, "%s: an object file holds a wave kernel compiled for this machine; end the pipeline with lower "
                   "(or write .ll, .bc, .rir)", out);
    rc = EXIT_BAD_INPUT;
  }
  if (rc == EXIT_OK && wave_kernel) {
#ifdef RECONV_HAVE_LLVM
    const char *inputs[] = {file};
    rc_native_wave_opts wo = {.wave = (uint32_t)W};
    rc_native_wave *n = rc_native_wave_open(&ctx, wave_kernel, &wo);
    char *data = NULL;
    size_t len = 0;
    if (!n || rc_native_wave_emit(n, (rc_native_format)rc_native_format_of(out), &data, &len) != 0) rc = EXIT_BAD_INPUT;
    else rc = cli_write_string(out, data, len, inputs, 1);
    free(data);
    rc_native_wave_close(n);
#endif
  } else if (rc == EXIT_OK) {
    const char *inputs[] = {file};
    if (to_llvm) {
#ifdef RECONV_HAVE_LLVM
      /* with the verifier after every pass, each kernel was verified after its last pass (a
       * pipeline has at least one), and nothing changed it since */
      rc_llvm_export_opts lo = {NULL, ends_with(out, ".bc"), true, ctx.verify_each && !only};
      char *data = NULL;
      size_t len = 0;
      if (rc_llvm_export(&ctx, m, &lo, &data, &len) != 0) rc = EXIT_BAD_INPUT;
      else rc = cli_write_string(out, data, len, inputs, 1);
      free(data);
#endif
    } else {
      rc_strbuf sb;
      rc_sb_init(&sb);
      rc_print_module(m, &sb);
      rc = cli_write_string(out, sb.data ? sb.data : "", sb.len, inputs, 1);
      rc_sb_free(&sb);
    }
  }
  double t3 = now();
  rc_module_free(m);
  if (timing)
    fprintf(stderr, "time: read %.3f s, passes %.3f s, write %.3f s, free %.3f s\n", t1 - t0, t2 - t1, t3 - t2,
            now() - t3);
  return rc;
}
