/* bench_structurize: reconv's reconverge against LLVM's StructurizeCFG, side by side, on generated
 * kernels of 10^4, 10^5 and 10^6 blocks (the shape of bench/reconverge.c: nested loops, some
 * irreducible, 4 exits, half the branches divergent).
 *
 * For each size the kernel is generated once and exported as bitcode (the bridge's export) to a
 * temporary file; then, each in a child process of its own, one after the other,
 *   - reconverge: rc_pipeline_run("reconverge") on the kernel in memory (a fork of this process),
 *     verifier off: the pass and the analyses it computes, nothing else;
 *   - LLVM: `opt -passes=structurizecfg -disable-output -disable-verify -time-passes FILE` as a
 *     child process. The figure is opt's own "Pass execution timing report" total (StructurizeCFG
 *     and the analyses it requires: dominator and post-dominator trees, dominance frontiers,
 *     regions), which leaves out reading the bitcode and starting the process; the child's whole
 *     run (wall clock, peak memory) is printed beside it.
 * Both figures are CPU seconds (user + system): the machine is shared, and the wall clock would
 * also count other programs' turns. A child (either one) still running after the time limit (wall
 * clock) is killed and reported as "> N". DESIGN.md reports LLVM's full structurizer pipeline as
 * super-linear (about 52 s at 10^4 blocks).
 *
 *   build/bench/bench_structurize [--reducible] [max_blocks] [timeout_s] [passes]
 *
 * max_blocks: largest size (default 1000000); timeout_s: limit for each child (default 900);
 * passes: the opt pipeline (default structurizecfg). structurizecfg alone is LLVM's pass without
 * its preconditions (reducible CFG, loops with one exit): on these kernels its output is not
 * trace-equivalent (tests/golden/llvm/structurizecfg_preconditions.test), so its time is a lower
 * bound on LLVM's; the full pipeline, fix-irreducible,unify-loop-exits,structurizecfg, crashes
 * in LLVM 14's fix-irreducible on irreducible cycles nested in irreducible cycles, which the
 * default shape has (reported as a crash). --reducible generates the same shape without
 * irreducible loops, where the full pipeline runs and is correct. opt is $RECONV_OPT, else the opt
 * next to llvm-config's bindir, else `opt` on PATH.
 */
#define _DEFAULT_SOURCE /* wait4: the child's own peak memory */
#include "gen_shape.h"
#include "reconv/gen.h"
#include "reconv/transform.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef RECONV_HAVE_LLVM
int main(void) {
  fprintf(stderr, "bench_structurize needs the LLVM bridge (reconv was built without LLVM)\n");
  return 1;
}
#else
#include "reconv/llvm.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* CPU time of this process: the figure both sides are compared by, since on a shared machine the
 * wall clock also counts other programs' turns. */
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void nap(void) {
  struct timespec t = {0, 5 * 1000 * 1000};
  nanosleep(&t, NULL);
}

/* Wait for child pid, started at t0; past timeout seconds, kill it (and still reap it). */
static int wait_child(pid_t pid, double t0, double timeout, int *status, struct rusage *ru,
                      bool *timed_out) {
  *timed_out = false;
  memset(ru, 0, sizeof *ru);
  for (;;) {
    pid_t got = wait4(pid, status, WNOHANG, ru);
    if (got == pid) return 0;
    if (got < 0 && errno != EINTR) {
      fprintf(stderr, "bench_structurize: waiting for a child: %s\n", strerror(errno));
      return -1;
    }
    if (!*timed_out && now() - t0 > timeout) {
      kill(pid, SIGKILL);
      *timed_out = true;
    }
    nap();
  }
}

/* What the reconverge child reports through its pipe. */
typedef struct reconverge_run {
  int rc;
  double seconds;
  uint32_t after;
} reconverge_run;

/* Time reconverge on k in a child process (a fork shares the generated kernel for free), so that
 * a run past the time limit can be stopped like opt's. Returns 1 on a timeout, -1 on a failure. */
