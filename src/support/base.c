/* Base services: diagnostics, the arena, heap helpers, vectors, string buffers, the string map. */
#include "reconv/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- diagnostics ------------------------------------------------------------------------------ */

void rc_ctx_init(rc_ctx *ctx) {
  memset(ctx, 0, sizeof *ctx);
}

static const char *severity_name(rc_severity s) {
  switch (s) {
  case RC_SEV_NOTE: return "note";
  case RC_SEV_WARNING: return "warning";
  default: return "error";
  }
}

void rc_diag_format(const rc_diag *d, char *buf, size_t size) {
  if (d->file && d->line)
    snprintf(buf, size, "%s:%u:%u: %s: %s\n", d->file, d->line, d->col, severity_name(d->severity),
             d->message);
  else if (d->file)
    snprintf(buf, size, "%s: %s: %s\n", d->file, severity_name(d->severity), d->message);
  else
    snprintf(buf, size, "%s: %s\n", severity_name(d->severity), d->message);
}

int rc_vreport(rc_ctx *ctx, rc_severity sev, const char *file, uint32_t line, uint32_t col,
               const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (sev == RC_SEV_ERROR) ctx->nerrors++;
  if (ctx->max_errors && sev == RC_SEV_ERROR && ctx->nerrors > ctx->max_errors) return -1;
  rc_diag d = {sev, file, line, col, msg};
  if (ctx->diag) {
    ctx->diag(ctx->diag_user, &d);
  } else {
    char buf[1400];
    rc_diag_format(&d, buf, sizeof buf);
    fputs(buf, stderr);
  }
  return -1;
}

int rc_report(rc_ctx *ctx, rc_severity sev, const char *file, uint32_t line, uint32_t col,
              const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = rc_vreport(ctx, sev, file, line, col, fmt, ap);
  va_end(ap);
  return r;
}

/* ---- heap --------------------------------------------------------------------------------------- */

/* Memory runs out on inputs too big for the machine: that is bad input, not a crash, so the process
 * ends with status 1 (outputs are written to a temporary file and renamed, so no file the user
 * gave is left half-written). */
static void out_of_memory(size_t n) {
  fprintf(stderr, "reconv: error: out of memory (allocating %zu bytes)\n", n);
  exit(1);
}

void *rc_xmalloc(size_t size) {
  void *p = malloc(size ? size : 1);
  if (!p) out_of_memory(size);
  return p;
}

int rc_cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

void *rc_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) out_of_memory(n * size);
  return p;
}

void *rc_xrealloc(void *p, size_t size) {
  void *q = realloc(p, size ? size : 1);
  if (!q) out_of_memory(size);
  return q;
}

char *rc_xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = rc_xmalloc(n);
  memcpy(p, s, n);
  return p;
}

void rc_vec_reserve_(void **data, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return;
  uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 8;
  while (ncap < need) ncap *= 2;
  if (ncap > UINT32_MAX) ncap = UINT32_MAX;
  *data = rc_xrealloc(*data, (size_t)ncap * elem);
  *cap = (uint32_t)ncap;
}

/* ---- arena ---------------------------------------------------------------------------------------- */

struct rc_arena_chunk {
  rc_arena_chunk *next;
  size_t size;
  /* data follows, 16-byte aligned */
};

#define CHUNK_HEADER ((sizeof(rc_arena_chunk) + 15) & ~(size_t)15)
#define CHUNK_DEFAULT (256 * 1024)

void rc_arena_init(rc_arena *a) {
  memset(a, 0, sizeof *a);
}

void rc_arena_free(rc_arena *a) {
  rc_arena_chunk *c = a->chunks;
  while (c) {
    rc_arena_chunk *n = c->next;
    free(c);
    c = n;
  }
  memset(a, 0, sizeof *a);
}

void *rc_arena_alloc(rc_arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (size == 0) size = 16;
  if ((size_t)(a->end - a->cur) < size) {
    size_t csize = size > CHUNK_DEFAULT / 4 ? size : CHUNK_DEFAULT;
    rc_arena_chunk *c = rc_xmalloc(CHUNK_HEADER + csize);
    c->size = csize;
    if (size > CHUNK_DEFAULT / 4 && a->chunks) {
      /* a big block gets its own chunk; keep bumping in the current one */
      c->next = a->chunks->next;
      a->chunks->next = c;
      a->total += size;
      void *p = (char *)c + CHUNK_HEADER;
      memset(p, 0, size);
      return p;
    }
    c->next = a->chunks;
    a->chunks = c;
    a->cur = (char *)c + CHUNK_HEADER;
    a->end = a->cur + csize;
  }
  void *p = a->cur;
  a->cur += size;
  a->total += size;
  memset(p, 0, size);
  return p;
}

