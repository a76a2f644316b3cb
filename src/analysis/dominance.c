/* CFG snapshots, dominator and post-dominator trees, dominance frontiers.
 *
 * The trees are computed with Lengauer and Tarjan's algorithm (simple version, O(m log n)). It
 * replaced Cooper, Harvey and Kennedy's iteration ("A Simple, Fast Dominance Algorithm", 2001),
 * whose intersections walk up the tree and cost time proportional to its depth: on CFGs of a
 * million blocks with long chains under deep nesting that dominated the analysis time. Every
 * traversal uses an explicit stack.
 *
 * Post-dominance runs the same algorithm on the reverse graph rooted at a virtual exit (id ==
 * nblocks). The virtual exit has an edge from every exit block and, for each region that cannot
 * reach an exit (an infinite loop), from the block of that region that comes last in reverse
 * post-order, so that every block reachable from the entry has a post-dominator.
 */
#include "reconv/analysis.h"

#include "dominators.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- CFG snapshot ------------------------------------------------------------------------------- */

void rc_cfg_build(rc_cfg *g, const rc_kernel *k) {
  uint32_t n = k->nblocks;
  memset(g, 0, sizeof *g);
  g->nblocks = n;
  g->entry = n ? 0 : RC_NONE;
  g->succ_start = rc_xmalloc((n + 1) * sizeof *g->succ_start);
  g->pred_start = rc_xmalloc((n + 1) * sizeof *g->pred_start);
  /* One walk over the blocks reads each terminator and its targets (on a big kernel each is a cache
   * miss, so they are read once, not once to count the edges and again to list them); the
   * successors go into an array that grows, and the predecessors are counted on the way. */
  rc_u32vec succs = {0};
  rc_vec_reserve(&succs, 2 * (uint64_t)n + 1 < UINT32_MAX ? 2 * n + 1 : n);
  uint32_t *count = rc_xcalloc(n + 1, sizeof *count);
  for (uint32_t b = 0; b < n; b++) {
    g->succ_start[b] = succs.len;
    rc_instr *t = rc_block_term(k->blocks[b]);
    for (uint32_t i = 0; t && i < t->ntargets; i++) {
      uint32_t s = t->targets[i]->id;
      rc_vec_push(&succs, s);
      count[s]++;
    }
  }
  uint32_t nedges = succs.len;
  g->succ_start[n] = nedges;
  g->succs = succs.data ? succs.data : rc_xmalloc(sizeof *g->succs);
  g->preds = rc_xmalloc((nedges ? nedges : 1) * sizeof *g->preds);
  uint32_t acc = 0;
  for (uint32_t b = 0; b < n; b++) {
    g->pred_start[b] = acc;
    acc += count[b];
    count[b] = g->pred_start[b];
  }
  g->pred_start[n] = acc;
  for (uint32_t b = 0; b < n; b++)
    for (uint32_t e = g->succ_start[b]; e < g->succ_start[b + 1]; e++)
      g->preds[count[g->succs[e]]++] = b;
  free(count);
}

void rc_cfg_free(rc_cfg *g) {
  free(g->succ_start);
  free(g->succs);
  free(g->pred_start);
  free(g->preds);
  memset(g, 0, sizeof *g);
}

/* Iterative DFS over a CSR graph from `root`; writes the post-order into `po` and returns its
 * length. `seen` must be zeroed (nnodes entries) and is left marked. */
static uint32_t dfs_postorder(uint32_t root, const uint32_t *start, const uint32_t *adj,
                              uint8_t *seen, uint32_t *po, uint32_t *stack, uint32_t *edge) {
  uint32_t npo = 0, sp = 0;
  stack[sp] = root;
  edge[sp] = start[root];
  sp++;
  seen[root] = 1;
  while (sp) {
    uint32_t b = stack[sp - 1];
    if (edge[sp - 1] < start[b + 1]) {
      uint32_t s = adj[edge[sp - 1]++];
      if (!seen[s]) {
        seen[s] = 1;
        stack[sp] = s;
        edge[sp] = start[s];
        sp++;
      }
    } else {
      po[npo++] = b;
      sp--;
    }
  }
  return npo;
}