static int run_reconverge(rc_ctx *ctx, rc_kernel *k, double timeout, reconverge_run *r) {
  int fds[2];
  if (pipe(fds) != 0) {
    fprintf(stderr, "bench_structurize: pipe: %s\n", strerror(errno));
    return -1;
  }
  fflush(stdout);
  double t0 = now();
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "bench_structurize: fork: %s\n", strerror(errno));
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    reconverge_run res;
    double start = cpu_now();
    res.rc = rc_pipeline_run(ctx, k, "reconverge[order=dfpd]", NULL, NULL);
    res.seconds = cpu_now() - start;
    res.after = k->nblocks;
    _exit(write(fds[1], &res, sizeof res) == (ssize_t)sizeof res ? 0 : 1);
  }
  close(fds[1]);
  int status;
  struct rusage ru;
  bool timed_out;
  int rc = wait_child(pid, t0, timeout, &status, &ru, &timed_out);
  ssize_t got = rc == 0 && !timed_out ? read(fds[0], r, sizeof *r) : 0;
  close(fds[0]);
  if (rc != 0) return -1;
  if (timed_out) return 1;
  if (got != (ssize_t)sizeof *r || r->rc != 0) {
    fprintf(stderr, "bench_structurize: reconverge failed\n");
    return -1;
  }
  return 0;
}

/* How one opt run went. */
typedef struct opt_run {
  enum { OPT_DONE, OPT_TIMEOUT, OPT_FAILED } how;
  double pass_seconds;  /* opt's "Pass execution timing report" total, user + system CPU time;
                         * < 0 when not found */
  double wall_seconds;  /* the child's whole run */
  double peak_mb;       /* the child's peak resident memory */
  int status;           /* waitpid status when OPT_FAILED */
} opt_run;

static const char *opt_path(char *buf, size_t size) {
  const char *env = getenv("RECONV_OPT");
  if (env && *env) return env;
  snprintf(buf, size, "%s/opt", RECONV_LLVM_BINDIR);
  struct stat st;
  if (RECONV_LLVM_BINDIR[0] && stat(buf, &st) == 0 && access(buf, X_OK) == 0) return buf;
  return "opt";
}

/* The first "Total Execution Time: X seconds (Y wall clock)" of opt's -time-passes report, which
 * is the pass execution report (the parsing report follows it); X is user + system CPU time. */
static double pass_total(const char *report_path) {
  FILE *f = fopen(report_path, "r");
  if (!f) return -1;
  char line[512];
  double t = -1;
  while (fgets(line, sizeof line, f)) {
    const char *p = strstr(line, "Total Execution Time:");
    if (p && sscanf(p, "Total Execution Time: %lf", &t) == 1) break;
  }
  fclose(f);
  return t;
}

/* Run `opt -passes=PASSES -disable-output -disable-verify -time-passes INPUT`, its report going
 * to REPORT, for at most timeout seconds. */
static int run_opt(const char *passes, const char *input, const char *report, double timeout,
                   opt_run *r) {
  char pathbuf[4096], passes_arg[1024];
  const char *opt = opt_path(pathbuf, sizeof pathbuf);
  snprintf(passes_arg, sizeof passes_arg, "-passes=%s", passes);
  char *argv[] = {(char *)opt, passes_arg, "-disable-output", "-disable-verify", "-time-passes",
                  (char *)input, NULL};
  int fd = open(report, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) {
    fprintf(stderr, "bench_structurize: cannot write %s: %s\n", report, strerror(errno));
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fd, 2);
  pid_t pid;
  double t0 = now();
  int err = strchr(opt, '/') ? posix_spawn(&pid, opt, &fa, NULL, argv, environ)
                             : posix_spawnp(&pid, opt, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fd);
  if (err) {
    fprintf(stderr, "bench_structurize: cannot start %s: %s\n", opt, strerror(err));
    return -1;
  }
  int status;
  struct rusage ru;
  bool timed_out;
  if (wait_child(pid, t0, timeout, &status, &ru, &timed_out) != 0) return -1;
  r->how = timed_out ? OPT_TIMEOUT : OPT_DONE;
  r->wall_seconds = now() - t0;
  r->peak_mb = ru.ru_maxrss / 1024.0;
  r->status = status;
  r->pass_seconds = -1;
  if (timed_out) return 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    r->how = OPT_FAILED;
    return 0;
  }
  r->pass_seconds = pass_total(report);
  return 0;
}

