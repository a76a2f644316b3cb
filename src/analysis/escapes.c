/* Values that escape cycles, for temporal divergence (uniformity.c): when cycle c gets a
 * divergent exit, the values defined in c (nested cycles included) and used outside c become
 * divergent.
 *
 * A value defined in block b escapes the cycles around b from the innermost up to the outermost
 * one that some use lies outside of; call the depth of that one its escape depth. Sorted by the
 * innermost cycle of their block (cycle ids are in forest pre-order, so the cycles nested in c
 * are a range), the values defined in c form one slice, and those escaping c are the ones in the
 * slice with escape depth <= depth(c). A segment tree of escape depths finds them, and a value
 * leaves it once taken: each value is found once, and a cycle costs O((1 + values found) log n)
 * instead of a walk over it. Building it is one pass over the uses. */
#include "escapes.h"

#include <stdlib.h>
#include <string.h>

void rc_escapes_build(rc_escapes *x, const rc_cycle_info *ci, uint32_t nv, const uint32_t *def_block,
                      const uint32_t *use_start, const uint32_t *use_block, const uint8_t *skip) {
  memset(x, 0, sizeof *x);
  x->ci = ci;
  uint32_t m = ci->ncycles;
  uint32_t *depth = rc_xmalloc((nv ? nv : 1) * sizeof *depth);
  for (uint32_t id = 0; id < nv; id++) {
    depth[id] = UINT32_MAX;
    uint32_t db = def_block[id], inner = db == RC_NONE || skip[id] ? RC_NONE : ci->innermost[db];
    for (uint32_t e = use_start[id]; inner != RC_NONE && e < use_start[id + 1]; e++) {
      uint32_t out = RC_NONE;
      for (uint32_t c = inner; c != RC_NONE && !rc_cycle_contains(ci, c, use_block[e]); c = ci->cycles[c].parent)
        out = c;
      if (out != RC_NONE && ci->cycles[out].depth < depth[id]) depth[id] = ci->cycles[out].depth;
    }
  }
  /* the escaping values, sorted by the innermost cycle of their block (counting sort) */
  x->slice = rc_xcalloc(m + 2, sizeof *x->slice);
  for (uint32_t id = 0; id < nv; id++)
    if (depth[id] != UINT32_MAX) x->slice[ci->innermost[def_block[id]] + 1]++;
  for (uint32_t c = 0; c <= m; c++) x->slice[c + 1] += x->slice[c];
  x->n = x->slice[m];
  x->value = rc_xmalloc((x->n ? x->n : 1) * sizeof *x->value);
  uint32_t *fill = rc_xmalloc((m + 1) * sizeof *fill);
  memcpy(fill, x->slice, (m + 1) * sizeof *fill);
  for (uint32_t id = 0; id < nv; id++)
    if (depth[id] != UINT32_MAX) x->value[fill[ci->innermost[def_block[id]]]++] = id;
  free(fill);
  for (x->size = 1; x->size < x->n; x->size *= 2) {}
  x->tree = rc_xmalloc(2 * x->size * sizeof *x->tree);
  for (uint32_t i = 0; i < x->size; i++) x->tree[x->size + i] = i < x->n ? depth[x->value[i]] : UINT32_MAX;
  for (uint32_t i = x->size; i-- > 1;)
    x->tree[i] = x->tree[2 * i] < x->tree[2 * i + 1] ? x->tree[2 * i] : x->tree[2 * i + 1];
  free(depth);
}

void rc_escapes_free(rc_escapes *x) {
  free(x->value);
  free(x->slice);
  free(x->tree);
  memset(x, 0, sizeof *x);
}

/* The first index in [lo, hi) whose escape depth is <= d, or RC_NONE; iterative descent. */
static uint32_t find(const rc_escapes *x, uint32_t lo, uint32_t hi, uint32_t d) {
  uint32_t stack[64], sp = 0; /* nodes as (index, node lo, node hi), depth of the tree <= 32 */
  uint32_t nlo[64], nhi[64];
  stack[sp] = 1, nlo[sp] = 0, nhi[sp] = x->size, sp++;
  while (sp) {
    sp--;
    uint32_t v = stack[sp], a = nlo[sp], b = nhi[sp];
    if (b <= lo || a >= hi || x->tree[v] > d) continue;
    if (b - a == 1) return a;
    uint32_t mid = a + (b - a) / 2;
    stack[sp] = 2 * v + 1, nlo[sp] = mid, nhi[sp] = b, sp++; /* right after left */
    stack[sp] = 2 * v, nlo[sp] = a, nhi[sp] = mid, sp++;
  }
  return RC_NONE;
}

uint32_t rc_escapes_take(rc_escapes *x, uint32_t c) {
  const rc_cycle *cy = &x->ci->cycles[c];
  uint32_t i = find(x, x->slice[c], x->slice[cy->nested_end], cy->depth);
  if (i == RC_NONE) return RC_NONE;
  uint32_t v = x->size + i;
  x->tree[v] = UINT32_MAX;
  for (v /= 2; v; v /= 2) x->tree[v] = x->tree[2 * v] < x->tree[2 * v + 1] ? x->tree[2 * v] : x->tree[2 * v + 1];
  return x->value[i];
}