uint32_t rc_cfg_rpo(const rc_cfg *g, uint32_t *rpo, uint32_t *rpo_index) {
  uint32_t n = g->nblocks;
  if (rpo_index)
    for (uint32_t i = 0; i < n; i++) rpo_index[i] = RC_NONE;
  if (!n) return 0;
  uint8_t *seen = rc_xcalloc(n, 1);
  uint32_t *po = rc_xmalloc(n * sizeof *po);
  uint32_t *stack = rc_xmalloc(n * sizeof *stack);
  uint32_t *edge = rc_xmalloc(n * sizeof *edge);
  uint32_t npo = dfs_postorder(g->entry, g->succ_start, g->succs, seen, po, stack, edge);
  for (uint32_t i = 0; i < npo; i++) {
    rpo[i] = po[npo - 1 - i];
    if (rpo_index) rpo_index[rpo[i]] = i;
  }
  free(seen);
  free(po);
  free(stack);
  free(edge);
  return npo;
}

/* ---- dominator trees --------------------------------------------------------------------------------- */

/* The graph the tree is computed on, in the direction of the tree (root first). */
typedef struct dgraph {
  uint32_t nnodes, root;
  uint32_t *succ_start, *succs; /* away from the root */
  uint32_t *pred_start, *preds; /* towards the root */
} dgraph;

static void dgraph_free(dgraph *d) {
  free(d->succ_start);
  free(d->succs);
  free(d->pred_start);
  free(d->preds);
}

/* Build CSR arrays from an edge list. */
static void csr_from_edges(uint32_t nnodes, const uint32_t *from, const uint32_t *to, uint32_t nedges,
                           uint32_t **start_out, uint32_t **adj_out) {
  uint32_t *start = rc_xcalloc(nnodes + 1, sizeof *start);
  uint32_t *adj = rc_xmalloc((nedges ? nedges : 1) * sizeof *adj);
  for (uint32_t e = 0; e < nedges; e++) start[from[e] + 1]++;
  for (uint32_t i = 0; i < nnodes; i++) start[i + 1] += start[i];
  uint32_t *fill = rc_xmalloc((nnodes + 1) * sizeof *fill);
  memcpy(fill, start, (nnodes + 1) * sizeof *fill);
  for (uint32_t e = 0; e < nedges; e++) adj[fill[from[e]]++] = to[e];
  free(fill);
  *start_out = start;
  *adj_out = adj;
}

/* The reverse graph with the virtual exit X = nblocks, restricted to blocks reachable from the
 * entry, built directly in CSR form from the CFG's. Also returns the blocks X was connected to
 * because they cannot reach an exit (found by a reverse DFS from X, then from each chosen block). */
static void build_post_graph(const rc_cfg *g, dgraph *d, rc_u32vec *extra) {
  uint32_t n = g->nblocks, X = n, nedges = g->succ_start[n];
  uint32_t *rpo = rc_xmalloc((n ? n : 1) * sizeof *rpo);
  uint32_t *rpo_index = rc_xmalloc((n ? n : 1) * sizeof *rpo_index);
  uint32_t nreach = n ? rc_cfg_rpo(g, rpo, rpo_index) : 0;
  /* successors in the reverse graph: each reachable block's reachable predecessors; X's list
   * (exits, then extra exits) comes last */
  uint32_t *start = rc_xmalloc((n + 2) * sizeof *start);
  uint32_t *adj = rc_xmalloc((nedges + n + 1) * sizeof *adj);
  uint32_t k = 0;
  for (uint32_t b = 0; b < n; b++) {
    start[b] = k;
    if (rpo_index[b] == RC_NONE) continue;
    for (uint32_t e = g->pred_start[b]; e < g->pred_start[b + 1]; e++)
      if (rpo_index[g->preds[e]] != RC_NONE) adj[k++] = g->preds[e];
  }
  start[X] = k;
  for (uint32_t i = 0; i < nreach; i++)
    if (g->succ_start[rpo[i]] == g->succ_start[rpo[i] + 1]) adj[k++] = rpo[i];
  start[X + 1] = k;
  uint8_t *seen = rc_xcalloc(n + 1, 1);
  uint32_t *po = rc_xmalloc((n + 1) * sizeof *po);
  uint32_t *stack = rc_xmalloc((n + 1) * sizeof *stack);
  uint32_t *edge = rc_xmalloc((n + 1) * sizeof *edge);
  dfs_postorder(X, start, adj, seen, po, stack, edge);
  for (uint32_t i = nreach; i-- > 0;) {
    uint32_t b = rpo[i];
    if (seen[b]) continue;
    rc_vec_push(extra, b);
    adj[k++] = b;
    start[X + 1] = k;
    dfs_postorder(b, start, adj, seen, po, stack, edge);
  }
  /* predecessors in the reverse graph: each reachable block's successors, and X for the blocks in
   * X's list (marked in `seen`, which is free again) */
  memset(seen, 0, n + 1);
  for (uint32_t e = start[X]; e < start[X + 1]; e++) seen[adj[e]] = 1;
  uint32_t *pstart = rc_xmalloc((n + 2) * sizeof *pstart);
  uint32_t *padj = rc_xmalloc((nedges + n + 1) * sizeof *padj);
  uint32_t m = 0;
  for (uint32_t b = 0; b < n; b++) {
    pstart[b] = m;
    if (rpo_index[b] == RC_NONE) continue;
    for (uint32_t e = g->succ_start[b]; e < g->succ_start[b + 1]; e++) padj[m++] = g->succs[e];
    if (seen[b]) padj[m++] = X;
  }
  pstart[X] = pstart[X + 1] = m;
  d->nnodes = n + 1;
  d->root = X;
  d->succ_start = start;
  d->succs = adj;
  d->pred_start = pstart;
  d->preds = padj;
  free(seen);
  free(po);
  free(stack);
  free(edge);
  free(rpo);
  free(rpo_index);
}

