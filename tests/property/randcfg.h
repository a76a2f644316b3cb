/* Random CFGs for the analysis property tests (header-only; each property test is one program).
 *
 * rg_random() draws a graph of a random shape: "program-like" graphs (fall-through chains with
 * forward jumps, back edges that make natural and irreducible loops, breaks, several exits) and
 * "wild" graphs (successors uniform over all blocks). Knobs are drawn per graph so a run covers
 * reducible and irreducible graphs, self loops, infinite loops (regions without an exit), several
 * exits and unreachable blocks. rg_to_cfg() turns a graph into an rc_cfg; rg_to_kernel() builds a
 * verified thread-level kernel with the builder API (branch conditions on %tid or on a parameter,
 * a phi in every block with several predecessors). Small bitsets (rg_set) serve the naive
 * reference computations. */
#ifndef RECONV_RANDCFG_H
#define RECONV_RANDCFG_H

#include "reconv/analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- random numbers (splitmix64) ---------------------------------------------------------------- */

typedef struct rg_rng {
  uint64_t s;
} rg_rng;

static inline uint64_t rg_next(rg_rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static inline uint32_t rg_below(rg_rng *r, uint32_t n) { return n ? (uint32_t)(rg_next(r) % n) : 0; }
static inline bool rg_chance(rg_rng *r, unsigned percent) { return rg_below(r, 100) < percent; }

/* ---- graphs ------------------------------------------------------------------------------------- */

#define RG_MAXSUCC 4
typedef struct rg_graph {
  uint32_t n;
  uint8_t *nsucc;
  uint32_t (*succ)[RG_MAXSUCC];
} rg_graph;

static inline void rg_init(rg_graph *g, uint32_t n) {
  g->n = n;
  g->nsucc = rc_xcalloc(n ? n : 1, sizeof *g->nsucc);
  g->succ = rc_xcalloc(n ? n : 1, sizeof *g->succ);
}
static inline void rg_free(rg_graph *g) {
  free(g->nsucc);
  free(g->succ);
  memset(g, 0, sizeof *g);
}
static inline void rg_add(rg_graph *g, uint32_t from, uint32_t to) {
  if (g->nsucc[from] < RG_MAXSUCC) g->succ[from][g->nsucc[from]++] = to;
}

typedef struct rg_opts {
  uint32_t min_blocks, max_blocks;
  bool entry_without_preds; /* never branch back to block 0 (required for kernels) */
  bool acyclic;             /* only forward edges (block i to blocks > i) */
} rg_opts;

/* A random graph. */
static inline void rg_random(rg_graph *g, rg_rng *r, const rg_opts *o) {
  uint32_t n = o->min_blocks + rg_below(r, o->max_blocks - o->min_blocks + 1);
  rg_init(g, n);
  bool wild = rg_chance(r, 20);
  unsigned p_exit = 3 + rg_below(r, 12);    /* block ends the kernel */
  unsigned p_branch = 30 + rg_below(r, 50); /* block has two successors */
  unsigned p_switch = rg_below(r, 8);       /* ... or three or four */
  unsigned p_back = rg_below(r, 35);        /* a jump goes backwards */
  unsigned p_far = rg_below(r, 40);         /* a forward jump goes far */
  unsigned p_self = rg_below(r, 6);
  unsigned p_skip = rg_below(r, 10);        /* leave a block unreachable */
  uint32_t lo = o->entry_without_preds ? 1 : 0;
  for (uint32_t b = 0; b < n; b++) {
    if (b + 1 == n || (b > 0 && rg_chance(r, p_exit))) continue; /* exit block */
    uint32_t k = 1;
    if (rg_chance(r, p_branch)) k = 2;
    if (rg_chance(r, p_switch)) k = 3 + rg_below(r, 2);
    for (uint32_t i = 0; i < k; i++) {
      uint32_t t;
      if (o->acyclic) {
        uint32_t span = n - 1 - b;
        t = i == 0 && !rg_chance(r, p_skip) ? b + 1
                                             : b + 1 + rg_below(r, span < 5 || wild || rg_chance(r, p_far) ? span : 5);
      } else if (wild) {
        t = lo + rg_below(r, n - lo);
      } else if (i == 0 && !rg_chance(r, p_skip)) {
        t = b + 1; /* fall through */
      } else if (rg_chance(r, p_self)) {
        t = b;
      } else if (rg_chance(r, p_back) && b + 1 > lo) {
        uint32_t span = b + 1 - lo;
        t = b - rg_below(r, span < 6 || rg_chance(r, p_far) ? span : 6);
      } else {
        uint32_t span = n - 1 - b;
        t = b + 1 + rg_below(r, span < 5 || rg_chance(r, p_far) ? span : 5);
      }
      if (t >= n) t = n - 1;
      if (t < lo) t = lo;
      rg_add(g, b, t);
    }
  }
}

/* CSR snapshot of the graph (freed with rc_cfg_free). */
static inline void rg_to_cfg(const rg_graph *g, rc_cfg *c) {
  uint32_t n = g->n, ne = 0;
  memset(c, 0, sizeof *c);
  c->nblocks = n;
  c->entry = n ? 0 : RC_NONE;
  c->succ_start = rc_xcalloc(n + 1, sizeof *c->succ_start);
  c->pred_start = rc_xcalloc(n + 1, sizeof *c->pred_start);
  for (uint32_t b = 0; b < n; b++) ne += g->nsucc[b];
  c->succs = rc_xmalloc((ne ? ne : 1) * sizeof *c->succs);
  c->preds = rc_xmalloc((ne ? ne : 1) * sizeof *c->preds);
  uint32_t e = 0;
  for (uint32_t b = 0; b < n; b++) {
    c->succ_start[b] = e;
    for (uint32_t i = 0; i < g->nsucc[b]; i++) {
      c->succs[e++] = g->succ[b][i];
      c->pred_start[g->succ[b][i] + 1]++;
    }
  }
  c->succ_start[n] = e;
  for (uint32_t b = 0; b < n; b++) c->pred_start[b + 1] += c->pred_start[b];
  uint32_t *fill = rc_xmalloc((n + 1) * sizeof *fill);
  memcpy(fill, c->pred_start, (n + 1) * sizeof *fill);
  for (uint32_t b = 0; b < n; b++)
    for (uint32_t i = 0; i < g->nsucc[b]; i++) c->preds[fill[g->succ[b][i]]++] = b;
  free(fill);
}

/* Is successor i of b the first edge from b to its target? (phis take one value per block) */
static inline bool rg_first_edge(const rg_graph *g, uint32_t b, uint32_t i) {
  for (uint32_t j = 0; j < i; j++)
    if (g->succ[b][j] == g->succ[b][i]) return false;
  return true;
}

/* Print a graph for reproducing a failure; blocks with mark[b] set get a '*'. */
static inline void rg_print(const rg_graph *g, const uint8_t *mark) {
  fprintf(stderr, "graph with %u blocks:", g->n);
  for (uint32_t b = 0; b < g->n; b++) {
    fprintf(stderr, " %u%s->{", b, mark && mark[b] ? "*" : "");
    for (uint32_t i = 0; i < g->nsucc[b]; i++) fprintf(stderr, "%s%u", i ? "," : "", g->succ[b][i]);
    fprintf(stderr, "}");
  }
  fprintf(stderr, "\n");
}

/* ---- a kernel with this CFG --------------------------------------------------------------------
 * Block i is named "b<i>". Each conditional branch's condition is computed in its block from %tid
 * (divergent) or from the parameter %n (uniform), chosen at random; div[i] tells which (1 = on %tid).
 * Every block with two or more predecessor blocks starts with a phi of i32 whose incoming values
 * are distinct constants, so sync dependence shows on it; every block also computes a value from
 * the phi or %n and stores it, so the kernel has work in it. */
typedef struct rg_kernel {
  rc_module *m;
  rc_kernel *k;
  uint8_t *div_cond;  /* per block: the branch condition was built from %tid */
  rc_instr **phi;     /* per block: its phi, or NULL */
} rg_kernel;

static inline void rg_to_kernel(const rg_graph *g, rg_rng *r, unsigned p_div, rc_ctx *ctx,
                                rg_kernel *out) {
  uint32_t n = g->n;
  out->m = rc_module_new(ctx, "random.rir");
  out->k = rc_kernel_new(out->m, "random");
  out->div_cond = rc_xcalloc(n ? n : 1, 1);
  out->phi = rc_xcalloc(n ? n : 1, sizeof *out->phi);
  rc_kernel *k = out->k;
  rc_value *pout = rc_kernel_add_param(k, RC_PTR, "out");
  rc_value *pn = rc_kernel_add_param(k, RC_I32, "n");
  rc_block **blocks = rc_xmalloc((n ? n : 1) * sizeof *blocks);
  char name[32];
  for (uint32_t b = 0; b < n; b++) {
    snprintf(name, sizeof name, "b%u", b);
    blocks[b] = rc_block_new(k, name);
  }
  rc_builder bd;
  rc_builder_at_end(&bd, blocks[0]);
  rc_value *dim = rc_const_int(k, RC_I32, 0);
  rc_instr *tid_call = rc_build_call(&bd, RC_BI_GLOBAL_ID, RC_I32, &dim, 1, "tid");
  rc_value *tidv = &tid_call->v;
  /* predecessor edge counts, to know where phis go */
  uint32_t *npred = rc_xcalloc(n ? n : 1, sizeof *npred);
  for (uint32_t b = 0; b < n; b++)
    for (uint32_t i = 0; i < g->nsucc[b]; i++)
      if (rg_first_edge(g, b, i)) npred[g->succ[b][i]]++;
  for (uint32_t b = 0; b < n; b++) {
    rc_builder_at_end(&bd, blocks[b]);
    rc_value *base = pn;
    if (npred[b] >= 2) {
      snprintf(name, sizeof name, "p%u", b);
      out->phi[b] = rc_phi_new(blocks[b], RC_I32, name);
      base = &out->phi[b]->v;
    }
    snprintf(name, sizeof name, "v%u", b);
    rc_value *v = rc_build_binop(&bd, RC_OP_ADD, base, rc_const_int(k, RC_I32, (int64_t)b), name);
    snprintf(name, sizeof name, "a%u", b);
    rc_value *addr = rc_build_gep(&bd, pout, tidv, 4, name);
    rc_build_store(&bd, v, addr);
    uint32_t ns = g->nsucc[b];
    if (ns == 0) {
      rc_build_ret(&bd);
    } else if (ns == 1) {
      rc_build_jmp(&bd, blocks[g->succ[b][0]]);
    } else {
      bool d = rg_chance(r, p_div);
      out->div_cond[b] = d;
      rc_value *src = d ? tidv : pn;
      snprintf(name, sizeof name, "c%u", b);
      if (ns == 2) {
        rc_value *c = rc_build_cmp(&bd, RC_CMP_SLT, src, rc_const_int(k, RC_I32, (int64_t)b), name);
        rc_build_br(&bd, c, blocks[g->succ[b][0]], blocks[g->succ[b][1]]);
      } else {
        rc_value *c = rc_build_binop(&bd, RC_OP_AND, src, rc_const_int(k, RC_I32, 3), name);
        int64_t cases[RG_MAXSUCC];
        rc_block *targets[RG_MAXSUCC];
        for (uint32_t i = 1; i < ns; i++) {
          cases[i - 1] = i;
          targets[i - 1] = blocks[g->succ[b][i]];
        }
        rc_build_switch(&bd, c, blocks[g->succ[b][0]], cases, targets, ns - 1);
      }
    }
  }
  /* phi operands: one distinct constant per incoming edge */
  for (uint32_t b = 0; b < n; b++)
    for (uint32_t i = 0; i < g->nsucc[b]; i++) {
      uint32_t s = g->succ[b][i];
      if (out->phi[s] && rg_first_edge(g, b, i))
        rc_phi_add_incoming(out->phi[s], rc_const_int(k, RC_I32, (int64_t)(100 * b + i)),
                            blocks[b]);
    }
  free(npred);
  free(blocks);
}

static inline void rg_kernel_free(rg_kernel *rk) {
  rc_module_free(rk->m);
  free(rk->div_cond);
  free(rk->phi);
  memset(rk, 0, sizeof *rk);
}

/* ---- small bitsets for naive references (up to RG_SET_BITS elements) ------------------------------ */

#define RG_SET_WORDS 8
#define RG_SET_BITS (64 * RG_SET_WORDS)
typedef struct rg_set {
  uint64_t w[RG_SET_WORDS];
} rg_set;
static inline void rg_set_clear(rg_set *s) { memset(s, 0, sizeof *s); }
static inline void rg_set_fill(rg_set *s, uint32_t n) {
  rg_set_clear(s);
  for (uint32_t i = 0; i < n; i++) s->w[i / 64] |= 1ull << (i % 64);
}
static inline void rg_set_add(rg_set *s, uint32_t i) { s->w[i / 64] |= 1ull << (i % 64); }
static inline bool rg_set_has(const rg_set *s, uint32_t i) { return (s->w[i / 64] >> (i % 64)) & 1; }
static inline void rg_set_and(rg_set *a, const rg_set *b) {
  for (int i = 0; i < RG_SET_WORDS; i++) a->w[i] &= b->w[i];
}
static inline bool rg_set_eq(const rg_set *a, const rg_set *b) {
  return memcmp(a, b, sizeof *a) == 0;
}
static inline uint32_t rg_set_count(const rg_set *s) {
  uint32_t c = 0;
  for (int i = 0; i < RG_SET_WORDS; i++) c += (uint32_t)__builtin_popcountll(s->w[i]);
  return c;
}

#endif
