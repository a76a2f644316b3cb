/* Structure checks on a CFG: reducible (thesis Def. 6), structured by maximal folding (thesis
 * Defs. 7-14, after Sabne, Sakdhnagool and Eigenmann), Anantpur's unstructured edges (Anantpur
 * and R. 2014, Def. 1) and reconverging (thesis Def. 15). Only blocks reachable from the entry
 * take part: the thesis sets dead code aside (chapter 2, after Def. 3).
 *
 * Reducible: a CFG collapses to one node under T1 (drop a self loop) and T2 (merge a block into
 * its only predecessor) exactly when every cycle of its nesting forest has a single entry; the
 * check uses the forest (near-linear) and the property test compares it with a literal T1/T2
 * collapse. Where it fails: the entries of the cycles with several entries.
 *
 * Structured: maximal folding on a graph of groups of blocks (union-find), with the base patterns
 *   sequence  (Def. 10)  A -> B, B the only successor of A, A the only predecessor of B;
 *   selection (Def. 11)  a condition node N, its IPDOM P and a non-empty body where every path
 *                        N -> P has at most one node in between and the region is single-entry
 *                        single-exit: each body node has N as its only predecessor and P as its
 *                        only successor, and P's predecessors are exactly N's successors (plus N
 *                        when N branches to P directly);
 *   loop      (Def. 12)  a condition node N on a simple loop path with a body of at most one node:
 *                        a self loop N -> N, or N -> L -> N with L's only predecessor and
 *                        successor N.
 * Successors are counted as distinct groups, so `br %c, X, X` is no condition. Folding keeps
 * all other incoming and outgoing edges (Def. 13); the CFG is structured when one group remains
 * (Def. 14). Where it fails: the remaining condition nodes (the block whose terminator gives each
 * remaining group its outgoing edges).
 *
 * Unstructured edges (Anantpur Def. 1): an edge Bi -> Bj is unstructured when
 *   1. Bi has several successors, Bj several predecessors, and neither dominates or post-dominates
 *      the other; or
 *   2. Bj is in a cycle that does not contain Bi and Bj does not dominate all blocks of it; or
 *   3. Bi is in a cycle that does not contain Bj and Bi does not post-dominate all blocks of it.
 * "Loop" is read as any cycle of the nesting forest. Bj dominates all blocks of a cycle iff it
 * dominates the nearest common dominator of the cycle's entries (every path into the cycle goes
 * through an entry); Bi post-dominates all blocks of a cycle iff it post-dominates the nearest
 * common post-dominator of the cycle's exiting blocks (those with an edge out of the cycle, to
 * the virtual exit included: see the post-dominator tree's extra exits). Both are precomputed per
 * cycle, so each edge costs O(nesting depth).
 *
 * Reconverging (Def. 15): every divergent branch has exactly two successor edges (a `br`; a
 * divergent switch is not reconverging) and one of them post-dominates it (the primary successor).
 */
#include "reconv/analysis.h"

#include <stdlib.h>
#include <string.h>

static uint8_t *reachable_blocks(const rc_cfg *g) {
  uint32_t n = g->nblocks;
  uint8_t *reach = rc_xcalloc(n ? n : 1, 1);
  uint32_t *rpo = rc_xmalloc((n ? n : 1) * sizeof *rpo);
  uint32_t nr = n ? rc_cfg_rpo(g, rpo, NULL) : 0;
  for (uint32_t i = 0; i < nr; i++) reach[rpo[i]] = 1;
  free(rpo);
  return reach;
}

/* ---- reducible ------------------------------------------------------------------------------------ */

bool rc_is_reducible(const rc_cfg *g, rc_u32vec *where) {
  rc_cycle_info ci;
  rc_cycles_build(&ci, g);
  bool ok = true;
  rc_u32vec found = {0};
  for (uint32_t c = 0; c < ci.ncycles; c++) {
    if (ci.cycles[c].reducible) continue;
    ok = false;
    for (uint32_t i = 0; i < ci.cycles[c].nentries; i++) rc_vec_push(&found, ci.cycles[c].entries[i]);
  }
  if (where && found.len) {
    qsort(found.data, found.len, sizeof *found.data, rc_cmp_u32);
    for (uint32_t i = 0; i < found.len; i++)
      if (i == 0 || found.data[i] != found.data[i - 1]) rc_vec_push(where, found.data[i]);
  }
  rc_vec_free(&found);
  rc_cycles_free(&ci);
  return ok;
}

/* ---- structured: maximal folding ---------------------------------------------------------------- */

typedef struct folding {
  uint32_t n;
  uint32_t *uf;         /* union-find parent; a group is named by its root block */
  uint32_t *tail;       /* per group: the block whose terminator gives the group's out-edges */
  rc_u32vec *succ, *pred; /* per group, with stale names and duplicates until canonicalized */
  uint32_t *stamp, clock; /* scratch marker for canonicalization */
  uint8_t *alive;       /* reachable group roots */
  rc_u32vec work;
  uint8_t *queued;
} folding;

