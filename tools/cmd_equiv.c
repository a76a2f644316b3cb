/* reconv equiv: check that two programs are trace equivalent (DESIGN.md, "Semantics and the
 * correctness criterion") on many inputs: same blocks per thread (inserted blocks skipped) and
 * the same final memory. */
#include "cli_spec.h"
#include "commands.h"
#ifdef RECONV_HAVE_LLVM
#include "reconv/native.h"
#endif

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: reconv equiv [options] A B [run specification]\n\n"
    "Run kernel K of A (the original) and the kernel of the same name in B (e.g. a transformed\n"
    "program) on the same inputs, and check that every thread executes the same sequence of\n"
    "blocks, skipping blocks marked !flow, !guard or !virtual in either program, and that both\n"
    "leave the same memory. By default it runs each of several seeded inputs at launch sizes 1,\n"
    "3, 32, 64, 257 and 4096 work-items; buffer counts follow the launch (docs/cli.md); a size\n"
    "at which A faults is skipped, unless it is the one A's run specification gives or --sizes\n"
    "names it. Exit status:\n"
    "0 equivalent, 1 not equivalent, a fault, or bad input, 2 wrong usage.\n\n"
    "options:\n"
    "  --kernel NAME       the kernel to compare (needed when A has several)\n"
    "  --seeds N           seeded inputs per size: rand seeds are offset by 0..N-1 (default 3;\n"
    "                      1 when no buffer uses rand)\n"
    "  --sizes N,N,...     launch sizes to try (default 1,3,32,64,257,4096; with --global, only\n"
    "                      that launch; a 2- or 3-dimensional !run launch is used as it is)\n"
    "  --native            run both natively instead (LLVM modules for spir64: compile .cl files\n"
    "                      with --target spir64): compiled by LLVM's JIT for this machine's CPU,\n"
    "                      with a runtime library of OpenCL's built-ins; compares memory only\n"
    "                      (docs/native.md)\n"
    "  --effects           the criterion of transforms that change which blocks a thread runs\n"
    "                      (meld; docs/meld.md): instead of blocks, compare every thread's effect\n"
    "                      trace, its stores, atomics, memcpy/memset and barriers in order, with\n"
    "                      addresses and values; memory is compared as always\n"
    "  --json              one JSON object: kernel, equivalent, runs, difference\n"
    "  -o, --output FILE   write to FILE instead of standard output\n"
    "  --llvm-passes P, --target T, -O N, -D NAME[=V]   import options for .ll/.bc/.cl\n"
    "  -h, --help          show this help\n\n";

static const uint32_t default_sizes[] = {1, 3, 32, 64, 257, 4096};

typedef struct equiv_opts {
  const char *a, *b, *out, *kname;
  uint64_t seeds;
  uint32_t sizes[32];
  int nsizes;
  bool json;
  bool native; /* --native: run both natively (docs/native.md), compare memory only */
  bool effects; /* --effects: compare effect traces instead of block traces (docs/meld.md) */
} equiv_opts;

/* One run of both programs. */
typedef struct run_result {
  uint64_t seed;
  uint64_t threads;
  uint64_t instr_a, instr_b;
  uint64_t checksum;
  bool equivalent;
  bool skipped;     /* the first program faults at a launch size its run specification does not
                       give: nothing to compare there (why says how it faults) */
  const char *what; /* "trace", "memory", "fault" when not equivalent */
  char why[640];
} run_result;

static int parse_sizes(const char *v, equiv_opts *o) {
  o->nsizes = 0;
  const char *q = v;
  for (;;) {
    char *end;
    unsigned long long n = strtoull(q, &end, 10);
    if (end == q || n < 1 || n > (1u << 24) || (*end && *end != ',') ||
        o->nsizes == (int)(sizeof o->sizes / sizeof o->sizes[0]))
      return cli_usage_error("equiv", "--sizes expects up to 32 launch sizes from 1 to 16777216 "
                                      "separated by commas, not '%s'", v);
    o->sizes[o->nsizes++] = (uint32_t)n;
    if (!*end) return 0;
    q = end + 1;
  }
}

