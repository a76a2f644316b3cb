/* Simulated memory: the global buffers a run spec describes (allocation and initialisation), the
 * local and private regions of a kernel, checksums and comparisons. The address layout is in
 * sim.h and docs/cli.md ("Memory"). */
#include "decode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

/* ---- initial contents ----------------------------------------------------------------------- */

/* splitmix64 (Steele, Lea, Flood 2014): small, fast, the same sequence on every platform. */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static void put_int(rc_buffer *b, uint64_t i, int64_t v) {
  sim_slot s;
  s.i = rc_int_canon(b->elem, v);
  unsigned size = rc_type_size(b->elem);
  sim_write_le(b->data + i * size, size, sim_to_bits(s, b->elem));
}

static void put_float(rc_buffer *b, uint64_t i, double v) {
  unsigned size = rc_type_size(b->elem);
  sim_write_le(b->data + i * size, size, sim_to_bits(sim_fput(v, b->elem), b->elem));
}

static int fill_from_file(rc_ctx *ctx, rc_buffer *b, const rc_arg_spec *a, uint64_t bytes) {
  FILE *f = fopen(a->path, "rb");
  if (!f) return rc_error(ctx, "--arg %s: cannot open '%s': %s", a->text, a->path, strerror(errno));
  size_t got = fread(b->data, 1, bytes, f);
  bool err = ferror(f);
  fclose(f);
  if (err) return rc_error(ctx, "--arg %s: cannot read '%s'", a->text, a->path);
  if (got < bytes)
    return rc_error(ctx, "--arg %s: '%s' holds %zu bytes, the buffer needs %" PRIu64, a->text,
                    a->path, got, bytes);
  return 0;
}

static int fill_buffer(rc_ctx *ctx, rc_buffer *b, const rc_arg_spec *a, uint64_t seed_offset) {
  bool is_float = rc_type_is_float(b->elem);
  uint64_t state = a->seed + seed_offset;
  for (uint64_t i = 0; i < b->count && a->init != RC_INIT_ZEROS && a->init != RC_INIT_FILE; i++) {
    switch (a->init) {
    case RC_INIT_SEQ:
      if (is_float) put_float(b, i, a->a + (double)i * a->b);
      else put_int(b, i, (int64_t)((uint64_t)a->ia + i * (uint64_t)a->ib));
      break;
    case RC_INIT_FILL:
      if (is_float) put_float(b, i, a->a);
      else put_int(b, i, a->ia);
      break;
    case RC_INIT_RAND: {
      uint64_t r = splitmix64(&state);
      if (is_float) {
        put_float(b, i, a->a + (a->b - a->a) * ((double)(r >> 11) * 0x1p-53));
      } else {
        uint64_t span = (uint64_t)a->ib - (uint64_t)a->ia + 1; /* 0: the whole 64-bit range */
        put_int(b, i, (int64_t)((uint64_t)a->ia + (span ? r % span : r)));
      }
      break;
    }
    default: break;
    }
  }
  if (a->init == RC_INIT_FILE) return fill_from_file(ctx, b, a, b->count * rc_type_size(b->elem));
  return 0;
}

/* ---- buffers -------------------------------------------------------------------------------- */

/* A by-value aggregate parameter's memory image: its leaves at their offsets (scalarize.c's layout,
 * which the load run_form.c puts in the kernel's copy reads back), padding zero. */
static int fill_aggregate(rc_ctx *ctx, rc_buffer *b, const rc_arg_spec *a, const rc_module *m, rc_type t) {
  if (sim_leaves_of(m, t) != a->nleaves)
    return rc_error(ctx, "--arg %s: parameter %%%s is not the by-value aggregate the value was checked for",
                    a->text, a->param);
  for (uint32_t j = 0; j < a->nleaves; j++) {
    uint64_t at;
    rc_type leaf = sim_leaf_type(m, t, j, &at);
    unsigned size = rc_type_size(leaf);
    sim_slot v;
    if (rc_type_is_float(leaf)) v = sim_fput(a->leaves[j].is_float ? a->leaves[j].f : (double)a->leaves[j].i, leaf);
    else v.i = rc_type_is_ptr(leaf) ? 0 : rc_int_canon(leaf, a->leaves[j].i);
    sim_write_le(b->data + at, size, sim_to_bits(v, leaf));
  }
  return 0;
}