static uint32_t find(folding *f, uint32_t x) {
  uint32_t r = x;
  while (f->uf[r] != r) r = f->uf[r];
  while (f->uf[x] != r) {
    uint32_t next = f->uf[x];
    f->uf[x] = r;
    x = next;
  }
  return r;
}

/* Rename the entries of a list to group roots and drop duplicates (and `drop` when not RC_NONE). */
static void canon(folding *f, rc_u32vec *v, uint32_t drop) {
  f->clock++;
  uint32_t out = 0;
  for (uint32_t i = 0; i < v->len; i++) {
    uint32_t x = find(f, v->data[i]);
    if (x == drop || f->stamp[x] == f->clock) continue;
    f->stamp[x] = f->clock;
    v->data[out++] = x;
  }
  v->len = out;
}

static void enqueue(folding *f, uint32_t x) {
  x = find(f, x);
  if (f->alive[x] && !f->queued[x]) {
    f->queued[x] = 1;
    rc_vec_push(&f->work, x);
  }
}

/* Merge group x into group into (both roots): x's predecessor and successor lists are dropped;
 * the caller sets the lists of the merged group. */
static void absorb(folding *f, uint32_t into, uint32_t x) {
  f->uf[x] = into;
  f->alive[x] = 0;
  rc_vec_free(&f->succ[x]);
  rc_vec_free(&f->pred[x]);
}

static bool single(const rc_u32vec *v, uint32_t x) { return v->len == 1 && v->data[0] == x; }

/* After a fold at group x: x, its neighbours and its predecessors' predecessors may now match. */
static void requeue_around(folding *f, uint32_t x) {
  x = find(f, x);
  enqueue(f, x);
  canon(f, &f->succ[x], RC_NONE);
  for (uint32_t i = 0; i < f->succ[x].len; i++) enqueue(f, f->succ[x].data[i]);
  canon(f, &f->pred[x], RC_NONE);
  for (uint32_t i = 0; i < f->pred[x].len; i++) {
    uint32_t p = f->pred[x].data[i];
    enqueue(f, p);
    canon(f, &f->pred[p], RC_NONE);
    for (uint32_t j = 0; j < f->pred[p].len; j++) enqueue(f, f->pred[p].data[j]);
  }
}

/* Try every base pattern anchored at group N; returns whether something was folded. */
static bool fold_at(folding *f, uint32_t N) {
  rc_u32vec *S = &f->succ[N];
  canon(f, S, RC_NONE);
  canon(f, &f->pred[N], RC_NONE);
  /* loop with an empty body: a self loop on a condition node */
  bool self = false;
  for (uint32_t i = 0; i < S->len; i++) self |= S->data[i] == N;
  if (self && S->len >= 2) {
    canon(f, S, N);
    canon(f, &f->pred[N], N);
    return true;
  }
  if (self) return false; /* a group that only loops on itself */
  /* sequence: N -> B, N the only predecessor of B */
  if (S->len == 1) {
    uint32_t B = S->data[0];
    canon(f, &f->pred[B], RC_NONE);
    if (!single(&f->pred[B], N)) return false;
    rc_u32vec bs = f->succ[B];
    f->succ[B] = (rc_u32vec){0};
    rc_vec_free(S);
    f->succ[N] = bs;
    f->tail[N] = f->tail[B];
    absorb(f, N, B);
    return true;
  }
  if (S->len < 2) return false;
  /* loop with a body of one node: N -> L -> N */
  for (uint32_t i = 0; i < S->len; i++) {
    uint32_t L = S->data[i];
    canon(f, &f->pred[L], RC_NONE);
    canon(f, &f->succ[L], RC_NONE);
    if (single(&f->pred[L], N) && single(&f->succ[L], N)) {
      absorb(f, N, L);
      canon(f, S, N); /* L is N now: drop the loop edges */
      canon(f, &f->pred[N], N);
      return true;
    }
  }
  /* selection: every successor of N is a body node (only predecessor N, only successor P) or P */
  uint32_t P = RC_NONE, nbody = 0;
  for (uint32_t i = 0; i < S->len; i++) {
    uint32_t s = S->data[i];
    bool body = single(&f->pred[s], N) && f->succ[s].len == 1 && f->succ[s].data[0] != s;
    if (body) {
      uint32_t t = f->succ[s].data[0];
      if (P == RC_NONE) P = t;
      else if (P != t) return false;
      nbody++;
    }
  }
  if (!nbody || P == N || P == RC_NONE) return false;
  bool direct = false;
  for (uint32_t i = 0; i < S->len; i++) {
    uint32_t s = S->data[i];
    if (s == P) direct = true;
    else if (!single(&f->pred[s], N) || !single(&f->succ[s], P)) return false;
  }
  /* P's predecessors are exactly the body nodes, and N when N branches to P directly */
  canon(f, &f->pred[P], RC_NONE);
  if (f->pred[P].len != nbody + direct) return false;
  for (uint32_t i = 0; i < f->pred[P].len; i++) {
    uint32_t p = f->pred[P].data[i];
    if (p == N ? !direct : !(single(&f->pred[p], N) && single(&f->succ[p], P))) return false;
  }
  /* fold N, the body and P into N: N keeps its predecessors and takes P's successors */
  rc_u32vec body = *S;
  f->succ[N] = f->succ[P];
  f->succ[P] = (rc_u32vec){0};
  f->tail[N] = f->tail[P];
  for (uint32_t i = 0; i < body.len; i++)
    if (body.data[i] != P) absorb(f, N, body.data[i]);
  /* P's own predecessor list only names the pattern; a back edge P -> N shows up in N's list */
  absorb(f, N, P);
  rc_vec_free(&body);
  return true;
}