static int parse_args(int argc, char **argv, equiv_opts *o, cli_input_opts *in, cli_spec_words *w) {
  o->seeds = 3;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int r;
    if (cli_flag(a, "-h", "--help")) {
      fputs(help, stdout);
      fputs(cli_spec_help, stdout);
      return -1;
    }
    if ((r = cli_opt("equiv", argc, argv, &i, "-o", "--output", &o->out)) != 0 ||
        (r = cli_opt("equiv", argc, argv, &i, NULL, "--kernel", &o->kname)) != 0 ||
        (r = cli_input_opt("equiv", argc, argv, &i, in)) != 0 ||
        (r = cli_spec_opt("equiv", argc, argv, &i, w)) != 0) {
      if (r < 0) return EXIT_USAGE;
    } else if ((r = cli_opt("equiv", argc, argv, &i, NULL, "--seeds", &v)) != 0) {
      if (r < 0 || !cli_parse_u64("equiv", "--seeds", v, &o->seeds)) return EXIT_USAGE;
      if (o->seeds < 1 || o->seeds > 1000) return cli_usage_error("equiv", "--seeds expects 1 to 1000");
    } else if ((r = cli_opt("equiv", argc, argv, &i, NULL, "--sizes", &v)) != 0) {
      if (r < 0 || parse_sizes(v, o) != 0) return EXIT_USAGE;
    } else if (cli_flag(a, NULL, "--json")) {
      o->json = true;
    } else if (cli_flag(a, NULL, "--effects")) {
      o->effects = true;
    } else if (cli_flag(a, NULL, "--native")) {
      o->native = true;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("equiv", "unknown option '%s'", a);
    } else if (!o->a) {
      o->a = a;
    } else if (!o->b) {
      o->b = a;
    } else {
      return cli_usage_error("equiv", "more than two input files");
    }
  }
  if (!o->b) return cli_usage_error("equiv", "expects two input files, A and B");
  return 0;
}

/* A run spec gives both parameters the same value: the same type, or pointers that are both
 * local (address space 3: a per-group buffer) or both not (a buffer; reconv's own `ptr` and LLVM's
 * `ptr addrspace(1)` of the same kernel exported are alike). */
static bool same_param_type(rc_type a, rc_type b) {
  if (a == b) return true;
  return rc_type_is_ptr(a) && rc_type_is_ptr(b) && (rc_type_addrspace(a) == 3) == (rc_type_addrspace(b) == 3);
}

/* Both kernels must take the same parameters, so that one run spec serves both. */
static int same_params(rc_ctx *ctx, const rc_kernel *ka, const rc_kernel *kb, const char *fb) {
  bool same = ka->nparams == kb->nparams;
  for (uint32_t p = 0; same && p < ka->nparams; p++)
    same = same_param_type((rc_type)ka->params[p]->type, (rc_type)kb->params[p]->type) &&
           ka->params[p]->name && kb->params[p]->name &&
           strcmp(ka->params[p]->name, kb->params[p]->name) == 0;
  if (!same)
    return rc_report(ctx, RC_SEV_ERROR, fb, 0, 0, "kernel @%s takes other parameters than in the "
                     "first program", kb->name);
  return 0;
}

/* Both programs prepared for native runs (--native), or NULL. */
typedef struct natives {
  struct rc_native *a, *b;
} natives;

/* Run kernel k (natively when nat is given) on s; 0, or -1 with fault filled or an error reported. */
static int run_one(rc_ctx *ctx, const rc_kernel *k, struct rc_native *nat, const rc_run_spec *s,
                   rc_memory *mem, rc_traces *t, rc_run_stats *st, rc_fault *fault) {
#ifdef RECONV_HAVE_LLVM
  if (nat) return rc_native_run(nat, s, mem, fault);
#endif
  return rc_interp_run(ctx, k, s, mem, t, st, fault);
}

/* Run both kernels on spec s; -1 on bad input, -2 when the original faults (res->why says how).
 * Native runs leave no traces: only memory is compared. */
static int run_both(rc_ctx *ctx, const rc_kernel *ka, const rc_kernel *kb, const natives *nat,
                    const rc_run_spec *s, run_result *res) {
  rc_memory ma = {0}, mb = {0};
  rc_traces ta = {0}, tb = {0};
  rc_run_stats sa = {0}, sb = {0};
  rc_fault fa = {0}, fb = {0};
  int rc = -1;
  res->equivalent = false;
  if (rc_run_spec_check(ctx, s, ka) != 0 || rc_run_spec_check(ctx, s, kb) != 0) goto out;
  if (rc_memory_init(ctx, &ma, s, ka) != 0 || rc_memory_init(ctx, &mb, s, kb) != 0) goto out;
  if (run_one(ctx, ka, nat->a, s, &ma, &ta, &sa, &fa) != 0) {
    if (fa.happened) {
      rc = -2;
      snprintf(res->why, sizeof res->why, "%s", fa.message);
    }
    goto out;
  }
  rc = 0;
  res->instr_a = sa.instructions;
  res->checksum = rc_memory_checksum(&ma);
  if (run_one(ctx, kb, nat->b, s, &mb, &tb, &sb, &fb) != 0) {
    if (!fb.happened) {
      rc = -1;
      goto out;
    }
    res->what = "fault";
    snprintf(res->why, sizeof res->why, "the second program faults: %s", fb.message);
    goto out;
  }
  res->instr_b = sb.instructions;
  if (!nat->a && !rc_traces_equivalent(ka, &ta, kb, &tb, res->why, sizeof res->why)) {
    res->what = s->effect_traces ? "effects" : "trace";
    goto out;
  }
  if (!rc_memory_equal(&ma, &mb, res->why, sizeof res->why)) {
    res->what = "memory";
    goto out;
  }
  res->equivalent = true;
out:
  rc_memory_free(&ma);
  rc_memory_free(&mb);
  rc_traces_free(&ta);
  rc_traces_free(&tb);
  rc_run_stats_free(&sa);
  rc_run_stats_free(&sb);
  return rc;
}

