/* reconv sim: run a kernel on one of the machines (thread-level interpreter, IPDOM-stack SIMT model,
 * wave simulator) and report wave-level metrics; --check compares every thread with the
 * thread-level interpreter; --timeline draws one wave. */
#include "cli_spec.h"
#include "commands.h"
#include "sim_report.h"

#include "reconv/transform.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: reconv sim [options] FILE [run specification]\n\n"
    "Run a kernel of FILE in waves of --wave W lanes and report what the machine issued: vector,\n"
    "scalar and mask instructions, active lane-instructions, SIMD efficiency, blocks entered and\n"
    "duplicate block executions, in total and per block. Exit status: 0 ok, 1 a fault, a failed\n"
    "--check or bad input, 2 wrong usage.\n\n"
    "options:\n"
    "  --mode MODE          thread: the thread-level interpreter (as reconv run)\n"
    "                       ipdom: the thread-level kernel on a SIMT model with an IPDOM\n"
    "                              reconvergence stack (Fung et al. 2007)\n"
    "                       wave (default): the wave simulator; a thread-level kernel is first\n"
    "                              transformed with the pipeline of -p\n"
    "  -p, --passes P       wave mode: the passes that make a wave kernel of a thread-level one\n"
    "                       (default reconverge,lower; see reconv opt --list-passes); ipdom mode:\n"
    "                       passes that keep it at thread level, e.g. linearize (default none)\n"
    "  --check              also run the thread-level kernel on the interpreter and compare every\n"
    "                       thread's trace (inserted blocks skipped) and the final memory\n"
    "  --effects            with --check: compare effect traces (per thread, its stores, atomics\n"
    "                       and barriers with addresses and values, in order) instead of block\n"
    "                       traces (docs/meld.md); implied when the pipeline runs meld\n"
    "  --native             run the wave kernel on this machine's SIMD unit instead (the native wave\n"
    "                       backend, docs/native.md: AVX-512, AVX2 or SSE, whichever the CPU has; W\n"
    "                       = 4, 8, 16, 32 or 64); a thread-level FILE needs -p; --check compares\n"
    "                       the memory with the interpreter's (traces are the simulator's)\n"
    "  --repeat N           --native: time N more runs after the first, each on the initial memory\n"
    "                       (the report gives the first and the fastest)\n"
    "  --threads N          --native: spread the work-groups over N threads (default 1)\n"
    "  --vector-math        --native: math builtins through the host's vector math library\n"
    "                       (libmvec) instead of the interpreter's functions lane by lane\n"
    "  --timeline FILE.svg  draw one wave: lanes against issued instructions, active lanes filled\n"
    "  --timeline-wave N    the wave to draw, in launch order (default 0)\n"
    "  --json               one JSON object instead of text\n"
    "  --kernel NAME        the kernel to run (needed when FILE has several)\n"
    "  -o, --output FILE    write the report to FILE instead of standard output\n"
    "  --llvm-passes P, --target T, -O N, -D NAME[=V]   import options for .ll/.bc/.cl\n"
    "  -h, --help           show this help\n\n";

typedef struct sim_opts {
  const char *file, *out, *kname, *pipeline, *timeline;
  uint64_t timeline_wave, repeat, threads;
  int mode;
  bool check, json, effects, native, vector_math;
} sim_opts;

static int parse_mode(const char *v, int *mode) {
  if (strcmp(v, "thread") == 0) *mode = RC_MACHINE_THREAD;
  else if (strcmp(v, "ipdom") == 0) *mode = RC_MACHINE_IPDOM;
  else if (strcmp(v, "wave") == 0) *mode = RC_MACHINE_WAVE;
  else return cli_usage_error("sim", "--mode expects thread, ipdom or wave, not '%s'", v);
  return 0;
}

