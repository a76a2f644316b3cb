/* oclgrind as an oracle (include/reconv/compare.h, rc_oclgrind_run): Debian's oclgrind is an
 * OpenCL device simulator written by others (linked against LLVM 14; a reconv built with a newer LLVM
 * writes bitcode it cannot read, which is reported as not checkable), so it does not
 * share the weakness of reconv's two own oracles, the interpreter and the native runtime library,
 * which both run reconv's descriptions of OpenCL's built-ins. It runs SPIR bitcode (spir64,
 * spir_kernel, !kernel_arg_addr_space and !kernel_arg_type, which the export keeps) and reports
 * data races, uninitialised values, out-of-bounds accesses and barrier divergence.
 *
 * A run: the kernel exported as bitcode, and a simulator file for `oclgrind-kernel` (the program,
 * the kernel's name, the NDRange and work-group size, then one line per argument: each buffer as
 * its bytes, `<size=N uchar dump> b0 b1 ...`, a local buffer as its size, a scalar as its bytes),
 * in a directory of its own; oclgrind prints the dumped buffers in argument order, which replace
 * the buffers of `mem`, and its messages on standard error, whose first lines (one per message,
 * with addresses and entity numbers as they are) are the diagnostics.
 *
 * oclgrind 21.10's known limits are found before it runs and reported as not checkable rather
 * than as differences: it refuses integer constants of 3, 5, 6 or 7 bytes (i24, i40, i48, i56,
 * which LLVM's SROA makes), it evaluates signed compares of integers narrower than a byte wrongly,
 * and its --uninitialized check stops at `freeze` (then the run goes on without that check, and
 * the result says so). */
#define _GNU_SOURCE /* mkdtemp */
#include "reconv/compare.h"

#ifdef RECONV_HAVE_LLVM
#include "reconv/llvm.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void rc_oclgrind_result_free(rc_oclgrind_result *r) {
  rc_sb_free(&r->diagnostics);
  memset(r, 0, sizeof *r);
}

/* oclgrind-kernel: $RECONV_OCLGRIND, else on PATH. */
static bool find_oclgrind(char *out, size_t len) {
  const char *env = getenv("RECONV_OCLGRIND");
  if (env && *env) {
    snprintf(out, len, "%s", env);
    return access(out, X_OK) == 0;
  }
  const char *path = getenv("PATH");
  if (!path) path = "/usr/bin:/bin";
  for (const char *p = path; *p;) {
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    snprintf(out, len, "%.*s/oclgrind-kernel", (int)n, p);
    if (n && access(out, X_OK) == 0) return true;
    p += n + (end != NULL);
  }
  return false;
}

bool rc_oclgrind_available(void) {
  char path[PATH_MAX];
  return find_oclgrind(path, sizeof path);
}

/* What oclgrind 21.10 cannot check in k (NULL: nothing); *no_uninit when `freeze` is there. */
static const char *limit_of(const rc_kernel *k, bool *no_uninit, char *buf, size_t len) {
  *no_uninit = false;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->op == RC_OP_FREEZE) *no_uninit = true;
      for (uint32_t o = 0; o <= i->nops; o++) {
        const rc_value *v = o < i->nops ? i->ops[o] : &i->v;
        unsigned bits = rc_type_is_int((rc_type)v->type) ? rc_type_bits((rc_type)v->type) : 0;
        if (bits == 24 || bits == 40 || bits == 48 || bits == 56) {
          snprintf(buf, len, "block %s has an integer of %u bytes (i%u), which oclgrind refuses", k->blocks[b]->name,
                   bits / 8, bits);
          return buf;
        }
      }
      rc_type ct = i->op == RC_OP_ICMP ? (rc_type)i->ops[0]->type : RC_VOID;
      if (rc_type_is_vector(k->mod, ct)) ct = rc_type_info(k->mod, ct)->elem; /* lane by lane */
      if (i->pred >= RC_CMP_SLT && i->pred <= RC_CMP_SGE && rc_type_is_int(ct) && rc_type_bits(ct) < 8) {
        snprintf(buf, len, "block %s compares i%u signed, which oclgrind evaluates wrongly", k->blocks[b]->name,
                 rc_type_bits(ct));
        return buf;
      }
    }
  return NULL;
}

