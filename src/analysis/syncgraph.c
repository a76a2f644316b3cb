/* The acyclic graph on which uniformity propagates sync-dependence labels (see uniformity.c and
 * syncgraph.h). It is LLVM's "modified post-order" (GenericUniformityImpl.h) made explicit:
 *
 * - Every outermost irreducible cycle is one node (named by its header) whose edges go to the
 *   cycle's exits: uniformity treats such cycles conservatively as a whole.
 * - The header of a reducible cycle leads to the cycle's exits instead of into its body; edges
 *   from latches still end at the header. A label from outside the cycle thus reaches its header
 *   (the only entry) and passes to the exits, and a label from inside runs through the body to
 *   the header and on to the exits.
 * - Other blocks keep their successors (self loops and duplicate edges dropped).
 *
 * This graph is acyclic: every closed walk of the CFG passes the header of the smallest cycle of
 * the forest containing it, and that header's edges into the cycle are gone (or the walk lies in
 * a collapsed irreducible cycle); a header's new edges lead out of its cycle, and from there back
 * to the header only through the header of an enclosing cycle, whose edges are gone likewise.
 * Kahn's algorithm numbers the nodes topologically and asserts that all of them were numbered.
 *
 * Shortcuts (skip): see shortcuts() below. */
#include "syncgraph.h"

#include "dominators.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Shortcuts. If in the acyclic graph a plain node x dominates its immediate post-dominator P,
 * the region between them (the nodes x dominates and P does not) is entered only through x and
 * left only to P, so a single label arriving at x reaches every node of it and then P, and
 * nothing can join inside: x may hand its label straight to P. (Nor is a divergent exit lost:
 * those are marked by headers of reducible cycles around the branch, and such a header is never
 * inside the region: a branch whose labels reach x and then the header lies in the header's
 * cycle, so x does too, and the header is reached from the root by its entry edge without x.)
 * P's predecessors all lie in the region, so P receives x's label alone and may jump on in turn:
 * the chains are followed to their ends in reverse topological order. With these jumps a
 * divergent branch costs the regions its labels cross, not their contents.
 * Dominance here is that of the acyclic graph (a virtual root before all nodes without
 * predecessors, a virtual sink after all nodes without successors): the CFG's own trees would
 * also count paths around cycles that the propagation never follows. A branch at a cycle header
 * starts labels in the cycle's body along edges the graph lacks; for dominance these are edges
 * from the root, so no region hides such an entry. */
