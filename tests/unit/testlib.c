/* The unit-test harness: registration, main, and helpers shared by tests. */
#include "test.h"

#include <stdlib.h>

int test_failures;

typedef struct test_entry {
  const char *name;
  test_fn fn;
} test_entry;
static test_entry tests[1024];
static int ntests;

void test_register(const char *name, test_fn fn) {
  if (ntests < (int)(sizeof tests / sizeof tests[0])) tests[ntests++] = (test_entry){name, fn};
}

static void collect(void *user, const rc_diag *d) {
  test_diags *td = user;
  char buf[1400];
  rc_diag_format(d, buf, sizeof buf);
  size_t n = strlen(buf);
  if (td->len + n + 1 < sizeof td->text) {
    memcpy(td->text + td->len, buf, n + 1);
    td->len += n;
  }
}

void test_diags_init(test_diags *d) {
  memset(d, 0, sizeof *d);
  rc_ctx_init(&d->ctx);
  d->ctx.diag = collect;
  d->ctx.diag_user = d;
  d->ctx.verify_each = true;
}

rc_module *test_parse(test_diags *d, const char *text) {
  return rc_parse_module(&d->ctx, "test.rir", text, strlen(text));
}

char *test_print(const rc_module *m) {
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_print_module(m, &sb);
  if (!sb.data) rc_sb_puts(&sb, "");
  return sb.data;
}

unsigned test_scaled(unsigned n) {
  const char *s = getenv("RECONV_PROP_SCALE");
  double f = s ? atof(s) : 1.0;
  double r = n * f;
  return r < 1 ? 1 : (unsigned)r;
}

int main(int argc, char **argv) {
  int ran = 0;
  for (int i = 0; i < ntests; i++) {
    if (argc > 1 && !strstr(tests[i].name, argv[1])) continue;
    int before = test_failures;
    tests[i].fn();
    ran++;
    printf("%s %s\n", test_failures == before ? "ok  " : "FAIL", tests[i].name);
  }
  if (ran == 0) {
    fprintf(stderr, "no tests ran\n");
    return 1;
  }
  printf("%d tests, %d failed checks\n", ran, test_failures);
  return test_failures ? 1 : 0;
}
