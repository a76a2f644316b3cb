/* StructurizeCFG with uniform regions skipped, on every LLVM reconv supports.
 *
 * LLVM's structurizer can leave a region alone when its branches are uniform (StructurizeCFG.cpp,
 * SkipUniformRegions: a wave takes such a branch as one, so its CFG needs no flow blocks); that is
 * what AMDGPU's users turn on with `-structurizecfg-skip-uniform-regions`. LLVM 20 spells it
 * `structurizecfg<skip-uniform-regions>` in a new-pass-manager pipeline; LLVM 14-19's new pass
 * manager has no such parameter and ignores the flag, only their legacy pass reads it. So on those
 * versions a top-level `structurizecfg<skip-uniform-regions>` in a pipeline is run by `opt` of the
 * same LLVM as the legacy pass (`opt -structurizecfg -structurizecfg-skip-uniform-regions`, which
 * opt 17+ pins to the legacy pass manager and opt 14-16 runs with -enable-new-pm=0), the passes
 * around it by LLVMRunPasses as usual. The uniformity it consults is LLVM's, through the target of
 * the module's triple (amdgcn: kernel arguments uniform, work-item ids divergent).
 *
 * The module makes a round trip through bitcode, so the blocks that existed before it are found
 * again by name: unnamed blocks get a temporary name for the trip. */
#include "bridge.h"
#include "llvm_compat.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char skip_uniform_pass[] = "structurizecfg<skip-uniform-regions>";
static const char trip_prefix[] = "reconv.trip.";

/* The length of the pass at the start of p, up to its ',' at nesting depth 0. */
static size_t top_level_pass_len(const char *p) {
  int depth = 0;
  size_t i = 0;
  for (; p[i]; i++) {
    if (p[i] == '(' || p[i] == '<') depth++;
    else if (p[i] == ')' || p[i] == '>') depth--;
    else if (p[i] == ',' && depth == 0) break;
  }
  return i;
}

static bool is_skip_uniform(const char *p, size_t n) {
  return n == sizeof skip_uniform_pass - 1 && strncmp(p, skip_uniform_pass, n) == 0;
}

static char *block_key(LLVMValueRef f, LLVMBasicBlockRef bb) {
  size_t fn, bn;
  const char *fname = LLVMGetValueName2(f, &fn);
  const char *bname = LLVMGetValueName2(LLVMBasicBlockAsValue(bb), &bn);
  char *key = rc_xmalloc(fn + bn + 2);
  memcpy(key, fname, fn);
  key[fn] = '\001';
  memcpy(key + fn + 1, bname, bn);
  key[fn + bn + 1] = 0;
  return key;
}

typedef RC_VEC(char *) key_vec;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Name the unnamed blocks for the trip; collect the keys of the blocks that were there before the
 * pipeline (those `before` holds under their current name), sorted. */
static void name_for_trip(LLVMModuleRef m, const ptrmap *before, key_vec *old_keys) {
  uint32_t trip = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
      size_t n;
      LLVMValueRef v = LLVMBasicBlockAsValue(bb);
      const char *name = LLVMGetValueName2(v, &n);
      const char *old = ptrmap_get(before, bb);
      bool was_there = old && strlen(old) == n && memcmp(old, name, n) == 0;
      if (n == 0) {
        char tmp[64];
        snprintf(tmp, sizeof tmp, "%s%" PRIu32, trip_prefix, trip++);
        LLVMSetValueName2(v, tmp, strlen(tmp));
      }
      if (was_there) rc_vec_push(old_keys, block_key(f, bb));
    }
  if (old_keys->len) qsort(old_keys->data, old_keys->len, sizeof old_keys->data[0], cmp_str);
}

/* `before` for the module back from the trip: its blocks found under an old key, with their names
 * (trip names removed again). */
static void rebuild_before(LLVMModuleRef m, ptrmap *before, key_vec *old_keys) {
  for (uint32_t i = 0; i < before->cap; i++) free(before->slots[i].val);
  ptrmap_free(before);
  ptrmap_init(before);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
      char *key = block_key(f, bb);
      bool was_there = old_keys->len && bsearch(&key, old_keys->data, old_keys->len, sizeof key, cmp_str);
      free(key);
      size_t n;
      LLVMValueRef v = LLVMBasicBlockAsValue(bb);
      const char *name = LLVMGetValueName2(v, &n);
      if (n > sizeof trip_prefix - 1 && memcmp(name, trip_prefix, sizeof trip_prefix - 1) == 0) {
        LLVMSetValueName2(v, "", 0);
        n = 0;
      }
      if (!was_there) continue;
      char *copy = rc_xmalloc(n + 1);
      memcpy(copy, name, n);
      copy[n] = 0;
      ptrmap_put(before, bb, copy);
    }
}

/* LLVM 14 reads bitcode with opaque pointers only in -opaque-pointers mode; its C API cannot ask
 * a context for its mode, but a pointer type made in it prints as `ptr` in that mode. */
static bool context_has_opaque_pointers(LLVMContextRef c) {
  char *s = LLVMPrintTypeToString(LLVMPointerType(LLVMInt8TypeInContext(c), 0));
  bool opaque = strcmp(s, "ptr") == 0;
  LLVMDisposeMessage(s);
  return opaque;
}