static int parse_args(int argc, char **argv, sim_opts *o, cli_input_opts *in, cli_spec_words *w) {
  o->mode = RC_MACHINE_WAVE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int r;
    if (cli_flag(a, "-h", "--help")) {
      fputs(help, stdout);
      fputs(cli_spec_help, stdout);
      return -1;
    }
    if ((r = cli_opt("sim", argc, argv, &i, "-o", "--output", &o->out)) != 0 ||
        (r = cli_opt("sim", argc, argv, &i, NULL, "--kernel", &o->kname)) != 0 ||
        (r = cli_opt("sim", argc, argv, &i, "-p", "--passes", &o->pipeline)) != 0 ||
        (r = cli_opt("sim", argc, argv, &i, NULL, "--timeline", &o->timeline)) != 0 ||
        (r = cli_input_opt("sim", argc, argv, &i, in)) != 0 || (r = cli_spec_opt("sim", argc, argv, &i, w)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_opt("sim", argc, argv, &i, NULL, "--mode", &v)) != 0) {
      if (r < 0 || parse_mode(v, &o->mode) != 0) return EXIT_USAGE;
    } else if ((r = cli_opt("sim", argc, argv, &i, NULL, "--timeline-wave", &v)) != 0) {
      if (r < 0 || !cli_parse_u64("sim", "--timeline-wave", v, &o->timeline_wave)) return EXIT_USAGE;
      if (o->timeline_wave > UINT32_MAX) return cli_usage_error("sim", "--timeline-wave is too large");
    } else if ((r = cli_opt("sim", argc, argv, &i, NULL, "--repeat", &v)) != 0) {
      if (r < 0 || !cli_parse_u64("sim", "--repeat", v, &o->repeat)) return EXIT_USAGE;
      if (o->repeat > 100000) return cli_usage_error("sim", "--repeat is at most 100000");
    } else if ((r = cli_opt("sim", argc, argv, &i, NULL, "--threads", &v)) != 0) {
      if (r < 0 || !cli_parse_u64("sim", "--threads", v, &o->threads)) return EXIT_USAGE;
      if (o->threads < 1 || o->threads > 1024) return cli_usage_error("sim", "--threads is 1 to 1024");
    } else if (cli_flag(a, NULL, "--native")) {
      o->native = true;
    } else if (cli_flag(a, NULL, "--vector-math")) {
      o->vector_math = true;
    } else if (cli_flag(a, NULL, "--check")) {
      o->check = true;
    } else if (cli_flag(a, NULL, "--effects")) {
      o->effects = true;
    } else if (cli_flag(a, NULL, "--json")) {
      o->json = true;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("sim", "unknown option '%s'", a);
    } else if (o->file) {
      return cli_usage_error("sim", "more than one input file ('%s' and '%s')", o->file, a);
    } else {
      o->file = a;
    }
  }
  if (!o->file) return cli_usage_error("sim", "no input file");
  if (o->pipeline && o->mode == RC_MACHINE_THREAD)
    return cli_usage_error("sim", "-p applies to --mode wave and --mode ipdom only");
  if (o->check && o->mode == RC_MACHINE_THREAD)
    return cli_usage_error("sim", "--check compares a machine with the thread-level interpreter; use it "
                                  "with --mode ipdom or wave");
  if (o->timeline && o->mode == RC_MACHINE_THREAD)
    return cli_usage_error("sim", "--timeline draws a wave; use it with --mode ipdom or wave");
  if (o->native && o->mode != RC_MACHINE_WAVE)
    return cli_usage_error("sim", "--native runs wave kernels; use it without --mode (or with --mode wave)");
  if (o->native && (o->timeline || o->effects))
    return cli_usage_error("sim", "--native compares memory only: --timeline and --effects are the simulator's");
  if (!o->native && (o->repeat || o->threads || o->vector_math))
    return cli_usage_error("sim", "--repeat, --threads and --vector-math go with --native");
  if (o->timeline && o->out && strcmp(o->timeline, o->out) == 0)
    return cli_usage_error("sim", "-o and --timeline name the same file '%s'", o->out);
  return 0;
}

static bool calls_functions(const rc_kernel *k) {
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next)
      if (i->op == RC_OP_CALLFN) return true;
  return false;
}

