/* Reading an input into an LLVM module — .ll text, .bc bitcode, or OpenCL C through clang — and
 * running LLVM's own passes on it: the user's --llvm-passes pipeline (e.g. LLVM's structurizer as
 * a peer of reconv's transforms), then the scalarizer, so that vector code comes in as scalars. */
#include "bridge.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Error.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_diag(LLVMDiagnosticInfoRef di, void *user) {
  bridge_diags *d = user;
  if (LLVMGetDiagInfoSeverity(di) != LLVMDSError) return;
  char *s = LLVMGetDiagInfoDescription(di);
  if (d->text.len) rc_sb_putc(&d->text, '\n');
  rc_sb_puts(&d->text, s);
  LLVMDisposeMessage(s);
}

void bridge_diags_install(LLVMContextRef c, bridge_diags *d) {
  LLVMContextSetDiagnosticHandler(c, on_diag, d);
}

static bool has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n > e && strcmp(path + n - e, ext) == 0;
}

static char *read_file(rc_ctx *ctx, const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot open: %s", strerror(errno));
    return NULL;
  }
  rc_strbuf sb;
  rc_sb_init(&sb);
  char buf[8192];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0)
    for (size_t i = 0; i < got; i++) rc_sb_putc(&sb, buf[i]);
  bool err = ferror(f);
  fclose(f);
  if (err) {
    rc_sb_free(&sb);
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "read error (is it a directory?)");
    return NULL;
  }
  if (!sb.data) rc_sb_puts(&sb, "");
  *len = sb.len;
  return sb.data;
}

/* LLVM's text parser says "NAME:LINE:COL: error: MESSAGE\n<source line>\n<caret>"; pass the first
 * line on with its position and keep the source excerpt. */
static int report_parse_error_trimmed(rc_ctx *ctx, const char *path, const char *msg) {
  size_t plen = strlen(path);
  unsigned line = 0, col = 0;
  int used = 0;
  if (strncmp(msg, path, plen) == 0 && sscanf(msg + plen, ":%u:%u: error: %n", &line, &col, &used) == 2 &&
      used > 0)
    return rc_report(ctx, RC_SEV_ERROR, path, line, col, "%s", msg + plen + used);
  return rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "%s", msg);
}

static int report_parse_error(rc_ctx *ctx, const char *path, const char *text) {
  char *msg = rc_xstrdup(text);
  size_t n = strlen(msg);
  while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0;
  int r = report_parse_error_trimmed(ctx, path, msg);
  free(msg);
  return r;
}

static int verify(rc_ctx *ctx, const char *path, LLVMModuleRef m, const char *what) {
  char *msg = NULL;
  if (!LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    LLVMDisposeMessage(msg);
    return 0;
  }
  size_t n = strlen(msg);
  while (n && msg[n - 1] == '\n') msg[--n] = 0;
  rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "%s is not valid LLVM IR:\n%s", what, msg);
  LLVMDisposeMessage(msg);
  return -1;
}

static LLVMTargetMachineRef target_machine(LLVMModuleRef m) {
  /* Registering targets only fills LLVM's registry; doing it again is harmless. */
  LLVMInitializeAllTargetInfos();
  LLVMInitializeAllTargets();
  LLVMInitializeAllTargetMCs();
  const char *triple = LLVMGetTarget(m);
  LLVMTargetRef t;
  char *err = NULL;
  if (!triple || !*triple || LLVMGetTargetFromTriple(triple, &t, &err)) {
    LLVMDisposeMessage(err);
    return NULL;
  }
  return LLVMCreateTargetMachine(t, triple, "", "", LLVMCodeGenLevelDefault, LLVMRelocDefault,
                                 LLVMCodeModelDefault);
}

int bridge_run_passes(rc_ctx *ctx, const char *path, LLVMModuleRef m, const char *pipeline) {
  /* The target machine gives the passes the target's cost model (TTI), which e.g. the divergence
   * analysis of amdgcn consults. */
  LLVMTargetMachineRef tm = target_machine(m);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetVerifyEach(po, 1);
  LLVMErrorRef e = LLVMRunPasses(m, pipeline, tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (tm) LLVMDisposeTargetMachine(tm);
  if (e) {
    char *msg = LLVMGetErrorMessage(e);
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "LLVM pass pipeline '%s' failed: %s", pipeline, msg);
    LLVMDisposeErrorMessage(msg);
    return -1;
  }
  return verify(ctx, path, m, "the result of the LLVM pass pipeline");
}

static void record_blocks(LLVMModuleRef m, ptrmap *blocks) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
      size_t n;
      const char *name = LLVMGetValueName2(LLVMBasicBlockAsValue(bb), &n);
      char *copy = rc_xmalloc(n + 1);
      memcpy(copy, name, n);
      copy[n] = 0;
      ptrmap_put(blocks, bb, copy);
    }
}

int bridge_load(rc_ctx *ctx, const char *path, const rc_llvm_import_opts *o, LLVMContextRef c,
                bridge_diags *diags, LLVMModuleRef *out, char **source, size_t *source_len,
                ptrmap *blocks_before) {
  *out = NULL;
  *source = NULL;
  *source_len = 0;
  LLVMModuleRef m = NULL;
  if (has_ext(path, ".ll")) {
    size_t len;
    char *text = read_file(ctx, path, &len);
    if (!text) return -1;
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(text, len, path);
    char *msg = NULL;
    if (LLVMParseIRInContext(c, buf, &m, &msg)) { /* takes the buffer */
      report_parse_error(ctx, path, msg ? msg : "cannot parse LLVM IR");
      LLVMDisposeMessage(msg);
      free(text);
      return -1;
    }
    *source = text;
    *source_len = len;
  } else if (has_ext(path, ".bc") || has_ext(path, ".cl")) {
    char *bytes;
    size_t len;
    if (has_ext(path, ".cl")) {
      char *text = read_file(ctx, path, &len); /* the run-spec comments live in the source */
      if (!text) return -1;
      *source = text;
      *source_len = len;
      if (bridge_compile_cl(ctx, path, o, &bytes, &len)) return -1;
    } else if (!(bytes = read_file(ctx, path, &len))) {
      return -1;
    }
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(bytes, len, path, 0);
    bool bad = LLVMParseBitcodeInContext2(c, buf, &m);
    LLVMDisposeMemoryBuffer(buf);
    free(bytes);
    if (bad) {
      rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot read LLVM bitcode%s%s",
                diags->text.len ? ": " : "", diags->text.len ? diags->text.data : "");
      return -1;
    }
    if (verify(ctx, path, m, "the module")) {
      LLVMDisposeModule(m);
      return -1;
    }
  } else {
    return rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "not an LLVM input (.ll, .bc or .cl)");
  }
  bool user_passes = o && o->passes && *o->passes;
  if (user_passes) record_blocks(m, blocks_before);
  if ((user_passes && bridge_run_passes(ctx, path, m, o->passes)) ||
      bridge_run_passes(ctx, path, m, "scalarizer")) {
    LLVMDisposeModule(m);
    return -1;
  }
  *out = m;
  return 0;
}
