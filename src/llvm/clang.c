/* Compiling OpenCL C with clang: `clang -x cl -cl-std=CL1.2 -O2 -target amdgcn-amd-amdhsa -nogpulib
 * -emit-llvm -c` plus what the importer wants to see (kernel argument names, value names, line
 * tables for diagnostics). clang runs as a child process; its diagnostics come back through ctx. */
#include "bridge.h"
#include "llvm_compat.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#ifndef RECONV_LLVM_BINDIR
#define RECONV_LLVM_BINDIR ""
#endif

static bool executable(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* Start an LLVM tool (clang, opt: the first candidate that can be started) with argv[1..]; its
 * standard output and error go to errfd. An explicit choice in the environment variable env_var is
 * the only one tried; otherwise the tool of the LLVM reconv was built with comes first. */
int bridge_spawn_tool(const char *tool, const char *env_var, char **argv, int errfd, pid_t *pid,
                      char *tried, size_t triedlen) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, errfd, 1);
  posix_spawn_file_actions_adddup2(&fa, errfd, 2);
  const char *env = getenv(env_var);
  char bindir_tool[4096], versioned[256];
  snprintf(bindir_tool, sizeof bindir_tool, "%s/%s", RECONV_LLVM_BINDIR, tool);
  snprintf(versioned, sizeof versioned, "%s-%d", tool, LLVM_VERSION_MAJOR);
  const char *candidates[4];
  int n = 0;
  if (env && *env) {
    candidates[n++] = env;
  } else {
    if (RECONV_LLVM_BINDIR[0] && executable(bindir_tool)) candidates[n++] = bindir_tool;
    candidates[n++] = versioned;
    candidates[n++] = tool;
  }
  int err = ENOENT;
  tried[0] = 0;
  for (int i = 0; i < n; i++) {
    argv[0] = (char *)candidates[i];
    err = strchr(candidates[i], '/') ? posix_spawn(pid, candidates[i], &fa, NULL, argv, environ)
                                     : posix_spawnp(pid, candidates[i], &fa, NULL, argv, environ);
    size_t used = strlen(tried);
    snprintf(tried + used, triedlen - used, "%s%s", used ? ", " : "", candidates[i]);
    if (err == 0) break;
  }
  posix_spawn_file_actions_destroy(&fa);
  return err;
}

int bridge_temp_file(rc_ctx *ctx, const char *path, const char *tool, char *buf, size_t len) {
  const char *tmpdir = getenv("TMPDIR");
  snprintf(buf, len, "%s/reconv-%s-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp", tool); /* mkstemp's template */
  int fd = mkstemp(buf);
  if (fd < 0)
    return rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot create a temporary file for %s: %s", tool,
                     strerror(errno));
  close(fd);
  return 0;
}

char *bridge_read_all(int fd, size_t *len) {
  rc_strbuf sb;
  rc_sb_init(&sb);
  char buf[4096];
  for (;;) {
    ssize_t got = read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    for (ssize_t i = 0; i < got; i++) rc_sb_putc(&sb, buf[i]);
  }
  if (!sb.data) rc_sb_puts(&sb, "");
  while (sb.len && (sb.data[sb.len - 1] == '\n' || sb.data[sb.len - 1] == '\r')) sb.data[--sb.len] = 0;
  *len = sb.len;
  return sb.data;
}

int bridge_compile_cl(rc_ctx *ctx, const char *path, const rc_llvm_import_opts *o, char **bitcode,
                      size_t *len) {
  const char *triple = o && o->target ? o->target : "amdgcn-amd-amdhsa";
  const char *olevel = o && o->opt_level ? o->opt_level : "2";
  char oflag[8], tmpl[4096];
  snprintf(oflag, sizeof oflag, "-O%.2s", olevel);
  if (bridge_temp_file(ctx, path, "clang", tmpl, sizeof tmpl)) return -1;

  RC_VEC(char *) args = {0};
  rc_vec_push(&args, NULL); /* argv[0], the clang found */
  char *fixed[] = {"-x", "cl", "-cl-std=CL1.2", oflag, "-target", (char *)triple, "-emit-llvm", "-c",
                   /* kernel argument names name the parameters; value names give readable IR;
                    * line tables let diagnostics point into the .cl file */
                   "-cl-kernel-arg-info", "-fno-discard-value-names", "-gline-tables-only"};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) rc_vec_push(&args, fixed[i]);
  if (strncmp(triple, "amdgcn", 6) == 0 || strncmp(triple, "nvptx", 5) == 0)
    rc_vec_push(&args, "-nogpulib"); /* no device library: builtins stay calls the importer maps */
  RC_VEC(char *) owned = {0};
  for (unsigned i = 0; o && i < o->ndefines; i++) {
    size_t n = strlen(o->defines[i]) + 3;
    char *d = rc_xmalloc(n);
    snprintf(d, n, "-D%s", o->defines[i]);
    rc_vec_push(&owned, d);
    rc_vec_push(&args, d);
  }
  rc_vec_push(&args, "-o");
  rc_vec_push(&args, tmpl);
  rc_vec_push(&args, "--");
  rc_vec_push(&args, (char *)path);
  rc_vec_push(&args, NULL);

  int rc = -1;
  int pipefd[2];
  if (pipe(pipefd) != 0) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot run clang: %s", strerror(errno));
    goto done;
  }
  pid_t pid;
  char tried[8192];
  int err = bridge_spawn_tool("clang", "RECONV_CLANG", args.data, pipefd[1], &pid, tried, sizeof tried);
  close(pipefd[1]);
  if (err) {
    close(pipefd[0]);
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0,
              "cannot run clang (tried %s): %s; install clang or set RECONV_CLANG", tried,
              strerror(err));
    goto done;
  }
  size_t errlen;
  char *errtext = bridge_read_all(pipefd[0], &errlen);
  close(pipefd[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if (WIFEXITED(status))
      rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "clang could not compile it (exit %d):\n%s",
                WEXITSTATUS(status), errtext);
    else
      rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "clang was killed by signal %d:\n%s",
                WTERMSIG(status), errtext);
    free(errtext);
    goto done;
  }
  if (errlen) rc_report(ctx, RC_SEV_WARNING, path, 0, 0, "clang says:\n%s", errtext);
  free(errtext);

  FILE *f = fopen(tmpl, "rb");
  if (!f) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "clang wrote no output: %s", strerror(errno));
    goto done;
  }
  rc_strbuf sb;
  rc_sb_init(&sb);
  char buf[8192];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0)
    for (size_t i = 0; i < got; i++) rc_sb_putc(&sb, buf[i]);
  fclose(f);
  *bitcode = sb.data;
  *len = sb.len;
  rc = sb.len ? 0 : rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "clang wrote no output");
  if (rc) free(sb.data);
done:
  remove(tmpl);
  for (uint32_t i = 0; i < owned.len; i++) free(owned.data[i]);
  rc_vec_free(&owned);
  rc_vec_free(&args);
  return rc;
}
