/* A small unit-test harness. Tests register themselves (no hand-kept list):
 *
 *   TEST(builder_keeps_preds) { ... CHECK(x == 1); CHECK_EQ_INT(a, b); CHECK_STR_CONTAINS(s, "..."); }
 *
 * main() is in testlib.c; it runs every registered test (or those whose name contains argv[1]) and
 * exits 1 when any CHECK failed. */
#ifndef RECONV_TEST_H
#define RECONV_TEST_H

#include "reconv/ir.h"

#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn);
extern int test_failures;

#define TEST(name)                                                              \
  static void test_##name(void);                                                \
  __attribute__((constructor)) static void test_register_##name(void) {         \
    test_register(#name, test_##name);                                          \
  }                                                                             \
  static void test_##name(void)

#define CHECK(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
      test_failures++;                                                          \
    }                                                                           \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                      \
  do {                                                                          \
    long long a_ = (long long)(a), b_ = (long long)(b);                         \
    if (a_ != b_) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n", __FILE__, \
              __LINE__, #a, #b, a_, b_);                                        \
      test_failures++;                                                          \
    }                                                                           \
  } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                         \
  do {                                                                          \
    const char *h_ = (hay), *n_ = (needle);                                     \
    if (!h_ || !strstr(h_, n_)) {                                               \
      fprintf(stderr, "%s:%d: CHECK failed: \"%s\" does not contain \"%s\"\n",  \
              __FILE__, __LINE__, h_ ? h_ : "(null)", n_);                      \
      test_failures++;                                                          \
    }                                                                           \
  } while (0)

/* A context whose diagnostics are collected into a buffer, for tests that check messages. */
typedef struct test_diags {
  rc_ctx ctx;
  char text[8192];
  size_t len;
} test_diags;
void test_diags_init(test_diags *d);
/* Parse text as a module named "test.rir" with diagnostics collected; NULL on error. */
rc_module *test_parse(test_diags *d, const char *text);
/* Print a module into a malloc'ed string. */
char *test_print(const rc_module *m);
/* Scale for property tests: RECONV_PROP_SCALE (default 1.0) times n, at least 1. */
unsigned test_scaled(unsigned n);

#endif