char *rc_arena_strndup(rc_arena *a, const char *s, size_t n) {
  char *p = rc_arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *rc_arena_strdup(rc_arena *a, const char *s) {
  return rc_arena_strndup(a, s, strlen(s));
}

void *rc_arena_grow(rc_arena *a, void *old, size_t old_count, size_t new_count, size_t elem) {
  void *p = rc_arena_alloc(a, new_count * elem);
  if (old && old_count) memcpy(p, old, (old_count < new_count ? old_count : new_count) * elem);
  return p;
}

/* ---- string buffer ----------------------------------------------------------------------------------- */

void rc_sb_init(rc_strbuf *sb) {
  memset(sb, 0, sizeof *sb);
}

void rc_sb_free(rc_strbuf *sb) {
  free(sb->data);
  memset(sb, 0, sizeof *sb);
}

static void sb_reserve(rc_strbuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap) return;
  size_t ncap = sb->cap ? sb->cap * 2 : 256;
  while (ncap < sb->len + extra + 1) ncap *= 2;
  sb->data = rc_xrealloc(sb->data, ncap);
  sb->cap = ncap;
}

void rc_sb_puts(rc_strbuf *sb, const char *s) {
  size_t n = strlen(s);
  sb_reserve(sb, n);
  memcpy(sb->data + sb->len, s, n + 1);
  sb->len += n;
}

void rc_sb_reserve(rc_strbuf *sb, size_t n) {
  sb_reserve(sb, n);
}

bool rc_sb_read_all(rc_strbuf *sb, void *f) {
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, (FILE *)f)) > 0) {
    sb_reserve(sb, got);
    memcpy(sb->data + sb->len, chunk, got);
    sb->len += got;
    sb->data[sb->len] = 0;
  }
  return !ferror((FILE *)f);
}

void rc_sb_putc(rc_strbuf *sb, char c) {
  sb_reserve(sb, 1);
  sb->data[sb->len++] = c;
  sb->data[sb->len] = 0;
}

void rc_sb_printf(rc_strbuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  sb_reserve(sb, (size_t)n);
  if ((size_t)n < sizeof small) {
    memcpy(sb->data + sb->len, small, (size_t)n + 1);
  } else {
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  sb->len += (size_t)n;
}

/* ---- string map ---------------------------------------------------------------------------------------- */

uint64_t rc_hash_bytes(const void *p, size_t n, uint64_t seed) {
  /* FNV-1a, 64 bit */
  const unsigned char *s = p;
  uint64_t h = 1469598103934665603ull ^ seed;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 1099511628211ull;
  }
  return h;
}

void rc_strmap_init(rc_strmap *m) {
  memset(m, 0, sizeof *m);
}

void rc_strmap_free(rc_strmap *m) {
  free(m->slots);
  memset(m, 0, sizeof *m);
}

/* Open addressing with linear probing. Each slot keeps its key's hash, so that probing past other
 * keys and growing the table compare and move hashes without reading the keys themselves (on
 * maps of millions of names every key read is a cache miss). */
static uint32_t strmap_find(const rc_strmap *m, const char *key, uint64_t h) {
  uint32_t mask = m->cap - 1;
  uint32_t i = (uint32_t)h & mask;
  for (;;) {
    const rc_strmap_entry *e = &m->slots[i];
    if (!e->key || (e->hash == h && strcmp(e->key, key) == 0)) return i;
    i = (i + 1) & mask;
  }
}

static uint64_t strmap_hash(const char *key) {
  return rc_hash_bytes(key, strlen(key), 0);
}

void *rc_strmap_get(const rc_strmap *m, const char *key) {
  if (!m->cap) return NULL;
  uint32_t i = strmap_find(m, key, strmap_hash(key));
  return m->slots[i].key ? m->slots[i].value : NULL;
}

/* Make room for `more` new keys: at most 3/4 of the slots are used. */
static void strmap_reserve(rc_strmap *m, uint32_t more) {
  if (((uint64_t)m->len + more) * 4 < (uint64_t)m->cap * 3) return;
  uint32_t ncap = m->cap ? m->cap : 16;
  while (((uint64_t)m->len + more) * 4 >= (uint64_t)ncap * 3) ncap *= 2;
  rc_strmap_entry *old = m->slots;
  uint32_t ocap = m->cap;
  m->slots = rc_xcalloc(ncap, sizeof *m->slots);
  m->cap = ncap;
  for (uint32_t i = 0; i < ocap; i++)
    if (old[i].key) {
      uint32_t j = (uint32_t)old[i].hash & (ncap - 1);
      while (m->slots[j].key) j = (j + 1) & (ncap - 1);
      m->slots[j] = old[i];
    }
  free(old);
}