int cmd_sim(int argc, char **argv) {
  sim_opts o = {0};
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
  rc = EXIT_BAD_INPUT;
  rc_run_spec s;
  rc_run_spec_init(&s);
  if (k && o.check && k->level == RC_LEVEL_WAVE) {
    rc_error(&ctx, "--check needs a thread-level kernel to compare with; @%s is already a wave kernel. "
                   "Give the thread-level file (the input of `reconv opt`) and the pipeline instead: "
                   "reconv sim --check -p 'reconverge,lower' KERNEL.cl|.ll|.rir", k->name);
    k = NULL;
  }
  if (k && k->level == RC_LEVEL_WAVE && calls_functions(k)) {
    rc_error(&ctx, "@%s is lowered code that calls device functions, which the wave machines cannot "
                   "run; give the thread-level file and the pipeline (reconv sim -p 'reconverge,lower' "
                   "FILE inlines the calls before lowering)", k->name);
    k = NULL;
  }
  if (k && o.native && k->level == RC_LEVEL_THREAD && !o.pipeline) {
    rc_error(&ctx, "--native runs wave kernels; @%s is a thread-level kernel: give the pipeline that lowers it, "
                   "e.g. reconv sim --native -p 'reconverge,lower' %s", k->name, o.file);
    k = NULL;
  }
  if (k && o.mode == RC_MACHINE_IPDOM && k->level != RC_LEVEL_THREAD) {
    rc_error(&ctx, "--mode ipdom runs thread-level kernels; @%s is a wave kernel", k->name);
    k = NULL;
  }
  if (k && cli_spec_build(&ctx, &s, k, &w) == 0) {
    rc_exec_request req = {0};
    req.mode = o.mode;
    req.pipeline = o.pipeline ? o.pipeline : o.mode == RC_MACHINE_WAVE ? "reconverge,lower" : NULL;
    req.check = o.check;
    req.effects = o.effects;
    req.timeline = o.timeline != NULL;
    req.timeline_wave = (uint32_t)o.timeline_wave;
    req.native = o.native;
    req.repeat = (uint32_t)o.repeat;
    req.threads = (uint32_t)o.threads;
    req.vector_math = o.vector_math;
    rc_exec_result res;
    if (rc_exec(&ctx, k, &s, &req, &res) == 0) {
      int ninputs;
      const char **inputs = cli_spec_inputs(o.file, &s, &ninputs); /* file(PATH) data too */
      rc = EXIT_OK;
      if (res.timeline.recorded && o.timeline && !res.fault.happened) { /* a failed run writes nothing */
        rc_strbuf svg;
        rc_sb_init(&svg);
        char title[300];
        snprintf(title, sizeof title, "kernel @%s, %s, wave %u of %u lanes (threads from %" PRIu64 ")",
                 k->name, rc_machine_name(o.mode), req.timeline_wave, res.timeline.lanes,
                 res.timeline.first_thread);
        rc_timeline_svg(&res.timeline, res.ran, title, &svg);
        rc = cli_write_string(o.timeline, svg.data, svg.len, inputs, ninputs);
        rc_sb_free(&svg);
      } else if (o.timeline && !res.fault.happened) {
        rc = EXIT_BAD_INPUT;
        rc_error(&ctx, "--timeline-wave %u: the launch has only %" PRIu64 " waves", req.timeline_wave,
                 res.stats.waves);
      }
      if (rc == EXIT_OK && (!res.fault.happened || o.json)) {
        cli_out out;
        rc = cli_out_open(&out, o.out, inputs, ninputs);
        if (rc == 0) {
          if (o.json) sim_report_json(out.f, &res, &s);
          else sim_report_text(out.f, &res, &s);
          rc = cli_out_commit(&out);
        }
      }
      if (res.fault.happened) {
        cli_print_fault("sim", &res.fault);
        rc = EXIT_BAD_INPUT;
      } else if (o.check && !res.equivalent) {
        if (!o.json) fprintf(stderr, "reconv sim: check failed: %s\n", res.why);
        rc = EXIT_BAD_INPUT;
      }
      free(inputs);
    }
    rc_exec_result_free(&res);
  }
  rc_run_spec_free(&s);
  cli_spec_words_free(&w);
  if (m) rc_module_free(m);
  return rc;
}
