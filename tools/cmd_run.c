/* reconv run: run a thread-level kernel on the interpreter and report what it left in memory. */
#include "cli_spec.h"
#include "commands.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: reconv run [options] FILE [run specification]\n\n"
    "Run a thread-level kernel of FILE on the interpreter, every work-item of the launch, and\n"
    "print the FNV-1a checksum of each buffer. Exit status: 0 ok, 1 a fault (out-of-bounds access,\n"
    "division by zero, step budget, barrier divergence, ...) or bad input, 2 wrong usage.\n\n"
    "options:\n"
    "  --kernel NAME       the kernel to run (needed when FILE has several)\n"
    "  --dump NAME|all     also print the contents of buffer NAME (or of every buffer); repeatable\n"
    "  --trace             also print the blocks each thread executed\n"
    "  --json              one JSON object: kernel, threads, instructions, blocks, buffers\n"
    "                      (name, type, count, checksum, data when dumped), traces, fault\n"
    "  -o, --output FILE   write to FILE instead of standard output\n"
    "  --llvm-passes P, --target T, -O N, -D NAME[=V]   import options for .ll/.bc/.cl\n"
    "  -h, --help          show this help\n\n";

typedef struct run_opts {
  const char *file, *out, *kname;
  const char *dump[64];
  int ndump;
  bool trace, json;
} run_opts;

static bool dumped(const run_opts *o, const char *name) {
  for (int i = 0; i < o->ndump; i++)
    if (strcmp(o->dump[i], "all") == 0 || strcmp(o->dump[i], name) == 0) return true;
  return false;
}

static void print_elem_json(FILE *f, const rc_buffer *b, uint64_t i) {
  char v[64];
  rc_buffer_format_elem(b, i, v, sizeof v);
  if (rc_type_is_float(b->elem) && (strstr(v, "nan") || strstr(v, "inf")))
    fprintf(f, "\"%s\"", v); /* JSON has no NaN or infinity */
  else
    fputs(v, f);
}

static void print_json(FILE *f, const run_opts *o, const rc_kernel *k, const rc_run_spec *s,
                       const rc_memory *mem, const rc_run_stats *st, const rc_traces *tr,
                       const rc_fault *fault) {
  uint32_t local[3];
  rc_run_spec_local(s, local);
  fputs("{\"kernel\": ", f);
  cli_json_string(f, k->name);
  fprintf(f, ", \"threads\": %" PRIu64 ", \"global\": [%u, %u, %u], \"local\": [%u, %u, %u], "
             "\"wave\": %u",
          rc_run_spec_threads(s), s->global[0], s->global[1], s->global[2], local[0], local[1],
          local[2], s->wave);
  fprintf(f, ", \"instructions\": %" PRIu64 ", \"blocks\": %" PRIu64, st->instructions, st->blocks);
  fprintf(f, ", \"checksum\": \"0x%016" PRIx64 "\", \"buffers\": [", rc_memory_checksum(mem));
  for (uint32_t i = 0; i < mem->nbufs; i++) {
    const rc_buffer *b = &mem->bufs[i];
    fprintf(f, "%s{\"name\": ", i ? ", " : "");
    cli_json_string(f, b->param);
    fprintf(f, ", \"type\": \"%s\", \"count\": %" PRIu64 ", \"checksum\": \"0x%016" PRIx64 "\"",
            rc_type_name(b->elem), b->count, rc_buffer_checksum(b));
    if (dumped(o, b->param)) {
      fputs(", \"data\": [", f);
      for (uint64_t e = 0; e < b->count; e++) {
        if (e) fputs(", ", f);
        print_elem_json(f, b, e);
      }
      fputc(']', f);
    }
    fputc('}', f);
  }
  fputc(']', f);
  if (o->trace && tr->start) {
    fputs(", \"traces\": [", f);
    for (uint32_t t = 0; t < tr->nthreads; t++) {
      uint64_t n;
      const uint32_t *ids = rc_traces_thread(tr, t, &n);
      fputs(t ? ", [" : "[", f);
      for (uint64_t j = 0; j < n; j++) {
        if (j) fputs(", ", f);
        cli_json_string(f, k->blocks[ids[j]]->name);
      }
      fputc(']', f);
    }
    fputc(']', f);
  }
  fputs(", \"fault\": ", f);
  if (fault->happened) cli_json_string(f, fault->message); else fputs("null", f);
  fputs("}\n", f);
}

