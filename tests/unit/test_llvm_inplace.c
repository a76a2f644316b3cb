/* The pass plugin's path through the library (src/llvm/transform_module.c): a module the caller
 * owns (here parsed with LLVM's C API, in the plugin opt's or clang's) is imported without being
 * changed, transformed and exported into itself; errors before the export leave it as it was, and
 * a module without a function reconv can read is left alone without one; the export into the
 * origin refuses a module that owns its LLVM module. (The plugin itself is covered
 * by tests/golden/plugin.) */
#include "test.h"

#include "reconv/llvm.h"

#ifdef RECONV_HAVE_LLVM
#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include <stdlib.h>
#include <unistd.h>

/* A divergent branch whose join is not a post-dominator of it: an early exit from a divergent
 * loop. Without pointers, so that LLVM 14 and 19 read it alike. */
static const char loop_exit_ll[] =
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "declare i32 @llvm.amdgcn.workitem.id.x()\n"
    "declare void @sink(i32)\n"
    "define amdgpu_kernel void @k(i32 %n) {\n"
    "entry:\n"
    "  %t = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  br label %loop\n"
    "loop:\n"
    "  %i = phi i32 [ 0, %entry ], [ %i1, %next ]\n"
    "  %c = icmp eq i32 %i, %t\n"
    "  br i1 %c, label %early, label %next\n"
    "next:\n"
    "  %i1 = add i32 %i, 1\n"
    "  %d = icmp slt i32 %i1, %n\n"
    "  br i1 %d, label %loop, label %done\n"
    "early:\n"
    "  call void @sink(i32 %i)\n"
    "  br label %done\n"
    "done:\n"
    "  ret void\n"
    "}\n";

static LLVMModuleRef parse(LLVMContextRef c, const char *text) {
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(text, strlen(text), "k.ll");
  LLVMModuleRef m = NULL;
  char *msg = NULL;
  if (LLVMParseIRInContext(c, buf, &m, &msg)) m = NULL;
  LLVMDisposeMessage(msg);
  return m;
}

static bool verifies(LLVMModuleRef m) {
  char *msg = NULL;
  bool ok = !LLVMVerifyModule(m, LLVMReturnStatusAction, &msg);
  LLVMDisposeMessage(msg);
  return ok;
}

TEST(transform_module_edits_the_callers_module) {
  test_diags d;
  test_diags_init(&d);
  d.ctx.verify_each = true;
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = parse(c, loop_exit_ll);
  CHECK(m != NULL);
  if (!m) return;
  char *before = LLVMPrintModuleToString(m);
  /* the import alone changes nothing */
  rc_module *rm = rc_llvm_import_module(&d.ctx, m, NULL);
  CHECK(rm != NULL);
  if (rm) CHECK_EQ_INT(rm->nkernels, 1);
  rc_module_free(rm); /* the LLVM module stays the caller's */
  char *same = LLVMPrintModuleToString(m);
  CHECK(strcmp(before, same) == 0);
  LLVMDisposeMessage(same);

  CHECK_EQ_INT(rc_llvm_transform_module(&d.ctx, m, "reconverge"), 0);
  CHECK_EQ_INT(d.ctx.nerrors, 0);
  CHECK(verifies(m));
  char *after = LLVMPrintModuleToString(m);
  CHECK(strcmp(before, after) != 0);
  CHECK_STR_CONTAINS(after, "!reconv.flow"); /* a flow block of reconverge */
  CHECK_STR_CONTAINS(after, "call void @sink(i32 %i)"); /* the user's instructions stay */
  LLVMDisposeMessage(after);
  LLVMDisposeMessage(before);
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
}

TEST(transform_module_errors_leave_the_module_alone) {
  test_diags d;
  test_diags_init(&d);
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = parse(c, loop_exit_ll);
  CHECK(m != NULL);
  if (!m) return;
  char *before = LLVMPrintModuleToString(m);
  CHECK_EQ_INT(rc_llvm_transform_module(&d.ctx, m, "reconverge[bogus]"), -1);
  CHECK_STR_CONTAINS(d.text, "unknown option 'bogus'");
  /* a wave kernel cannot be written: refused before anything is edited */
  CHECK_EQ_INT(rc_llvm_transform_module(&d.ctx, m, "reconverge,lower"), -1);
  CHECK_STR_CONTAINS(d.text, "wave-level");
  char *after = LLVMPrintModuleToString(m);
  CHECK(strcmp(before, after) == 0);
  CHECK(verifies(m));
  LLVMDisposeMessage(after);
  LLVMDisposeMessage(before);
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
}

TEST(transform_module_leaves_what_it_cannot_read) {
  /* declarations only, and a function of a type reconv does not read (i128):
   * nothing to do, which in opt's or clang's pipeline is no error */
  static const char *const inputs[] = {
      "declare void @sink(i32)\n",
      "define i128 @wide(i128 %x) {\nentry:\n  ret i128 %x\n}\n",
  };
  for (unsigned i = 0; i < 2; i++) {
    test_diags d;
    test_diags_init(&d);
    LLVMContextRef c = LLVMContextCreate();
    LLVMModuleRef m = parse(c, inputs[i]);
    CHECK(m != NULL);
    if (!m) continue;
    char *before = LLVMPrintModuleToString(m);
    CHECK_EQ_INT(rc_llvm_transform_module(&d.ctx, m, "reconverge"), 0);
    CHECK_EQ_INT(d.ctx.nerrors, 0);
    char *after = LLVMPrintModuleToString(m);
    CHECK(strcmp(before, after) == 0);
    LLVMDisposeMessage(after);
    LLVMDisposeMessage(before);
    LLVMDisposeModule(m);
    LLVMContextDispose(c);
  }
}

TEST(export_into_origin_wants_a_borrowed_module) {
  test_diags d;
  test_diags_init(&d);
  /* a parsed module has no origin; one imported from a file owns its LLVM module */
  rc_module *p = test_parse(&d, "kernel @k() {\nentry:\n  ret\n}\n");
  CHECK(p != NULL);
  if (p) CHECK_EQ_INT(rc_llvm_export_into_origin(&d.ctx, p, false), -1);
  rc_module_free(p);
  char dir[] = "/tmp/reconv-inplace-XXXXXX", path[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/k.ll", dir);
  FILE *out = fopen(path, "w");
  CHECK(out != NULL);
  if (!out) return;
  fputs(loop_exit_ll, out);
  fclose(out);
  rc_module *f = rc_llvm_import_file(&d.ctx, path, NULL);
  remove(path);
  rmdir(dir);
  CHECK(f != NULL);
  if (f) CHECK_EQ_INT(rc_llvm_export_into_origin(&d.ctx, f, false), -1);
  CHECK_STR_CONTAINS(d.text, "rc_llvm_import_module did not read");
  rc_module_free(f);
}

#endif
