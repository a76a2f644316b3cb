/* Sync dependence: where the paths from one divergent branch meet (see syncdep.h and, for the
 * rules, uniformity.c). Labels, the nearest definition of a virtual variable that each successor
 * of the branch assigns differently, travel through the acyclic propagation graph (syncgraph.c)
 * in topological order; a node receiving two different labels is a join and labels itself.
 *
 * Fresh nodes (labelled, not yet processed) wait in a min-heap by topological index. The heap
 * also counts how many of its nodes carry each label (lcount, ndistinct) and how many are
 * collapsed cycles entered divergently (nblocking): once every fresh node carries the same label
 * and none makes new labels, every later push carries that label and nothing more can join,
 * except at sinks. Sinks (nodes without edges, which have nothing to pass on) stay out of the
 * heap; a join at a sink is seen when its second label arrives, and sinks that could still
 * become joins wait in `pending` (see settled()). LLVM stops at a single fresh node instead,
 * which a kernel's shared exit block keeps from happening until the very end. */
#include "syncdep.h"

#include <stdlib.h>
#include <string.h>

static bool heap_less(const rc_syncdep *s, uint32_t a, uint32_t b) { return s->sg.topo[a] < s->sg.topo[b]; }

static void count_label(rc_syncdep *s, uint32_t label, int delta) {
  if (delta > 0 && s->lcount[label]++ == 0) s->ndistinct++;
  if (delta < 0 && --s->lcount[label] == 0) s->ndistinct--;
}

static bool blocking(const rc_syncdep *s, uint32_t x) { return s->sg.collapsed[x] && s->entered_div[x]; }

static void heap_push(rc_syncdep *s, uint32_t x) {
  s->in_heap[x] = 1;
  count_label(s, s->label[x], +1);
  s->nblocking += blocking(s, x);
  rc_vec_push(&s->heap, x);
  uint32_t i = s->heap.len - 1;
  while (i && heap_less(s, s->heap.data[i], s->heap.data[(i - 1) / 2])) {
    uint32_t p = (i - 1) / 2, t = s->heap.data[i];
    s->heap.data[i] = s->heap.data[p];
    s->heap.data[p] = t;
    i = p;
  }
}

static uint32_t heap_pop(rc_syncdep *s) {
  uint32_t top = s->heap.data[0];
  s->heap.data[0] = s->heap.data[--s->heap.len];
  for (uint32_t i = 0;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < s->heap.len && heap_less(s, s->heap.data[l], s->heap.data[m])) m = l;
    if (r < s->heap.len && heap_less(s, s->heap.data[r], s->heap.data[m])) m = r;
    if (m == i) break;
    uint32_t t = s->heap.data[i];
    s->heap.data[i] = s->heap.data[m];
    s->heap.data[m] = t;
    i = m;
  }
  s->in_heap[top] = 0;
  count_label(s, s->label[top], -1);
  s->nblocking -= blocking(s, top);
  return top;
}

static void set_label(rc_syncdep *s, uint32_t x, uint32_t label) {
  if (s->in_heap[x]) count_label(s, s->label[x], -1), count_label(s, label, +1);
  s->label[x] = label;
}

static void set_entered_div(rc_syncdep *s, uint32_t x) {
  if (s->in_heap[x] && !blocking(s, x)) s->nblocking++;
  s->entered_div[x] = 1;
}

static bool is_sink(const rc_syncdep *s, uint32_t x) {
  return !s->sg.collapsed[x] && s->sg.start[x] == s->sg.start[x + 1];
}

/* how a label travels: along an edge of the graph; from the header of a reducible cycle around
 * the branch to the cycle's exits (a join there is a divergent exit); or as a new definition */
enum { EDGE_NORMAL, EDGE_CYCLE_EXIT, EDGE_NEW_DEF };

typedef struct branch_ctx {
  uint32_t block;     /* the divergent branch */
  uint32_t last_header; /* greatest topological index of a reducible header around it, or RC_NONE */
  rc_syncdep_result *r; /* joins and diverged cycles go here directly */
  rc_u32vec div_exits; /* exit blocks reached in different iterations */
} branch_ctx;

/* Push `label` into the node of block `to`; a second, different label makes a join. Labels are
 * block ids: a branch's successors label themselves (so two entries of one collapsed cycle carry
 * different labels), a join labels itself with its node. EDGE_NEW_DEF pushes a definition that
 * exists nowhere else yet (the exits of a divergent irreducible cycle), which joins with any
 * label already there. */