static int write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  bool ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok ? 0 : -1;
}

static void put_bytes(FILE *f, const uint8_t *p, uint64_t n) {
  for (uint64_t i = 0; i < n; i++) fprintf(f, i ? " %u" : "%u", p[i]);
}

/* The simulator file: the program, the kernel, the launch, the arguments. */
static int write_simfile(const char *path, const char *bc, const rc_kernel *k, const rc_run_spec *s,
                         const rc_memory *mem, char *why, size_t len) {
  FILE *f = fopen(path, "w");
  if (!f) {
    snprintf(why, len, "cannot write %.300s: %.100s", path, strerror(errno));
    return -1;
  }
  uint32_t local[3];
  rc_run_spec_local(s, local);
  fprintf(f, "%s\n%s\n", bc, k->name);
  fprintf(f, "%u %u %u\n", s->global[0], s->dims > 1 ? s->global[1] : 1,
          s->dims > 2 ? s->global[2] : 1);
  fprintf(f, "%u %u %u\n", local[0], s->dims > 1 ? local[1] : 1, s->dims > 2 ? local[2] : 1);
  int rc = 0;
  for (uint32_t p = 0; p < k->nparams && rc == 0; p++) {
    const char *name = k->params[p]->name ? k->params[p]->name : "";
    const rc_arg_spec *a = rc_run_spec_find_arg(s, name);
    if (!a) {
      snprintf(why, len, "parameter %%%s has no value", name);
      rc = -1;
    } else if (a->is_aggregate) {
      snprintf(why, len, "parameter %%%s is a vector, struct or array, whose {...} value is not passed to oclgrind", name);
      rc = -1;
    } else if (a->is_local) {
      fprintf(f, "<size=%" PRIu64 ">\n", rc_arg_count(a, s) * rc_type_size(a->elem));
    } else if (a->is_buffer) {
      const rc_buffer *b = rc_memory_find(mem, name);
      uint64_t n = b->count * rc_type_size(b->elem);
      fprintf(f, "<size=%" PRIu64 " uchar dump> ", n ? n : 1);
      if (n) put_bytes(f, b->data, n);
      else fputc('0', f);
      fputc('\n', f);
    } else {
      rc_type t = (rc_type)k->params[p]->type;
      uint8_t bytes[8] = {0};
      double d = a->scalar_is_float ? a->scalar_f : (double)rc_arg_scalar_int(a, s);
      if (t == RC_F32) {
        float x = (float)d;
        memcpy(bytes, &x, 4);
      } else if (t == RC_F64) {
        memcpy(bytes, &d, 8);
      } else {
        int64_t v = rc_arg_scalar_int(a, s);
        memcpy(bytes, &v, 8); /* little-endian: the low bytes are the value */
      }
      unsigned size = rc_type_size(t);
      fprintf(f, "<size=%u uchar> ", size);
      put_bytes(f, bytes, size);
      fputc('\n', f);
    }
  }
  if (fclose(f) != 0 && rc == 0) {
    snprintf(why, len, "cannot write %.300s", path);
    rc = -1;
  }
  return rc;
}

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_sb_read_all(&sb, f);
  fclose(f);
  if (!sb.data) rc_sb_puts(&sb, "");
  return sb.data;
}

/* The dumped buffers ("Argument 'x': N bytes" then "  x[i] = v" lines), in argument order, into
 * the buffers of mem. */
