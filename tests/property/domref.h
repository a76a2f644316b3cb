/* Naive dominance references for the analysis property tests (header-only): dominator and
 * post-dominator sets by fixpoint on bitsets, and dominance frontiers by their definition.
 *
 * The post-dominance reference follows the rule documented in src/analysis/dominance.c for regions
 * that cannot reach an exit: walking the blocks reachable from the entry in reverse post-order from
 * the last, a block that cannot reach an exit or an earlier chosen block gets an edge to the
 * virtual exit (node n). Reverse post-order comes from a recursive DFS that visits successors in
 * terminator order, reachability from plain fixpoints. */
#ifndef RECONV_DOMREF_H
#define RECONV_DOMREF_H

#include "randcfg.h"

#include <stdio.h>

typedef struct rg_domref {
  uint32_t n, nn; /* blocks, nodes (n + 1 with the virtual exit) */
  bool post;
  uint32_t root;
  bool in_tree[RG_SET_BITS];
  rg_set dom[RG_SET_BITS]; /* dom[b] = the nodes that (post-)dominate b */
  rg_set frontier[RG_SET_BITS];
  /* graph in the direction of the tree: edges away from the root */
  uint32_t nsucc[RG_SET_BITS], succ[RG_SET_BITS][RG_SET_BITS / 4];
} rg_domref;

static inline void rg_dfs_post(const rg_graph *g, uint32_t b, bool *seen, uint32_t *po, uint32_t *npo) {
  seen[b] = true;
  for (uint32_t i = 0; i < g->nsucc[b]; i++)
    if (!seen[g->succ[b][i]]) rg_dfs_post(g, g->succ[b][i], seen, po, npo);
  po[(*npo)++] = b;
}

static inline void rg_domref_edge(rg_domref *r, uint32_t from, uint32_t to) {
  if (r->nsucc[from] >= RG_SET_BITS / 4) {
    fprintf(stderr, "reference graph: too many edges from one node\n");
    abort();
  }
  r->succ[from][r->nsucc[from]++] = to;
}

/* Blocks (among `reach`) that can reach a block in `targets`, by fixpoint. */
static inline rg_set rg_can_reach(const rg_graph *g, const bool *reach, const rg_set *targets) {
  rg_set s = *targets;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = 0; b < g->n; b++) {
      if (!reach[b] || rg_set_has(&s, b)) continue;
      for (uint32_t i = 0; i < g->nsucc[b]; i++)
        if (rg_set_has(&s, g->succ[b][i])) {
          rg_set_add(&s, b);
          changed = true;
          break;
        }
    }
  }
  return s;
}

static inline void rg_domref_build(rg_domref *r, const rg_graph *g, bool post, rc_u32vec *extra) {
  memset(r, 0, sizeof *r);
  uint32_t n = g->n;
  r->n = n;
  r->post = post;
  r->nn = post ? n + 1 : n;
  bool seen[RG_SET_BITS] = {0};
  uint32_t po[RG_SET_BITS], npo = 0;
  rg_dfs_post(g, 0, seen, po, &npo);
  if (!post) {
    r->root = 0;
    for (uint32_t b = 0; b < n; b++) {
      r->in_tree[b] = seen[b];
      if (seen[b])
        for (uint32_t i = 0; i < g->nsucc[b]; i++) rg_domref_edge(r, b, g->succ[b][i]);
    }
  } else {
    uint32_t X = n;
    r->root = X;
    rg_set targets;
    rg_set_clear(&targets);
    for (uint32_t b = 0; b < n; b++)
      if (seen[b] && g->nsucc[b] == 0) rg_set_add(&targets, b);
    rg_set ok = rg_can_reach(g, seen, &targets);
    /* reverse post-order from the last: po from the first */
    for (uint32_t i = 0; i < npo; i++) {
      uint32_t b = po[i];
      if (rg_set_has(&ok, b)) continue;
      rc_vec_push(extra, b);
      rg_set_add(&targets, b);
      ok = rg_can_reach(g, seen, &targets);
    }
    /* tree direction = reverse CFG: X -> exits and extra exits, s -> b for b -> s */
    for (uint32_t b = 0; b < n; b++) {
      if (!seen[b]) continue;
      r->in_tree[b] = true;
      if (rg_set_has(&targets, b)) rg_domref_edge(r, X, b);
    }
    for (uint32_t b = 0; b < n; b++)
      if (seen[b])
        for (uint32_t i = 0; i < g->nsucc[b]; i++) rg_domref_edge(r, g->succ[b][i], b);
    r->in_tree[X] = true;
  }
  /* dominator sets: dom(root) = {root}; dom(b) = {b} + intersection over preds (tree direction) */
  for (uint32_t b = 0; b < r->nn; b++) {
    if (b == r->root) {
      rg_set_clear(&r->dom[b]);
      rg_set_add(&r->dom[b], b);
    } else {
      rg_set_fill(&r->dom[b], r->nn);
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = 0; b < r->nn; b++) {
      if (!r->in_tree[b] || b == r->root) continue;
      rg_set acc;
      rg_set_fill(&acc, r->nn);
      for (uint32_t p = 0; p < r->nn; p++) {
        if (!r->in_tree[p]) continue;
        for (uint32_t i = 0; i < r->nsucc[p]; i++)
          if (r->succ[p][i] == b) rg_set_and(&acc, &r->dom[p]);
      }
      rg_set_add(&acc, b);
      if (!rg_set_eq(&acc, &r->dom[b])) {
        r->dom[b] = acc;
        changed = true;
      }
    }
  }
  /* frontiers: DF(a) = {b : a dominates a predecessor of b and does not strictly dominate b} */
  for (uint32_t p = 0; p < r->nn; p++) {
    if (!r->in_tree[p]) continue;
    for (uint32_t i = 0; i < r->nsucc[p]; i++) {
      uint32_t b = r->succ[p][i];
      for (uint32_t a = 0; a < r->nn; a++)
        if (rg_set_has(&r->dom[p], a) && (a == b || !rg_set_has(&r->dom[b], a)))
          rg_set_add(&r->frontier[a], b);
    }
  }
}

static inline bool rg_domref_dominates(const rg_domref *r, uint32_t a, uint32_t b) {
  return r->in_tree[a] && r->in_tree[b] && rg_set_has(&r->dom[b], a);
}

#endif