static void shortcuts(rc_syncgraph *s, const rc_cfg *g, const rc_cycle_info *ci, const uint32_t *order,
                      uint32_t nnodes) {
  uint32_t n = s->n, V = n; /* the virtual root, which is also the virtual sink */
  /* One graph A serves both trees: node v's edges are its successors, or V when it has none; V's
   * edges go to the nodes without predecessors and to the body entries of the headers. The
   * dominator tree is computed on A from V, the post-dominator tree on A reversed from V; the
   * edges into the root are never followed, so each tree sees only its own virtual edges. */
  uint32_t *start = rc_xmalloc((n + 2) * sizeof *start);
  uint32_t nedges = s->start[n] + 2 * nnodes, k = 0; /* edges, a V per sink, V's roots */
  uint8_t *has_pred = rc_xcalloc(n + 1, 1);
  uint32_t nentries = 0;
  for (uint32_t i = 0; i < nnodes; i++) {
    uint32_t h = order[i], c = s->node_cycle[h];
    for (uint32_t e = s->start[h]; e < s->start[h + 1]; e++) has_pred[s->node[s->to[e]]] = 1;
    if (c != RC_NONE && !s->collapsed[h])
      for (uint32_t e = g->succ_start[h]; e < g->succ_start[h + 1]; e++)
        nentries += rc_cycle_contains(ci, c, g->succs[e]);
  }
  uint32_t *adj = rc_xmalloc((nedges + nentries + 1) * sizeof *adj);
  for (uint32_t v = 0; v < n; v++) {
    start[v] = k;
    if (s->topo[v] == RC_NONE) continue;
    for (uint32_t e = s->start[v]; e < s->start[v + 1]; e++) adj[k++] = s->node[s->to[e]];
    if (s->start[v] == s->start[v + 1]) adj[k++] = V;
  }
  start[V] = k;
  for (uint32_t i = 0; i < nnodes; i++) {
    uint32_t h = order[i], c = s->node_cycle[h];
    if (!has_pred[h]) adj[k++] = h;
    /* a divergent branch at the header of a reducible cycle sends labels into the body along its
     * own edges, which the graph does not have: they count as entries from the root */
    if (c != RC_NONE && !s->collapsed[h])
      for (uint32_t e = g->succ_start[h]; e < g->succ_start[h + 1]; e++)
        if (rc_cycle_contains(ci, c, g->succs[e])) adj[k++] = s->node[g->succs[e]];
  }
  start[V + 1] = k;
  free(has_pred);
  /* predecessors */
  uint32_t *pstart = rc_xcalloc(n + 2, sizeof *pstart), *padj = rc_xmalloc((k ? k : 1) * sizeof *padj);
  for (uint32_t e = 0; e < k; e++) pstart[adj[e] + 1]++;
  for (uint32_t v = 0; v <= n; v++) pstart[v + 1] += pstart[v];
  uint32_t *fill = rc_xmalloc((n + 1) * sizeof *fill);
  memcpy(fill, pstart, (n + 1) * sizeof *fill);
  for (uint32_t v = 0; v <= n; v++)
    for (uint32_t e = start[v]; e < start[v + 1]; e++) padj[fill[adj[e]]++] = v;
  free(fill);
  uint32_t *idom = rc_xmalloc((n + 1) * sizeof *idom), *ipdom = rc_xmalloc((n + 1) * sizeof *ipdom);
  rc_dominators_lt(n + 1, V, start, adj, pstart, padj, idom);
  rc_dominators_lt(n + 1, V, pstart, padj, start, adj, ipdom);
  free(start);
  free(adj);
  free(pstart);
  free(padj);

  s->skip = rc_xmalloc((n ? n : 1) * sizeof *s->skip);
  for (uint32_t x = 0; x < n; x++) s->skip[x] = RC_NONE;
  /* x dominates P = ipdom(x) exactly when x = idom(P): a dominator of P strictly between them
   * would lie on every path from x to P and so post-dominate x before P does */
  for (uint32_t i = 0; i < nnodes; i++) {
    uint32_t x = order[i], P = ipdom[x];
    if (s->node_cycle[x] == RC_NONE && P < n && idom[P] == x) s->skip[x] = P;
  }
  for (uint32_t i = nnodes; i-- > 0;) {
    uint32_t x = order[i], P = s->skip[x];
    if (P != RC_NONE && s->skip[P] != RC_NONE) s->skip[x] = s->skip[P];
  }
  free(ipdom);
  free(idom);
}

enum { VIA_UNSET = RC_NONE - 1 };

/* For the edge from a cycle's node to exit X: the one block of the cycle with an edge to X, or
 * RC_NONE when there are several. One walk over the CFG's edges: an edge u -> X leaves the
 * cycles around u up to the first that contains X (those that are nodes have X as an exit, at
 * the position of X in their sorted exits). */
static void exit_via(rc_syncgraph *s, const rc_cfg *g, const rc_domtree *dom, const rc_cycle_info *ci) {
  for (uint32_t u = 0; u < s->n; u++) {
    if (!rc_domtree_contains(dom, u)) continue;
    for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++) {
      uint32_t X = g->succs[e];
      for (uint32_t c = ci->innermost[u]; c != RC_NONE && !rc_cycle_contains(ci, c, X); c = ci->cycles[c].parent) {
        const rc_cycle *cy = &ci->cycles[c];
        if (s->node_cycle[cy->header] != c || s->node[cy->header] != cy->header) continue; /* not a node */
        uint32_t lo = 0, hi = cy->nexits; /* the position of X among the exits */
        while (lo < hi) {
          uint32_t mid = lo + (hi - lo) / 2;
          if (cy->exits[mid] < X) lo = mid + 1;
          else hi = mid;
        }
        uint32_t *v = &s->via[s->start[cy->header] + lo];
        *v = *v == VIA_UNSET || *v == u ? u : RC_NONE;
      }
    }
  }
}

