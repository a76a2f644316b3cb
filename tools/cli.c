/* Shared pieces of the reconv CLI (see cli.h). */
#include "cli.h"

#include "reconv/analysis.h"
#include "reconv/llvm.h"
#include "reconv/sim.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool cli_flag(const char *arg, const char *shortname, const char *longname) {
  return (shortname && strcmp(arg, shortname) == 0) || (longname && strcmp(arg, longname) == 0);
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "reconv %s: error: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n(see `reconv %s --help`)\n", cmd);
  va_end(ap);
  return EXIT_USAGE;
}

int cli_opt(const char *cmd, int argc, char **argv, int *i, const char *shortname,
            const char *longname, const char **val) {
  const char *a = argv[*i];
  const char *names[2] = {shortname, longname};
  for (int n = 0; n < 2; n++) {
    const char *name = names[n];
    if (!name) continue;
    size_t len = strlen(name);
    if (strncmp(a, name, len) != 0) continue;
    if (a[len] == '=') {
      *val = a + len + 1;
      return 1;
    }
    if (a[len] != 0) {
      /* "-O2" style: short options of one letter may carry the value directly */
      if (n == 0 && len == 2) {
        *val = a + len;
        return 1;
      }
      continue;
    }
    if (*i + 1 >= argc) {
      cli_usage_error(cmd, "option %s needs a value", name);
      return -1;
    }
    *val = argv[++*i];
    return 1;
  }
  return 0;
}

bool cli_parse_u64(const char *cmd, const char *opt, const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  if (!s || !*s || *s == '-') goto bad;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end) goto bad;
  *out = v;
  return true;
bad:
  cli_usage_error(cmd, "%s expects a non-negative integer, not '%s'", opt, s ? s : "");
  return false;
}

int cli_input_opt(const char *cmd, int argc, char **argv, int *i, cli_input_opts *o) {
  const char *v;
  int r;
  if ((r = cli_opt(cmd, argc, argv, i, NULL, "--llvm-passes", &v)) != 0) {
    if (r > 0) o->llvm_passes = v;
    return r;
  }
  if (cli_flag(argv[*i], NULL, "--llvm-divergence")) {
    o->llvm_divergence = true;
    return 1;
  }
  if ((r = cli_opt(cmd, argc, argv, i, NULL, "--target", &v)) != 0) {
    if (r > 0) o->target = v;
    return r;
  }
  if ((r = cli_opt(cmd, argc, argv, i, "-O", NULL, &v)) != 0) {
    if (r > 0) {
      if (strlen(v) != 1 || v[0] < '0' || v[0] > '3') {
        cli_usage_error(cmd, "-O expects 0, 1, 2 or 3");
        return -1;
      }
      o->opt_level = v;
    }
    return r;
  }
  if ((r = cli_opt(cmd, argc, argv, i, "-D", NULL, &v)) != 0) {
    if (r > 0) {
      if (o->ndefines >= sizeof o->defines / sizeof o->defines[0]) {
        cli_usage_error(cmd, "too many -D options");
        return -1;
      }
      o->defines[o->ndefines++] = v;
    }
    return r;
  }
  return 0;
}

void cli_print_fault(const char *cmd, const rc_fault *f) {
  if (f->line && f->file[0]) fprintf(stderr, "%s:%u:%u: fault: %s\n", f->file, f->line, f->col, f->message);
  else fprintf(stderr, "reconv %s: fault: %s\n", cmd, f->message);
}

void cli_ctx_init(rc_ctx *ctx) {
  rc_ctx_init(ctx);
  const char *v = getenv("RECONV_VERIFY_EACH");
  ctx->verify_each = !(v && strcmp(v, "0") == 0);
}

char *cli_read_file(rc_ctx *ctx, const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot open: %s", strerror(errno));
    return NULL;
  }
  struct stat st;
  if (f != stdin && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "is a directory");
    fclose(f);
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = rc_xmalloc(cap);
  for (;;) {
    if (n + 1 >= cap) buf = rc_xrealloc(buf, cap *= 2);
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  bool err = ferror(f);
  if (f != stdin) fclose(f);
  if (err) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "read error");
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  *len = n;
  return buf;
}

static bool has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n > e && strcmp(path + n - e, ext) == 0;
}

/* What standard input holds, by its first bytes: ".bc" (LLVM bitcode), ".ll" (LLVM IR text),
 * ".cl" (OpenCL C) or ".rir". */