static int read_dumps(const char *out, const rc_kernel *k, const rc_run_spec *s, rc_memory *mem, char *why,
                      size_t len) {
  const char *p = out;
  for (uint32_t q = 0; q < k->nparams; q++) {
    const char *name = k->params[q]->name ? k->params[q]->name : "";
    const rc_arg_spec *a = rc_run_spec_find_arg(s, name);
    if (!a || a->is_local || !a->is_buffer) continue;
    rc_buffer *b = rc_memory_find(mem, name);
    uint64_t n = b->count * rc_type_size(b->elem);
    p = strstr(p, "Argument '");
    if (!p) {
      snprintf(why, len, "oclgrind printed no contents of buffer %%%s", name);
      return -1;
    }
    p = strchr(p, '\n');
    for (uint64_t i = 0; i < (n ? n : 1); i++) {
      const char *eq = p ? strstr(p, " = ") : NULL;
      if (!eq) {
        snprintf(why, len, "oclgrind printed %" PRIu64 " of the %" PRIu64 " bytes of buffer %%%s", i, n, name);
        return -1;
      }
      unsigned long v = strtoul(eq + 3, (char **)&p, 10);
      if (i < n) b->data[i] = (uint8_t)v;
    }
  }
  return 0;
}

/* oclgrind's messages: the first line of each (lines that start a message, not its indented
 * details and not the dumps on standard output). */
static void collect_diagnostics(const char *err, rc_strbuf *out) {
  for (const char *line = err; *line;) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    if (n && line[0] != ' ' && line[0] != '\t') {
      rc_sb_printf(out, "%.*s\n", (int)n, line);
    }
    line += n + (end != NULL);
  }
}

