/* Types beyond the basic ones: integers of any width up to 128 bits and pointers into address
 * spaces (scalars whose number says everything), and the module's table of composite types —
 * vectors, arrays, structs — and of types reconv only carries (docs/ir.md, "Types").
 *
 * A composite type is interned by its printed form ("<4 x f32>", "{i32, [2 x f64]}"), which says
 * exactly what the type is, so equal types get equal numbers. Layout follows LLVM's defaults for
 * the GPU targets reconv reads (amdgcn, spir64): integers aligned to 1, 2, 4 or 8 bytes by width,
 * vectors to their size rounded up to a power of two, structs to their largest field. */
#include "reconv/ir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scalars ------------------------------------------------------------------------------------ */

static bool is_wide_int(rc_type t) {
  return t > RC_TYPE_INT_BASE && t <= RC_TYPE_INT_BASE + 128;
}

static bool is_space_ptr(rc_type t) {
  return t > RC_TYPE_PTR_BASE && t <= RC_TYPE_PTR_BASE + 255;
}

bool rc_type_is_int(rc_type t) {
  return (t >= RC_I1 && t <= RC_I64) || is_wide_int(t);
}

bool rc_type_is_float(rc_type t) {
  return t == RC_F32 || t == RC_F64 || t == RC_F16;
}

bool rc_type_is_ptr(rc_type t) {
  return t == RC_PTR || is_space_ptr(t);
}

unsigned rc_type_addrspace(rc_type t) {
  return is_space_ptr(t) ? (unsigned)(t - RC_TYPE_PTR_BASE) : 0;
}

unsigned rc_type_bits(rc_type t) {
  switch (t) {
  case RC_I1: return 1;
  case RC_I8: return 8;
  case RC_I16: case RC_F16: return 16;
  case RC_I32: case RC_F32: return 32;
  case RC_I64: case RC_F64: case RC_PTR: case RC_MASK: return 64;
  default:
    if (is_wide_int(t)) return (unsigned)(t - RC_TYPE_INT_BASE);
    if (is_space_ptr(t)) return 64;
    return 0;
  }
}

unsigned rc_type_size(rc_type t) {
  return t == RC_I1 ? 1 : (rc_type_bits(t) + 7) / 8;
}

/* ABI alignment of a scalar: integers by width class (LLVM's i8..i64 entries, wider ones as i64),
 * floats and pointers by size. */
static uint32_t scalar_align(rc_type t) {
  unsigned bits = rc_type_bits(t);
  if (bits <= 8) return 1;
  if (bits <= 16) return 2;
  if (bits <= 32) return 4;
  return 8;
}

static uint64_t round_up(uint64_t n, uint64_t a) {
  return a ? (n + a - 1) / a * a : n;
}

