/* libFuzzer harness for the IR builder: the input is an edit script (tests/unit/builder_script.h);
 * a broken invariant aborts, so libFuzzer keeps the script. The property test
 * tests/property/prop_ir_builder.c runs the same scripts from a PRNG in every test run. */
#include "../unit/builder_script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[256];
  /* the first 1200 edits at most, as in the property test: the invariants are checked after every
   * edit, at a cost that grows with the kernel, and a longer script finds nothing a shorter one
   * would not (up to 200 blocks are reached sooner) */
  if (size > 1200) size = 1200;
  if (run_builder_script(data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_builder: %s\n", why);
    abort();
  }
  return 0;
}
