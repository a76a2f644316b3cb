/* bench_llvm_path: what reconv's LLVM-to-LLVM transform costs against what LLVM's own tool needs
 * to read, check and write the same module (issue: "import + reconverge + export of a generated
 * 10^5-block function takes at most 3x what `opt -passes=verify` needs").
 *
 * For each size a kernel of the shared benchmark shape (bench/gen_shape.h, far jumps off so that
 * reconverge's own cost stays linear) is generated and written as LLVM IR text to a temporary
 * file; then each side runs RUNS times in child processes, interleaved (opt, reconv, reconv, opt,
 * opt, reconv, ...: the side that goes first alternates, so that neither is always the one that
 * meets a cold cache or a burst of other work):
 *   - opt:    `opt -passes=verify FILE -S -o OUT` (read, verify, write);
 *   - reconv: what `reconv opt -p reconverge FILE -o OUT.ll` does — import (parse, verify, build the
 *             view), the reconverge pass with reconv's verifier after it (the CLI's default), export
 *             (edit the module in place, LLVM's verifier, print), write, free — in a fork of this
 *             process, with the tool's allocator settings, timing each phase.
 * Each run is measured in CPU seconds (user + system of the child, from wait4) and in wall-clock
 * seconds. The machine is shared: other programs' turns inflate the wall clock, and cache and
 * frequency interference inflate even the CPU time, but nothing makes a run faster than it is
 * undisturbed. So the minimum over the runs is the figure closest to the program's own cost, and
 * the ratio is that of the minima; the medians are printed beside them to show the spread. The
 * phases shown are those of reconv's fastest run.
 *
 *   build/bench/bench_llvm_path [--runs N] [--keep DIR] [max_blocks]
 *       --runs N    runs of each side per size (default 3)
 *       --keep DIR  write the generated modules to DIR and keep them, with the outputs of the last
 *                   runs: DIR/in_BLOCKS.ll, DIR/opt_BLOCKS.ll, DIR/reconv_BLOCKS.ll (for profiling
 *                   `reconv opt -p reconverge DIR/in_100000.ll` on its own)
 *       max_blocks  default 100000: sizes 10^4 and 10^5
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
#ifdef __GLIBC__
#include <malloc.h>
#endif
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

static double wall_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
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

/* One run of one side: the child's CPU seconds and the wall-clock seconds from start to reaped. */
typedef struct run_time {
  double cpu, wall;
} run_time;

/* Waits for PID; its CPU seconds (user + system), or -1 if it did not exit with status 0. */
static double reap(pid_t pid) {
  int status;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? rusage_seconds(&ru) : -1;
}

/* opt -passes=verify IN -S -o OUT in a child; 0, or -1 after a message. */
static int run_opt(const char *in, const char *out, run_time *t) {
  char buf[4096];
  const char *opt = opt_path(buf, sizeof buf);
  char *argv[] = {(char *)opt, "-passes=verify", (char *)in, "-S", "-o", (char *)out, NULL};
  pid_t pid;
  double w0 = wall_now();
  int err = strchr(opt, '/') ? posix_spawn(&pid, opt, NULL, NULL, argv, environ)
                             : posix_spawnp(&pid, opt, NULL, NULL, argv, environ);
  if (err) {
    fprintf(stderr, "bench_llvm_path: cannot start %s: %s\n", opt, strerror(err));
    return -1;
  }
  t->cpu = reap(pid);
  t->wall = wall_now() - w0;
  if (t->cpu < 0) {
    fprintf(stderr, "bench_llvm_path: opt failed on %s\n", in);
    return -1;
  }
  return 0;
}

typedef struct phases {
  int rc;
  double import, pass, export, write, free;
} phases;

/* reconv's transform of IN into OUT in a fork, as `reconv opt -p reconverge IN -o OUT` runs it
 * (tools/cmd_opt.c: the verifier after the pass, so the export skips reconv's verifier; the module
 * freed at the end); the phases' CPU seconds come back through a pipe, the child's whole CPU time
 * from wait4. 0, or -1 after a message. */