/* Lengauer and Tarjan, "A Fast Algorithm for Finding Dominators in a Flowgraph" (1979), the
 * simple version (path compression without balancing, O(m log n)): semidominators in reverse DFS
 * pre-order with eval/link over the DFS forest; a vertex's idom is then its semidominator or, via
 * the bucket of that semidominator, the idom of a vertex above it. Nodes not reachable from the
 * root keep idom RC_NONE. Iterative: the DFS uses an explicit stack, and path compression first
 * collects the path into a stack. */
typedef struct lt_state {
  uint32_t *semi, *label, *ancestor, *stack;
} lt_state;

/* The vertex of least semidominator on v's path in the forest (its root excluded). */
static uint32_t lt_eval(lt_state *s, uint32_t v) {
  if (s->ancestor[v] == RC_NONE) return v;
  uint32_t x = v, top = 0;
  while (s->ancestor[s->ancestor[x]] != RC_NONE) {
    s->stack[top++] = x;
    x = s->ancestor[x];
  }
  while (top) {
    uint32_t y = s->stack[--top], a = s->ancestor[y];
    if (s->semi[s->label[a]] < s->semi[s->label[y]]) s->label[y] = s->label[a];
    s->ancestor[y] = s->ancestor[a];
  }
  return s->label[v];
}

void rc_dominators_lt(uint32_t nnodes, uint32_t root, const uint32_t *succ_start, const uint32_t *succs,
                      const uint32_t *pred_start, const uint32_t *preds, uint32_t *idom) {
  uint32_t n = nnodes;
  for (uint32_t i = 0; i < n; i++) idom[i] = RC_NONE;
  if (!n || root == RC_NONE) return;
  uint32_t *pre = rc_xcalloc(n, sizeof *pre); /* 0 = not reached, else 1..N */
  uint32_t *vertex = rc_xmalloc((n + 1) * sizeof *vertex);
  uint32_t *parent = rc_xmalloc(n * sizeof *parent);
  uint32_t *bucket = rc_xmalloc(n * sizeof *bucket), *next = rc_xmalloc(n * sizeof *next);
  uint32_t *edge = rc_xmalloc(n * sizeof *edge);
  lt_state s = {rc_xmalloc(n * sizeof *s.semi), rc_xmalloc(n * sizeof *s.label),
                rc_xmalloc(n * sizeof *s.ancestor), rc_xmalloc(n * sizeof *s.stack)};
  /* DFS pre-order */
  uint32_t N = 0, sp = 0;
  pre[root] = ++N;
  vertex[N] = root;
  parent[root] = RC_NONE;
  s.stack[sp] = root;
  edge[sp++] = succ_start[root];
  while (sp) {
    uint32_t v = s.stack[sp - 1];
    if (edge[sp - 1] == succ_start[v + 1]) {
      sp--;
      continue;
    }
    uint32_t w = succs[edge[sp - 1]++];
    if (pre[w]) continue;
    pre[w] = ++N;
    vertex[N] = w;
    parent[w] = v;
    s.stack[sp] = w;
    edge[sp++] = succ_start[w];
  }
  for (uint32_t i = 1; i <= N; i++) {
    uint32_t v = vertex[i];
    s.semi[v] = i;
    s.label[v] = v;
    s.ancestor[v] = bucket[v] = RC_NONE;
  }
  for (uint32_t i = N; i >= 2; i--) {
    uint32_t w = vertex[i];
    for (uint32_t e = pred_start[w]; e < pred_start[w + 1]; e++) {
      uint32_t v = preds[e];
      if (!pre[v]) continue;
      uint32_t u = lt_eval(&s, v);
      if (s.semi[u] < s.semi[w]) s.semi[w] = s.semi[u];
    }
    uint32_t sd = vertex[s.semi[w]], p = parent[w];
    next[w] = bucket[sd];
    bucket[sd] = w;
    s.ancestor[w] = p; /* link */
    for (uint32_t v = bucket[p]; v != RC_NONE; v = next[v]) {
      uint32_t u = lt_eval(&s, v);
      idom[v] = s.semi[u] < s.semi[v] ? u : p;
    }
    bucket[p] = RC_NONE;
  }
  for (uint32_t i = 2; i <= N; i++) {
    uint32_t w = vertex[i];
    if (idom[w] != vertex[s.semi[w]]) idom[w] = idom[idom[w]];
  }
  idom[root] = root;
  free(pre);
  free(vertex);
  free(parent);
  free(bucket);
  free(next);
  free(edge);
  free(s.semi);
  free(s.label);
  free(s.ancestor);
  free(s.stack);
}