int rc_memory_init(rc_ctx *ctx, rc_memory *mem, const rc_run_spec *s, const rc_kernel *k) {
  memset(mem, 0, sizeof *mem);
  mem->bufs = rc_xcalloc(k->nparams ? k->nparams : 1, sizeof *mem->bufs);
  mem->segs = rc_xcalloc(k->nparams ? k->nparams : 1, sizeof *mem->segs);
  mem->names = rc_xcalloc(k->nparams ? k->nparams : 1, sizeof *mem->names);
  for (uint32_t p = 0; p < k->nparams; p++) {
    const rc_arg_spec *a = rc_run_spec_find_arg(s, k->params[p]->name);
    if (!a || !(a->is_buffer || a->is_aggregate) || a->is_local) continue;
    uint32_t idx = mem->nbufs;
    rc_buffer *b = &mem->bufs[idx];
    rc_type t = (rc_type)k->params[p]->type;
    b->param = k->params[p]->name;
    b->elem = a->is_aggregate ? RC_I8 : a->elem;
    b->count = a->is_aggregate ? rc_type_alloc_size(k->mod, t) : rc_arg_count(a, s);
    b->base = rc_addr_make(RC_SPACE_GLOBAL, idx, 0);
    uint64_t bytes = b->count * rc_type_size(b->elem);
    b->data = calloc(bytes ? bytes : 1, 1);
    if (!b->data) {
      rc_memory_free(mem);
      return rc_error(ctx, "--arg %s: cannot allocate %" PRIu64 " bytes", a->text, bytes);
    }
    mem->nbufs++;
    mem->segs[idx].data = b->data;
    mem->segs[idx].size = bytes;
    mem->names[idx] = b->param;
    if (a->is_aggregate ? fill_aggregate(ctx, b, a, k->mod, t) != 0 : fill_buffer(ctx, b, a, s->seed_offset) != 0) {
      rc_memory_free(mem);
      return -1;
    }
  }
  return 0;
}

void rc_memory_free(rc_memory *mem) {
  for (uint32_t i = 0; i < mem->nbufs; i++) free(mem->bufs[i].data);
  free(mem->bufs);
  free(mem->segs);
  free(mem->names);
  memset(mem, 0, sizeof *mem);
}

static uint64_t fnv1a(uint64_t h, const uint8_t *p, uint64_t n) {
  for (uint64_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3u;
  }
  return h;
}
#define FNV_OFFSET 0xcbf29ce484222325u

uint64_t rc_buffer_checksum(const rc_buffer *b) {
  return fnv1a(FNV_OFFSET, b->data, b->count * rc_type_size(b->elem));
}

uint64_t rc_memory_checksum(const rc_memory *mem) {
  uint64_t h = FNV_OFFSET;
  for (uint32_t i = 0; i < mem->nbufs; i++)
    h = fnv1a(h, mem->bufs[i].data, mem->bufs[i].count * rc_type_size(mem->bufs[i].elem));
  return h;
}

rc_buffer *rc_memory_find(const rc_memory *mem, const char *param) {
  for (uint32_t i = 0; i < mem->nbufs; i++)
    if (strcmp(mem->bufs[i].param, param) == 0) return &mem->bufs[i];
  return NULL;
}

void rc_buffer_format_elem(const rc_buffer *b, uint64_t i, char *buf, size_t len) {
  unsigned size = rc_type_size(b->elem);
  sim_slot s = sim_from_bits(sim_read_le(b->data + i * size, size), b->elem);
  if (b->elem == RC_F16) snprintf(buf, len, "%.5g", s.f);
  else if (b->elem == RC_F32) snprintf(buf, len, "%.9g", s.f);
  else if (b->elem == RC_F64) snprintf(buf, len, "%.17g", s.d);
  else snprintf(buf, len, "%" PRId64, s.i);
}

bool rc_memory_equal(const rc_memory *a, const rc_memory *b, char *why, size_t whylen) {
  if (a->nbufs != b->nbufs) {
    snprintf(why, whylen, "expected %u buffers, got %u", a->nbufs, b->nbufs);
    return false;
  }
  for (uint32_t i = 0; i < a->nbufs; i++) {
    const rc_buffer *x = &a->bufs[i], *y = &b->bufs[i];
    if (strcmp(x->param, y->param) != 0 || x->elem != y->elem || x->count != y->count) {
      snprintf(why, whylen, "buffer %u: expected %%%s %s[%" PRIu64 "], got %%%s %s[%" PRIu64 "]", i,
               x->param, rc_type_name(x->elem), x->count, y->param, rc_type_name(y->elem), y->count);
      return false;
    }
    uint64_t bytes = x->count * rc_type_size(x->elem);
    if (memcmp(x->data, y->data, bytes) == 0) continue;
    uint64_t at = 0;
    while (x->data[at] == y->data[at]) at++;
    uint64_t elem = at / rc_type_size(x->elem);
    char ex[64], got[64];
    rc_buffer_format_elem(x, elem, ex, sizeof ex);
    rc_buffer_format_elem(y, elem, got, sizeof got);
    snprintf(why, whylen, "buffer %%%s, element %" PRIu64 " (byte %" PRIu64 "): expected %s, got %s",
             x->param, elem, at, ex, got);
    return false;
  }
  return true;
}

