/* Reading an input into an LLVM module — .ll text, .bc bitcode, or OpenCL C through clang — and
 * running LLVM's own passes on it: the user's --llvm-passes pipeline (e.g. LLVM's structurizer as
 * a peer of reconv's transforms). */
#include "bridge.h"
#include "llvm_compat.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Error.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

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
  size_t cap = 1 << 16, n = 0;
  char *buf = rc_xmalloc(cap);
  for (;;) {
    if (n + 1 >= cap) buf = rc_xrealloc(buf, cap *= 2);
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  bool err = ferror(f);
  fclose(f);
  if (err) {
    free(buf);
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "read error (is it a directory?)");
    return NULL;
  }
  buf[n] = 0;
  *len = n;
  return buf;
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

/* clang -O0 marks every function optnone, and the new pass manager then skips every pass not
 * required for correctness: --llvm-passes=structurizecfg would do nothing on a -O0 kernel, while a
 * GPU backend structurizes at -O0 too. The passes asked for run, so optnone goes first. */
void bridge_drop_optnone(LLVMModuleRef m) {
  unsigned optnone = LLVMGetEnumAttributeKindForName("optnone", 7);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, optnone);
}

/* Pass names that differ between the LLVM versions reconv supports, each spelling accepted on
 * every version: LLVM 15 renamed lowerswitch to lower-switch, LLVM 17 replaced the divergence
 * analysis by the uniformity analysis (print<divergence> by print<uniformity>). */
static const struct {
  const char *old_name, *new_name;
  int since; /* the LLVM major version that knows only new_name */
} renamed_passes[] = {
    {"lowerswitch", "lower-switch", 15},
    {"print<divergence>", "print<uniformity>", 17},
    {"divergence", "uniformity", 17},
};

static bool pass_name_end(char ch) { return ch == 0 || ch == ',' || ch == ')'; }

/* The pipeline with each pass name spelled as this LLVM spells it (a new string to free). */
static char *bridge_versioned_pipeline(const char *pipeline) {
  rc_strbuf out;
  rc_sb_init(&out);
  const char *p = pipeline;
  while (*p) {
    bool at_name = p == pipeline || p[-1] == ',' || p[-1] == '(';
    bool replaced = false;
    for (size_t i = 0; at_name && i < sizeof renamed_passes / sizeof renamed_passes[0]; i++) {
      bool to_new = LLVM_VERSION_MAJOR >= renamed_passes[i].since;
      const char *from = to_new ? renamed_passes[i].old_name : renamed_passes[i].new_name;
      const char *to = to_new ? renamed_passes[i].new_name : renamed_passes[i].old_name;
      size_t n = strlen(from);
      if (strncmp(p, from, n) == 0 && pass_name_end(p[n])) {
        rc_sb_puts(&out, to);
        p += n;
        replaced = true;
        break;
      }
    }
    if (!replaced) rc_sb_putc(&out, *p++);
  }
  if (!out.data) rc_sb_puts(&out, "");
  return out.data;
}

int bridge_run_passes(rc_ctx *ctx, const char *path, LLVMModuleRef m, const char *pipeline) {
  bridge_drop_optnone(m);
  /* The target machine gives the passes the target's cost model (TTI), which e.g. the divergence
   * analysis of amdgcn consults. */
  LLVMTargetMachineRef tm = target_machine(m);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetVerifyEach(po, 1);
  char *spelled = bridge_versioned_pipeline(pipeline);
  LLVMErrorRef e = LLVMRunPasses(m, spelled, tm, po);
  free(spelled);
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

/* Blocks the user's passes inserted are marked like reconv's own inserted blocks (the metadata the
 * export writes and the import reads), so that trace equivalence skips them: StructurizeCFG's
 * "Flow" blocks as flow blocks, others (fix-irreducible's "irr.guard", unify-loop-exits'
 * "loop.exit.guard", split blocks) as virtual. A block is new when it was not there before, or
 * kept its place but changed its name. */
static void mark_inserted_blocks(LLVMModuleRef m, const ptrmap *before) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMValueRef empty = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, NULL, 0));
  unsigned md_flow = LLVMGetMDKindIDInContext(c, "reconv.flow", 11);
  unsigned md_virtual = LLVMGetMDKindIDInContext(c, "reconv.virtual", 14);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
      size_t n;
      const char *name = LLVMGetValueName2(LLVMBasicBlockAsValue(bb), &n);
      const char *old = ptrmap_get(before, bb);
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      if ((old && strlen(old) == n && memcmp(old, name, n) == 0) || !term) continue;
      LLVMSetMetadata(term, n >= 4 && memcmp(name, "Flow", 4) == 0 ? md_flow : md_virtual, empty);
    }
}