/* --native: both modules prepared for native runs, B reusing A's compiled runtime library. */
static int open_natives(rc_ctx *ctx, const equiv_opts *o, const cli_input_opts *in, const rc_kernel *ka,
                        const rc_kernel *kb, natives *nat) {
  if (!o->native) return 0;
#ifdef RECONV_HAVE_LLVM
  rc_llvm_import_opts lo = {0};
  lo.passes = in->llvm_passes;
  lo.target = in->target;
  lo.opt_level = in->opt_level;
  lo.defines = in->defines;
  lo.ndefines = in->ndefines;
  nat->a = rc_native_open(ctx, o->a, &lo, ka, NULL, NULL);
  nat->b = nat->a ? rc_native_open(ctx, o->b, &lo, kb, NULL, nat->a) : NULL;
  return nat->b ? 0 : -1;
#else
  return rc_error(ctx, "--native needs the LLVM bridge, which this reconv was built without");
#endif
}

static void report_text(FILE *f, const rc_kernel *k, const run_result *r, int n, bool native) {
  for (int i = 0; i < n; i++) {
    fprintf(f, "seed %" PRIu64 ", %" PRIu64 " threads: ", r[i].seed, r[i].threads);
    if (r[i].skipped)
      fprintf(f, "skipped: the first program faults at this launch size, which its run specification "
                 "does not give: %s\n", r[i].why);
    else if (r[i].equivalent && native)
      fprintf(f, "equivalent (native runs, checksum 0x%016" PRIx64 ")\n", r[i].checksum);
    else if (r[i].equivalent)
      fprintf(f, "equivalent (%" PRIu64 " and %" PRIu64 " instructions, checksum 0x%016" PRIx64 ")\n",
              r[i].instr_a, r[i].instr_b, r[i].checksum);
    else
      fprintf(f, "NOT equivalent: %s\n", r[i].why);
  }
  const char *how = native ? " native" : "";
  int skipped = 0;
  for (int i = 0; i < n; i++) skipped += r[i].skipped;
  if (n > 0 && (r[n - 1].equivalent || r[n - 1].skipped)) {
    fprintf(f, "@%s: equivalent in %d%s runs", k->name, n - skipped, how);
    if (skipped) fprintf(f, " (%d launch sizes skipped)", skipped);
    fputc('\n', f);
  } else if (n > 0)
    fprintf(f, "@%s: NOT equivalent at seed %" PRIu64 ", %" PRIu64 " threads%s\n", k->name,
            r[n - 1].seed, r[n - 1].threads, native ? " (native runs)" : "");
}

static void report_json(FILE *f, const rc_kernel *k, const run_result *r, int n, bool native) {
  bool eq = n > 0 && (r[n - 1].equivalent || r[n - 1].skipped);
  fputs("{\"kernel\": ", f);
  cli_json_string(f, k->name);
  fprintf(f, ", \"equivalent\": %s, %s\"runs\": [", eq ? "true" : "false", native ? "\"native\": true, " : "");
  for (int i = 0; i < n; i++)
    fprintf(f, "%s{\"seed\": %" PRIu64 ", \"threads\": %" PRIu64 ", \"equivalent\": %s, %s"
               "\"instructions_a\": %" PRIu64 ", \"instructions_b\": %" PRIu64 "}",
            i ? ", " : "", r[i].seed, r[i].threads, r[i].equivalent ? "true" : "false",
            r[i].skipped ? "\"skipped\": true, " : "", r[i].instr_a, r[i].instr_b);
  fputs("], \"difference\": ", f);
  if (eq || n == 0) {
    fputs("null", f);
  } else {
    fprintf(f, "{\"seed\": %" PRIu64 ", \"threads\": %" PRIu64 ", \"kind\": \"%s\", \"message\": ",
            r[n - 1].seed, r[n - 1].threads, r[n - 1].what);
    cli_json_string(f, r[n - 1].why);
    fputc('}', f);
  }
  fputs("}\n", f);
}