static void print_text(FILE *f, const run_opts *o, const rc_kernel *k, const rc_run_spec *s,
                       const rc_memory *mem, const rc_run_stats *st, const rc_traces *tr) {
  uint32_t local[3];
  rc_run_spec_local(s, local);
  fprintf(f, "kernel @%s: %" PRIu64 " threads (global %u", k->name, rc_run_spec_threads(s), s->global[0]);
  for (uint32_t d = 1; d < s->dims; d++) fprintf(f, ",%u", s->global[d]);
  fprintf(f, ", local %u", local[0]);
  for (uint32_t d = 1; d < s->dims; d++) fprintf(f, ",%u", local[d]);
  fprintf(f, ", wave %u)\n", s->wave);
  fprintf(f, "executed %" PRIu64 " instructions, %" PRIu64 " blocks\n", st->instructions, st->blocks);
  for (uint32_t i = 0; i < mem->nbufs; i++) {
    const rc_buffer *b = &mem->bufs[i];
    fprintf(f, "buffer %%%s %s[%" PRIu64 "] checksum 0x%016" PRIx64 "\n", b->param,
            rc_type_name(b->elem), b->count, rc_buffer_checksum(b));
  }
  for (uint32_t i = 0; i < mem->nbufs; i++) {
    const rc_buffer *b = &mem->bufs[i];
    if (!dumped(o, b->param)) continue;
    fprintf(f, "%%%s:\n", b->param);
    for (uint64_t e = 0; e < b->count; e++) {
      char v[64];
      rc_buffer_format_elem(b, e, v, sizeof v);
      if (e % 8 == 0) fprintf(f, "%s%6" PRIu64 ":", e ? "\n" : "", e);
      fprintf(f, " %s", v);
    }
    if (b->count) fputc('\n', f);
  }
  if (o->trace && tr->start)
    for (uint32_t t = 0; t < tr->nthreads; t++) {
      uint64_t n;
      const uint32_t *ids = rc_traces_thread(tr, t, &n);
      fprintf(f, "thread %u:", t);
      for (uint64_t j = 0; j < n; j++) fprintf(f, " %s", k->blocks[ids[j]]->name);
      fputc('\n', f);
    }
}

static int parse_args(int argc, char **argv, run_opts *o, cli_input_opts *in, cli_spec_words *w) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int r;
    if (cli_flag(a, "-h", "--help")) {
      fputs(help, stdout);
      fputs(cli_spec_help, stdout);
      return -1;
    }
    if ((r = cli_opt("run", argc, argv, &i, "-o", "--output", &o->out)) != 0 ||
        (r = cli_opt("run", argc, argv, &i, NULL, "--kernel", &o->kname)) != 0 ||
        (r = cli_input_opt("run", argc, argv, &i, in)) != 0 || (r = cli_spec_opt("run", argc, argv, &i, w)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_opt("run", argc, argv, &i, NULL, "--dump", &v)) != 0) {
      if (r < 0) return EXIT_USAGE;
      if (o->ndump == (int)(sizeof o->dump / sizeof o->dump[0])) return cli_usage_error("run", "too many --dump options");
      o->dump[o->ndump++] = v[0] == '%' ? v + 1 : v;
    } else if (cli_flag(a, NULL, "--trace")) {
      o->trace = true;
    } else if (cli_flag(a, NULL, "--json")) {
      o->json = true;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("run", "unknown option '%s'", a);
    } else if (o->file) {
      return cli_usage_error("run", "more than one input file ('%s' and '%s')", o->file, a);
    } else {
      o->file = a;
    }
  }
  if (!o->file) return cli_usage_error("run", "no input file");
  return 0;
}

int cmd_run(int argc, char **argv) {
  run_opts o = {0};
  cli_input_opts in = {0};
  cli_spec_words w = {0};
  int rc = parse_args(argc, argv, &o, &in, &w);
  if (rc != 0) {
    cli_spec_words_free(&w);
    return rc < 0 ? EXIT_OK : rc;
  }
  rc_ctx ctx;
  cli_ctx_init(&ctx);
  rc_module *m = cli_load(&ctx, o.file, &in);
  rc_kernel *k = m ? cli_pick_kernel(&ctx, m, o.kname) : NULL;
  rc_run_spec s;
  rc_run_spec_init(&s);
  rc_memory mem = {0};
  rc_run_stats st = {0};
  rc_traces tr = {0};
  rc_fault fault = {0};
  rc = EXIT_BAD_INPUT;
  if (k) {
    for (int d = 0; d < o.ndump; d++) {
      const rc_value *p = strcmp(o.dump[d], "all") == 0 ? NULL : rc_kernel_find_value(k, o.dump[d]);
      if (strcmp(o.dump[d], "all") != 0 && (!p || p->kind != RC_V_PARAM)) {
        rc_error(&ctx, "--dump %s: kernel @%s has no parameter %%%s", o.dump[d], k->name, o.dump[d]);
        k = NULL;
        break;
      }
    }
  }
  if (k && cli_spec_build(&ctx, &s, k, &w) == 0 && rc_memory_init(&ctx, &mem, &s, k) == 0) {
    int r = rc_interp_run(&ctx, k, &s, &mem, o.trace ? &tr : NULL, &st, &fault);
    /* on a fault, JSON still describes the run (memory as the fault left it); text does not */
    if (r == 0 || (fault.happened && o.json)) {
      int ninputs;
      const char **inputs = cli_spec_inputs(o.file, &s, &ninputs); /* file(PATH) data too */
      cli_out out;
      rc = cli_out_open(&out, o.out, inputs, ninputs);
      free(inputs);
      if (rc == 0) {
        if (o.json) print_json(out.f, &o, k, &s, &mem, &st, &tr, &fault);
        else print_text(out.f, &o, k, &s, &mem, &st, &tr);
        rc = cli_out_commit(&out);
      }
    }
    if (fault.happened) {
      cli_print_fault("run", &fault);
      rc = EXIT_BAD_INPUT;
    }
  }
  rc_traces_free(&tr);
  rc_run_stats_free(&st);
  rc_memory_free(&mem);
  rc_run_spec_free(&s);
  cli_spec_words_free(&w);
  if (m) rc_module_free(m);
  return rc;
}