bool rc_is_structured(const rc_cfg *g, const rc_domtree *dom, const rc_domtree *pdom,
                      rc_u32vec *where) {
  (void)dom;
  (void)pdom;
  uint32_t n = g->nblocks;
  if (!n) return true;
  folding f = {0};
  f.n = n;
  f.uf = rc_xmalloc(n * sizeof *f.uf);
  f.tail = rc_xmalloc(n * sizeof *f.tail);
  f.succ = rc_xcalloc(n, sizeof *f.succ);
  f.pred = rc_xcalloc(n, sizeof *f.pred);
  f.stamp = rc_xcalloc(n, sizeof *f.stamp);
  f.queued = rc_xcalloc(n, 1);
  f.alive = reachable_blocks(g);
  for (uint32_t b = 0; b < n; b++) {
    f.uf[b] = f.tail[b] = b;
    if (!f.alive[b]) continue;
    for (uint32_t e = g->succ_start[b]; e < g->succ_start[b + 1]; e++) rc_vec_push(&f.succ[b], g->succs[e]);
    for (uint32_t e = g->pred_start[b]; e < g->pred_start[b + 1]; e++)
      if (f.alive[g->preds[e]]) rc_vec_push(&f.pred[b], g->preds[e]);
  }
  for (uint32_t b = n; b-- > 0;) enqueue(&f, b);
  while (f.work.len) {
    uint32_t x = f.work.data[--f.work.len];
    f.queued[x] = 0;
    if (!f.alive[x] || find(&f, x) != x) continue;
    if (fold_at(&f, x)) requeue_around(&f, x);
  }
  uint32_t groups = 0;
  rc_u32vec found = {0};
  for (uint32_t b = 0; b < n; b++) {
    if (!f.alive[b] || find(&f, b) != b) continue;
    groups++;
    canon(&f, &f.succ[b], b);
    if (f.succ[b].len >= 2) rc_vec_push(&found, f.tail[b]);
  }
  if (where && groups > 1 && found.len) {
    qsort(found.data, found.len, sizeof *found.data, rc_cmp_u32);
    for (uint32_t i = 0; i < found.len; i++) rc_vec_push(where, found.data[i]);
  }
  rc_vec_free(&found);
  for (uint32_t b = 0; b < n; b++) {
    rc_vec_free(&f.succ[b]);
    rc_vec_free(&f.pred[b]);
  }
  rc_vec_free(&f.work);
  free(f.uf);
  free(f.tail);
  free(f.succ);
  free(f.pred);
  free(f.stamp);
  free(f.queued);
  free(f.alive);
  return groups <= 1;
}

/* ---- unstructured edges (Anantpur Def. 1) ----------------------------------------------------- */

