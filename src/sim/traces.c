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

bool rc_traces_equivalent(const rc_kernel *ka, const rc_traces *ta, const rc_kernel *kb,
                          const rc_traces *tb, char *why, size_t whylen) {
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