/* A tree (children, DFS numbering, depths) from an idom array, which the tree takes over. */
static void domtree_from_idoms(rc_domtree *t, bool post, uint32_t nblocks, uint32_t nnodes,
                               uint32_t root, uint32_t *idom) {
  memset(t, 0, sizeof *t);
  t->post = post;
  t->nblocks = nblocks;
  uint32_t n = nnodes;
  t->nnodes = n;
  t->root = root;
  t->idom = idom;
  /* children lists and DFS numbering of the tree */
  t->child_start = rc_xcalloc(n + 1, sizeof *t->child_start);
  t->children = rc_xmalloc((n ? n : 1) * sizeof *t->children);
  for (uint32_t b = 0; b < n; b++)
    if (t->idom[b] != RC_NONE && b != root) t->child_start[t->idom[b] + 1]++;
  for (uint32_t i = 0; i < n; i++) t->child_start[i + 1] += t->child_start[i];
  uint32_t *fill = rc_xmalloc((n + 1) * sizeof *fill);
  memcpy(fill, t->child_start, (n + 1) * sizeof *fill);
  for (uint32_t b = 0; b < n; b++)
    if (t->idom[b] != RC_NONE && b != root) t->children[fill[t->idom[b]]++] = b;
  free(fill);
  t->pre = rc_xmalloc((n ? n : 1) * sizeof *t->pre);
  t->post_num = rc_xmalloc((n ? n : 1) * sizeof *t->post_num);
  t->depth = rc_xmalloc((n ? n : 1) * sizeof *t->depth);
  for (uint32_t i = 0; i < n; i++) t->pre[i] = t->post_num[i] = t->depth[i] = RC_NONE;
  if (n && root != RC_NONE) {
    uint32_t *stack = rc_xmalloc(n * sizeof *stack);
    uint32_t *edge = rc_xmalloc(n * sizeof *edge);
    uint32_t sp = 0, pre = 0, postn = 0;
    stack[sp] = root;
    edge[sp++] = t->child_start[root];
    t->pre[root] = pre++;
    t->depth[root] = 0;
    while (sp) {
      uint32_t b = stack[sp - 1];
      if (edge[sp - 1] < t->child_start[b + 1]) {
        uint32_t c = t->children[edge[sp - 1]++];
        t->pre[c] = pre++;
        t->depth[c] = t->depth[b] + 1;
        stack[sp] = c;
        edge[sp++] = t->child_start[c];
      } else {
        t->post_num[b] = postn++;
        sp--;
      }
    }
    free(stack);
    free(edge);
  }
}

int rc_domtree_build(rc_domtree *t, const rc_cfg *g, bool post) {
  dgraph d = {0};
  rc_u32vec extra = {0};
  if (post) {
    build_post_graph(g, &d, &extra);
  } else {
    d.nnodes = g->nblocks;
    d.root = g->entry;
    d.succ_start = g->succ_start;
    d.succs = g->succs;
    d.pred_start = g->pred_start;
    d.preds = g->preds;
  }
  uint32_t *idom = rc_xmalloc((d.nnodes ? d.nnodes : 1) * sizeof *idom);
  rc_dominators_lt(d.nnodes, d.root, d.succ_start, d.succs, d.pred_start, d.preds, idom);
  domtree_from_idoms(t, post, g->nblocks, d.nnodes, d.root, idom);
  t->extra_exits = extra.data;
  t->nextra_exits = extra.len;
  if (post) dgraph_free(&d);
  return 0;
}

void rc_domtree_free(rc_domtree *t) {
  free(t->idom);
  free(t->pre);
  free(t->post_num);
  free(t->child_start);
  free(t->children);
  free(t->depth);
  free(t->extra_exits);
  memset(t, 0, sizeof *t);
}