void rc_syncgraph_build(rc_syncgraph *s, const rc_cfg *g, const rc_domtree *dom,
                        const rc_cycle_info *ci) {
  uint32_t n = g->nblocks, m = ci->ncycles;
  memset(s, 0, sizeof *s);
  s->n = n;
  /* outermost irreducible cycle of each cycle (cycles are in forest pre-order) */
  uint32_t *irr = rc_xmalloc((m ? m : 1) * sizeof *irr);
  for (uint32_t c = 0; c < m; c++) {
    uint32_t p = ci->cycles[c].parent;
    irr[c] = p != RC_NONE && irr[p] != RC_NONE ? irr[p] : ci->cycles[c].reducible ? RC_NONE : c;
  }
  s->node = rc_xmalloc((n ? n : 1) * sizeof *s->node);
  s->node_cycle = rc_xmalloc((n ? n : 1) * sizeof *s->node_cycle);
  s->collapsed = rc_xcalloc(n ? n : 1, 1);
  for (uint32_t b = 0; b < n; b++) {
    s->node[b] = b;
    s->node_cycle[b] = RC_NONE;
  }
  for (uint32_t c = 0; c < m; c++) {
    uint32_t h = ci->cycles[c].header;
    if (irr[c] == c) {
      s->node_cycle[h] = c;
      s->collapsed[h] = 1;
    } else if (irr[c] == RC_NONE) {
      s->node_cycle[h] = c; /* reducible header: leads to the exits */
    }
  }
  for (uint32_t b = 0; b < n; b++) {
    uint32_t c = ci->innermost[b];
    if (c != RC_NONE && irr[c] != RC_NONE) s->node[b] = ci->cycles[irr[c]].header;
  }
  free(irr);
  /* edges of each reachable node, as target blocks, and the block each leaves (exit_via fills
   * it in for the edges of cycle nodes) */
  RC_VEC(uint32_t) to = {0}, via = {0};
  s->start = rc_xcalloc(n + 1, sizeof *s->start);
  for (uint32_t x = 0; x < n; x++) {
    s->start[x] = to.len;
    if (s->node[x] != x || !rc_domtree_contains(dom, x)) continue;
    uint32_t c = s->node_cycle[x];
    if (c != RC_NONE) {
      for (uint32_t i = 0; i < ci->cycles[c].nexits; i++) {
        rc_vec_push(&to, ci->cycles[c].exits[i]);
        rc_vec_push(&via, VIA_UNSET);
      }
      continue;
    }
    for (uint32_t e = g->succ_start[x]; e < g->succ_start[x + 1]; e++) {
      uint32_t t = g->succs[e];
      bool dup = s->node[t] == x;
      for (uint32_t e2 = g->succ_start[x]; e2 < e && !dup; e2++) dup = g->succs[e2] == t;
      if (dup) continue;
      rc_vec_push(&to, t);
      rc_vec_push(&via, x);
    }
  }
  s->start[n] = to.len;
  s->to = to.data;
  s->via = via.data;
  exit_via(s, g, dom, ci);
  /* topological order (Kahn) */
  uint32_t *indeg = rc_xcalloc(n ? n : 1, sizeof *indeg);
  uint32_t *queue = rc_xmalloc((n ? n : 1) * sizeof *queue);
  s->topo = rc_xmalloc((n ? n : 1) * sizeof *s->topo);
  uint32_t nnodes = 0;
  for (uint32_t x = 0; x < n; x++) {
    s->topo[x] = RC_NONE;
    if (s->node[x] == x && rc_domtree_contains(dom, x)) nnodes++;
    for (uint32_t e = s->start[x]; e < s->start[x + 1]; e++) indeg[s->node[s->to[e]]]++;
  }
  uint32_t qh = 0, qt = 0, next = 0;
  for (uint32_t x = 0; x < n; x++)
    if (s->node[x] == x && rc_domtree_contains(dom, x) && !indeg[x]) queue[qt++] = x;
  while (qh < qt) {
    uint32_t x = queue[qh++];
    s->topo[x] = next++;
    for (uint32_t e = s->start[x]; e < s->start[x + 1]; e++) {
      uint32_t y = s->node[s->to[e]];
      if (--indeg[y] == 0) queue[qt++] = y;
    }
  }
  assert(next == nnodes && "the propagation graph must be acyclic");
  (void)nnodes;
  free(indeg);
  shortcuts(s, g, ci, queue, next);
  free(queue);
}

void rc_syncgraph_free(rc_syncgraph *s) {
  free(s->via);
  free(s->node);
  free(s->node_cycle);
  free(s->collapsed);
  free(s->start);
  free(s->to);
  free(s->topo);
  free(s->skip);
  memset(s, 0, sizeof *s);
}