static uint64_t pow2_at_least(uint64_t n) {
  uint64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

/* ---- the table ------------------------------------------------------------------------------------ */

const rc_typeinfo *rc_type_info(const rc_module *m, rc_type t) {
  if (!rc_type_is_composite(t) || !m) return NULL;
  uint32_t i = (uint32_t)(t - RC_TYPE_AGG_BASE);
  return i < m->ntypes ? m->types[i] : NULL;
}

/* The number of the type named `name`, adding `proto` (copied, with the name) when it is new. */
static rc_type intern(rc_module *m, const char *name, const rc_typeinfo *proto) {
  uintptr_t idx = (uintptr_t)rc_strmap_get(&m->type_index, name);
  if (idx) return (rc_type)(RC_TYPE_AGG_BASE + idx - 1);
  if (m->ntypes >= (uint32_t)(RC_TYPE_MAX - RC_TYPE_AGG_BASE)) return RC_VOID;
  rc_typeinfo *ti = rc_arena_alloc(&m->arena, sizeof *ti);
  *ti = *proto;
  ti->name = rc_arena_strdup(&m->arena, name);
  if (proto->fields) {
    ti->fields = rc_arena_alloc(&m->arena, (proto->count ? proto->count : 1) * sizeof *ti->fields);
    memcpy(ti->fields, proto->fields, proto->count * sizeof *ti->fields);
    ti->offsets = rc_arena_alloc(&m->arena, (proto->count ? proto->count : 1) * sizeof *ti->offsets);
    memcpy(ti->offsets, proto->offsets, proto->count * sizeof *ti->offsets);
  }
  if (m->ntypes == m->typecap) {
    uint32_t ncap = m->typecap ? m->typecap * 2 : 16;
    m->types = rc_arena_grow(&m->arena, m->types, m->ntypes, ncap, sizeof *m->types);
    m->typecap = ncap;
  }
  m->types[m->ntypes++] = ti;
  rc_strmap_put(&m->type_index, ti->name, (void *)(uintptr_t)m->ntypes);
  return (rc_type)(RC_TYPE_AGG_BASE + m->ntypes - 1);
}

/* ---- constructors ------------------------------------------------------------------------------------ */

rc_type rc_type_int(rc_module *m, unsigned bits) {
  switch (bits) {
  case 1: return RC_I1;
  case 8: return RC_I8;
  case 16: return RC_I16;
  case 32: return RC_I32;
  case 64: return RC_I64;
  default: break;
  }
  if (bits == 0 || bits > 128) return RC_VOID;
  if (!m->int_names) m->int_names = rc_arena_alloc(&m->arena, 129 * sizeof *m->int_names);
  if (!m->int_names[bits]) {
    char buf[16];
    snprintf(buf, sizeof buf, "i%u", bits);
    m->int_names[bits] = rc_arena_strdup(&m->arena, buf);
  }
  return (rc_type)(RC_TYPE_INT_BASE + bits);
}

rc_type rc_type_ptr(rc_module *m, unsigned addrspace) {
  if (addrspace == 0) return RC_PTR;
  if (addrspace > 255) return RC_VOID;
  if (!m->ptr_names) m->ptr_names = rc_arena_alloc(&m->arena, 256 * sizeof *m->ptr_names);
  if (!m->ptr_names[addrspace]) {
    char buf[32];
    snprintf(buf, sizeof buf, "ptr addrspace(%u)", addrspace);
    m->ptr_names[addrspace] = rc_arena_strdup(&m->arena, buf);
  }
  return (rc_type)(RC_TYPE_PTR_BASE + addrspace);
}

bool rc_type_is_value(const rc_module *m, rc_type t) {
  if (t == RC_VOID) return false;
  if (rc_type_is_scalar(t)) return t < RC_TYPE_COUNT || is_wide_int(t) || is_space_ptr(t);
  const rc_typeinfo *ti = rc_type_info(m, t);
  return ti && ti->kind != RC_TK_OTHER;
}

rc_type rc_type_vector(rc_module *m, rc_type elem, uint32_t n) {
  if (n == 0 || !rc_type_is_scalar(elem) || elem == RC_MASK || !rc_type_is_value(m, elem)) return RC_VOID;
  char name[96];
  snprintf(name, sizeof name, "<%u x %s>", n, rc_type_str(m, elem));
  rc_typeinfo ti = {RC_TK_VECTOR, false, n, elem, NULL, NULL, 0, 0, NULL};
  uint64_t bits = (uint64_t)n * (elem == RC_I1 ? 1 : 8 * rc_type_size(elem));
  uint64_t bytes = (bits + 7) / 8;
  ti.align = (uint32_t)(pow2_at_least(bytes) > 256 ? 256 : pow2_at_least(bytes));
  ti.size = round_up(bytes, ti.align);
  return intern(m, name, &ti);
}

rc_type rc_type_array(rc_module *m, rc_type elem, uint64_t n) {
  if (!rc_type_is_value(m, elem) || elem == RC_MASK) return RC_VOID;
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_sb_printf(&sb, "[%llu x %s]", (unsigned long long)n, rc_type_str(m, elem));
  rc_typeinfo ti = {RC_TK_ARRAY, false, n > UINT32_MAX ? UINT32_MAX : (uint32_t)n, elem, NULL, NULL, 0, 0, NULL};
  ti.align = rc_type_align(m, elem);
  ti.size = n * rc_type_alloc_size(m, elem);
  rc_type t = n > UINT32_MAX ? RC_VOID : intern(m, sb.data, &ti);
  rc_sb_free(&sb);
  return t;
}

/* The natural layout of a struct: each field at the next multiple of its alignment (none when
 * packed), the size rounded up to the struct's alignment. */
static void natural_layout(const rc_module *m, const rc_type *fields, uint32_t n, bool packed,
                           uint64_t *offsets, uint64_t *size, uint32_t *align) {
  uint64_t off = 0;
  uint32_t al = 1;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t fa = packed ? 1 : rc_type_align(m, fields[i]);
    if (fa > al) al = fa;
    off = round_up(off, fa);
    offsets[i] = off;
    off += rc_type_alloc_size(m, fields[i]);
  }
  *align = al;
  *size = round_up(off, al);
}

