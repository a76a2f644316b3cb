/* Random edit scripts for the IR builder (tests/unit/builder_script.h): after every edit, block
 * ids are dense, names resolve, predecessor lists equal the CFG's edges, removed blocks leave no
 * phi entries behind, and clones print the same. test_scaled(3000) scripts of 400 edits. */
#include "builder_script.h"
#include "test.h"

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

TEST(random_builder_scripts_keep_the_invariants) {
  unsigned n = test_scaled(3000);
  uint8_t bytes[1200];
  char why[256];
  int failures = 0;
  for (unsigned i = 0; i < n && failures < 3; i++) {
    uint64_t seed = 0x9e3779b97f4a7c15ull * (i + 1);
    for (size_t b = 0; b < sizeof bytes; b++) bytes[b] = (uint8_t)xorshift(&seed);
    if (run_builder_script(bytes, sizeof bytes, why, sizeof why) != 0) {
      fprintf(stderr, "script %u: %s\n", i, why);
      failures++;
    }
  }
  CHECK_EQ_INT(failures, 0);
  printf("%u builder scripts\n", n);
}

TEST(a_script_that_breaks_an_invariant_is_caught) {
  /* the checker itself: a kernel whose preds were edited behind the builder's back fails */
  char why[256] = "";
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  rc_module *m = rc_module_new(&ctx, NULL);
  script s = {NULL, NULL, m, rc_kernel_new(m, "k"), NULL, NULL, why, sizeof why, false};
  rc_builder b;
  rc_block *e = rc_block_new(s.k, "entry"), *x = rc_block_new(s.k, "x");
  rc_builder_at_end(&b, e);
  rc_build_jmp(&b, x);
  rc_builder_at_end(&b, x);
  rc_build_ret(&b);
  uint32_t counts[4] = {0};
  CHECK(script_check(&s, counts));
  x->npreds = 0; /* forget the edge */
  CHECK(!script_check(&s, counts));
  CHECK_STR_CONTAINS(why, "edge entry -> x missing from preds");
  rc_module_free(m);
}