static int run_tool(const char *tool, char *const *args, const char *out, const char *err, char *why, size_t len) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(why, len, "cannot start oclgrind-kernel: %.100s", strerror(errno));
    return -1;
  }
  if (pid == 0) {
    if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr)) _exit(126);
    execv(tool, args);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      snprintf(why, len, "lost oclgrind-kernel: %.100s", strerror(errno));
      return -1;
    }
  if (WIFSIGNALED(status)) {
    snprintf(why, len, "oclgrind-kernel crashed: signal %d (%.100s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void remove_dir(const char *dir, const char *const *names, int n) {
  char path[PATH_MAX + 32];
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
}

int rc_oclgrind_run(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, rc_memory *mem, rc_oclgrind_result *r) {
  memset(r, 0, sizeof *r);
#ifndef RECONV_HAVE_LLVM
  (void)ctx, (void)k, (void)s, (void)mem;
  r->status = RC_OCLGRIND_UNCHECKABLE;
  snprintf(r->why, sizeof r->why, "oclgrind runs SPIR bitcode, and this reconv was built without the LLVM bridge");
  return 0;
#else
  char tool[PATH_MAX];
  if (!find_oclgrind(tool, sizeof tool)) {
    r->status = RC_OCLGRIND_UNCHECKABLE;
    snprintf(r->why, sizeof r->why, "oclgrind is not installed (Debian's oclgrind; scripts/setup.sh --tests)");
    return 0;
  }
  const char *triple = k->mod->triple;
  if (!triple || strncmp(triple, "spir", 4) != 0) {
    r->status = RC_OCLGRIND_UNCHECKABLE;
    snprintf(r->why, sizeof r->why, "oclgrind runs SPIR modules, and @%s is for %s (import .cl with --target spir64)",
             k->name, triple && *triple ? triple : "no target");
    return 0;
  }
  char limit[256];
  const char *lim = limit_of(k, &r->no_uninitialized, limit, sizeof limit);
  if (r->no_uninitialized) r->uninitialized_why = "it stops at freeze";
  if (lim) {
    r->status = RC_OCLGRIND_UNCHECKABLE;
    snprintf(r->why, sizeof r->why, "@%s: %s", k->name, lim);
    return 0;
  }
  rc_llvm_export_opts eo = {k, true, false, false};
  char *bc = NULL;
  size_t bclen = 0;
  if (rc_llvm_export(ctx, k->mod, &eo, &bc, &bclen) != 0) return -1;
  const char *tmp = getenv("TMPDIR");
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/reconv-oclgrind.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  static const char *const names[] = {"kernel.bc", "kernel.sim", "out", "err"};
  if (!mkdtemp(dir)) {
    free(bc);
    return rc_error(ctx, "cannot make a directory for oclgrind: %s", strerror(errno));
  }
  char bcpath[PATH_MAX + 16], sim[PATH_MAX + 16], out[PATH_MAX + 16], err[PATH_MAX + 16];
  snprintf(bcpath, sizeof bcpath, "%s/%s", dir, names[0]);
  snprintf(sim, sizeof sim, "%s/%s", dir, names[1]);
  snprintf(out, sizeof out, "%s/%s", dir, names[2]);
  snprintf(err, sizeof err, "%s/%s", dir, names[3]);
  int rc = 0;
  r->status = RC_OCLGRIND_FAILED;
  if (write_file(bcpath, bc, bclen) != 0) snprintf(r->why, sizeof r->why, "cannot write %.300s", bcpath);
  else if (write_simfile(sim, bcpath, k, s, mem, r->why, sizeof r->why) == 0) {
    /* --uninitialized crashes oclgrind 21.10 on some kernels (signal 11; vectors of 3, e.g.):
     * then once more without it */
    for (int attempt = 0; attempt < 2; attempt++) {
      char *args[8];
      int n = 0;
      args[n++] = tool;
      args[n++] = (char *)"--data-races";
      /* one worker thread: work-groups in one order, so that atomics across groups give the same
       * memory on every run (oclgrind spreads the groups over its threads otherwise) */
      args[n++] = (char *)"--num-threads";
      args[n++] = (char *)"1";
      if (!r->no_uninitialized) args[n++] = (char *)"--uninitialized";
      args[n++] = sim;
      args[n] = NULL;
      int st = run_tool(tool, args, out, err, r->why, sizeof r->why);
      if (st < 0 && !r->no_uninitialized && attempt == 0) {
        r->no_uninitialized = true;
        r->uninitialized_why = "its check crashes on this kernel";
        continue;
      }
      char *o = read_all(out), *e = read_all(err);
      rc_sb_free(&r->diagnostics);
      if (e) collect_diagnostics(e, &r->diagnostics);
      const char *undef = e ? strstr(e, "Undefined external function: ") : NULL;
      if (e && strstr(e, "Failed to load bitcode")) {
        /* oclgrind reads the bitcode of the LLVM it was built with (Debian's: LLVM 14) and of older
         * ones only: a reconv built with a newer LLVM writes bitcode it cannot read */
        r->status = RC_OCLGRIND_UNCHECKABLE;
        snprintf(r->why, sizeof r->why,
                 "oclgrind cannot read the bitcode of LLVM %s, which this reconv writes; it reads its "
                 "own LLVM's (Debian's oclgrind: LLVM 14), so build reconv with that LLVM for --oclgrind",
                 RECONV_LLVM_VERSION);
      } else if (undef) { /* an intrinsic newer than oclgrind 21.10 (llvm.abs, llvm.smin, ...) */
        undef += strlen("Undefined external function: ");
        r->status = RC_OCLGRIND_UNCHECKABLE;
        snprintf(r->why, sizeof r->why, "@%s calls %.*s, which oclgrind does not have", k->name,
                 (int)strcspn(undef, "\n"), undef);
      } else if (st == 0 && o && read_dumps(o, k, s, mem, r->why, sizeof r->why) == 0) {
        r->status = RC_OCLGRIND_RAN;
      } else if (st > 0) {
        const char *first = r->diagnostics.data ? r->diagnostics.data : "";
        snprintf(r->why, sizeof r->why, "oclgrind-kernel ended with exit status %d: %.*s", st,
                 (int)strcspn(first, "\n"), first);
      }
      free(o);
      free(e);
      break;
    }
  }
  free(bc);
  if (getenv("RECONV_OCLGRIND_KEEP")) fprintf(stderr, "oclgrind's files are kept in %s\n", dir); /* debugging */
  else remove_dir(dir, names, 4);
  return rc;
#endif
}
