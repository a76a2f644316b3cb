/* libFuzzer harness for the .rir parser, printer and verifier (make fuzz; scripts/fuzz.sh).
 *
 * For any input: parsing never crashes. When it parses, the printed text must parse again, print
 * to the same text (a fixed point), have the same verifier verdict, and the verifier, the DOT
 * writer and the kernel cloner must not crash on it. A violated property aborts, so libFuzzer
 * keeps the input as a crash; each one found becomes a regression test in tests/unit. */
#include "reconv/ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void quiet(void *user, const rc_diag *d) {
  (void)user;
  (void)d;
}

static void fail(const char *what, const char *a, const char *b) {
  fprintf(stderr, "fuzz_parse: %s\n--- first:\n%s\n--- second:\n%s\n", what, a ? a : "", b ? b : "");
  abort();
}

static char *print(const rc_module *m) {
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_print_module(m, &sb);
  if (!sb.data) rc_sb_puts(&sb, "");
  return sb.data;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  ctx.diag = quiet;
  rc_module *m = rc_parse_module_unverified(&ctx, "fuzz.rir", (const char *)data, size);
  if (!m) return 0;
  bool valid = rc_verify_module(&ctx, m) == 0;
  char *p1 = print(m);
  rc_module *m2 = rc_parse_module_unverified(&ctx, "printed.rir", p1, strlen(p1));
  if (!m2) fail("the printed module does not parse", p1, NULL);
  char *p2 = print(m2);
  if (strcmp(p1, p2) != 0) fail("print(parse(print(m))) != print(m)", p1, p2);
  if ((rc_verify_module(&ctx, m2) == 0) != valid) fail("the verifier's verdict changed", p1, p2);
  rc_strbuf dot;
  rc_sb_init(&dot);
  rc_dot_opts opts = {.show_instructions = true};
  for (uint32_t i = 0; i < m->nkernels; i++) rc_dot_kernel(m->kernels[i], &opts, &dot);
  rc_sb_free(&dot);
  if (valid) { /* a clone into a fresh module prints like the original and verifies */
    for (uint32_t i = 0; i < m->nkernels; i++) {
      rc_module *cm = rc_module_new(&ctx, NULL);
      rc_kernel *c = rc_kernel_clone(cm, m->kernels[i], m->kernels[i]->name);
      if (!c) fail("clone failed", p1, NULL);
      rc_strbuf a, b;
      rc_sb_init(&a);
      rc_sb_init(&b);
      rc_print_kernel(m->kernels[i], &a);
      rc_print_kernel(c, &b);
      if (strcmp(a.data, b.data) != 0) fail("the clone prints differently", a.data, b.data);
      if (rc_verify_kernel(&ctx, c) != 0) fail("the clone does not verify", a.data, b.data);
      rc_sb_free(&a);
      rc_sb_free(&b);
      rc_module_free(cm);
    }
  }
  free(p1);
  free(p2);
  rc_module_free(m2);
  rc_module_free(m);
  return 0;
}