rc_type rc_type_struct_layout(rc_module *m, const rc_type *fields, uint32_t n, bool packed,
                              const uint64_t *offsets, uint64_t size, uint32_t align) {
  for (uint32_t i = 0; i < n; i++)
    if (!rc_type_is_value(m, fields[i]) || fields[i] == RC_MASK) return RC_VOID;
  uint64_t *nat = rc_xmalloc((n ? n : 1) * sizeof *nat);
  uint64_t nsize;
  uint32_t nalign;
  natural_layout(m, fields, n, packed, nat, &nsize, &nalign);
  bool agrees = !offsets || (size == nsize && align == nalign &&
                             (n == 0 || memcmp(nat, offsets, n * sizeof *nat) == 0));
  rc_type t = RC_VOID;
  if (agrees) {
    rc_strbuf sb;
    rc_sb_init(&sb);
    rc_sb_puts(&sb, packed ? "<{" : "{");
    for (uint32_t i = 0; i < n; i++) rc_sb_printf(&sb, "%s%s", i ? ", " : "", rc_type_str(m, fields[i]));
    rc_sb_puts(&sb, packed ? "}>" : "}");
    rc_typeinfo ti = {RC_TK_STRUCT, packed, n, RC_VOID, (rc_type *)fields, nat, nsize, nalign, NULL};
    t = intern(m, sb.data, &ti);
    rc_sb_free(&sb);
  }
  free(nat);
  return t;
}

rc_type rc_type_struct(rc_module *m, const rc_type *fields, uint32_t n, bool packed) {
  return rc_type_struct_layout(m, fields, n, packed, NULL, 0, 0);
}

rc_type rc_type_other(rc_module *m, const char *spelling) {
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_sb_puts(&sb, "opaque \"");
  for (const char *p = spelling; *p; p++) {
    if (*p == '"' || *p == '\\') rc_sb_putc(&sb, '\\');
    if (*p == '\n') rc_sb_puts(&sb, "\\n"); else rc_sb_putc(&sb, *p);
  }
  rc_sb_putc(&sb, '"');
  rc_typeinfo ti = {RC_TK_OTHER, false, 0, RC_VOID, NULL, NULL, 0, 1, NULL};
  rc_type t = intern(m, sb.data, &ti);
  rc_sb_free(&sb);
  return t;
}

/* ---- queries ------------------------------------------------------------------------------------------ */

const char *rc_type_str(const rc_module *m, rc_type t) {
  if (t < RC_TYPE_COUNT) return rc_type_name(t);
  if (is_wide_int(t) && m && m->int_names && m->int_names[t - RC_TYPE_INT_BASE])
    return m->int_names[t - RC_TYPE_INT_BASE];
  if (is_space_ptr(t) && m && m->ptr_names && m->ptr_names[t - RC_TYPE_PTR_BASE])
    return m->ptr_names[t - RC_TYPE_PTR_BASE];
  const rc_typeinfo *ti = rc_type_info(m, t);
  return ti ? ti->name : "?";
}

uint64_t rc_type_store_size(const rc_module *m, rc_type t) {
  if (rc_type_is_scalar(t)) return rc_type_size(t);
  const rc_typeinfo *ti = rc_type_info(m, t);
  if (!ti) return 0;
  if (ti->kind == RC_TK_VECTOR) {
    uint64_t bits = (uint64_t)ti->count * (ti->elem == RC_I1 ? 1 : 8 * rc_type_size(ti->elem));
    return (bits + 7) / 8;
  }
  return ti->size;
}

uint64_t rc_type_alloc_size(const rc_module *m, rc_type t) {
  if (rc_type_is_scalar(t)) return round_up(rc_type_size(t), scalar_align(t));
  const rc_typeinfo *ti = rc_type_info(m, t);
  return ti ? ti->size : 0;
}

uint32_t rc_type_align(const rc_module *m, rc_type t) {
  if (rc_type_is_scalar(t)) return scalar_align(t);
  const rc_typeinfo *ti = rc_type_info(m, t);
  return ti ? ti->align : 1;
}

uint32_t rc_type_count(const rc_module *m, rc_type t) {
  const rc_typeinfo *ti = rc_type_info(m, t);
  return ti ? ti->count : 0;
}

rc_type rc_type_elem(const rc_module *m, rc_type t, uint32_t i) {
  const rc_typeinfo *ti = rc_type_info(m, t);
  if (!ti || i >= ti->count) return RC_VOID;
  return ti->kind == RC_TK_STRUCT ? ti->fields[i] : ti->elem;
}

