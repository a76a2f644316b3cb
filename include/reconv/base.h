/* reconv: base services shared by every part of the library.
 *
 * - rc_ctx: the explicit context (MIR style). It carries the diagnostic callback and options; the
 *   library keeps no global mutable state, so two contexts can be used from two threads.
 * - rc_arena: bump allocation for IR memory; everything a module owns is freed with the module.
 * - RC_VEC: typed growable vectors on the heap, for analyses and passes.
 */
#ifndef RECONV_BASE_H
#define RECONV_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h> /* free, used by rc_vec_free */

#ifdef __cplusplus
extern "C" {
#endif

#define RC_NONE UINT32_MAX /* "no block / no node / no index" in id-indexed tables */

/* ---- diagnostics and the context ---------------------------------------------------------- */

typedef enum rc_severity { RC_SEV_NOTE, RC_SEV_WARNING, RC_SEV_ERROR } rc_severity;

/* A diagnostic. file may be NULL (no source position); line and col are 1-based, 0 = unknown. */
typedef struct rc_diag {
  rc_severity severity;
  const char *file;
  uint32_t line, col;
  const char *message;
} rc_diag;

typedef void (*rc_diag_fn)(void *user, const rc_diag *d);

typedef struct rc_ctx {
  rc_diag_fn diag;      /* NULL: diagnostics go to stderr as "file:line:col: error: msg" */
  void *diag_user;
  unsigned nerrors;     /* errors reported through this context so far */
  bool verify_each;     /* run the verifier after every pass (on in tests and debug runs) */
  unsigned max_errors;  /* stop reporting after this many (0 = unlimited) */
} rc_ctx;

void rc_ctx_init(rc_ctx *ctx);
/* Report a diagnostic; formats with printf rules. Returns -1 for errors so callers can write
 * `return rc_error(...)`. */
int rc_report(rc_ctx *ctx, rc_severity sev, const char *file, uint32_t line, uint32_t col,
              const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
int rc_vreport(rc_ctx *ctx, rc_severity sev, const char *file, uint32_t line, uint32_t col,
               const char *fmt, va_list ap);
#define rc_error(ctx, ...) rc_report((ctx), RC_SEV_ERROR, NULL, 0, 0, __VA_ARGS__)

/* Format the default way ("file:line:col: error: msg\n") into a caller buffer. */
void rc_diag_format(const rc_diag *d, char *buf, size_t size);

/* ---- arena ---------------------------------------------------------------------------------- */

typedef struct rc_arena_chunk rc_arena_chunk;
typedef struct rc_arena {
  rc_arena_chunk *chunks;
  char *cur, *end;
  size_t total; /* bytes handed out, for statistics */
} rc_arena;

void rc_arena_init(rc_arena *a);
void rc_arena_free(rc_arena *a);
void *rc_arena_alloc(rc_arena *a, size_t size); /* zeroed, 16-byte aligned; aborts on OOM */
char *rc_arena_strdup(rc_arena *a, const char *s);
char *rc_arena_strndup(rc_arena *a, const char *s, size_t n);
/* Grow an arena array from old_count to new_count elements (copying); the old array is left to
 * the arena. */
void *rc_arena_grow(rc_arena *a, void *old, size_t old_count, size_t new_count, size_t elem);

/* ---- heap helpers and typed vectors ---------------------------------------------------------- */

void *rc_xmalloc(size_t size);            /* aborts with a message on out-of-memory */
void *rc_xcalloc(size_t n, size_t size);
void *rc_xrealloc(void *p, size_t size);
char *rc_xstrdup(const char *s);

#define RC_VEC(T) struct { T *data; uint32_t len, cap; }
void rc_vec_reserve_(void **data, uint32_t *cap, uint32_t need, size_t elem);
#define rc_vec_reserve(v, n) \
  rc_vec_reserve_((void **)&(v)->data, &(v)->cap, (uint32_t)(n), sizeof *(v)->data)
/* the capacity test is inline: pushes are the commonest operation on big kernels, and a call per
 * push to find that there is room cost as much as the push */
#define rc_vec_push(v, x) \
  (((v)->len < (v)->cap ? (void)0 : rc_vec_reserve((v), (v)->len + 1)), (v)->data[(v)->len++] = (x))
#define rc_vec_free(v) (free((v)->data), (v)->data = NULL, (v)->len = (v)->cap = 0)

typedef RC_VEC(uint32_t) rc_u32vec;
/* Ascending order of uint32_t, for qsort. */
int rc_cmp_u32(const void *a, const void *b);
typedef RC_VEC(char) rc_charvec;

/* ---- string building ------------------------------------------------------------------------ */

/* A growable string used by printers; out-of-memory aborts. */
typedef struct rc_strbuf {
  char *data;
  size_t len, cap;
} rc_strbuf;
void rc_sb_init(rc_strbuf *sb);
void rc_sb_reserve(rc_strbuf *sb, size_t n); /* room for n more bytes and the terminating NUL */
/* Append everything f (a FILE *, passed as void * so that this header needs no stdio.h) holds until
 * its end; false on a read error. */
bool rc_sb_read_all(rc_strbuf *sb, void *f);
void rc_sb_free(rc_strbuf *sb);
void rc_sb_puts(rc_strbuf *sb, const char *s);
void rc_sb_putc(rc_strbuf *sb, char c);
void rc_sb_printf(rc_strbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- string-keyed hash map (open addressing) ------------------------------------------------- */

typedef struct rc_strmap_entry {
  const char *key; /* not owned */
  void *value;
  uint64_t hash;   /* rc_hash_bytes of key */
} rc_strmap_entry;
typedef struct rc_strmap {
  rc_strmap_entry *slots;
  uint32_t cap, len;
} rc_strmap;
void rc_strmap_init(rc_strmap *m);
void rc_strmap_free(rc_strmap *m);
void *rc_strmap_get(const rc_strmap *m, const char *key);
/* Insert or replace; the key pointer must stay valid as long as the map. */
void rc_strmap_put(rc_strmap *m, const char *key, void *value);
/* Insert unless the key is there with a non-NULL value: returns that value, or NULL after
 * inserting (one probe instead of a get and a put). */
void *rc_strmap_put_new(rc_strmap *m, const char *key, void *value);
/* rc_strmap_put_new for keys[0..n) in order, stopping at the first key that is there with a
 * non-NULL value: returns its index, or n when all were inserted. Much faster than n calls on big
 * maps (room is made once, and the probes' cache misses overlap). */
uint32_t rc_strmap_put_new_batch(rc_strmap *m, uint32_t n, const char *const *keys, void *const *values);
uint64_t rc_hash_bytes(const void *p, size_t n, uint64_t seed);

/* ---- 64-bit-keyed hash map (open addressing); key UINT64_MAX is reserved ------------------------- */

typedef struct rc_u64map_slot {
  uint64_t key; /* UINT64_MAX: free */
  void *val;
} rc_u64map_slot;

typedef struct rc_u64map {
  rc_u64map_slot *slots; /* key and value side by side: a probe reads one cache line */
  uint32_t cap, len;
} rc_u64map;
void rc_u64map_init(rc_u64map *m);
void rc_u64map_free(rc_u64map *m);
void *rc_u64map_get(const rc_u64map *m, uint64_t key); /* NULL when absent */
void rc_u64map_put(rc_u64map *m, uint64_t key, void *value);

#ifdef __cplusplus
}
#endif
#endif
