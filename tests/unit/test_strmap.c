/* The string map (src/support/base.c): single operations against a naive reference, and
 * rc_strmap_put_new_batch against the same keys put one by one. Big enough to grow the table
 * many times and to probe long runs. */
#include "reconv/base.h"
#include "test.h"

#include <stdlib.h>

enum { NKEYS = 60000 };

/* Key i's text; keys i and i + NKEYS/2 collide on purpose, so the tests see repeated names. */
static char *key_text(rc_arena *a, uint32_t i) {
  char buf[32];
  snprintf(buf, sizeof buf, "%c%u", "vujhx"[i % 5], i % (NKEYS / 2));
  return rc_arena_strdup(a, buf);
}

TEST(strmap_agrees_with_a_reference) {
  rc_arena a;
  rc_arena_init(&a);
  rc_strmap m;
  rc_strmap_init(&m);
  char **keys = malloc(NKEYS * sizeof *keys);
  void **ref = calloc(NKEYS / 2, sizeof *ref); /* by key number: the value the map should hold */
  for (uint32_t i = 0; i < NKEYS; i++) keys[i] = key_text(&a, i);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < NKEYS; i++) {
    uint32_t id = i % (NKEYS / 2);
    void *value = (void *)(uintptr_t)(i + 1);
    if (i % 7 == 0) { /* put replaces */
      rc_strmap_put(&m, keys[i], value);
      ref[id] = value;
    } else if (i % 11 == 0) { /* a NULL value frees the name */
      rc_strmap_put(&m, keys[i], NULL);
      ref[id] = NULL;
    } else { /* put_new keeps what is there */
      void *had = rc_strmap_put_new(&m, keys[i], value);
      if (had != ref[id]) wrong++;
      if (!ref[id]) ref[id] = value;
    }
  }
  for (uint32_t id = 0; id < NKEYS / 2; id++)
    if (rc_strmap_get(&m, keys[id]) != ref[id]) wrong++;
  CHECK_EQ_INT(wrong, 0);
  CHECK(rc_strmap_get(&m, "not a key") == NULL);
  rc_strmap_free(&m);
  free(keys);
  free(ref);
  rc_arena_free(&a);
}

TEST(strmap_batch_inserts_like_one_by_one) {
  rc_arena a;
  rc_arena_init(&a);
  uint32_t n = NKEYS / 2; /* distinct keys */
  const char **keys = malloc(NKEYS * sizeof *keys);
  void **values = malloc(NKEYS * sizeof *values);
  for (uint32_t i = 0; i < NKEYS; i++) {
    keys[i] = key_text(&a, i);
    values[i] = (void *)(uintptr_t)(i + 1);
  }
  /* into an empty map, and into one that already has some of the keys (a few with NULL values,
   * which the batch may take) */
  rc_strmap one, batch;
  rc_strmap_init(&one);
  rc_strmap_init(&batch);
  CHECK_EQ_INT(rc_strmap_put_new_batch(&batch, n, keys, values), n);
  for (uint32_t i = 0; i < n; i++) CHECK(rc_strmap_put_new(&one, keys[i], values[i]) == NULL);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < n; i++)
    if (rc_strmap_get(&batch, keys[i]) != values[i] || rc_strmap_get(&one, keys[i]) != values[i]) wrong++;
  CHECK_EQ_INT(wrong, 0);
  CHECK_EQ_INT(batch.len, n);
  rc_strmap_free(&batch);
  rc_strmap_init(&batch);
  for (uint32_t i = 0; i < 100; i++) rc_strmap_put(&batch, keys[i], i < 50 ? NULL : values[i]);
  /* keys 0..49 are free names: taken; key 50 is there: the batch stops at index 50 */
  CHECK_EQ_INT(rc_strmap_put_new_batch(&batch, 1000, keys, values), 50);
  CHECK(rc_strmap_get(&batch, keys[49]) == values[49]);
  CHECK(rc_strmap_get(&batch, keys[51]) == values[51]);
  /* a batch that repeats a name: stops at the repetition, the keys before it are in */
  rc_strmap_free(&batch);
  rc_strmap_init(&batch);
  CHECK_EQ_INT(rc_strmap_put_new_batch(&batch, NKEYS, keys, values), n);
  CHECK(rc_strmap_get(&batch, keys[n - 1]) == values[n - 1]);
  CHECK_EQ_INT(batch.len, n);
  CHECK_EQ_INT(rc_strmap_put_new_batch(&batch, 0, keys, values), 0);
  rc_strmap_free(&one);
  rc_strmap_free(&batch);
  free(keys);
  free(values);
  rc_arena_free(&a);
}