bool rc_domtree_contains(const rc_domtree *t, uint32_t b) {
  return b < t->nnodes && t->idom[b] != RC_NONE;
}

bool rc_dominates(const rc_domtree *t, uint32_t a, uint32_t b) {
  if (!rc_domtree_contains(t, a) || !rc_domtree_contains(t, b)) return false;
  return t->pre[a] <= t->pre[b] && t->post_num[b] <= t->post_num[a];
}

bool rc_strictly_dominates(const rc_domtree *t, uint32_t a, uint32_t b) {
  return a != b && rc_dominates(t, a, b);
}

uint32_t rc_domtree_lca(const rc_domtree *t, uint32_t a, uint32_t b) {
  if (!rc_domtree_contains(t, a) || !rc_domtree_contains(t, b)) return RC_NONE;
  /* the common case of a running LCA over many blocks, in O(1) by the tree's numbering */
  if (rc_dominates(t, a, b)) return a;
  if (rc_dominates(t, b, a)) return b;
  while (t->depth[a] > t->depth[b]) a = t->idom[a];
  while (t->depth[b] > t->depth[a]) b = t->idom[b];
  while (a != b) {
    a = t->idom[a];
    b = t->idom[b];
  }
  return a;
}

/* ---- dominance frontiers --------------------------------------------------------------------------------- */

void rc_domfrontier_build(rc_domfrontier *df, const rc_domtree *t, const rc_cfg *g) {
  uint32_t n = t->nnodes;
  /* predecessors in the direction of the tree */
  dgraph d = {0};
  rc_u32vec extra = {0};
  if (t->post) {
    build_post_graph(g, &d, &extra);
    rc_vec_free(&extra);
  } else {
    d.pred_start = g->pred_start;
    d.preds = g->preds;
  }
  RC_VEC(uint32_t) from = {0}, to = {0};
  uint32_t *last = rc_xmalloc((n ? n : 1) * sizeof *last);
  for (uint32_t i = 0; i < n; i++) last[i] = RC_NONE;
  for (uint32_t b = 0; b < n; b++) {
    if (!rc_domtree_contains(t, b)) continue;
    uint32_t np = d.pred_start[b + 1] - d.pred_start[b];
    if (np < 2 && b != t->root) continue; /* a single predecessor is idom(b) */
    /* The walk stops below idom(b). The root has no idom: when it has predecessors (an entry
     * block that is a loop header), the walk goes up to the root and includes it, so the root is
     * in its own frontier. */
    uint32_t stop = b == t->root ? RC_NONE : t->idom[b];
    for (uint32_t e = d.pred_start[b]; e < d.pred_start[b + 1]; e++) {
      uint32_t r = d.preds[e];
      if (!rc_domtree_contains(t, r)) continue;
      while (r != stop) {
        if (last[r] == b) break; /* this walk was done for b already */
        last[r] = b;
        rc_vec_push(&from, r);
        rc_vec_push(&to, b);
        if (r == t->root) break;
        r = t->idom[r];
      }
    }
  }
  free(last);
  df->nnodes = n;
  csr_from_edges(n, from.data, to.data, from.len, &df->start, &df->nodes);
  rc_vec_free(&from);
  rc_vec_free(&to);
  if (t->post) dgraph_free(&d);
}

void rc_domfrontier_free(rc_domfrontier *df) {
  free(df->start);
  free(df->nodes);
  memset(df, 0, sizeof *df);
}

void rc_domfrontier_iterated(const rc_domfrontier *df, const uint32_t *blocks, uint32_t n,
                             rc_u32vec *out) {
  uint8_t *in_out = rc_xcalloc(df->nnodes ? df->nnodes : 1, 1);
  uint8_t *queued = rc_xcalloc(df->nnodes ? df->nnodes : 1, 1);
  rc_u32vec work = {0};
  for (uint32_t i = 0; i < n; i++)
    if (!queued[blocks[i]]) {
      queued[blocks[i]] = 1;
      rc_vec_push(&work, blocks[i]);
    }
  while (work.len) {
    uint32_t b = work.data[--work.len];
    for (uint32_t e = df->start[b]; e < df->start[b + 1]; e++) {
      uint32_t f = df->nodes[e];
      if (in_out[f]) continue;
      in_out[f] = 1;
      rc_vec_push(out, f);
      if (!queued[f]) {
        queued[f] = 1;
        rc_vec_push(&work, f);
      }
    }
  }
  rc_vec_free(&work);
  free(in_out);
  free(queued);
}
