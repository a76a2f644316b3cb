/* libFuzzer harness for the LLVM path (make fuzz; scripts/fuzz.sh), where users' kernels come in:
 * the input is LLVM IR text (.ll). When LLVM's parser and verifier and reconv's importer take it,
 * every imported kernel and device function must go through reconverge (an ordering chosen by the
 * input's bytes; the verifier after every pass), come out reconverging (thesis Def. 15), and the
 * module must export (LLVM's verifier checks what export writes) and import again with as many
 * kernels. A violated property aborts, so libFuzzer keeps the input. */
#include "reconv/analysis.h"
#include "reconv/llvm.h"
#include "reconv/transform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the first error, for the message when a property fails */
static void keep_first(void *user, const rc_diag *d) {
  char *first = user;
  if (d->severity == RC_SEV_ERROR && !first[0])
    snprintf(first, 512, "%s:%u:%u: %s", d->file ? d->file : "", d->line, d->col, d->message);
}

static void fail(const char *what, const char *why, const uint8_t *data, size_t size) {
  fprintf(stderr, "fuzz_llvm: %s: %s\n--- input:\n%.*s\n", what, why, (int)(size < 4096 ? size : 4096),
          (const char *)data);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *orders[] = {"auto", "dfpd", "bfpd", "rpot", "domreg", "df", "bf"};
  if (size > 64 * 1024) return 0; /* LLVM's parser is linear; big inputs only slow the search */
  char first[512] = "";
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  ctx.diag = keep_first;
  ctx.diag_user = first;
  ctx.verify_each = true;
  rc_llvm_import_opts io = {0};
  io.data = (const char *)data;
  io.data_len = size;
  rc_module *m = rc_llvm_import_file(&ctx, "fuzz.ll", &io);
  if (!m) return 0; /* bad input, reported: what must hold is that it did not crash */
  uint32_t h = 2166136261u; /* FNV-1a of the input chooses the ordering */
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 16777619u;
  char pipeline[64];
  snprintf(pipeline, sizeof pipeline, "reconverge[order=%s%s]", orders[h % 7], (h >> 8) & 1 ? ",cond2" : "");
  for (uint32_t i = 0; i < m->nkernels; i++) {
    rc_kernel *k = m->kernels[i];
    if (rc_pipeline_run(&ctx, k, pipeline, NULL, NULL) != 0) fail(pipeline, first, data, size);
    rc_analysis a;
    rc_analysis_build(&a, k, 0);
    bool ok = rc_is_reconverging(k, &a.cfg, &a.pdom, &a.unif, NULL);
    rc_analysis_free(&a);
    if (!ok) fail(pipeline, "the kernel does not reconverge", data, size);
  }
  rc_llvm_export_opts eo = {.last = true, .verified = true};
  char *out = NULL;
  size_t len = 0;
  if (rc_llvm_export(&ctx, m, &eo, &out, &len) != 0) fail("export", first, data, size);
  rc_llvm_import_opts again = {0};
  again.data = out;
  again.data_len = len;
  rc_module *m2 = rc_llvm_import_file(&ctx, "exported.ll", &again);
  if (!m2) fail("the exported module does not import", first, (const uint8_t *)out, len);
  if (m2->nkernels != m->nkernels) fail("export", "the number of kernels changed", (const uint8_t *)out, len);
  rc_module_free(m2);
  free(out);
  rc_module_free(m);
  return 0;
}