bool rc_unstructured_edges(const rc_cfg *g, const rc_domtree *dom, const rc_domtree *pdom,
                           const rc_cycle_info *ci, rc_u32vec *edges) {
  uint32_t n = g->nblocks, m = ci->ncycles;
  /* per cycle: nearest common dominator of the entries, nearest common post-dominator of the
   * exiting blocks (blocks of the cycle with a successor outside it) */
  uint32_t *entry_lca = rc_xmalloc((m ? m : 1) * sizeof *entry_lca);
  uint32_t *exiting_lca = rc_xmalloc((m ? m : 1) * sizeof *exiting_lca);
  for (uint32_t c = 0; c < m; c++) {
    const rc_cycle *cy = &ci->cycles[c];
    uint32_t l = cy->entries[0];
    for (uint32_t i = 1; i < cy->nentries; i++) l = rc_domtree_lca(dom, l, cy->entries[i]);
    entry_lca[c] = l;
    exiting_lca[c] = RC_NONE;
  }
  for (uint32_t u = 0; u < n; u++) {
    if (!rc_domtree_contains(dom, u)) continue;
    for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++) {
      uint32_t v = g->succs[e];
      for (uint32_t c = ci->innermost[u]; c != RC_NONE && !rc_cycle_contains(ci, c, v);
           c = ci->cycles[c].parent)
        exiting_lca[c] = exiting_lca[c] == RC_NONE ? u : rc_domtree_lca(pdom, exiting_lca[c], u);
    }
  }
  /* a block the virtual exit was connected to (in an infinite loop) leaves its cycles too */
  for (uint32_t i = 0; i < pdom->nextra_exits; i++) {
    uint32_t u = pdom->extra_exits[i];
    for (uint32_t c = ci->innermost[u]; c != RC_NONE; c = ci->cycles[c].parent)
      exiting_lca[c] = exiting_lca[c] == RC_NONE ? u : rc_domtree_lca(pdom, exiting_lca[c], u);
  }
  /* distinct successors of each block and distinct reachable predecessors */
  uint32_t *stamp = rc_xmalloc((n ? n : 1) * sizeof *stamp);
  for (uint32_t b = 0; b < n; b++) stamp[b] = RC_NONE;
  bool ok = true;
  for (uint32_t u = 0; u < n; u++) {
    if (!rc_domtree_contains(dom, u)) continue;
    uint32_t nsucc = 0;
    for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++)
      if (stamp[g->succs[e]] != u) {
        stamp[g->succs[e]] = u;
        nsucc++;
      }
    for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++) {
      uint32_t v = g->succs[e];
      bool dup = false;
      for (uint32_t e2 = g->succ_start[u]; e2 < e; e2++) dup |= g->succs[e2] == v;
      if (dup) continue;
      bool bad = false;
      if (nsucc > 1) { /* condition 1 */
        uint32_t first = RC_NONE, npred = 0;
        for (uint32_t p = g->pred_start[v]; p < g->pred_start[v + 1] && npred < 2; p++) {
          uint32_t x = g->preds[p];
          if (!rc_domtree_contains(dom, x)) continue;
          if (first == RC_NONE) first = x, npred = 1;
          else if (x != first) npred = 2;
        }
        bad = npred > 1 && !rc_dominates(dom, u, v) && !rc_dominates(dom, v, u) &&
              !rc_dominates(pdom, u, v) && !rc_dominates(pdom, v, u);
      }
      /* condition 2: entering a cycle at a block that does not dominate all of it */
      for (uint32_t c = ci->innermost[v]; !bad && c != RC_NONE && !rc_cycle_contains(ci, c, u);
           c = ci->cycles[c].parent)
        bad = !rc_dominates(dom, v, entry_lca[c]);
      /* condition 3: leaving a cycle from a block that does not post-dominate all of it */
      for (uint32_t c = ci->innermost[u]; !bad && c != RC_NONE && !rc_cycle_contains(ci, c, v);
           c = ci->cycles[c].parent)
        bad = !rc_dominates(pdom, u, exiting_lca[c]);
      if (bad) {
        ok = false;
        if (edges) {
          rc_vec_push(edges, u);
          rc_vec_push(edges, v);
        }
      }
    }
  }
  free(stamp);
  free(entry_lca);
  free(exiting_lca);
  return ok;
}

/* ---- reconverging (thesis Def. 15) -------------------------------------------------------------- */

bool rc_is_reconverging(const rc_kernel *k, const rc_cfg *g, const rc_domtree *pdom,
                        const rc_uniformity *u, rc_u32vec *where) {
  bool ok = true;
  for (uint32_t b = 0; b < g->nblocks; b++) {
    if (!u->divergent_branch[b] || !rc_domtree_contains(pdom, b)) continue;
    const rc_instr *t = rc_block_term(k->blocks[b]);
    /* two successors: a br, or a switch whose cases go to two distinct targets (thesis Def. 15 counts
     * successors, not edges) */
    const rc_block *s0 = t && t->ntargets ? t->targets[0] : NULL, *s1 = NULL;
    bool two = t && (t->op == RC_OP_BR || t->op == RC_OP_SWITCH);
    for (uint32_t e = 1; two && e < t->ntargets; e++) {
      if (t->targets[e] == s0 || t->targets[e] == s1) continue;
      if (s1) two = false;
      else s1 = t->targets[e];
    }
    if (t && t->op == RC_OP_BR) two = t->ntargets == 2, s1 = two ? t->targets[1] : NULL;
    bool good = two && s1 && (rc_dominates(pdom, s0->id, b) || rc_dominates(pdom, s1->id, b));
    if (!good) {
      ok = false;
      if (where) rc_vec_push(where, b);
    }
  }
  return ok;
}