static int run_reconv(const char *in, const char *out, run_time *t, phases *ph) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  fflush(stdout);
  double w0 = wall_now();
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
#ifdef __GLIBC__
    /* the allocator settings of the reconv tool (tools/main.c, keep_freed_memory) */
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    rc_ctx ctx;
    rc_ctx_init(&ctx);
    ctx.verify_each = true;
    phases r = {-1, 0, 0, 0, 0, 0};
    double t0 = cpu_now();
    rc_module *m = rc_llvm_import_file(&ctx, in, NULL);
    double t1 = cpu_now();
    bool ok = m != NULL;
    for (uint32_t i = 0; ok && i < m->nkernels; i++) ok = rc_pipeline_run(&ctx, m->kernels[i], "reconverge", NULL, NULL) == 0;
    double t2 = cpu_now();
    char *data = NULL;
    size_t len = 0;
    rc_llvm_export_opts eo = {NULL, false, true, ctx.verify_each};
    ok = ok && rc_llvm_export(&ctx, m, &eo, &data, &len) == 0;
    double t3 = cpu_now();
    ok = ok && write_file(out, data, len) == 0;
    free(data);
    double t4 = cpu_now();
    rc_module_free(m);
    double t5 = cpu_now();
    r.rc = ok ? 0 : -1;
    r.import = t1 - t0;
    r.pass = t2 - t1;
    r.export = t3 - t2;
    r.write = t4 - t3;
    r.free = t5 - t4;
    _exit(write(fds[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
  }
  close(fds[1]);
  t->cpu = reap(pid);
  t->wall = wall_now() - w0;
  ssize_t got = read(fds[0], ph, sizeof *ph);
  close(fds[0]);
  if (got != (ssize_t)sizeof *ph || ph->rc != 0 || t->cpu < 0) {
    fprintf(stderr, "bench_llvm_path: reconv failed on %s\n", in);
    return -1;
  }
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Minimum and median of the N figures at V[0].field, V[1].field, ... (N <= 64). */
typedef struct summary {
  double min, median;
} summary;

static summary summarize(const run_time *v, uint32_t n, bool wall) {
  double s[64];
  for (uint32_t i = 0; i < n; i++) s[i] = wall ? v[i].wall : v[i].cpu;
  qsort(s, n, sizeof s[0], cmp_double);
  summary r = {s[0], n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2};
  return r;
}

static int usage(void) {
  fprintf(stderr, "usage: bench_llvm_path [--runs N] [--keep DIR] [max_blocks]\n");
  return 2;
}

int main(int argc, char **argv) {
  uint32_t max = 100000, runs = 3;
  const char *keep = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = (uint32_t)strtoul(argv[++i], NULL, 10);
      if (runs < 1 || runs > 64) return usage();
    } else if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc) {
      keep = argv[++i];
    } else if (argv[i][0] >= '0' && argv[i][0] <= '9') {
      max = (uint32_t)strtoul(argv[i], NULL, 10);
    } else {
      return usage();
    }
  }
  char dir[4096];
  if (keep) {
    if (mkdir(keep, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "bench_llvm_path: cannot make %s: %s\n", keep, strerror(errno));
      return 1;
    }
    snprintf(dir, sizeof dir, "%s", keep);
  } else {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/bench_llvm_path_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
      fprintf(stderr, "bench_llvm_path: cannot make a temporary directory: %s\n", strerror(errno));
      return 1;
    }
  }
  printf("%u runs of each side, interleaved; seconds as min / median over the runs; ratio = reconv's min / "
         "opt's min\n",
         runs);
  printf("%7s %6s | %-5s %15s %15s | %-30s | %6s %6s\n", "", "", "", "opt verify", "reconv",
         "reconv's fastest run (CPU s)", "ratio", "ratio");
  printf("%7s %6s | %-5s %15s %15s | %6s %6s %6s %6s %5s | %6s %6s\n", "blocks", "MB .ll", "clock", "min / med",
         "min / med", "import", "pass", "export", "write", "free", "CPU", "wall");
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
    snprintf(in, sizeof in, "%s/in_%u.ll", dir, n);
    snprintf(out1, sizeof out1, "%s/opt_%u.ll", dir, n);
    snprintf(out2, sizeof out2, "%s/reconv_%u.ll", dir, n);
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
    run_time topt[64], trc[64];
    phases ph[64];
    uint32_t fastest = 0;
    for (uint32_t r = 0; r < runs && status == 0; r++) {
      /* alternate which side goes first */
      for (int side = 0; side < 2 && status == 0; side++) {
        if ((side == 0) == (r % 2 == 0)) status = run_opt(in, out1, &topt[r]) ? 1 : 0;
        else status = run_reconv(in, out2, &trc[r], &ph[r]) ? 1 : 0;
      }
      if (status == 0 && trc[r].cpu < trc[fastest].cpu) fastest = r;
    }
    if (status) break;
    summary oc = summarize(topt, runs, false), ow = summarize(topt, runs, true);
    summary rcpu = summarize(trc, runs, false), rw = summarize(trc, runs, true);
    const phases *f = &ph[fastest];
    printf("%7u %6.1f | %-5s %6.2f / %6.2f %6.2f / %6.2f | %6.2f %6.2f %6.2f %6.2f %5.2f | %5.2fx %5.2fx\n", n,
           len / 1e6, "CPU", oc.min, oc.median, rcpu.min, rcpu.median, f->import, f->pass, f->export, f->write,
           f->free, rcpu.min / oc.min, rw.min / ow.min);
    printf("%7s %6s | %-5s %6.2f / %6.2f %6.2f / %6.2f |\n", "", "", "wall", ow.min, ow.median, rw.min, rw.median);
    fflush(stdout);
    if (!keep) {
      remove(in);
      remove(out1);
      remove(out2);
    }
  }
  if (!keep) rmdir(dir);
  return status;
}
#endif