static bool write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    len -= (size_t)w;
  }
  return true;
}

/* The child's side of run_user_passes: run the pipeline, mark what it inserted, and send back
 * 'B' + bitcode, or 'E' + an error message (reported as the parent's own). */
static void keep_message(void *user, const rc_diag *d) {
  rc_strbuf *msg = user;
  if (d->severity == RC_SEV_ERROR && !msg->len) rc_sb_puts(msg, d->message);
}

static void user_passes_child(int fd, LLVMModuleRef m, const char *path, const char *pipeline,
                              ptrmap *before) {
  /* a crash should end the child by its signal, also where a sanitizer's handler would catch it */
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
  for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) signal(fatal[i], SIG_DFL);
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  rc_strbuf msg;
  rc_sb_init(&msg);
  ctx.diag = keep_message;
  ctx.diag_user = &msg;
  int status;
  if (bridge_run_pipeline(&ctx, path, &m, pipeline, before) != 0) {
    status = write_all(fd, "E", 1) && write_all(fd, msg.data ? msg.data : "", msg.len) ? 1 : 3;
  } else {
    mark_inserted_blocks(m, before);
    LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(m);
    status = write_all(fd, "B", 1) && write_all(fd, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf)) ? 0 : 3;
    LLVMDisposeMemoryBuffer(buf);
  }
  /* what the child made is freed, so that leak checkers that follow forks (valgrind) see none */
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
  for (uint32_t i = 0; i < before->cap; i++) free(before->slots[i].val); /* the child's copy */
  ptrmap_free(before);
  rc_sb_free(&msg);
  close(fd);
  _exit(status);
}

/* The user's --llvm-passes run in a child process: LLVM's passes can crash on inputs they do not
 * expect (LLVM 14's fix-irreducible dies on irreducible cycles nested in irreducible cycles), and
 * bad input must not crash reconv. The child sends the result back as bitcode, which replaces *m
 * (in the same context). The child inherits standard error, so passes that print (print<...>)
 * still do. */
static int run_user_passes(rc_ctx *ctx, const char *path, LLVMContextRef c, LLVMModuleRef *m,
                           const char *pipeline) {
  ptrmap before;
  ptrmap_init(&before);
  record_blocks(*m, &before);
  int fds[2];
  int rc = -1;
  if (pipe(fds) != 0) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot run LLVM's passes: pipe: %s", strerror(errno));
    goto done;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot run LLVM's passes: fork: %s", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    goto done;
  }
  if (pid == 0) {
    close(fds[0]);
    user_passes_child(fds[1], *m, path, pipeline, &before);
  }
  close(fds[1]);
  rc_strbuf got;
  rc_sb_init(&got);
  char buf[65536];
  for (;;) {
    ssize_t r = read(fds[0], buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    for (ssize_t i = 0; i < r; i++) rc_sb_putc(&got, buf[i]);
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0,
              "LLVM pass pipeline '%s' crashed (signal %d%s%s); this is a failure of LLVM's passes on "
              "this input, reconv is unaffected",
              pipeline, sig, strsignal(sig) ? ": " : "", strsignal(sig) ? strsignal(sig) : "");
  } else if (got.len && got.data[0] == 'E') {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "%.*s", (int)got.len - 1, got.data + 1);
  } else if (!got.len || got.data[0] != 'B') {
    /* the bitcode is the answer, not the exit status: under valgrind a leak of the parent's heap
     * copied into the child makes that 1 (a partial answer does not parse, below) */
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "LLVM pass pipeline '%s' failed (the process running it "
              "ended with status %d)", pipeline, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  } else {
    LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRange(got.data + 1, got.len - 1, path, 0);
    LLVMModuleRef fresh = NULL;
    bool bad = LLVMParseBitcodeInContext2(c, mb, &fresh);
    LLVMDisposeMemoryBuffer(mb);
    if (bad) {
      rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot read back the result of LLVM pass pipeline '%s'", pipeline);
    } else {
      LLVMDisposeModule(*m);
      *m = fresh;
      rc = 0;
    }
  }
  rc_sb_free(&got);
