/* Name and constant resolution for the .rir parser.
 *
 * Blocks and values are named in the kernel's own maps (rc_kernel_find_block, rc_value_set_name),
 * which on big inputs grow to millions of entries: then every probe misses the CPU caches. Most
 * references in a kernel are to names defined or mentioned shortly before, so a direct-mapped
 * cache of recent names per kind answers them from memory that is still hot, and the maps are
 * asked only when it does not. Likewise operands that are the same constant share one rc_const
 * per kernel (as they may in IR built by passes), which saves an allocation for most constant
 * operands. Everything is keyed by a generation number, so that starting a kernel forgets the
 * previous one's names without clearing the caches.
 *
 * Value names are not entered into the kernel's map one by one as they are defined: on a big
 * kernel each insertion is a cache miss in a table of tens of megabytes. They wait in a list and
 * go in at once (names_flush_values, at the end of the kernel or before any error is reported,
 * so that a redefinition is still the first error), where rc_strmap_put_new_batch overlaps the
 * misses. Meanwhile a use that the recent-name cache cannot answer is resolved after the flush,
 * like a forward reference. */
#include "parse_names.h"
#include "ir_internal.h"

#include <stdlib.h>
#include <string.h>

#define RECENT_SIZE 2048    /* entries per recent-name cache (a power of two) */
#define CONST_CACHE_BITS 10 /* log2 of the entries of the constant cache */

void names_init(parse_names *n, rc_module *m) {
  memset(n, 0, sizeof *n);
  n->m = m;
  rc_strmap_init(&n->numbered);
  n->recent_blocks = rc_xcalloc(RECENT_SIZE, sizeof *n->recent_blocks);
  n->recent_values = rc_xcalloc(RECENT_SIZE, sizeof *n->recent_values);
  n->consts = rc_xcalloc((size_t)1 << CONST_CACHE_BITS, sizeof *n->consts);
}

void names_free(parse_names *n) {
  rc_strmap_free(&n->numbered);
  rc_vec_free(&n->pend_names);
  rc_vec_free(&n->pend_values);
  rc_vec_free(&n->pend_pos);
  free(n->recent_blocks);
  free(n->recent_values);
  free(n->consts);
}

void names_begin_kernel(parse_names *n, rc_kernel *k) {
  n->k = k;
  n->gen++;
  rc_strmap_free(&n->numbered);
  rc_strmap_init(&n->numbered);
  n->pend_names.len = n->pend_values.len = n->pend_pos.len = 0;
}

static uint32_t hash_name(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static void remember(parse_names *n, recent_entry *cache, uint32_t hash, void *obj) {
  recent_entry *e = &cache[hash & (RECENT_SIZE - 1)];
  e->hash = hash;
  e->gen = n->gen;
  e->obj = obj;
}

/* The cached block or value called `name` (whose hash is `hash`), or NULL. */
static void *recall(parse_names *n, recent_entry *cache, const char *name, uint32_t hash, bool is_block) {
  recent_entry *e = &cache[hash & (RECENT_SIZE - 1)];
  if (e->gen != n->gen || e->hash != hash) return NULL;
  const char *have = is_block ? ((rc_block *)e->obj)->name : ((rc_value *)e->obj)->name;
  return strcmp(have, name) == 0 ? e->obj : NULL;
}

rc_block *names_block(parse_names *n, const char *name, bool *created) {
  uint32_t h = hash_name(name);
  rc_block *b = recall(n, n->recent_blocks, name, h, true);
  *created = false;
  if (b) return b;
  b = rc_block_find_or_new_(n->k, name, created);
  remember(n, n->recent_blocks, h, b);
  return b;
}

/* %123: a number, which the IR does not keep as a name (the printer renumbers unnamed values) */
static bool is_number(const char *name) {
  for (const char *c = name; *c; c++)
    if (*c < '0' || *c > '9') return false;
  return *name != 0;
}

rc_value *names_value(parse_names *n, const char *name) {
  if (is_number(name)) return rc_strmap_get(&n->numbered, name);
  uint32_t h = hash_name(name);
  rc_value *v = recall(n, n->recent_values, name, h, false);
  if (v || n->pend_names.len) return v;
  v = rc_kernel_find_value(n->k, name);
  if (v) remember(n, n->recent_values, h, v);
  return v;
}

bool names_define_value(parse_names *n, const char *name, rc_value *v, uint32_t line, uint32_t col) {
  if (!is_number(name)) {
    v->name = rc_arena_strdup(&n->m->arena, name);
    rc_vec_push(&n->pend_names, v->name);
    rc_vec_push(&n->pend_values, v);
    rc_vec_push(&n->pend_pos, (uint64_t)line << 32 | col);
    remember(n, n->recent_values, hash_name(name), v);
    return true;
  }
  if (rc_strmap_get(&n->numbered, name)) return false;
  rc_strmap_put(&n->numbered, rc_arena_strdup(&n->m->arena, name), v);
  return true;
}

bool names_flush_values(parse_names *n, const char **dup, uint32_t *line, uint32_t *col) {
  uint32_t len = n->pend_names.len;
  if (!len) return true; /* also before the first kernel, when there is no kernel map */
  uint32_t first = rc_strmap_put_new_batch(&n->k->value_names, len, n->pend_names.data, n->pend_values.data);
  if (first < len) {
    *dup = n->pend_names.data[first];
    *line = (uint32_t)(n->pend_pos.data[first] >> 32);
    *col = (uint32_t)n->pend_pos.data[first];
  }
  n->pend_names.len = n->pend_values.len = n->pend_pos.len = 0;
  return first == len;
}

/* The cache entry for the constant `bits` of type t. An entry that held another constant is
 * taken over, with no value yet (v == NULL) for the caller to make. */
static const_entry *const_slot(parse_names *n, rc_type t, uint64_t bits) {
  uint64_t h = (bits ^ ((uint64_t)t << 56)) * 0x9e3779b97f4a7c15ull;
  const_entry *e = &n->consts[h >> (64 - CONST_CACHE_BITS)];
  if (e->gen != n->gen || e->type != (uint32_t)t || e->bits != bits) {
    e->gen = n->gen;
    e->type = (uint32_t)t;
    e->bits = bits;
    e->v = NULL;
  }
  return e;
}

rc_value *names_int_const(parse_names *n, rc_type t, int64_t value) {
  int64_t canon = rc_int_canon(t, value);
  const_entry *e = const_slot(n, t, (uint64_t)canon);
  if (!e->v) e->v = rc_const_int(n->k, t, canon);
  return e->v;
}

rc_value *names_float_const(parse_names *n, rc_type t, double value) {
  double f = t == RC_F32 ? (double)(float)value : value; /* as rc_const_float stores it */
  uint64_t bits;
  memcpy(&bits, &f, sizeof bits);
  const_entry *e = const_slot(n, t, bits);
  if (!e->v) e->v = rc_const_float(n->k, t, f);
  return e->v;
}
