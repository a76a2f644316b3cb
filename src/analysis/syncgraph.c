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
 * Shortcuts (skip): see below. */
#include "syncgraph.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void rc_syncgraph_build(rc_syncgraph *s, const rc_cfg *g, const rc_domtree *dom,
                        const rc_domtree *pdom, const rc_cycle_info *ci) {
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
  /* edges of each reachable node, as target blocks */
  RC_VEC(uint32_t) to = {0};
  s->start = rc_xcalloc(n + 1, sizeof *s->start);
  for (uint32_t x = 0; x < n; x++) {
    s->start[x] = to.len;
    if (s->node[x] != x || !rc_domtree_contains(dom, x)) continue;
    uint32_t c = s->node_cycle[x];
    if (c != RC_NONE) {
      for (uint32_t i = 0; i < ci->cycles[c].nexits; i++) rc_vec_push(&to, ci->cycles[c].exits[i]);
      continue;
    }
    for (uint32_t e = g->succ_start[x]; e < g->succ_start[x + 1]; e++) {
      uint32_t t = g->succs[e];
      bool dup = s->node[t] == x;
      for (uint32_t e2 = g->succ_start[x]; e2 < e && !dup; e2++) dup = g->succs[e2] == t;
      if (!dup) rc_vec_push(&to, t);
    }
  }
  s->start[n] = to.len;
  s->to = to.data;
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
  /* Shortcuts. A plain block x whose region up to P = ipdom(x) is single-entry single-exit
   * (thesis Def. 5: x dominates P, P post-dominates x, and the same cycles contain both, which
   * for the nesting forest means the same innermost cycle) hands one label to every block of the
   * region and then to P: nothing can join inside, and no other label can enter (x dominates the
   * region; the headers of the cycles around x, which dominate x, lie outside it, so do the exits
   * of those cycles, and cycles inside the region lie wholly in it). Jumping from x straight to P
   * keeps the cost of a divergent branch to the regions it crosses, not their contents. */
  s->skip = rc_xmalloc((n ? n : 1) * sizeof *s->skip);
  for (uint32_t x = 0; x < n; x++) {
    s->skip[x] = RC_NONE;
    if (s->node[x] != x || s->node_cycle[x] != RC_NONE || !rc_domtree_contains(dom, x)) continue;
    uint32_t P = pdom->idom[x];
    if (P >= n || !rc_strictly_dominates(dom, x, P) || ci->innermost[x] != ci->innermost[P]) continue;
    s->skip[x] = P;
  }
  /* P's predecessors all lie in x's region, so P gets x's label alone and may jump on in turn:
   * follow the chains to their ends (in reverse topological order, each step is final) */
  for (uint32_t i = next; i-- > 0;) {
    uint32_t x = queue[i], P = s->skip[x];
    if (P != RC_NONE && s->skip[P] != RC_NONE) s->skip[x] = s->skip[P];
  }
  free(queue);
}

void rc_syncgraph_free(rc_syncgraph *s) {
  free(s->node);
  free(s->node_cycle);
  free(s->collapsed);
  free(s->start);
  free(s->to);
  free(s->topo);
  free(s->skip);
  memset(s, 0, sizeof *s);
}