done:
  for (uint32_t i = 0; i < before.cap; i++) free(before.slots[i].val);
  ptrmap_free(&before);
  return rc;
}

/* LLVM's text parser ends the process on some malformed input instead of returning an error: in
 * LLVM 14 a bad `target datalayout` string is a fatal error ("LLVM ERROR: ..." and abort). So each
 * such string is tried first, alone, in a child process; when the child dies, reconv reports it
 * instead of dying too. The module itself is parsed once, in-process (a whole parse in a probe
 * child would cost as much again on big inputs). */
static int probe_layout_string(rc_ctx *ctx, const char *path, char *layout);

static bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c && strchr("-$._%@!#\\", c));
}

static int hex_digit(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The strings the parser will give the datalayout are found as its lexer finds them, token by
 * token: `target`, `datalayout`, `=`, then a string constant, which runs to the next '"' whatever
 * lies between (newlines too: fuzz_llvm found a layout whose closing quote was lines below), with
 * LLVM's escapes (\\ and \HH) undone. Comments (; to the end of the line) and other strings are
 * skipped, so that neither hides nor fakes the keywords. Every one is probed: the parser sets the
 * layout at each. */
static int probe_datalayout(rc_ctx *ctx, const char *path, const char *text, size_t len) {
  const char *p = text, *end = text + len;
  int state = 0; /* tokens matched so far: target, datalayout, = */
  while (p < end) {
    char c = *p;
    if (c == ';') {
      const char *q = memchr(p, '\n', (size_t)(end - p));
      p = q ? q + 1 : end;
    } else if (c == '"') {
      const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
      if (!q) return 0; /* an unterminated string: a syntax error the parser reports */
      if (state == 3) {
        char *layout = rc_xmalloc((size_t)(q - p));
        size_t n = 0;
        for (const char *s = p + 1; s < q; s++) {
          if (*s == '\\' && s + 1 < q && s[1] == '\\') {
            layout[n++] = '\\';
            s++;
          } else if (*s == '\\' && s + 2 < q && hex_digit(s[1]) >= 0 && hex_digit(s[2]) >= 0) {
            layout[n++] = (char)(hex_digit(s[1]) * 16 + hex_digit(s[2]));
            s += 2;
          } else {
            layout[n++] = *s;
          }
        }
        layout[n] = 0;
        int rc = strlen(layout) != n ? rc_report(ctx, RC_SEV_ERROR, path, 0, 0,
                                                  "LLVM's IR parser cannot read this file: its target datalayout "
                                                  "holds a NUL byte")
                                     : probe_layout_string(ctx, path, layout);
        free(layout);
        if (rc) return rc;
      }
      state = 0;
      p = q + 1;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      p++;
    } else if (is_word_char(c)) {
      const char *w = p;
      while (p < end && is_word_char(*p)) p++;
      size_t n = (size_t)(p - w);
      if (n == 6 && memcmp(w, "target", 6) == 0) state = 1;
      else if (state == 1 && n == 10 && memcmp(w, "datalayout", 10) == 0) state = 2;
      else state = 0;
    } else {
      state = state == 2 && c == '=' ? 3 : 0;
      p++;
    }
  }
  return 0;
}

/* Create the target data of one layout string in a child process: 0 when that lives, else an
 * error reported. */
static int probe_layout_string(rc_ctx *ctx, const char *path, char *layout) {
  /* the child says that the layout was made through a pipe: its exit status alone is not the
   * answer under valgrind, which makes it 1 for a leak of the parent's heap copied into the child */
  int made[2];
  if (pipe(made) != 0) return 0; /* no probe; the parse itself still runs */
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(made[0]);
    close(made[1]);
    return 0;
  }
  if (pid == 0) {
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) signal(fatal[i], SIG_DFL);
    close(made[0]);
    LLVMDisposeTargetData(LLVMCreateTargetData(layout));
    ssize_t w = write(made[1], "y", 1);
    (void)w;
    _exit(0);
  }
  close(made[1]);
  char answer = 0;
  ssize_t got;
  while ((got = read(made[0], &answer, 1)) < 0 && errno == EINTR) {
  }
  close(made[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got == 1 || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) return 0;
  if (WIFSIGNALED(status))
    return rc_report(ctx, RC_SEV_ERROR, path, 0, 0,
                     "LLVM's IR parser cannot read this file: its target datalayout stopped the process "
                     "(signal %d: %s; LLVM's message, if any, is above)",
                     WTERMSIG(status), strsignal(WTERMSIG(status)) ? strsignal(WTERMSIG(status)) : "?");
  return rc_report(ctx, RC_SEV_ERROR, path, 0, 0,
                   "LLVM's IR parser cannot read this file: its target datalayout ended the process with "
                   "status %d (LLVM's message, if any, is above)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Opaque pointers. LLVM 14 reads the type `ptr` (which LLVM 15 and later write, and which most of
 * LLVM's own tests use now) only in a context in opaque-pointer mode, and its C API has no way to
 * ask for that mode (LLVMContextSetOpaquePointers came with LLVM 15): it is
 * LLVMContext::enableOpaquePointers() const, called here by its Itanium C++ name, with the context
 * as `this`. Weak, so that a libLLVM without it leaves such a file to the parser's own message. The
 * mode must be set before the context makes any pointer type, so it is set on the fresh context
 * when the text uses `ptr` as a type; typed pointers (`i32*`) then read as `ptr` too. */
extern void _ZNK4llvm11LLVMContext20enableOpaquePointersEv(LLVMContextRef c) __attribute__((weak));

static bool ident_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
         ch == '.' || ch == '$' || ch == '-';
}

/* Does LLVM IR text use the type keyword `ptr` (not a name like %ptr, not in a comment or string)? */
static bool uses_opaque_pointers(const char *text, size_t len) {
  bool comment = false, string = false;
  for (size_t i = 0; i < len; i++) {
    char ch = text[i];
    if (ch == '\n') comment = string = false;
    else if (comment) continue;
    else if (ch == '"') string = !string;
    else if (!string && ch == ';') comment = true;
    else if (!string && ch == 'p' && i + 3 <= len && memcmp(text + i, "ptr", 3) == 0 &&
             (i == 0 || (!ident_char(text[i - 1]) && text[i - 1] != '%' && text[i - 1] != '@' && text[i - 1] != '!' &&
                         text[i - 1] != '#')) &&
             (i + 3 == len || !ident_char(text[i + 3])))
      return true;
  }
  return false;
}

int bridge_load(rc_ctx *ctx, const char *path, const rc_llvm_import_opts *o, LLVMContextRef c,
                bridge_diags *diags, LLVMModuleRef *out, char **source, size_t *source_len) {
  *out = NULL;
  *source = NULL;
  *source_len = 0;
  LLVMModuleRef m = NULL;
  bool in_memory = o && o->data && !has_ext(path, ".cl");
  if (has_ext(path, ".ll")) {
    size_t len = in_memory ? o->data_len : 0;
    char *text = in_memory ? memcpy(rc_xmalloc(len + 1), o->data, len) : read_file(ctx, path, &len);
    if (!text) return -1;
    text[len] = 0;
    if (probe_datalayout(ctx, path, text, len)) {
      free(text);
      return -1;
    }
    if (_ZNK4llvm11LLVMContext20enableOpaquePointersEv && uses_opaque_pointers(text, len))
      _ZNK4llvm11LLVMContext20enableOpaquePointersEv(c);
    /* the parser reads the text where it is (it ends in a NUL, and stays: it is *source) */
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(text, len, path, 1);
    char *msg = NULL;
    if (LLVMParseIRInContext(c, buf, &m, &msg)) { /* takes the buffer */
      report_parse_error(ctx, path, msg ? msg : "cannot parse LLVM IR");
      LLVMDisposeMessage(msg);
      free(text);
      return -1;
    }
    *source = text;
    *source_len = len;
    /* the parser checks syntax and types only; LLVM's passes abort on modules the verifier
     * rejects ("Broken module found"), so verify as for bitcode */
    if (verify(ctx, path, m, "the module")) {
      LLVMDisposeModule(m);
      return -1;
    }
  } else if (has_ext(path, ".bc") || has_ext(path, ".cl")) {
    char *bytes;
    size_t len;
    if (has_ext(path, ".cl")) {
      char *text = read_file(ctx, path, &len); /* the run-spec comments live in the source */
      if (!text) return -1;
      *source = text;
      *source_len = len;
      if (bridge_compile_cl(ctx, path, o, &bytes, &len)) return -1;
    } else if (in_memory) {
      len = o->data_len;
      bytes = memcpy(rc_xmalloc(len ? len : 1), o->data, len);
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
  if (user_passes && run_user_passes(ctx, path, c, &m, o->passes)) {
    LLVMDisposeModule(m);
    return -1;
  }
  *out = m;
  return 0;
}

/* ---- LLVM's divergence verdicts ------------------------------------------------------------------------ */

/* Parse what print<divergence> wrote: per function "'Divergence Analysis' for function 'NAME':",
 * the arguments up to a blank line, then per block a header line ("<11 blanks>NAME:") and one line
 * per instruction, "DIVERGENT:" in front of the divergent ones. The verdict of a block is that of
 * its last line, the terminator. */
/* Does the line p[0..len) contain the string w? */
static bool contains(const char *p, size_t len, const char *w) {
  size_t n = strlen(w);
  for (size_t i = 0; i + n <= len; i++)
    if (memcmp(p + i, w, n) == 0) return true;
  return false;
}

/* The function a printer's header line names (NAME in "...'NAME':", from `name` of length len on),
 * with a fresh verdict per block recorded for it in out; NULL when the module has no such function. */
static LLVMValueRef function_of_header(LLVMModuleRef m, const char *name_at, size_t len, ptrmap *out,
                                       uint8_t **verdicts, uint32_t *nblocks) {
  char name[1024];
  size_t nl = len;
  if (nl >= 2) nl -= 2; /* the closing "':" */
  if (nl >= sizeof name) nl = sizeof name - 1;
  memcpy(name, name_at, nl);
  name[nl] = 0;
  LLVMValueRef fn = LLVMGetNamedFunction(m, name);
  *nblocks = fn ? LLVMCountBasicBlocks(fn) : 0;
  *verdicts = fn ? rc_xcalloc(*nblocks + 1, 1) : NULL;
  if (fn) ptrmap_put(out, fn, *verdicts);
  return fn;
}

/* What print<uniformity> (LLVM 17 and later) writes: per function "UniformityInfo for function
 * 'NAME':", then (unless "ALL VALUES UNIFORM") per block in the function's order "BLOCK NAME",
 * its definitions, "TERMINATORS", the terminator ("  DIVERGENT:   br ..." when divergent; a
 * switch continues on further lines) and "END BLOCK". */
static void parse_uniformity(LLVMModuleRef m, const char *text, ptrmap *out) {
  static const char head[] = "UniformityInfo for function '";
  LLVMValueRef fn = NULL;
  uint8_t *verdicts = NULL;
  uint32_t nblocks = 0, block = 0;
  bool terminator_next = false;
  for (const char *p = text; *p;) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    if (len > sizeof head - 1 && memcmp(p, head, sizeof head - 1) == 0) {
      fn = function_of_header(m, p + sizeof head - 1, len - (sizeof head - 1), out, &verdicts, &nblocks);
      block = 0;
      terminator_next = false;
    } else if (fn && len >= 6 && memcmp(p, "BLOCK ", 6) == 0) {
      block++;
      terminator_next = false;
    } else if (fn && len == 11 && memcmp(p, "TERMINATORS", 11) == 0) {
      terminator_next = true;
    } else if (fn && terminator_next) {
      if (block > 0 && block <= nblocks) verdicts[block - 1] = contains(p, len, "DIVERGENT:");
      terminator_next = false;
    }
    p = eol ? eol + 1 : p + len;
  }
}

static void parse_divergence(LLVMModuleRef m, const char *text, ptrmap *out) {
  if (strstr(text, "UniformityInfo for function '")) {
    parse_uniformity(m, text, out);
    return;
  }
  static const char head[] = "'Divergence Analysis' for function '";
  const char *p = text;
  LLVMValueRef fn = NULL;
  uint8_t *verdicts = NULL;
  uint32_t nblocks = 0, block = 0;
  bool in_blocks = false, last_divergent = false, have_last = false, in_switch = false;
  while (*p) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    if (len > sizeof head - 1 && memcmp(p, head, sizeof head - 1) == 0) {
      if (fn && have_last && block > 0 && block <= nblocks) verdicts[block - 1] = last_divergent;
      fn = function_of_header(m, p + sizeof head - 1, len - (sizeof head - 1), out, &verdicts, &nblocks);
      block = 0;
      in_blocks = have_last = in_switch = false;
    } else if (fn && len == 0) {
      if (in_blocks && have_last && block > 0 && block <= nblocks) verdicts[block - 1] = last_divergent;
      in_blocks = true; /* after the arguments, and between blocks */
      have_last = false;
    } else if (fn && in_blocks) {
      bool divergent = len >= 10 && memcmp(p, "DIVERGENT:", 10) == 0;
      bool header = !divergent && len > 11 && memcmp(p, "           ", 11) == 0 && p[11] != ' ' && p[len - 1] == ':';
      if (header) {
        block++;
        have_last = in_switch = false;
      } else if (in_switch) {
        /* the case lines of a switch: its verdict is on the line that opened it */
        if (memchr(p, ']', len)) in_switch = false;
      } else {
        last_divergent = divergent;
        have_last = true;
        /* `switch i32 %x, label %d [` prints its cases on the lines up to `]` */
        in_switch = p[len - 1] == '[' && contains(p, len, " switch ");
      }
    }
    p = eol ? eol + 1 : p + len;
  }
  if (fn && have_last && block > 0 && block <= nblocks) verdicts[block - 1] = last_divergent;
}

int bridge_llvm_divergence(rc_ctx *ctx, const char *path, LLVMModuleRef m, ptrmap *verdicts) {
  int fds[2];
  if (pipe(fds) != 0) return rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot run LLVM's divergence analysis: %s", strerror(errno));
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot run LLVM's divergence analysis: fork: %s", strerror(errno));
  }
  if (pid == 0) { /* the analysis prints on standard error: that is the pipe here */
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) signal(fatal[i], SIG_DFL);
    close(fds[0]);
    dup2(fds[1], 2);
    close(fds[1]);
    rc_ctx quiet;
    rc_ctx_init(&quiet);
    int r = bridge_run_passes(&quiet, path, m, "print<divergence>");
    LLVMContextRef c = LLVMGetModuleContext(m);
    LLVMDisposeModule(m);
    LLVMContextDispose(c);
    _exit(r == 0 ? 0 : 1);
  }
  close(fds[1]);
  rc_strbuf got;
  rc_sb_init(&got);
  char buf[65536];
  for (;;) {
    ssize_t r = read(fds[0], buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    for (ssize_t i = 0; i < r; i++) rc_sb_putc(&got, buf[i]);
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int rc = 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    rc = rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "LLVM's divergence analysis failed on this module");
  else
    parse_divergence(m, got.data ? got.data : "", verdicts);
  rc_sb_free(&got);
  return rc;
}