static void push_label(rc_syncdep *s, branch_ctx *bc, uint32_t to, uint32_t label, int kind) {
  uint32_t x = s->sg.node[to];
  uint32_t old = s->label[x];
  if (old == label && !(kind == EDGE_NEW_DEF && old != RC_NONE)) return;
  if (old == RC_NONE) { /* first label: the node is fresh */
    rc_vec_push(&s->touched, x);
    s->label[x] = label;
    if (is_sink(s, x)) rc_vec_push(&s->pending, x);
    else heap_push(s, x);
    return;
  }
  set_label(s, x, x); /* a join: the node defines its own label from here on */
  if (s->sg.collapsed[x]) set_entered_div(s, x);
  /* record each join and each divergent exit once (joined: bit 1 join, bit 2 divergent exit) */
  uint8_t bit = kind == EDGE_CYCLE_EXIT ? 2 : 1;
  if (s->joined[x] & bit) return;
  s->joined[x] |= bit;
  if (kind == EDGE_CYCLE_EXIT) rc_vec_push(&bc->div_exits, to);
  else if (!s->sg.collapsed[x]) rc_vec_push(&bc->r->joins, x);
}

/* May propagation stop? When every fresh node carries the same label L (and none is a cycle
 * entered divergently, which makes new labels), every later push carries L: no more joins,
 * except at sinks labelled otherwise that L still reaches. A sink that lies before the first
 * fresh node in topological order can receive nothing more. Once no header of a cycle around
 * the branch is left to process, every later push is an ordinary one, and a sink that
 * post-dominates the first fresh node will receive L: it is a join now. Any other sink keeps
 * the propagation going. */
static bool settled(rc_syncdep *s, branch_ctx *bc) {
  if (!s->heap.len) return true;
  if (s->ndistinct != 1 || s->nblocking) return false;
  uint32_t top = s->heap.data[0], L = s->label[top], keep = 0;
  /* could a header of a reducible cycle around the branch still be processed? Its pushes record
   * divergent exits rather than joins */
  bool open = bc->last_header != RC_NONE && bc->last_header >= s->sg.topo[top], done = true;
  for (uint32_t i = 0; i < s->pending.len; i++) {
    uint32_t z = s->pending.data[i];
    if (s->label[z] == L || s->sg.topo[z] < s->sg.topo[top]) continue;
    if (!open && (s->joined[z] & 1)) continue; /* a join already: ordinary pushes add nothing */
    if (!open && rc_dominates(s->pdom, z, top)) {
      push_label(s, bc, z, L, EDGE_NORMAL);
      continue;
    }
    s->pending.data[keep++] = z;
    done = false;
  }
  s->pending.len = keep;
  return done;
}

/* An irreducible cycle entered divergently or holding a divergent branch: all its values are
 * divergent, and its exits each start a label of their own. */
static void diverge_cluster(rc_syncdep *s, branch_ctx *bc, uint32_t c) {
  if (!s->cluster_done[c]) {
    s->cluster_done[c] = 1;
    rc_vec_push(&bc->r->diverged, c);
  }
  const rc_cycle *cy = &s->ci->cycles[c];
  for (uint32_t i = 0; i < cy->nexits; i++) push_label(s, bc, cy->exits[i], cy->exits[i], EDGE_NEW_DEF);
  /* an exit entered from two blocks of the cycle joins threads that left it apart */
  for (uint32_t i = s->sg.apart_start[c]; i < s->sg.apart_start[c + 1]; i++) {
    uint32_t X = s->sg.apart[i], x = s->sg.node[X];
    if (s->sg.collapsed[x]) {
      set_entered_div(s, x);
    } else if (!(s->joined[x] & 1)) {
      s->joined[x] |= 1;
      rc_vec_push(&bc->r->joins, x);
    }
  }
}

