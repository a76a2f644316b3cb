/* Traces and trace equivalence, the correctness criterion of DESIGN.md: for every thread, the
 * sequence of original blocks it executes is the same in two runs, where blocks a transform
 * inserted (flow, guard and virtual blocks, RC_BLOCK_SYNTHETIC) and the blocks of inlined device
 * functions (RC_BLOCK_INLINED) are skipped in either run. Blocks
 * are matched by name, since a transform keeps the names of the blocks it does not insert. */
#include "reconv/sim.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rc_traces_free(rc_traces *t) {
  free(t->start);
  free(t->ids);
  memset(t, 0, sizeof *t);
}

void rc_run_stats_free(rc_run_stats *s) {
  free(s->block_entries);
  free(s->block_vector_instrs);
  free(s->block_active_lane_instrs);
  free(s->block_scalar_instrs);
  free(s->block_duplicates);
  memset(s, 0, sizeof *s);
}

double rc_simd_efficiency(const rc_run_stats *s) {
  double lanes = (double)s->vector_instrs * s->wave_size;
  return lanes > 0 ? (double)s->active_lane_instrs / lanes : 0.0;
}

/* Position of the next non-synthetic block at or after *i in a trace, or false at its end. */
static bool next_original(const rc_kernel *k, const uint32_t *ids, uint64_t len, uint64_t *i) {
  while (*i < len && (k->blocks[ids[*i]]->bflags & (RC_BLOCK_SYNTHETIC | RC_BLOCK_INLINED))) ++*i;
  return *i < len;
}

static uint64_t count_original(const rc_kernel *k, const uint32_t *ids, uint64_t len) {
  uint64_t n = 0;
  for (uint64_t i = 0; next_original(k, ids, len, &i); i++) n++;
  return n;
}

/* ---- effect traces (sim.h, "Effect traces"; the criterion of docs/meld.md) ---------------------- */

static uint64_t effect_field(const uint32_t *e, unsigned i) {
  return (uint64_t)e[1 + 2 * i] | (uint64_t)e[2 + 2 * i] << 32;
}

static void effect_describe(const uint32_t *e, char *buf, size_t len) {
  if (!e) {
    snprintf(buf, len, "the end");
    return;
  }
  unsigned kind = e[0] >> 24, aux = e[0] & 0xffffffu;
  uint64_t a = effect_field(e, 0), b = effect_field(e, 1), c = effect_field(e, 2);
  switch (kind) {
  case RC_EFFECT_STORE:
    snprintf(buf, len, "store of %u bytes 0x%" PRIx64 " at 0x%" PRIx64, aux, b, a);
    break;
  case RC_EFFECT_ATOMIC:
    snprintf(buf, len, "%s at 0x%" PRIx64 " (operands 0x%" PRIx64 ", 0x%" PRIx64 ")",
             rc_builtin_get((rc_builtin)aux)->name, a, b, c);
    break;
  case RC_EFFECT_CALL:
    snprintf(buf, len, "%s(0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ")",
             rc_builtin_get((rc_builtin)aux)->name, a, b, c);
    break;
  case RC_EFFECT_BARRIER: snprintf(buf, len, "barrier"); break;
  default: snprintf(buf, len, "effect %u", kind); break;
  }
}

bool rc_effects_equivalent(const rc_traces *ta, const rc_traces *tb, char *why, size_t whylen) {
  if (!ta->effects || !tb->effects) {
    snprintf(why, whylen, "effect traces expected, but %s run recorded blocks",
             !ta->effects ? "the first" : "the second");
    return false;
  }
  if (ta->nthreads != tb->nthreads) {
    snprintf(why, whylen, "expected %u threads, got %u", ta->nthreads, tb->nthreads);
    return false;
  }
  for (uint32_t t = 0; t < ta->nthreads; t++) {
    uint64_t la, lb;
    const uint32_t *a = rc_traces_thread(ta, t, &la), *b = rc_traces_thread(tb, t, &lb);
    uint64_t n = la < lb ? la : lb, i = 0;
    while (i < n && memcmp(a + i, b + i, RC_EFFECT_WORDS * sizeof *a) == 0) i += RC_EFFECT_WORDS;
    if (i == la && i == lb) continue;
    char x[160], y[160];
    effect_describe(i < la ? a + i : NULL, x, sizeof x);
    effect_describe(i < lb ? b + i : NULL, y, sizeof y);
    snprintf(why, whylen, "thread %u, effect %" PRIu64 ": expected %s, got %s (%" PRIu64 " and %" PRIu64
             " effects)", t, i / RC_EFFECT_WORDS, x, y, la / RC_EFFECT_WORDS, lb / RC_EFFECT_WORDS);
    return false;
  }
  return true;
}

bool rc_traces_equivalent(const rc_kernel *ka, const rc_traces *ta, const rc_kernel *kb,
                          const rc_traces *tb, char *why, size_t whylen) {
  if (ta->effects || tb->effects) return rc_effects_equivalent(ta, tb, why, whylen);
  if (ta->nthreads != tb->nthreads) {
    snprintf(why, whylen, "expected %u threads, got %u", ta->nthreads, tb->nthreads);
    return false;
  }
  /* kb block id -> ka block id of the same name (RC_NONE when ka has none) */
  uint32_t *map = rc_xmalloc((kb->nblocks ? kb->nblocks : 1) * sizeof *map);
  for (uint32_t b = 0; b < kb->nblocks; b++) {
    const rc_block *o = rc_kernel_find_block(ka, kb->blocks[b]->name);
    map[b] = o ? o->id : RC_NONE;
  }
  bool same = true;
  for (uint32_t t = 0; t < ta->nthreads && same; t++) {
    uint64_t la, lb;
    const uint32_t *a = rc_traces_thread(ta, t, &la), *b = rc_traces_thread(tb, t, &lb);
    uint64_t i = 0, j = 0, pos = 0;
    for (;; i++, j++, pos++) {
      bool more_a = next_original(ka, a, la, &i), more_b = next_original(kb, b, lb, &j);
      if (!more_a && !more_b) break;
      if (more_a && more_b && map[b[j]] == a[i]) continue;
      same = false;
      if (more_a && more_b)
        snprintf(why, whylen, "thread %u, position %" PRIu64 ": expected block %s, got %s", t, pos,
                 ka->blocks[a[i]]->name, kb->blocks[b[j]]->name);
      else
        snprintf(why, whylen, "thread %u: expected %" PRIu64 " blocks, got %" PRIu64
                 " (position %" PRIu64 ": expected %s, got %s)", t, count_original(ka, a, la),
                 count_original(kb, b, lb), pos, more_a ? ka->blocks[a[i]]->name : "the end",
                 more_b ? kb->blocks[b[j]]->name : "the end");
      break;
    }
  }
  free(map);
  return same;
}