/* Between two finite non-zero floats of one sign, the difference of their bit patterns read as
 * integers (consecutive floats are consecutive integers). */
uint64_t rc_ulp_distance(const void *x, const void *y, rc_type t) {
  if (t == RC_F32) {
    float a, b;
    uint32_t ua, ub;
    memcpy(&a, x, 4), memcpy(&b, y, 4), memcpy(&ua, x, 4), memcpy(&ub, y, 4);
    if (isnan(a) && isnan(b)) return 0;
    if (isnan(a) || isnan(b) || isinf(a) || isinf(b) || a == 0 || b == 0 || signbit(a) != signbit(b))
      return ua == ub ? 0 : UINT64_MAX;
    return ua > ub ? ua - ub : ub - ua;
  }
  double a, b;
  uint64_t ua, ub;
  memcpy(&a, x, 8), memcpy(&b, y, 8), memcpy(&ua, x, 8), memcpy(&ub, y, 8);
  if (isnan(a) && isnan(b)) return 0;
  if (isnan(a) || isnan(b) || isinf(a) || isinf(b) || a == 0 || b == 0 || signbit(a) != signbit(b))
    return ua == ub ? 0 : UINT64_MAX;
  return ua > ub ? ua - ub : ub - ua;
}

bool rc_memory_equal_ulps(const rc_memory *a, const rc_memory *b, uint64_t ulps, uint64_t *max_ulps, char *why,
                          size_t whylen) {
  if (max_ulps) *max_ulps = 0;
  if (a->nbufs != b->nbufs) return rc_memory_equal(a, b, why, whylen);
  for (uint32_t i = 0; i < a->nbufs; i++) {
    const rc_buffer *x = &a->bufs[i], *y = &b->bufs[i];
    if (strcmp(x->param, y->param) != 0 || x->elem != y->elem || x->count != y->count) return rc_memory_equal(a, b, why, whylen);
    unsigned size = rc_type_size(x->elem);
    if (x->elem != RC_F32 && x->elem != RC_F64) {
      if (memcmp(x->data, y->data, x->count * size) == 0) continue;
      return rc_memory_equal(a, b, why, whylen); /* names the first difference */
    }
    for (uint64_t e = 0; e < x->count; e++) {
      uint64_t d = rc_ulp_distance(x->data + e * size, y->data + e * size, x->elem);
      if (d <= ulps) {
        if (max_ulps && d > *max_ulps) *max_ulps = d;
        continue;
      }
      char ex[64], got[64];
      rc_buffer_format_elem(x, e, ex, sizeof ex);
      rc_buffer_format_elem(y, e, got, sizeof got);
      if (d == UINT64_MAX)
        snprintf(why, whylen, "buffer %%%s, element %" PRIu64 ": expected %s, got %s", x->param, e, ex, got);
      else
        snprintf(why, whylen, "buffer %%%s, element %" PRIu64 ": expected %s, got %s (%" PRIu64 " ulp apart, more "
                 "than %" PRIu64 ")", x->param, e, ex, got, d, ulps);
      return false;
    }
  }
  return true;
}

/* ---- local and private regions ---------------------------------------------------------------- */

static uint64_t align16(uint64_t n) {
  return (n + 15) & ~(uint64_t)15;
}

