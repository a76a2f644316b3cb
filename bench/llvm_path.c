/* bench_llvm_path: what reconv's LLVM-to-LLVM transform costs against what LLVM's own tool needs
 * to read, check and write the same module (issue: "import + reconverge + export of a generated
 * 10^5-block function takes at most 3x what `opt -passes=verify` needs").
 *
 * For each size a kernel of the shared benchmark shape (bench/gen_shape.h, far jumps off so that
 * reconverge's own cost stays linear) is generated and written as LLVM IR text to a temporary
 * file; then, one after the other, each in a child process,
 *   - opt:    `opt -passes=verify FILE -S -o OUT` (read, verify, write);
 *   - reconv: what `reconv opt -p reconverge FILE -o OUT.ll` does — import (parse, verify, build the
 *             view), the reconverge pass, export (edit the module in place, verify, print), write —
 *             in a fork of this process, timing each phase.
 * Figures are CPU seconds of each child (user + system, from wait4): the machine is shared, and the
 * wall clock would count other programs' turns. The ratio is reconv's total over opt's.
 *
 *   build/bench/bench_llvm_path [max_blocks]     (default 100000: sizes 10^4 and 10^5)
 *
 * opt is $RECONV_OPT, else the opt next to llvm-config's bindir, else `opt` on PATH. */
#define _DEFAULT_SOURCE /* wait4 */
#include "gen_shape.h"
#include "reconv/gen.h"
#include "reconv/transform.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef RECONV_HAVE_LLVM
int main(void) {
  fprintf(stderr, "bench_llvm_path needs the LLVM bridge (reconv was built without LLVM)\n");
  return 1;
}
#else
#include "reconv/llvm.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static double rusage_seconds(const struct rusage *ru) {
  return ru->ru_utime.tv_sec + ru->ru_utime.tv_usec * 1e-6 + ru->ru_stime.tv_sec + ru->ru_stime.tv_usec * 1e-6;
}

static const char *opt_path(char *buf, size_t size) {
  const char *env = getenv("RECONV_OPT");
  if (env && *env) return env;
  snprintf(buf, size, "%s/opt", RECONV_LLVM_BINDIR);
  struct stat st;
  if (RECONV_LLVM_BINDIR[0] && stat(buf, &st) == 0 && access(buf, X_OK) == 0) return buf;
  return "opt";
}

static int write_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  bool ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok ? 0 : -1;
}

/* opt -passes=verify IN -S -o OUT in a child; its CPU seconds, or -1. */
static double run_opt(const char *in, const char *out) {
  char buf[4096];
  const char *opt = opt_path(buf, sizeof buf);
  char *argv[] = {(char *)opt, "-passes=verify", (char *)in, "-S", "-o", (char *)out, NULL};
  pid_t pid;
  int err = strchr(opt, '/') ? posix_spawn(&pid, opt, NULL, NULL, argv, environ)
                             : posix_spawnp(&pid, opt, NULL, NULL, argv, environ);
  if (err) {
    fprintf(stderr, "bench_llvm_path: cannot start %s: %s\n", opt, strerror(err));
    return -1;
  }
  int status;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench_llvm_path: opt failed on %s\n", in);
    return -1;
  }
  return rusage_seconds(&ru);
}

typedef struct phases {
  int rc;
  double import, pass, export, write;
} phases;

/* reconv's transform of IN into OUT in a fork; the phases' CPU seconds come back through a pipe,
 * the child's whole CPU time from wait4. */
static double run_reconv(const char *in, const char *out, phases *ph) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    close(fds[0]);
    rc_ctx ctx;
    rc_ctx_init(&ctx);
    phases r = {-1, 0, 0, 0, 0};
    double t0 = cpu_now();
    rc_module *m = rc_llvm_import_file(&ctx, in, NULL);
    double t1 = cpu_now();
    bool ok = m != NULL;
    for (uint32_t i = 0; ok && i < m->nkernels; i++) ok = rc_pipeline_run(&ctx, m->kernels[i], "reconverge", NULL, NULL) == 0;
    double t2 = cpu_now();
    char *data = NULL;
    size_t len = 0;
    rc_llvm_export_opts eo = {NULL, false, true, false};
    ok = ok && rc_llvm_export(&ctx, m, &eo, &data, &len) == 0;
    double t3 = cpu_now();
    ok = ok && write_file(out, data, len) == 0;
    double t4 = cpu_now();
    r.rc = ok ? 0 : -1;
    r.import = t1 - t0;
    r.pass = t2 - t1;
    r.export = t3 - t2;
    r.write = t4 - t3;
    _exit(write(fds[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
  }
  close(fds[1]);
  int status;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  ssize_t got = read(fds[0], ph, sizeof *ph);
  close(fds[0]);
  if (got != (ssize_t)sizeof *ph || ph->rc != 0 || !WIFEXITED(status)) {
    fprintf(stderr, "bench_llvm_path: reconv failed on %s\n", in);
    return -1;
  }
  return rusage_seconds(&ru);
}

int main(int argc, char **argv) {
  uint32_t max = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 100000;
  const char *dir = getenv("TMPDIR");
  char tmpl[4096];
  snprintf(tmpl, sizeof tmpl, "%s/bench_llvm_path_XXXXXX", dir && *dir ? dir : "/tmp");
  if (!mkdtemp(tmpl)) {
    fprintf(stderr, "bench_llvm_path: cannot make a temporary directory: %s\n", strerror(errno));
    return 1;
  }
  printf("%9s %9s %10s | %8s %8s %8s %8s %9s | %8s\n", "blocks", "MB of .ll", "opt verify", "import",
         "reconv.", "export", "write", "reconv", "ratio");
  int status = 0;
  for (uint32_t n = 10000; n <= max && status == 0; n *= 10) {
    rc_ctx ctx;
    rc_ctx_init(&ctx);
    rc_gen_opts o;
    bench_gen_shape(&o, 1, n);
    o.irreducible = false;
    o.far = 0;
    rc_module *m = rc_module_new(&ctx, "bench");
    if (!rc_gen_kernel(m, &o, NULL)) {
      rc_module_free(m);
      m = NULL;
    }
    char in[4200], out1[4200], out2[4200];
    snprintf(in, sizeof in, "%s/in.ll", tmpl);
    snprintf(out1, sizeof out1, "%s/opt.ll", tmpl);
    snprintf(out2, sizeof out2, "%s/reconv.ll", tmpl);
    char *data = NULL;
    size_t len = 0;
    rc_llvm_export_opts eo = {NULL, false, true, false};
    if (!m || rc_llvm_export(&ctx, m, &eo, &data, &len) != 0 || write_file(in, data, len) != 0) {
      fprintf(stderr, "bench_llvm_path: cannot write the generated kernel\n");
      status = 1;
    }
    free(data);
    rc_module_free(m);
    if (status) break;
    double topt = run_opt(in, out1);
    phases ph;
    double trc = topt < 0 ? -1 : run_reconv(in, out2, &ph);
    if (topt < 0 || trc < 0) {
      status = 1;
      break;
    }
    printf("%9u %9.1f %9.2fs | %7.2fs %7.2fs %7.2fs %7.2fs %8.2fs | %7.2fx\n", n, len / 1e6, topt, ph.import,
           ph.pass, ph.export, ph.write, trc, trc / topt);
    fflush(stdout);
    remove(in);
    remove(out1);
    remove(out2);
  }
  rmdir(tmpl);
  return status;
}
#endif