void rc_strmap_put(rc_strmap *m, const char *key, void *value) {
  strmap_reserve(m, 1);
  uint64_t h = strmap_hash(key);
  uint32_t i = strmap_find(m, key, h);
  if (!m->slots[i].key) { /* a new key; an existing one keeps its stored pointer */
    m->len++;
    m->slots[i].key = key;
    m->slots[i].hash = h;
  }
  m->slots[i].value = value;
}

/* ---- u64 map ------------------------------------------------------------------------------------------ */

static uint32_t u64_slot(const rc_u64map *m, uint64_t key) {
  uint64_t h = key * 0x9e3779b97f4a7c15ull;
  uint32_t mask = m->cap - 1, i = (uint32_t)(h >> 32) & mask;
  while (m->slots[i].key != UINT64_MAX && m->slots[i].key != key) i = (i + 1) & mask;
  return i;
}

void rc_u64map_init(rc_u64map *m) {
  memset(m, 0, sizeof *m);
}

void rc_u64map_free(rc_u64map *m) {
  free(m->slots);
  memset(m, 0, sizeof *m);
}

void *rc_u64map_get(const rc_u64map *m, uint64_t key) {
  if (!m->cap) return NULL;
  uint32_t i = u64_slot(m, key);
  return m->slots[i].key == key ? m->slots[i].val : NULL;
}

void rc_u64map_put(rc_u64map *m, uint64_t key, void *value) {
  if ((m->len + 1) * 4 >= m->cap * 3) {
    uint32_t ocap = m->cap, ncap = m->cap ? m->cap * 2 : 64;
    rc_u64map_slot *old = m->slots;
    m->slots = rc_xmalloc(ncap * sizeof *m->slots);
    for (uint32_t i = 0; i < ncap; i++) m->slots[i].key = UINT64_MAX;
    m->cap = ncap;
    for (uint32_t i = 0; i < ocap; i++)
      if (old[i].key != UINT64_MAX) m->slots[u64_slot(m, old[i].key)] = old[i];
    free(old);
  }
  uint32_t i = u64_slot(m, key);
  if (m->slots[i].key != key) {
    m->slots[i].key = key;
    m->len++;
  }
  m->slots[i].val = value;
}

/* put_new's decision for the slot e that probing found for key: return the value there, or take
 * the slot (a new key, or one whose value was NULL, i.e. a free name) and return NULL. */
static void *claim_slot(rc_strmap *m, rc_strmap_entry *e, const char *key, uint64_t h, void *value) {
  if (e->key && e->value) return e->value;
  if (!e->key) {
    m->len++;
    e->hash = h;
  }
  e->key = key; /* a key whose value was NULL (removed) takes the new pointer */
  e->value = value;
  return NULL;
}

void *rc_strmap_put_new(rc_strmap *m, const char *key, void *value) {
  strmap_reserve(m, 1);
  uint64_t h = strmap_hash(key);
  return claim_slot(m, &m->slots[strmap_find(m, key, h)], key, h, value);
}

/* The batch is hashed and its home slots prefetched BATCH keys at a time, then inserted in order,
 * so that the probes' cache misses (one per key on a map of millions) overlap instead of adding
 * up. */
uint32_t rc_strmap_put_new_batch(rc_strmap *m, uint32_t n, const char *const *keys, void *const *values) {
  enum { BATCH = 32 };
  strmap_reserve(m, n);
  uint64_t hash[BATCH];
  for (uint32_t base = 0; base < n; base += BATCH) {
    uint32_t len = n - base < BATCH ? n - base : BATCH;
    for (uint32_t j = 0; j < len; j++) {
      hash[j] = strmap_hash(keys[base + j]);
#if defined(__GNUC__)
      __builtin_prefetch(&m->slots[(uint32_t)hash[j] & (m->cap - 1)], 1);
#endif
    }
    for (uint32_t j = 0; j < len; j++) {
      const char *key = keys[base + j];
      if (claim_slot(m, &m->slots[strmap_find(m, key, hash[j])], key, hash[j], values[base + j]))
        return base + j;
    }
  }
  return n;
}