int cmd_equiv(int argc, char **argv) {
  equiv_opts o = {0};
  cli_input_opts in = {0};
  cli_spec_words w = {0};
  int rc = parse_args(argc, argv, &o, &in, &w);
  if (rc != 0) {
    cli_spec_words_free(&w);
    return rc < 0 ? EXIT_OK : rc;
  }
  rc_ctx ctx;
  cli_ctx_init(&ctx);
  rc_module *ma = cli_load(&ctx, o.a, &in);
  rc_module *mb = ma ? cli_load(&ctx, o.b, &in) : NULL;
  rc_kernel *ka = mb ? cli_pick_kernel(&ctx, ma, o.kname) : NULL;
  rc_kernel *kb = ka ? rc_module_find_kernel(mb, ka->name) : NULL;
  if (ka && !kb) rc_report(&ctx, RC_SEV_ERROR, mb->filename, 0, 0, "no kernel named @%s", ka->name);
  rc_run_spec base;
  rc_run_spec_init(&base);
  run_result *res = NULL;
  int nres = 0;
  natives nat = {NULL, NULL};
  rc = EXIT_BAD_INPUT;
  if (kb && same_params(&ctx, ka, kb, mb->filename) == 0 && open_natives(&ctx, &o, &in, ka, kb, &nat) == 0 &&
      cli_spec_build(&ctx, &base, ka, &w) == 0) {
    /* the launches: --global or a multi-dimensional !run fixes one; otherwise several sizes */
    uint32_t sizes[32];
    int nsizes = 0;
    bool resize = !w.has_global && base.dims == 1;
    if (!resize) sizes[nsizes++] = (uint32_t)rc_run_spec_threads(&base);
    else if (o.nsizes) memcpy(sizes, o.sizes, (size_t)(nsizes = o.nsizes) * sizeof *sizes);
    else memcpy(sizes, default_sizes, (size_t)(nsizes = 6) * sizeof *sizes);
    uint64_t seeds = rc_run_spec_uses_seed(&base) ? o.seeds : 1;
    uint64_t own_threads = rc_run_spec_threads(&base);
    res = rc_xcalloc((size_t)nsizes * seeds, sizeof *res);
    bool stop = false;
    rc = EXIT_OK;
    for (int z = 0; z < nsizes && !stop; z++)
      for (uint64_t sd = 0; sd < seeds && !stop; sd++) {
        rc_run_spec s;
        rc_run_spec_copy(&s, &base);
        if (resize) rc_run_spec_resize(&s, sizes[z]);
        s.seed_offset = base.seed_offset + sd;
        s.effect_traces = o.effects;
        run_result *r = &res[nres++];
        r->seed = s.seed_offset;
        r->threads = rc_run_spec_threads(&s);
        int both = run_both(&ctx, ka, kb, &nat, &s, r);
        if (both == -2 && resize && !o.nsizes && r->threads != own_threads) {
          /* a launch size the kernel was not written for (its buffers may be too small): the
           * sizes the kernel's own specification gives are the ones that must work */
          r->skipped = true;
          rc_run_spec_free(&s);
          break;
        } else if (both != 0) {
          if (both == -2)
            rc_error(&ctx, "seed %" PRIu64 ", %" PRIu64 " threads: the first program faults, so there is "
                     "nothing to compare (choose other sizes with --sizes or --global): %s", r->seed,
                     r->threads, r->why);
          rc = EXIT_BAD_INPUT;
          nres--;
          stop = true;
        } else if (!r->equivalent) {
          rc = EXIT_BAD_INPUT;
          stop = true;
        }
        rc_run_spec_free(&s);
      }
    int compared = 0;
    for (int i = 0; i < nres; i++) compared += !res[i].skipped;
    if (rc == EXIT_OK && nres > 0 && compared == 0) {
      rc_error(&ctx, "the first program faults at every launch size tried, so there is nothing to compare "
               "(choose other sizes with --sizes or --global): %s", res[0].why);
      rc = EXIT_BAD_INPUT;
      nres = 0;
    }
    /* the report: of every run, or up to the one that differs; an error has been reported instead */
    bool differs = nres > 0 && !res[nres - 1].equivalent && !res[nres - 1].skipped;
    if (nres > 0 && (rc == EXIT_OK || differs)) {
      const char *inputs[] = {o.a, o.b};
      cli_out out;
      int orc = cli_out_open(&out, o.out, inputs, 2);
      if (orc == 0) {
        if (o.json) report_json(out.f, ka, res, nres, o.native);
        else report_text(out.f, ka, res, nres, o.native);
        orc = cli_out_commit(&out);
      }
      if (orc != 0) rc = orc;
    }
  }
  free(res);
#ifdef RECONV_HAVE_LLVM
  rc_native_close(nat.a);
  rc_native_close(nat.b);
#endif
  rc_run_spec_free(&base);
  cli_spec_words_free(&w);
  if (ma) rc_module_free(ma);
  if (mb) rc_module_free(mb);
  return rc;
}