static const char *stdin_kind(const char *text, size_t len) {
  if (len >= 4 && (unsigned char)text[0] == 'B' && (unsigned char)text[1] == 'C' && (unsigned char)text[2] == 0xC0 &&
      (unsigned char)text[3] == 0xDE)
    return ".bc";
  if (strncmp(text, "; ModuleID", 10) == 0 || strstr(text, "\ndefine ") || strncmp(text, "define ", 7) == 0 ||
      strstr(text, "target datalayout") || strstr(text, "target triple"))
    return ".ll";
  if (strstr(text, "__kernel") || strstr(text, "kernel void")) return ".cl";
  return ".rir";
}

void cli_import_opts(const cli_input_opts *o, rc_llvm_import_opts *lo) {
  *lo = (rc_llvm_import_opts){0};
  if (!o) return;
  lo->passes = o->llvm_passes;
  lo->target = o->target;
  lo->opt_level = o->opt_level;
  lo->defines = o->defines;
  lo->ndefines = o->ndefines;
  lo->llvm_divergence = o->llvm_divergence;
}

rc_module *cli_load(rc_ctx *ctx, const char *path, const cli_input_opts *o) {
  char *stdin_text = NULL;
  size_t stdin_len = 0;
  const char *kind = NULL;
  if (strcmp(path, "-") == 0) { /* standard input: its kind from its content */
    if (!(stdin_text = cli_read_file(ctx, path, &stdin_len))) return NULL;
    kind = stdin_kind(stdin_text, stdin_len);
    if (strcmp(kind, ".cl") == 0) {
      free(stdin_text);
      rc_report(ctx, RC_SEV_ERROR, "<stdin>", 0, 0,
                "standard input looks like OpenCL C, which clang compiles from a file: save it as a .cl "
                "file and give its name");
      return NULL;
    }
  }
  if (has_ext(path, ".ll") || has_ext(path, ".bc") || has_ext(path, ".cl") ||
      (kind && strcmp(kind, ".rir") != 0)) {
#ifdef RECONV_HAVE_LLVM
    rc_llvm_import_opts lo;
    cli_import_opts(o, &lo);
    if (stdin_text) { /* the import tells .ll from .bc by the name */
      lo.data = stdin_text;
      lo.data_len = stdin_len;
    }
    rc_module *m = rc_llvm_import_file(ctx, stdin_text ? (strcmp(kind, ".bc") == 0 ? "<stdin>.bc" : "<stdin>.ll") : path, &lo);
    free(stdin_text);
    /* device functions' parameters: from their calls, unless the target's calling convention says
     * what its backend will assume (amdgcn: divergent unless `inreg`) */
    if (m && m->nkernels && !rc_uniformity_target_flags(m->kernels[0]) && rc_module_param_uniformity(m, 0)) {
      rc_module_free(m);
      return NULL;
    }
    return m;
#else
    free(stdin_text);
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0,
              "reconv was built without the LLVM bridge; it reads only .rir files");
    return NULL;
#endif
  }
  if (o && o->llvm_passes) {
    free(stdin_text);
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "--llvm-passes applies to .ll, .bc and .cl inputs");
    return NULL;
  }
  size_t len = stdin_len;
  char *text = stdin_text ? stdin_text : cli_read_file(ctx, path, &len);
  if (!text) return NULL;
  rc_module *m = rc_parse_module(ctx, strcmp(path, "-") == 0 ? "<stdin>" : path, text, len);
  free(text);
  if (m && rc_module_param_uniformity(m, 0)) { /* device functions' parameters, from their calls */
    rc_module_free(m);
    return NULL;
  }
  return m;
}

rc_kernel *cli_pick_kernel(rc_ctx *ctx, rc_module *m, const char *name) {
  const char *file = m->filename;
  if (name) {
    const char *n = name[0] == '@' ? name + 1 : name;
    rc_kernel *k = rc_module_find_kernel(m, n);
    if (!k) rc_report(ctx, RC_SEV_ERROR, file, 0, 0, "no kernel named @%s", n);
    return k;
  }
  /* the default is the one kernel the module launches; device functions are picked by name
   * (or when the module has nothing else) */
  rc_kernel *launchable = NULL;
  uint32_t nlaunchable = 0;
  for (uint32_t i = 0; i < m->nkernels; i++)
    if (!m->kernels[i]->is_function) launchable = m->kernels[i], nlaunchable++;
  if (nlaunchable == 1) return launchable;
  if (m->nkernels == 1) return m->kernels[0];
  if (m->nkernels == 0)
    rc_report(ctx, RC_SEV_ERROR, file, 0, 0, "the module has no kernel");
  else
    rc_report(ctx, RC_SEV_ERROR, file, 0, 0, "the module has %u kernels; choose one with --kernel",
              m->nkernels);
  return NULL;
}

static bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0) return false;
  if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cli_out_open(cli_out *o, const char *path, const char *const *inputs, int ninputs) {
  memset(o, 0, sizeof *o);
  if (!path || strcmp(path, "-") == 0) {
    o->f = stdout;
    return 0;
  }
  for (int i = 0; i < ninputs; i++)
    if (inputs[i] && same_file(path, inputs[i])) {
      fprintf(stderr, "reconv: error: refusing to overwrite the input file '%s'; choose another output file\n", path);
      return EXIT_BAD_INPUT;
    }
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* /dev/null, a pipe: no temporary file */
    o->f = fopen(path, "wb");
    if (!o->f) {
      fprintf(stderr, "reconv: error: cannot write '%s': %s\n", path, strerror(errno));
      return EXIT_BAD_INPUT;
    }
    o->direct = rc_xstrdup(path);
    return 0;
  }
  o->path = rc_xstrdup(path);
  size_t n = strlen(path) + 32;
  o->tmp = rc_xmalloc(n);
  snprintf(o->tmp, n, "%s.tmp%ld", path, (long)getpid());
  o->f = fopen(o->tmp, "wb");
  if (!o->f) {
    fprintf(stderr, "reconv: error: cannot write '%s': %s\n", path, strerror(errno));
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    return EXIT_BAD_INPUT;
  }
  return 0;
}

int cli_out_commit(cli_out *o) {
  if (!o->f) return 0;
  if (o->f == stdout) { /* a full disk or a closed pipe must not pass for success */
    o->f = NULL;
    if (fflush(stdout) != 0 || ferror(stdout)) {
      fprintf(stderr, "reconv: error: cannot write standard output: %s\n", strerror(errno));
      return EXIT_BAD_INPUT;
    }
    return 0;
  }
  int rc = 0;
  if (!o->path) { /* written directly */
    if (fclose(o->f) != 0) {
      fprintf(stderr, "reconv: error: cannot write '%s': %s\n", o->direct, strerror(errno));
      rc = EXIT_BAD_INPUT;
    }
    free(o->direct);
    memset(o, 0, sizeof *o);
    return rc;
  }
  if (fclose(o->f) != 0 || rename(o->tmp, o->path) != 0) {
    fprintf(stderr, "reconv: error: cannot write '%s': %s\n", o->path, strerror(errno));
    remove(o->tmp);
    rc = EXIT_BAD_INPUT;
  }
  free(o->path);
  free(o->tmp);
  memset(o, 0, sizeof *o);
  return rc;
}

void cli_out_abort(cli_out *o) {
  if (o->f && o->f != stdout) {
    fclose(o->f);
    if (o->tmp) remove(o->tmp);
  }
  free(o->path);
  free(o->tmp);
  free(o->direct);
  memset(o, 0, sizeof *o);
}

const char **cli_spec_inputs(const char *file, const rc_run_spec *s, int *n) {
  const char **v = rc_xmalloc(((size_t)s->nargs + 1) * sizeof *v);
  *n = 0;
  v[(*n)++] = file;
  for (uint32_t i = 0; i < s->nargs; i++)
    if (s->args[i].init == RC_INIT_FILE && s->args[i].path) v[(*n)++] = s->args[i].path;
  return v;
}

int cli_write_string(const char *path, const char *data, size_t len, const char *const *inputs,
                     int ninputs) {
  cli_out o;
  int rc = cli_out_open(&o, path, inputs, ninputs);
  if (rc) return rc;
  if (len && fwrite(data, 1, len, o.f) != len) {
    cli_out_abort(&o);
    fprintf(stderr, "reconv: error: write error on '%s'\n", path ? path : "-");
    return EXIT_BAD_INPUT;
  }
  return cli_out_commit(&o);
}

void cli_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

void cli_dot_analysis(const rc_kernel *k, unsigned unif_flags, bool show_instructions, bool legend, rc_strbuf *out) {
  rc_analysis a;
  rc_analysis_build(&a, k, unif_flags | rc_uniformity_target_flags(k));
  uint32_t *primary = rc_xmalloc((k->nblocks + 1) * sizeof *primary);
  for (uint32_t b = 0; b < k->nblocks; b++) {
    primary[b] = RC_NONE;
    const rc_instr *t = rc_block_term(k->blocks[b]);
    if (!a.unif.divergent_branch[b] || !t || !rc_domtree_contains(&a.pdom, b)) continue;
    for (uint32_t e = 0; e < t->ntargets && primary[b] == RC_NONE; e++)
      if (rc_domtree_contains(&a.pdom, t->targets[e]->id) && rc_dominates(&a.pdom, t->targets[e]->id, b))
        primary[b] = t->targets[e]->id;
  }
  rc_dot_opts o = {a.unif.divergent_branch, show_instructions, primary, !legend};
  rc_dot_kernel(k, &o, out);
  free(primary);
  rc_analysis_free(&a);
}
