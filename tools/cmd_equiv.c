/* reconv equiv: check that two programs are trace equivalent (DESIGN.md, "Semantics and the
 * correctness criterion") on many inputs: same blocks per thread (inserted blocks skipped) and
 * the same final memory. */
#include "cli_spec.h"
#include "commands.h"
#include "reconv/compare.h"
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
    "  --oclgrind          run both on oclgrind instead (Debian's OpenCL device simulator, a third\n"
    "                      oracle written by others; SPIR modules: compile .cl files with --target\n"
    "                      spir64): compares memory, and fails when the second program raises an\n"
    "                      oclgrind diagnostic (data race, uninitialised value, out-of-bounds access,\n"
    "                      barrier divergence) the first does not; what oclgrind cannot check (its\n"
    "                      known limits) is reported as not checkable (exit status 0). By default\n"
    "                      one run: the specification's own launch and seed (oclgrind simulates\n"
    "                      slowly); --sizes and --seeds ask for more\n"
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
  bool oclgrind; /* --oclgrind: run both on oclgrind, compare memory and its diagnostics */
  bool seeds_given;
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
  bool unchecked;   /* --oclgrind: oclgrind cannot check this kernel (why says why) */
  const char *no_uninitialized; /* --oclgrind: ran without its check of uninitialised values: why */
  char diagnostics[640]; /* --oclgrind: what oclgrind reports on both programs (first lines) */
  const char *what; /* "trace", "memory", "fault", "diagnostic" when not equivalent */
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
      o->seeds_given = true;
    } else if ((r = cli_opt("equiv", argc, argv, &i, NULL, "--sizes", &v)) != 0) {
      if (r < 0 || parse_sizes(v, o) != 0) return EXIT_USAGE;
    } else if (cli_flag(a, NULL, "--json")) {
      o->json = true;
    } else if (cli_flag(a, NULL, "--effects")) {
      o->effects = true;
    } else if (cli_flag(a, NULL, "--native")) {
      o->native = true;
    } else if (cli_flag(a, NULL, "--oclgrind")) {
      o->oclgrind = true;
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
  if (o->native && o->oclgrind) return cli_usage_error("equiv", "--native and --oclgrind are two oracles: choose one");
  if (o->oclgrind && !o->seeds_given) o->seeds = 1;
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
/* --oclgrind: both kernels on oclgrind (mems initialised); as run_both. */
static int run_both_oclgrind(rc_ctx *ctx, const rc_kernel *ka, const rc_kernel *kb, const rc_run_spec *s,
                             rc_memory *ma, rc_memory *mb, run_result *res) {
  rc_oclgrind_result ra, rb;
  int rc = rc_oclgrind_run(ctx, ka, s, ma, &ra);
  if (rc == 0 && ra.status == RC_OCLGRIND_RAN) rc = rc_oclgrind_run(ctx, kb, s, mb, &rb);
  else memset(&rb, 0, sizeof rb);
  if (rc != 0) {
    rc = -1;
  } else if (ra.status == RC_OCLGRIND_UNCHECKABLE || rb.status == RC_OCLGRIND_UNCHECKABLE) {
    res->unchecked = true;
    snprintf(res->why, sizeof res->why, "%s", ra.status == RC_OCLGRIND_UNCHECKABLE ? ra.why : rb.why);
  } else if (ra.status == RC_OCLGRIND_FAILED) {
    rc = -2;
    snprintf(res->why, sizeof res->why, "on oclgrind: %s", ra.why);
  } else if (rb.status == RC_OCLGRIND_FAILED) {
    res->what = "fault";
    snprintf(res->why, sizeof res->why, "the second program fails on oclgrind: %s", rb.why);
  } else if (!rc_memory_equal(ma, mb, res->why, sizeof res->why)) {
    /* is it the second program, or does the first leave other memory on each run (it reads what
     * nothing wrote, or races: oclgrind's values there are not reproducible)? */
    rc_memory mc = {0};
    rc_oclgrind_result rc2;
    char again[sizeof res->why];
    memset(&rc2, 0, sizeof rc2);
    if (rc_memory_init(ctx, &mc, s, ka) == 0 && rc_oclgrind_run(ctx, ka, s, &mc, &rc2) == 0 &&
        rc2.status == RC_OCLGRIND_RAN && !rc_memory_equal(ma, &mc, again, sizeof again)) {
      res->unchecked = true;
      snprintf(res->why, sizeof res->why, "@%s leaves other memory on oclgrind from one run to the next (it reads "
               "memory nothing wrote, or races): %.300s", ka->name, again);
    } else {
      res->what = "memory";
    }
    rc_oclgrind_result_free(&rc2);
    rc_memory_free(&mc);
  } else {
    /* a message of the second program's run that the first's has not */
    const char *da = ra.diagnostics.data ? ra.diagnostics.data : "";
    for (const char *l = rb.diagnostics.data; l && *l && !res->what;) {
      size_t n = strcspn(l, "\n");
      bool found = false;
      for (const char *m = da; *m && !found;) {
        size_t k = strcspn(m, "\n");
        found = k == n && memcmp(m, l, n) == 0;
        m += k + (m[k] == '\n');
      }
      if (!found) {
        res->what = "diagnostic";
        snprintf(res->why, sizeof res->why, "oclgrind reports on the second program what it does not on the first: %.*s",
                 (int)(n < 500 ? n : 500), l);
      }
      l += n + (l[n] == '\n');
    }
    if (!res->what) {
      res->equivalent = true;
      res->checksum = rc_memory_checksum(ma);
      res->no_uninitialized = ra.no_uninitialized ? ra.uninitialized_why : rb.no_uninitialized ? rb.uninitialized_why : NULL;
      /* the first program's messages, as many whole lines as fit, and how many more */
      size_t at = 0, more = 0;
      for (const char *l = da; *l;) {
        size_t m = strcspn(l, "\n");
        if (!more && at + m + 1 < sizeof res->diagnostics - 48) {
          memcpy(res->diagnostics + at, l, m + 1);
          at += m + 1;
        } else {
          more++;
        }
        l += m + (l[m] == '\n');
      }
      if (more) at += (size_t)snprintf(res->diagnostics + at, sizeof res->diagnostics - at, "... and %zu more\n", more);
      res->diagnostics[at] = 0;
    }
  }
  rc_oclgrind_result_free(&ra);
  rc_oclgrind_result_free(&rb);
  return rc;
}

static int run_both(rc_ctx *ctx, const rc_kernel *ka, const rc_kernel *kb, const natives *nat,
                    const rc_run_spec *s, run_result *res, bool oclgrind) {
  rc_memory ma = {0}, mb = {0};
  rc_traces ta = {0}, tb = {0};
  rc_run_stats sa = {0}, sb = {0};
  rc_fault fa = {0}, fb = {0};
  int rc = -1;
  res->equivalent = false;
  if (rc_run_spec_check(ctx, s, ka) != 0 || rc_run_spec_check(ctx, s, kb) != 0) goto out;
  if (rc_memory_init(ctx, &ma, s, ka) != 0 || rc_memory_init(ctx, &mb, s, kb) != 0) goto out;
  if (oclgrind) {
    rc = run_both_oclgrind(ctx, ka, kb, s, &ma, &mb, res);
    goto out;
  }
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

/* how: NULL for the interpreter, else the oracle ("native", "oclgrind") */
static void report_text(FILE *f, const rc_kernel *k, const run_result *r, int n, const char *how_name) {
  bool native = how_name != NULL;
  if (n > 0 && r[n - 1].unchecked) {
    fprintf(f, "@%s: not checkable on oclgrind: %s\n", k->name, r[n - 1].why);
    return;
  }
  for (int i = 0; i < n; i++) {
    fprintf(f, "seed %" PRIu64 ", %" PRIu64 " threads: ", r[i].seed, r[i].threads);
    if (r[i].skipped)
      fprintf(f, "skipped: the first program faults at this launch size, which its run specification "
                 "does not give: %s\n", r[i].why);
    else if (r[i].equivalent && native)
      fprintf(f, "equivalent (%s runs%s%s, checksum 0x%016" PRIx64 ")\n", how_name,
              r[i].no_uninitialized ? ", uninitialised values not checked: " : "",
              r[i].no_uninitialized ? r[i].no_uninitialized : "", r[i].checksum);
    else if (r[i].equivalent)
      fprintf(f, "equivalent (%" PRIu64 " and %" PRIu64 " instructions, checksum 0x%016" PRIx64 ")\n",
              r[i].instr_a, r[i].instr_b, r[i].checksum);
    else
      fprintf(f, "NOT equivalent: %s\n", r[i].why);
  }
  char how[32], paren[32];
  snprintf(how, sizeof how, native ? " %s" : "%s", native ? how_name : "");
  snprintf(paren, sizeof paren, native ? " (%s runs)" : "%s", native ? how_name : "");
  for (int i = 0; i < n; i++)
    for (const char *l = r[i].diagnostics; *l;) { /* what oclgrind found in both programs alike */
      size_t m = strcspn(l, "\n");
      fprintf(f, "note: oclgrind reports on the first program (the second raises nothing else): %.*s\n", (int)m, l);
      l += m + (l[m] == '\n');
    }
  int skipped = 0;
  for (int i = 0; i < n; i++) skipped += r[i].skipped;
  if (n > 0 && (r[n - 1].equivalent || r[n - 1].skipped)) {
    fprintf(f, "@%s: equivalent in %d%s runs", k->name, n - skipped, how);
    if (skipped) fprintf(f, " (%d launch sizes skipped)", skipped);
    fputc('\n', f);
  } else if (n > 0)
    fprintf(f, "@%s: NOT equivalent at seed %" PRIu64 ", %" PRIu64 " threads%s\n", k->name,
            r[n - 1].seed, r[n - 1].threads, paren);
}

static void report_json(FILE *f, const rc_kernel *k, const run_result *r, int n, const char *how) {
  bool eq = n > 0 && (r[n - 1].equivalent || r[n - 1].skipped);
  bool unchecked = n > 0 && r[n - 1].unchecked;
  fputs("{\"kernel\": ", f);
  cli_json_string(f, k->name);
  if (unchecked) {
    fputs(", \"checkable\": false, \"why\": ", f);
    cli_json_string(f, r[n - 1].why);
    fputs("}\n", f);
    return;
  }
  fprintf(f, ", \"equivalent\": %s, ", eq ? "true" : "false");
  if (how) fprintf(f, "\"%s\": true, ", how);
  fputs("\"runs\": [", f);
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
    bool resize = !w.has_global && base.dims == 1 && !(o.oclgrind && !o.nsizes);
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
        int both = run_both(&ctx, ka, kb, &nat, &s, r, o.oclgrind);
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
        } else if (r->unchecked) {
          stop = true; /* the same for every launch */
        } else if (!r->equivalent) {
          rc = EXIT_BAD_INPUT;
          stop = true;
        }
        rc_run_spec_free(&s);
      }
    int compared = 0;
    for (int i = 0; i < nres; i++) compared += !res[i].skipped;
    if (nres > 0 && res[nres - 1].unchecked) compared = nres;
    if (rc == EXIT_OK && nres > 0 && compared == 0) {
      rc_error(&ctx, "the first program faults at every launch size tried, so there is nothing to compare "
               "(choose other sizes with --sizes or --global): %s", res[0].why);
      rc = EXIT_BAD_INPUT;
      nres = 0;
    }
    /* the report: of every run, or up to the one that differs; an error has been reported instead */
    bool differs = nres > 0 && !res[nres - 1].equivalent && !res[nres - 1].skipped && !res[nres - 1].unchecked;
    if (nres > 0 && (rc == EXIT_OK || differs)) {
      const char *inputs[] = {o.a, o.b};
      cli_out out;
      int orc = cli_out_open(&out, o.out, inputs, 2);
      if (orc == 0) {
        const char *how = o.native ? "native" : o.oclgrind ? "oclgrind" : NULL;
        if (o.json) report_json(out.f, ka, res, nres, how);
        else report_text(out.f, ka, res, nres, how);
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
