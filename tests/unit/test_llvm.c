/* The LLVM bridge's library interface: the origin a module keeps, export of one kernel, kernels
 * whose signature no longer matches the origin, bitcode, and files written through a temporary
 * name. (The mapping of instructions is covered by the golden tests in tests/golden/llvm.) */
#include "test.h"

#include "reconv/llvm.h"

#include <stdlib.h>
#include <unistd.h>

static const char kernels_rir[] =
    "kernel @first(ptr %out) {\n"
    "entry:\n"
    "  %t = call i32 @global_id(i32 0)\n"
    "  %p = gep %out, i32 %t, 4\n"
    "  store i32 %t, %p\n"
    "  ret\n"
    "}\n"
    "kernel @second(ptr %out, f32 %x) {\n"
    "entry:\n"
    "  store f32 %x, %out\n"
    "  ret\n"
    "}\n";

TEST(parsed_modules_have_no_origin) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, kernels_rir);
  CHECK(m != NULL);
  if (!m) return;
  CHECK(m->origin == NULL);
  CHECK(m->origin_free == NULL);
  rc_module_free(m);
}

#ifdef RECONV_HAVE_LLVM

/* Write text to a fresh temporary file with the given extension; returns its malloc'ed path. */
static char *temp_file(const char *ext, const char *text) {
  char *path = malloc(64);
  snprintf(path, 64, "/tmp/reconv-test-XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0) return NULL;
  close(fd);
  remove(path);
  strcat(path, ext);
  FILE *f = fopen(path, "wb");
  if (!f) return NULL;
  fputs(text, f);
  fclose(f);
  return path;
}

static char *read_back(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = calloc(1, 1 << 16);
  size_t n = fread(buf, 1, (1 << 16) - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static const char float_kernel_ll[] =
    "target triple = \"amdgcn-amd-amdhsa\"\n"
    "define amdgpu_kernel void @scale(float addrspace(1)* nocapture %p, float %s) "
    "!kernel_arg_type !0 {\n"
    "entry:\n"
    "  %v = load float, float addrspace(1)* %p\n"
    "  %w = fmul float %v, %s\n"
    "  store float %w, float addrspace(1)* %p\n"
    "  ret void\n"
    "}\n"
    "!0 = !{!\"float*\", !\"float\"}\n";

/* Does the LLVM IR text contain `before` PARAMS `after`, PARAMS spelled with typed pointers (LLVM
 * 14) or opaque ones (LLVM 15 and later print `ptr addrspace(1)` for `float addrspace(1)*`)? */
static bool has_signature(const char *ir, const char *before, const char *typed, const char *opaque) {
  char a[256], b[256];
  snprintf(a, sizeof a, "%s%s", before, typed);
  snprintf(b, sizeof b, "%s%s", before, opaque);
  return ir && (strstr(ir, a) || strstr(ir, b));
}

TEST(import_keeps_the_origin_and_export_reuses_its_signature) {
  test_diags d;
  test_diags_init(&d);
  char *path = temp_file(".ll", float_kernel_ll);
  CHECK(path != NULL);
  if (!path) return;
  rc_module *m = rc_llvm_import_file(&d.ctx, path, NULL);
  remove(path);
  free(path);
  CHECK(m != NULL);
  if (!m) return;
  CHECK(m->origin != NULL && m->origin_free != NULL); /* the LLVM module, kept alive */
  char *data = NULL;
  size_t len = 0;
  CHECK_EQ_INT(rc_llvm_export(&d.ctx, m, NULL, &data, &len), 0);
  /* the original parameter types, attributes and metadata, not reconv's flat pointers */
  CHECK(has_signature(data, "define amdgpu_kernel void @scale(", "float addrspace(1)* nocapture %p, float %s)",
                      "ptr addrspace(1) nocapture %p, float %s)"));
  CHECK_STR_CONTAINS(data, "!kernel_arg_type");
  CHECK_STR_CONTAINS(data, "!{!\"float*\", !\"float\"}");
  free(data);

  /* a copy of an imported kernel under a new name gets a copy of its function */
  rc_kernel *copy = rc_kernel_clone(m, m->kernels[0], "scale_copy");
  CHECK(copy != NULL);
  CHECK_EQ_INT(rc_llvm_export(&d.ctx, m, NULL, &data, &len), 0);
  CHECK(has_signature(data, "define amdgpu_kernel void @scale_copy(", "float addrspace(1)* nocapture %p, float %s)",
                      "ptr addrspace(1) nocapture %p, float %s)"));
  CHECK(has_signature(data, "@scale(", "float addrspace(1)* nocapture %p, float %s)",
                      "ptr addrspace(1) nocapture %p, float %s)"));
  free(data);
  rc_module_free(m);
  CHECK_EQ_INT(d.ctx.nerrors, 0);
}

TEST(export_of_one_kernel_and_bitcode) {
  test_diags d;
  test_diags_init(&d);
  rc_module *m = test_parse(&d, kernels_rir);
  CHECK(m != NULL);
  if (!m) return;
  rc_llvm_export_opts o = {m->kernels[1], false, false, false};
  char *data = NULL;
  size_t len = 0;
  CHECK_EQ_INT(rc_llvm_export(&d.ctx, m, &o, &data, &len), 0);
  CHECK(has_signature(data, "define amdgpu_kernel void @second(", "i8 addrspace(1)* %out, float %x)",
                      "ptr addrspace(1) %out, float %x)"));
  CHECK(strstr(data, "@first") == NULL);
  CHECK(strstr(data, "get_global_id") == NULL); /* only what the exported kernel uses */
  CHECK_EQ_INT(strlen(data), len);
  free(data);
  o.only = NULL;
  o.bitcode = true;
  CHECK_EQ_INT(rc_llvm_export(&d.ctx, m, &o, &data, &len), 0);
  CHECK(len > 4 && memcmp(data, "BC\xc0\xde", 4) == 0);
  free(data);
  rc_module_free(m);
}

TEST(export_file_leaves_an_existing_file_alone_on_failure) {
  test_diags d;
  test_diags_init(&d);
  char *path = temp_file(".ll", "precious\n");
  CHECK(path != NULL);
  if (!path) return;
  rc_module *wave = test_parse(&d, "wave kernel @w() {\nentry:\n  ret\n}\n");
  CHECK(wave != NULL);
  if (wave) {
    CHECK_EQ_INT(rc_llvm_export_file(&d.ctx, wave, path), -1);
    CHECK_STR_CONTAINS(d.text, "kernel @w is wave-level");
    char *back = read_back(path);
    CHECK(back && strcmp(back, "precious\n") == 0);
    free(back);
    rc_module_free(wave);
  }
  rc_module *m = test_parse(&d, kernels_rir);
  CHECK(m != NULL);
  if (m) {
    CHECK_EQ_INT(rc_llvm_export_file(&d.ctx, m, path), 0);
    char *back = read_back(path);
    CHECK_STR_CONTAINS(back, "define amdgpu_kernel void @first");
    free(back);
    /* and what was written imports again: the same kernels and blocks (the view shows the casts
     * of the generic pointers the export writes) */
    rc_module *again = rc_llvm_import_file(&d.ctx, path, NULL);
    CHECK(again != NULL && again->nkernels == 2);
    for (uint32_t i = 0; again && i < 2; i++) {
      CHECK(strcmp(again->kernels[i]->name, m->kernels[i]->name) == 0);
      CHECK_EQ_INT(again->kernels[i]->nblocks, m->kernels[i]->nblocks);
    }
    rc_module_free(again);
    rc_module_free(m);
  }
  remove(path);
  free(path);
}

TEST(import_errors_go_through_the_context) {
  test_diags d;
  test_diags_init(&d);
  CHECK(rc_llvm_import_file(&d.ctx, "/nonexistent/dir/x.ll", NULL) == NULL);
  CHECK_STR_CONTAINS(d.text, "/nonexistent/dir/x.ll: error: cannot open");
  CHECK(d.ctx.nerrors > 0);
  test_diags_init(&d);
  CHECK(rc_llvm_import_file(&d.ctx, "kernel.txt", NULL) == NULL);
  CHECK_STR_CONTAINS(d.text, "not an LLVM input");
}

#endif