/* Write the kernel as bitcode to a fresh temporary file; its name goes to path. */
static int export_bitcode(rc_ctx *ctx, const rc_module *m, char *path, size_t size) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, size, "%s/bench_structurize_XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) {
    fprintf(stderr, "bench_structurize: cannot create %s: %s\n", path, strerror(errno));
    return -1;
  }
  rc_llvm_export_opts eo = {NULL, true, true, false};
  char *data = NULL;
  size_t len = 0;
  int rc = rc_llvm_export(ctx, m, &eo, &data, &len);
  for (size_t done = 0; rc == 0 && done < len;) {
    ssize_t w = write(fd, data + done, len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      fprintf(stderr, "bench_structurize: writing %s: %s\n", path, strerror(errno));
      rc = -1;
    } else {
      done += (size_t)w;
    }
  }
  free(data);
  if (close(fd) != 0) rc = -1;
  if (rc) unlink(path);
  return rc;
}

int main(int argc, char **argv) {
  uint32_t max = 1000000;
  double timeout = 900;
  const char *passes = "structurizecfg";
  bool reducible = false;
  int pos = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reducible") == 0) reducible = true;
    else if (pos == 0 && ++pos) max = (uint32_t)strtoul(argv[i], NULL, 10);
    else if (pos == 1 && ++pos) timeout = strtod(argv[i], NULL);
    else if (pos == 2 && ++pos) passes = argv[i];
    else max = 0; /* a usage error */
  }
  if (max < 10000 || !(timeout > 0)) {
    fprintf(stderr, "usage: bench_structurize [--reducible] [max_blocks >= 10000] [timeout_s > 0] "
                    "[passes]\n");
    return 2;
  }
  printf("reconverge (DFPD order) vs opt -passes=%s on %s kernels, each timed on its own "
         "(see bench/structurize.c)\n", passes, reducible ? "reducible" : "irreducible");
  printf("%9s %11s %9s | %11s %12s %9s %9s\n", "blocks", "reconverge", "after", "opt passes",
         "opt process", "opt peak", "opt/ours");
  printf("%9s %11s %9s | %11s %12s %9s %9s\n", "", "CPU s", "blocks", "CPU s", "wall s", "MB", "");
  for (uint32_t n = 10000; n <= max; n *= 10) {
    rc_ctx ctx;
    rc_ctx_init(&ctx);
    ctx.verify_each = false; /* time the pass, not the verifier */
    rc_module *m = rc_module_new(&ctx, "bench");
    rc_gen_opts o;
    bench_gen_shape(&o, 42, n);
    o.irreducible = !reducible;
    rc_kernel *k = rc_gen_kernel(m, &o, NULL);
    char input[4096], report[4200];
    if (!k || export_bitcode(&ctx, m, input, sizeof input) != 0) {
      fprintf(stderr, "bench_structurize: generating or exporting %u blocks failed\n", n);
      rc_module_free(m);
      return 1;
    }
    snprintf(report, sizeof report, "%s.time", input);

    reconverge_run ours;
    int rc = run_reconverge(&ctx, k, timeout, &ours);
    rc_module_free(m);
    if (rc < 0) {
      fprintf(stderr, "bench_structurize: reconverge failed at %u blocks\n", n);
      unlink(input);
      return 1;
    }

    opt_run r;
    if (run_opt(passes, input, report, timeout, &r) != 0) {
      unlink(input);
      unlink(report);
      return 1;
    }
    char lim[32];
    snprintf(lim, sizeof lim, "> %g", timeout);
    if (rc == 1) printf("%9u %11s %9s | ", n, lim, "");
    else printf("%9u %11.3f %9u | ", n, ours.seconds, ours.after);
    if (r.how == OPT_TIMEOUT) {
      printf("%11s %12s %9.0f %9s\n", lim, lim, r.peak_mb, "");
    } else if (r.how == OPT_FAILED) {
      if (WIFSIGNALED(r.status)) printf("opt crashed (signal %d) after %.2f s\n", WTERMSIG(r.status),
                                        r.wall_seconds);
      else printf("opt failed (exit %d) after %.2f s\n", WEXITSTATUS(r.status), r.wall_seconds);
    } else if (r.pass_seconds < 0) {
      printf("%11s %12.3f %9.0f %9s  (no -time-passes report)\n", "?", r.wall_seconds, r.peak_mb, "");
    } else {
      printf("%11.3f %12.3f %9.0f", r.pass_seconds, r.wall_seconds, r.peak_mb);
      if (rc == 0) printf(" %8.1fx", r.pass_seconds / (ours.seconds > 0 ? ours.seconds : 1e-9));
      printf("\n");
    }
    fflush(stdout);
    unlink(input);
    unlink(report);
  }
  return 0;
}
#endif