int rc_frame_layout_build(rc_ctx *ctx, rc_frame_layout *l, const rc_kernel *k,
                          const rc_run_spec *s) {
  memset(l, 0, sizeof *l);
  l->region = rc_xmalloc((k->nvalues ? k->nvalues : 1) * sizeof *l->region);
  for (uint32_t v = 0; v < k->nvalues; v++) l->region[v] = RC_NONE;
  RC_VEC(uint64_t) lsize = {0}, psize = {0};
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->op == RC_OP_ALLOCA) {
        l->region[i->v.id] = psize.len;
        rc_vec_push(&psize, (uint64_t)i->imm);
      } else if (i->op == RC_OP_LOCALMEM) {
        l->region[i->v.id] = lsize.len;
        rc_vec_push(&lsize, (uint64_t)i->imm);
      }
    }
  for (uint32_t p = 0; p < k->nparams; p++) {
    const rc_arg_spec *a = rc_run_spec_find_arg(s, k->params[p]->name);
    if (!a || !a->is_local) continue;
    l->region[p] = lsize.len;
    rc_vec_push(&lsize, rc_arg_count(a, s) * rc_type_size(a->elem));
  }
  l->nlocal = lsize.len;
  l->nprivate = psize.len;
  l->local_size = lsize.data ? lsize.data : rc_xcalloc(1, sizeof(uint64_t));
  l->private_size = psize.data ? psize.data : rc_xcalloc(1, sizeof(uint64_t));
  l->local_offset = rc_xcalloc(l->nlocal + 1, sizeof(uint64_t));
  l->private_offset = rc_xcalloc(l->nprivate + 1, sizeof(uint64_t));
  for (uint32_t r = 0; r < l->nlocal; r++) {
    l->local_offset[r] = l->local_bytes;
    l->local_bytes += align16(l->local_size[r]);
  }
  for (uint32_t r = 0; r < l->nprivate; r++) {
    l->private_offset[r] = l->private_bytes;
    l->private_bytes += align16(l->private_size[r]);
  }
  if (l->local_bytes > RC_REGION_MAX_BYTES || l->private_bytes > RC_REGION_MAX_BYTES) {
    rc_error(ctx, "kernel @%s needs %" PRIu64 " bytes of %s memory; the simulator allows %" PRIu64,
             k->name, l->local_bytes > RC_REGION_MAX_BYTES ? l->local_bytes : l->private_bytes,
             l->local_bytes > RC_REGION_MAX_BYTES ? "local" : "private", RC_REGION_MAX_BYTES);
    rc_frame_layout_free(l);
    return -1;
  }
  return 0;
}

void rc_frame_layout_free(rc_frame_layout *l) {
  free(l->local_offset);
  free(l->local_size);
  free(l->private_offset);
  free(l->private_size);
  free(l->region);
  memset(l, 0, sizeof *l);
}

void rc_frame_segments(rc_segment *segs, uint8_t *storage, const uint64_t *offset,
                       const uint64_t *size, uint32_t n) {
  for (uint32_t r = 0; r < n; r++) {
    segs[r].data = storage + offset[r];
    segs[r].size = size[r];
  }
}

/* ---- explaining bad addresses ------------------------------------------------------------------- */

static void region_name(const rc_addr_map *m, unsigned space, uint32_t region,
                        const char *const *global_names, char *buf, size_t len) {
  if (space == RC_SPACE_GLOBAL && global_names) snprintf(buf, len, "buffer %%%s", global_names[region]);
  else if (space == RC_SPACE_MODULE && m->module_names) snprintf(buf, len, "global @%s", m->module_names[region]);
  else if (space == RC_SPACE_LOCAL) snprintf(buf, len, "local region %u", region);
  else if (space == RC_SPACE_PRIVATE) snprintf(buf, len, "private region %u", region);
  else snprintf(buf, len, "region %u", region);
}

void rc_addr_describe(const rc_addr_map *m, const char *const *global_names, uint64_t addr,
                      uint64_t n, char *buf, size_t len) {
  unsigned space = (unsigned)(addr >> RC_ADDR_SPACE_SHIFT);
  uint32_t region = (uint32_t)(addr >> RC_ADDR_REGION_SHIFT) & RC_ADDR_REGION_MASK;
  uint64_t off = addr & 0xffffffffu;
  static const char *const space_names[RC_SPACE_COUNT] = {"none", "global", "local", "private", "module"};
  char name[128];
  /* An address a little below a region's start lies at the top of the window before it. */
  uint64_t next = (addr | 0xffffffffu) + 1;
  unsigned nspace = (unsigned)(next >> RC_ADDR_SPACE_SHIFT);
  uint32_t nregion = (uint32_t)(next >> RC_ADDR_REGION_SHIFT) & RC_ADDR_REGION_MASK;
  if (off >= 0x80000000u && next != 0 && nspace < RC_SPACE_COUNT && nregion < m->nseg[nspace]) {
    region_name(m, nspace, nregion, global_names, name, sizeof name);
    snprintf(buf, len, "%" PRIu64 " bytes before the start of %s", next - addr, name);
    return;
  }
  if (space == RC_SPACE_NONE) {
    snprintf(buf, len, addr < 0x10000 ? "null pointer" : "not an address of any memory");
    return;
  }
  if (space >= RC_SPACE_COUNT) {
    snprintf(buf, len, "not an address of any memory");
    return;
  }
  if (region >= m->nseg[space]) {
    snprintf(buf, len, "no %s memory region %u", space_names[space], region);
    return;
  }
  uint64_t size = m->seg[space][region].size;
  region_name(m, space, region, global_names, name, sizeof name);
  if (off >= size)
    snprintf(buf, len, "%" PRIu64 " bytes past the end of %s (%" PRIu64 " bytes)", off - size, name, size);
  else
    snprintf(buf, len, "%" PRIu64 " bytes from offset %" PRIu64 " run past the end of %s (%" PRIu64 " bytes)",
             n, off, name, size);
}