uint64_t rc_type_offset(const rc_module *m, rc_type t, uint32_t i) {
  const rc_typeinfo *ti = rc_type_info(m, t);
  if (!ti || i >= ti->count) return 0;
  switch (ti->kind) {
  case RC_TK_STRUCT: return ti->offsets[i];
  case RC_TK_ARRAY: return (uint64_t)i * rc_type_alloc_size(m, ti->elem);
  case RC_TK_VECTOR: return (uint64_t)i * rc_type_size(ti->elem); /* i1 vectors are not addressed */
  default: return 0;
  }
}

bool rc_type_is_vector(const rc_module *m, rc_type t) {
  const rc_typeinfo *ti = rc_type_info(m, t);
  return ti && ti->kind == RC_TK_VECTOR;
}

rc_type rc_type_scalar_of(const rc_module *m, rc_type t) {
  const rc_typeinfo *ti = rc_type_info(m, t);
  return ti && ti->kind == RC_TK_VECTOR ? ti->elem : t;
}

rc_type rc_type_like(rc_module *m, rc_type like, rc_type elem) {
  const rc_typeinfo *ti = rc_type_info(m, like);
  return ti && ti->kind == RC_TK_VECTOR ? rc_type_vector(m, elem, ti->count) : elem;
}

/* ---- between modules ------------------------------------------------------------------------------- */

rc_type rc_type_translate(rc_module *into, const rc_module *from, rc_type t) {
  if (into == from || t < RC_TYPE_COUNT) return t;
  if (is_wide_int(t)) return rc_type_int(into, rc_type_bits(t));
  if (is_space_ptr(t)) return rc_type_ptr(into, rc_type_addrspace(t));
  const rc_typeinfo *ti = rc_type_info(from, t);
  if (!ti) return RC_VOID;
  switch (ti->kind) {
  case RC_TK_VECTOR: return rc_type_vector(into, rc_type_translate(into, from, ti->elem), ti->count);
  case RC_TK_ARRAY: return rc_type_array(into, rc_type_translate(into, from, ti->elem), ti->count);
  case RC_TK_STRUCT: {
    /* nesting is bounded where types are made (the parser, the importer), so this recursion is */
    rc_type *f = rc_xmalloc((ti->count ? ti->count : 1) * sizeof *f);
    for (uint32_t i = 0; i < ti->count; i++) f[i] = rc_type_translate(into, from, ti->fields[i]);
    rc_type r = rc_type_struct(into, f, ti->count, ti->packed);
    free(f);
    return r;
  }
  default: {
    rc_type r = intern(into, ti->name, ti);
    return r;
  }
  }
}

/* ---- f16 ------------------------------------------------------------------------------------------- */

/* m >> shift rounded to nearest, ties to even (shift 1..63). */
static uint64_t shift_rne(uint64_t m, unsigned shift) {
  uint64_t q = m >> shift, rem = m & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) q++;
  return q;
}

uint16_t rc_f16_from_double(double d) {
  uint64_t b;
  memcpy(&b, &d, 8);
  uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
  int exp = (int)((b >> 52) & 0x7ff);
  uint64_t man = b & ((UINT64_C(1) << 52) - 1);
  if (exp == 0x7ff) return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
  if (exp == 0) return sign; /* double subnormals are far below half's range */
  uint64_t m = man | (UINT64_C(1) << 52);
  int e = exp - 1023 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00);
  if (e <= 0) { /* a half subnormal: units of 2^-24 */
    unsigned shift = (unsigned)(42 + 1 - e);
    if (shift > 63) return sign;
    return (uint16_t)(sign | shift_rne(m, shift)); /* rounding up to 0x400 gives the least normal */
  }
  uint64_t q = shift_rne(m, 42); /* 11 bits with the hidden one */
  if (q == 0x800) {
    q >>= 1;
    if (++e >= 31) return (uint16_t)(sign | 0x7c00);
  }
  return (uint16_t)(sign | (unsigned)e << 10 | (q & 0x3ff));
}

double rc_f16_to_double(uint16_t h) {
  int exp = (h >> 10) & 0x1f;
  unsigned man = h & 0x3ff;
  double v;
  if (exp == 0x1f) v = man ? NAN : INFINITY;
  else if (exp == 0) v = ldexp((double)man, -24);
  else v = ldexp((double)(man | 0x400), exp - 25);
  return (h & 0x8000) ? -v : v;
}

double rc_round_f16(double v) {
  return rc_f16_to_double(rc_f16_from_double(v));
}