void rc_syncdep_branch(rc_syncdep *s, uint32_t B, rc_syncdep_result *r) {
  branch_ctx bc = {B, RC_NONE, r, {0}};
  for (uint32_t c = s->ci->innermost[B]; c != RC_NONE; c = s->ci->cycles[c].parent) {
    uint32_t h = s->ci->cycles[c].header;
    if (s->sg.node[h] == h && !s->sg.collapsed[h] &&
        (bc.last_header == RC_NONE || s->sg.topo[h] > bc.last_header))
      bc.last_header = s->sg.topo[h];
  }
  uint32_t bn = s->sg.node[B];
  if (s->sg.collapsed[bn]) {
    uint32_t c = s->sg.node_cycle[bn];
    if (s->cluster_done[c]) return; /* the same propagation ran for another branch in it */
    diverge_cluster(s, &bc, c);
  } else {
    const rc_cfg *g = s->g;
    for (uint32_t e = g->succ_start[B]; e < g->succ_start[B + 1]; e++) {
      uint32_t t = g->succs[e];
      push_label(s, &bc, t, t, EDGE_NORMAL); /* each successor block is a label of its own */
    }
  }
  while (!settled(s, &bc)) {
    uint32_t x = heap_pop(s);
    uint32_t label = s->label[x], c = s->sg.node_cycle[x];
    if (s->sg.collapsed[x] && s->entered_div[x]) {
      diverge_cluster(s, &bc, c);
    } else if (c != RC_NONE) {
      /* a cycle's exits; for a reducible cycle around B these are exits in other iterations */
      int kind = !s->sg.collapsed[x] && rc_cycle_contains(s->ci, c, B) ? EDGE_CYCLE_EXIT : EDGE_NORMAL;
      for (uint32_t e = s->sg.start[x]; e < s->sg.start[x + 1]; e++)
        push_label(s, &bc, s->sg.to[e], label, kind);
    } else if (s->sg.skip[x] != RC_NONE) {
      push_label(s, &bc, s->sg.skip[x], label, EDGE_NORMAL);
    } else {
      for (uint32_t e = s->sg.start[x]; e < s->sg.start[x + 1]; e++)
        push_label(s, &bc, s->sg.to[e], label, EDGE_NORMAL);
    }
  }
  while (s->heap.len) heap_pop(s);
  for (uint32_t i = 0; i < s->touched.len; i++) {
    uint32_t x = s->touched.data[i];
    s->label[x] = RC_NONE;
    s->entered_div[x] = s->joined[x] = 0;
  }
  s->touched.len = s->pending.len = 0;
  if (bc.div_exits.len) {
    /* for each exit, the outermost cycle around B that does not contain it: the cycles around B
     * form a chain, and containing the exit is monotone along it (binary search) */
    rc_u32vec chain = {0};
    for (uint32_t c = s->ci->innermost[B]; c != RC_NONE; c = s->ci->cycles[c].parent) rc_vec_push(&chain, c);
    for (uint32_t i = 0; i < bc.div_exits.len; i++) {
      uint32_t X = bc.div_exits.data[i], lo = 0, hi = chain.len; /* first cycle containing X */
      while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (rc_cycle_contains(s->ci, chain.data[mid], X)) hi = mid;
        else lo = mid + 1;
      }
      if (lo > 0) rc_vec_push(&r->exited, chain.data[lo - 1]);
    }
    rc_vec_free(&chain);
  }
  rc_vec_free(&bc.div_exits);
}

void rc_syncdep_init(rc_syncdep *s, const rc_cfg *g, const rc_domtree *dom, const rc_domtree *pdom,
                     const rc_cycle_info *ci) {
  memset(s, 0, sizeof *s);
  uint32_t n = g->nblocks, m = ci->ncycles;
  s->g = g;
  s->pdom = pdom;
  s->ci = ci;
  rc_syncgraph_build(&s->sg, g, dom, ci);
  s->label = rc_xmalloc((n ? n : 1) * sizeof *s->label);
  for (uint32_t b = 0; b < n; b++) s->label[b] = RC_NONE;
  s->entered_div = rc_xcalloc(n ? n : 1, 1);
  s->joined = rc_xcalloc(n ? n : 1, 1);
  s->in_heap = rc_xcalloc(n ? n : 1, 1);
  s->lcount = rc_xcalloc(n ? n : 1, sizeof *s->lcount);
  s->cluster_done = rc_xcalloc(m ? m : 1, 1);
}

void rc_syncdep_free(rc_syncdep *s) {
  rc_syncgraph_free(&s->sg);
  free(s->label);
  free(s->entered_div);
  free(s->joined);
  free(s->in_heap);
  free(s->lcount);
  free(s->cluster_done);
  rc_vec_free(&s->heap);
  rc_vec_free(&s->touched);
  rc_vec_free(&s->pending);
  memset(s, 0, sizeof *s);
}

void rc_syncdep_result_free(rc_syncdep_result *r) {
  rc_vec_free(&r->joins);
  rc_vec_free(&r->diverged);
  rc_vec_free(&r->exited);
}