/* Run `opt` on in (bitcode) writing out; its messages are reported. */
static int run_opt(rc_ctx *ctx, const char *path, LLVMContextRef c, const char *in, const char *out) {
  RC_VEC(char *) argv = {0};
  char *fixed[] = {NULL, "-structurizecfg", "-structurizecfg-skip-uniform-regions"};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) rc_vec_push(&argv, fixed[i]);
  if (LLVM_VERSION_MAJOR < 17) rc_vec_push(&argv, "-enable-new-pm=0");
  if (LLVM_VERSION_MAJOR < 15 && context_has_opaque_pointers(c)) rc_vec_push(&argv, "-opaque-pointers");
  char *tail[] = {"-o", (char *)out, (char *)in, NULL};
  for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++) rc_vec_push(&argv, tail[i]);
  int pipefd[2];
  if (pipe(pipefd) != 0) {
    rc_vec_free(&argv);
    return rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot run opt: %s", strerror(errno));
  }
  pid_t pid;
  char tried[8192];
  int err = bridge_spawn_tool("opt", "RECONV_OPT", argv.data, pipefd[1], &pid, tried, sizeof tried);
  rc_vec_free(&argv);
  close(pipefd[1]);
  if (err) {
    close(pipefd[0]);
    return rc_report(ctx, RC_SEV_ERROR, path, 0, 0,
                     "%s needs LLVM's opt (tried %s): %s; install LLVM %d's tools or set RECONV_OPT",
                     skip_uniform_pass, tried, strerror(err), LLVM_VERSION_MAJOR);
  }
  size_t errlen;
  char *errtext = bridge_read_all(pipefd[0], &errlen);
  close(pipefd[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int rc = 0;
  const char *ran = strrchr(tried, ','); /* the candidate that started */
  ran = ran ? ran + 2 : tried;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    rc = rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "%s: `%s -structurizecfg -structurizecfg-skip-uniform-"
                   "regions` failed (%s %d)%s%s", skip_uniform_pass, ran,
                   WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                   errlen ? ":\n" : "", errtext);
  free(errtext);
  return rc;
}

/* The legacy pass on *m, which is replaced by its result (in the same context); before is kept
 * true for the new module. */
static int legacy_structurize(rc_ctx *ctx, const char *path, LLVMModuleRef *m, ptrmap *before) {
  bridge_drop_optnone(*m); /* the legacy pass skips optnone functions as the new one would */
  key_vec old_keys = {0};
  name_for_trip(*m, before, &old_keys);
  char in[4096], out[4096];
  int rc = -1;
  in[0] = out[0] = 0;
  if (bridge_temp_file(ctx, path, "opt", in, sizeof in) || bridge_temp_file(ctx, path, "opt", out, sizeof out))
    goto done;
  if (LLVMWriteBitcodeToFile(*m, in) != 0) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot write %s for opt", in);
    goto done;
  }
  if (run_opt(ctx, path, LLVMGetModuleContext(*m), in, out) != 0) goto done;
  LLVMMemoryBufferRef mb = NULL;
  char *msg = NULL;
  LLVMModuleRef fresh = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(out, &mb, &msg) ||
      LLVMParseBitcodeInContext2(LLVMGetModuleContext(*m), mb, &fresh)) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot read back what opt wrote for %s%s%s", skip_uniform_pass,
              msg ? ": " : "", msg ? msg : "");
    LLVMDisposeMessage(msg);
    if (mb) LLVMDisposeMemoryBuffer(mb);
    goto done;
  }
  LLVMDisposeMemoryBuffer(mb);
  LLVMDisposeModule(*m);
  *m = fresh;
  rebuild_before(*m, before, &old_keys);
  rc = 0;
done:
  if (in[0]) remove(in);
  if (out[0]) remove(out);
  for (uint32_t i = 0; i < old_keys.len; i++) free(old_keys.data[i]);
  rc_vec_free(&old_keys);
  return rc;
}

int bridge_run_pipeline(rc_ctx *ctx, const char *path, LLVMModuleRef *m, const char *pipeline, ptrmap *before) {
  bool has_legacy = false;
  for (const char *p = pipeline; *p;) {
    size_t n = top_level_pass_len(p);
    has_legacy |= is_skip_uniform(p, n);
    p += n + (p[n] == ',');
  }
  if (LLVM_VERSION_MAJOR >= 20 || !has_legacy) return bridge_run_passes(ctx, path, *m, pipeline);
  rc_strbuf run; /* the new-pass-manager passes before the next legacy one */
  rc_sb_init(&run);
  int rc = 0;
  for (const char *p = pipeline; rc == 0;) {
    size_t n = top_level_pass_len(p);
    bool legacy = is_skip_uniform(p, n);
    if (!legacy && n) {
      if (run.len) rc_sb_putc(&run, ',');
      for (size_t i = 0; i < n; i++) rc_sb_putc(&run, p[i]);
    }
    if ((legacy || !p[n]) && run.len) {
      rc = bridge_run_passes(ctx, path, *m, run.data);
      run.len = 0;
      run.data[0] = 0;
    }
    if (legacy && rc == 0) rc = legacy_structurize(ctx, path, m, before);
    if (!p[n]) break;
    p += n + 1;
  }
  rc_sb_free(&run);
  return rc;
}
