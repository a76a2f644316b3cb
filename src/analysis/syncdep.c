/* Sync dependence: where the paths from one divergent branch meet (see syncdep.h and, for the
 * rules, uniformity.c). Labels, the nearest definition of a virtual variable that each successor
 * of the branch assigns differently, travel through the acyclic propagation graph (syncgraph.c)
 * in topological order; a node receiving two different labels is a join and labels itself. A
 * label is thus the nearest definition dominating a node in the graph reachable from the branch.
 *
 * What a node receiving two labels means. Its phis diverge only if threads can arrive along two
 * different incoming edges with different labels: every push remembers the edge it stands for
 * (the block it leaves; for the edges from a cycle's header, or from a collapsed cycle, to an
 * exit, the one block of the cycle with an edge to that exit, or "several"), and a node that
 * has two labels and two edges is a join. A node that received a label along a cycle-exit edge
 * (from the header of a reducible cycle around the branch: threads that go round again) and
 * has two labels is reached by threads that left the cycle in different iterations: a divergent
 * exit, even if they all came along one edge, when its phis stay uniform (threads reconverge at
 * the exit: a loop that follows keeps its uniform counter). Either way it labels itself.
 *
 * Fresh nodes (labelled, not yet processed) wait in a set ordered by topological index (a tree
 * of bit words: the least index in a few word operations, as a heap's sifting did not). The set
 * also counts how many of its nodes carry each label (lcount, ndistinct) and how many are
 * collapsed cycles entered divergently (nblocking): once every fresh node carries the same label
 * and none makes new labels, every later push carries that label and nothing more can join,
 * except at sinks. Sinks (nodes without edges, which have nothing to pass on) stay out of the
 * set; a join at a sink is seen when its second label arrives, and sinks that could still
 * become joins wait in `pending` (see settled()). LLVM stops at a single fresh node instead,
 * which a kernel's shared exit block keeps from happening until the very end.
 *
 * Sharing between branches. Alone, each branch costs the region its labels cover before they
 * agree, and on kernels with many divergent branches whose labels reach far (jumps out of loops,
 * many exits) those regions overlap: the same joins are found again and again, quadratic in all.
 * But a branch need not look where an earlier branch has looked already. Let branch A reach
 * branch B, and c be A's label at B. Then
 *   (1) a node Y that B labels twice is labelled twice by A, or has label c under A:
 *       otherwise A's label c' at Y is a definition that dominates Y but not B (B has label c),
 *       so it lies on every path from B to Y, and B's labels all reach Y through c': just one.
 *       The edges along which B labels Y, A labels too: a join of B there is one of A;
 *   (2) nothing reachable from a node labelled otherwise under A is labelled c: along a path,
 *       labels only change to new definitions, which come after B, and c comes before B.
 * So B's propagation may drop every push into a node that A labelled otherwise: the joins and
 * the cycles entered divergently there and behind it are A's, found already. Divergent exits
 * too, of the cycles around both (where B would find one, A labels the exit twice and pushes
 * into it from the same header); but an exit of a cycle around B that A lies outside of is
 * kept, though not propagated further (REGION_EXIT): what A saw there was a plain join. Every
 * node remembers the first branch that labelled it and that label (its stamp), and B compares
 * with each branch it has a reference for (find_refs): the stamp of its own node and, lifted
 * through every reducible cycle around B whose header was labelled from outside it, the
 * header's stamp (a label reaching the header from outside is the label of the whole body,
 * which it enters only there). Branches are processed in reverse post-order (uniformity.c), so
 * that the labels of outer and earlier branches are there when inner and later ones need them.
 * A branch stamps only the nodes whose labels are certainly those a propagation on its own
 * would give: the nodes inside the region of every reference it has (inside the cycle the
 * reference lies outside of, or stamped by the reference with its label at the branch). A node
 * keeps two stamps: the first branch's, and the last later branch's that is certain there. The
 * second is what the branches of one loop share: the first branch outside the loop leaves its
 * stamp on everything behind the loop, and without the second the branches inside could not
 * confine each other there (issue 31, the reducible shape of bench_scaling at 10^5 blocks: 3,500
 * branches walked about 10,000 nodes each; with it 1,700 still do, docs/reconverge.md "Scaling"). The property tests compare
 * with propagation on its own (prune == false).
 *
 * Chains of branches. lowerswitch makes a divergent switch a chain `br x == c1, T1, L2`,
 * `L2: br x == c2, T2, L3`, ..., and every link's labels reach as far as the switch's: the sharing
 * above prunes little of it (the first link labels everything behind L2 with L2, which is the label
 * L2's own propagation starts from), so a switch of n cases walked its region n times. A block
 * L reached only from branch P, in the same cycles, is in the region P controls, and the joins
 * of P and of L together are those of one multi-way branch P' whose successors are P's and L's
 * (L removed): a node reached by disjoint paths from two successors of P' is reached so from two
 * of L (a join of L) or from L and another successor of P (a join of P, the path through L
 * starting at P); the converse the same way. Divergent exits likewise: P and L lie in the same
 * cycles, and a node with two labels under P or L has two under P', whose labels only split
 * theirs. This is LLVM's bound (one propagation per multi-way branch, as SyncDependenceAnalysis
 * handles a switch). So a batch propagates once from the first link of each chain of its branches,
 * pushing the successors of all its links; a successor reached from two links is reached along
 * two edges with two labels, as P's propagation saw it (absorbed()). */
#include "syncdep.h"

#include <stdlib.h>
#include <string.h>

/* flags per node */
enum {
  NODE_LABELS = 1,     /* received two different labels (labels itself) */
  NODE_EDGES = 2,      /* received labels along two different edges */
  NODE_JOIN = 4,       /* both: recorded as a join (a collapsed cycle: entered divergently) */
  NODE_EXIT_PUSH = 8,  /* received a label along a cycle-exit edge of a cycle around the branch */
  NODE_DIV_EXIT = 16,  /* recorded as a divergent exit */
  NODE_OUTSIDE = 32,   /* outside a reference's region, kept only to see divergent exits */
  NODE_POPPED = 64,    /* processed */
  NODE_VIA_EXIT = 128, /* its first label came along an edge from a cycle's header to an exit */
};

/* the edge of a push, when it is not one block's: several edges, or one not seen before */
enum { EDGE_SEVERAL = RC_NONE, EDGE_OTHER = RC_NONE - 1 };

/* A branch that reached the current one, its label there, and the outermost cycle around the
 * current branch that does not contain it (RC_NONE if none): the exits of that cycle can be
 * divergent exits of the current branch that the reference saw as plain joins. */
typedef struct region_ref {
  uint32_t branch, label, cycle;
} region_ref;

enum { MAX_REFS = 8 };

typedef struct branch_ctx {
  uint32_t block;       /* the divergent branch */
  uint32_t last_header; /* greatest topological index of a reducible header around it, or RC_NONE */
  rc_syncdep_result *r; /* joins and diverged cycles go here directly */
  rc_u32vec div_exits;  /* exit blocks reached in different iterations */
  rc_u32vec *chain;     /* the reducible cycles around the branch, innermost first */
  region_ref ref[MAX_REFS];
  uint32_t nrefs;
} branch_ctx;

/* ---- the set of fresh nodes ---------------------------------------------------------------------- */

static void count_label(rc_syncdep *s, uint32_t label, int delta) {
  if (delta > 0 && s->lcount[label]++ == 0) s->ndistinct++;
  if (delta < 0 && --s->lcount[label] == 0) s->ndistinct--;
}

static bool blocking(const rc_syncdep *s, uint32_t x) { return s->sg.collapsed[x] && s->entered_div[x]; }

/* The fresh set's levels: level l has one bit per word of level l - 1, the top level one word
 * (six levels of 64 hold 2^36 indices, more than a block id can number). */
static void fresh_init(rc_syncdep *s, uint32_t n) {
  uint64_t words = n ? ((uint64_t)n + 63) / 64 : 1;
  s->fresh_levels = 0;
  for (;;) {
    s->fresh_bits[s->fresh_levels++] = rc_xcalloc(words, sizeof(uint64_t));
    if (words == 1) break;
    words = (words + 63) / 64;
  }
}

static void fresh_free(rc_syncdep *s) {
  for (uint32_t l = 0; l < s->fresh_levels; l++) free(s->fresh_bits[l]);
}

static void fresh_insert(rc_syncdep *s, uint32_t t) {
  for (uint32_t l = 0; l < s->fresh_levels; l++, t >>= 6) {
    uint64_t *w = &s->fresh_bits[l][t >> 6], was = *w;
    *w = was | (uint64_t)1 << (t & 63);
    if (was) break; /* the levels above know this word already */
  }
}

static void fresh_erase(rc_syncdep *s, uint32_t t) {
  for (uint32_t l = 0; l < s->fresh_levels; l++, t >>= 6) {
    uint64_t *w = &s->fresh_bits[l][t >> 6];
    *w &= ~((uint64_t)1 << (t & 63));
    if (*w) break; /* still non-empty: the levels above stay */
  }
}

/* the least index in the set (which is not empty) */
static uint32_t fresh_min(const rc_syncdep *s) {
  uint32_t t = 0;
  for (uint32_t l = s->fresh_levels; l-- > 0;) t = t * 64 + (uint32_t)__builtin_ctzll(s->fresh_bits[l][t]);
  return t;
}

static void fresh_push(rc_syncdep *s, uint32_t x) {
  s->in_fresh[x] = 1;
  count_label(s, s->label[x], +1);
  s->nblocking += blocking(s, x);
  fresh_insert(s, s->sg.topo[x]);
  s->nfresh++;
}

/* the fresh node of the least topological index */
static uint32_t fresh_top(const rc_syncdep *s) { return s->by_topo[fresh_min(s)]; }

static uint32_t fresh_pop(rc_syncdep *s) {
  uint32_t t = fresh_min(s), top = s->by_topo[t];
  fresh_erase(s, t);
  s->nfresh--;
  s->in_fresh[top] = 0;
  count_label(s, s->label[top], -1);
  s->nblocking -= blocking(s, top);
  return top;
}

static void set_label(rc_syncdep *s, uint32_t x, uint32_t label) {
  if (s->in_fresh[x]) count_label(s, s->label[x], -1), count_label(s, label, +1);
  s->label[x] = label;
}

static void set_entered_div(rc_syncdep *s, uint32_t x) {
  if (s->in_fresh[x] && !blocking(s, x)) s->nblocking++;
  s->entered_div[x] = 1;
}

static bool is_sink(const rc_syncdep *s, uint32_t x) {
  return !s->sg.collapsed[x] && s->sg.start[x] == s->sg.start[x + 1];
}

/* ---- regions left by earlier branches ------------------------------------------------------------ */

static bool is_exit_of(const rc_cycle *cy, uint32_t b) {
  uint32_t lo = 0, hi = cy->nexits; /* exits are sorted by id */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (cy->exits[mid] < b) lo = mid + 1;
    else hi = mid;
  }
  return lo < cy->nexits && cy->exits[lo] == b;
}

static void add_ref(const rc_syncdep *s, branch_ctx *bc, uint32_t branch, uint32_t label) {
  if (bc->nrefs == MAX_REFS) return;
  for (uint32_t i = 0; i < bc->nrefs; i++)
    if (bc->ref[i].branch == branch) return;
  uint32_t cycle = RC_NONE; /* the cycles around the branch that lack the reference: a prefix */
  for (uint32_t i = 0; i < bc->chain->len && !rc_cycle_contains(s->ci, bc->chain->data[i], branch); i++)
    cycle = bc->chain->data[i];
  bc->ref[bc->nrefs++] = (region_ref){branch, label, cycle};
}

/* The label branch `branch` gave node x, if a stamp of x says (else RC_NONE). */
static uint32_t stamped_label(const rc_syncdep *s, uint32_t x, uint32_t branch) {
  if (s->stamp_branch[x] == branch) return s->stamp_label[x];
  if (s->last_branch[x] == branch) return s->last_label[x];
  return RC_NONE;
}

/* The references of branch B (node bn), see "Sharing between branches". */
static void find_refs(const rc_syncdep *s, branch_ctx *bc, uint32_t bn) {
  /* the node's own stamps; at the header of a reducible cycle, the label a branch inside the cycle
   * brought back along the back edges is not one that reached the branch */
  uint32_t c = s->sg.node_cycle[bn];
  const uint32_t *branch[2] = {s->stamp_branch, s->last_branch}, *label[2] = {s->stamp_label, s->last_label};
  for (int l = 0; l < 2; l++) {
    uint32_t sb = branch[l][bn];
    if (sb != RC_NONE && (s->sg.collapsed[bn] || c == RC_NONE || !rc_cycle_contains(s->ci, c, sb)))
      add_ref(s, bc, sb, label[l][bn]);
  }
  for (uint32_t i = 0; i < bc->chain->len; i++) {
    uint32_t cy = bc->chain->data[i], h = s->ci->cycles[cy].header;
    for (int l = 0; l < 2; l++) {
      uint32_t sb = branch[l][h];
      if (sb != RC_NONE && !rc_cycle_contains(s->ci, cy, sb)) add_ref(s, bc, sb, label[l][h]);
    }
  }
}

enum { REGION_IN, REGION_OUT, REGION_EXIT };

/* Where is block `to` (node x) for the current branch: in every reference's region, outside one
 * (the push may be dropped), or outside one but an exit of the cycles around the branch that the
 * reference lies outside of (kept to see divergent exits, not propagated further). */
static int region_of(const rc_syncdep *s, const branch_ctx *bc, uint32_t to, uint32_t x) {
  if (s->stamp_branch[x] == RC_NONE) return REGION_IN;
  for (uint32_t i = 0; i < bc->nrefs; i++) {
    const region_ref *r = &bc->ref[i];
    uint32_t label = stamped_label(s, x, r->branch);
    if (label == RC_NONE || label == r->label) continue;
    return r->cycle != RC_NONE && is_exit_of(&s->ci->cycles[r->cycle], to) ? REGION_EXIT : REGION_OUT;
  }
  return REGION_IN;
}

/* Is node x in the region of every reference? (Then its label is the one a propagation on its
 * own gives, and later branches may compare with it.) Inside a cycle around the branch that a
 * reference lies outside of, every node has the reference's label at the cycle's header. */
static bool certainly_inside(const rc_syncdep *s, const branch_ctx *bc, uint32_t x) {
  for (uint32_t i = 0; i < bc->nrefs; i++) {
    const region_ref *r = &bc->ref[i];
    if (r->cycle != RC_NONE && rc_cycle_contains(s->ci, r->cycle, x)) continue;
    if (stamped_label(s, x, r->branch) != r->label) return false;
  }
  return true;
}

/* ---- propagation ------------------------------------------------------------------------------------- */

/* how a label travels: along an edge of the graph; from the header of a reducible cycle around
 * the branch to the cycle's exits; or as a new definition */
enum { EDGE_NORMAL, EDGE_CYCLE_EXIT, EDGE_NEW_DEF };

static void record_div_exit(rc_syncdep *s, branch_ctx *bc, uint32_t x) {
  if (s->flags[x] & NODE_DIV_EXIT) return;
  s->flags[x] |= NODE_DIV_EXIT;
  rc_vec_push(&bc->div_exits, x);
}

/* Node x has two different labels: it defines its own from here on (a collapsed cycle: it was
 * entered divergently). */
static void two_labels(rc_syncdep *s, uint32_t x) {
  if (s->flags[x] & NODE_LABELS) return;
  s->flags[x] |= NODE_LABELS;
  set_label(s, x, x);
  if (s->sg.collapsed[x]) set_entered_div(s, x);
}

/* Record what node x became (see "What a node receiving two labels means"). */
static void note_node(rc_syncdep *s, branch_ctx *bc, uint32_t x) {
  uint8_t f = s->flags[x];
  if ((f & (NODE_LABELS | NODE_EDGES | NODE_JOIN)) == (NODE_LABELS | NODE_EDGES)) {
    s->flags[x] |= NODE_JOIN;
    if (!s->sg.collapsed[x]) rc_vec_push(&bc->r->joins, x);
  }
  if ((f & (NODE_LABELS | NODE_EXIT_PUSH)) == (NODE_LABELS | NODE_EXIT_PUSH)) record_div_exit(s, bc, x);
}

/* Push `label` into the node of block `to` along the edge `edge` (the block it leaves, or
 * EDGE_SEVERAL / EDGE_OTHER); `summary`: an edge from a cycle's header or a collapsed cycle.
 * Labels are block ids: a branch's successors label themselves (so two entries of one collapsed
 * cycle carry different labels), a node with two labels labels itself. EDGE_NEW_DEF pushes a
 * definition that exists nowhere else yet (the exits of a divergent irreducible cycle), which
 * differs from any label already there. */
static void push_label(rc_syncdep *s, branch_ctx *bc, uint32_t to, uint32_t label, int kind,
                       uint32_t edge, bool summary) {
  uint32_t x = s->sg.node[to];
  int where = s->prune ? region_of(s, bc, to, x) : REGION_IN;
  if (where == REGION_OUT) return;
  uint32_t old = s->label[x];
  if (old == RC_NONE) { /* first label: the node is fresh */
    rc_vec_push(&s->touched, x);
    s->label[x] = label;
    s->edge[x] = edge;
    s->flags[x] |= (edge == EDGE_SEVERAL ? NODE_EDGES : 0) | (summary ? NODE_VIA_EXIT : 0) |
                   (where == REGION_EXIT ? NODE_OUTSIDE : 0);
    if (where == REGION_EXIT || is_sink(s, x)) rc_vec_push(&s->pending, x);
    else fresh_push(s, x);
  } else if (edge != s->edge[x] || edge == EDGE_SEVERAL) {
    s->flags[x] |= NODE_EDGES;
  }
  if (kind == EDGE_CYCLE_EXIT) s->flags[x] |= NODE_EXIT_PUSH;
  if (old != RC_NONE && (old != label || kind == EDGE_NEW_DEF)) two_labels(s, x);
  note_node(s, bc, x);
}

/* May propagation stop? When every fresh node carries the same label L (and none is a cycle
 * entered divergently, which makes new labels), every later push carries L: nothing changes
 * except at pending nodes (sinks, and exits kept outside a region) labelled otherwise that L
 * still reaches. A pending node that lies before the first fresh node in topological order can
 * receive nothing more. Once no header of a cycle around the branch is left to process, every
 * later push is an ordinary one: a pending join gains nothing more, and a pending node that
 * post-dominates the first fresh node will receive L, along an edge it has not seen yet (its
 * labels came from processed nodes, which push no more), so it is decided now -- unless its only
 * edge so far stood for a block of a cycle still to be processed, which may push along it. Any
 * other keeps the propagation going. */
static bool settled(rc_syncdep *s, branch_ctx *bc) {
  if (!s->nfresh) return true;
  if (s->ndistinct != 1 || s->nblocking) return false;
  uint32_t top = fresh_top(s), L = s->label[top], keep = 0;
  /* could a header of a reducible cycle around the branch still be processed? Its pushes make
   * divergent exits */
  bool open = bc->last_header != RC_NONE && bc->last_header >= s->sg.topo[top], done = true;
  for (uint32_t i = 0; i < s->pending.len; i++) {
    uint32_t z = s->pending.data[i], f = s->flags[z], e = s->edge[z];
    if (s->label[z] == L || s->sg.topo[z] < s->sg.topo[top]) continue;
    if (!open && (f & NODE_JOIN)) continue;
    bool undecided = (f & (NODE_EDGES | NODE_VIA_EXIT)) == NODE_VIA_EXIT && e < s->sg.n &&
                     s->sg.node[e] == e && !(s->flags[e] & NODE_POPPED);
    if (!open && !undecided && rc_dominates(s->pdom, z, top)) {
      push_label(s, bc, z, L, EDGE_NORMAL, EDGE_OTHER, false);
      continue;
    }
    s->pending.data[keep++] = z;
    done = false;
  }
  s->pending.len = keep;
  return done;
}

/* An irreducible cycle entered divergently or holding a divergent branch: all its values are
 * divergent, and its exits each start a label of their own. An exit entered from two blocks of
 * the cycle joins threads that left it apart. */
static void diverge_cluster(rc_syncdep *s, branch_ctx *bc, uint32_t c) {
  if (!s->cluster_done[c]) {
    s->cluster_done[c] = 1;
    rc_vec_push(&bc->r->diverged, c);
  }
  uint32_t k = s->ci->cycles[c].header; /* the cycle's node */
  for (uint32_t e = s->sg.start[k]; e < s->sg.start[k + 1]; e++) {
    uint32_t X = s->sg.to[e], x = s->sg.node[X];
    push_label(s, bc, X, X, EDGE_NEW_DEF, s->sg.via[e], true);
    if (s->sg.via[e] == EDGE_SEVERAL && s->label[x] != RC_NONE) { /* (unless a region dropped it) */
      two_labels(s, x);
      note_node(s, bc, x);
    }
  }
}

/* The reducible cycles around B (all of them, or those around the collapsed cycle holding B):
 * their headers pass labels on to the exits as cycle exits. */
static void branch_setup(rc_syncdep *s, branch_ctx *bc, uint32_t B) {
  uint32_t bn = s->sg.node[B];
  uint32_t c = s->sg.collapsed[bn] ? s->ci->cycles[s->sg.node_cycle[bn]].parent : s->ci->innermost[B];
  for (; c != RC_NONE; c = s->ci->cycles[c].parent) {
    rc_vec_push(bc->chain, c);
    uint32_t t = s->sg.topo[s->ci->cycles[c].header];
    if (bc->last_header == RC_NONE || t > bc->last_header) bc->last_header = t;
  }
  if (s->prune) find_refs(s, bc, bn);
}

/* For each divergent exit, the outermost cycle around B that does not contain it: the cycles
 * around B form a chain, and containing the exit is monotone along it (binary search). */
static void exited_cycles(const rc_syncdep *s, const branch_ctx *bc, rc_syncdep_result *r) {
  if (!bc->div_exits.len) return;
  rc_u32vec chain = {0};
  for (uint32_t c = s->ci->innermost[bc->block]; c != RC_NONE; c = s->ci->cycles[c].parent) rc_vec_push(&chain, c);
  for (uint32_t i = 0; i < bc->div_exits.len; i++) {
    uint32_t X = bc->div_exits.data[i], lo = 0, hi = chain.len; /* first cycle containing X */
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (rc_cycle_contains(s->ci, chain.data[mid], X)) hi = mid;
      else lo = mid + 1;
    }
    if (lo > 0) rc_vec_push(&r->exited, chain.data[lo - 1]);
  }
  rc_vec_free(&chain);
}

/* Is divergent branch L (of the current batch) a link that the propagation of its predecessor
 * stands for (see "Chains of branches")? Only when pruning: the reference propagates each link. */
static bool absorbed(const rc_syncdep *s, uint32_t L) {
  const rc_cfg *g = s->g;
  if (!s->prune || g->pred_start[L + 1] - g->pred_start[L] != 1) return false;
  uint32_t P = g->preds[g->pred_start[L]];
  return P != L && s->batch_of[P] == s->batch && s->ci->innermost[P] == s->ci->innermost[L] &&
         !s->sg.collapsed[s->sg.node[P]] && !s->sg.collapsed[s->sg.node[L]];
}

/* The first labels: each successor of B, and of the links B's propagation stands for, is a label
 * of its own. A successor reached from two links (two edges) gets two labels at once. */
static void push_successors(rc_syncdep *s, branch_ctx *bc, uint32_t B) {
  const rc_cfg *g = s->g;
  s->links.len = 0;
  rc_vec_push(&s->links, B);
  while (s->links.len) {
    uint32_t from = s->links.data[--s->links.len];
    for (uint32_t e = g->succ_start[from]; e < g->succ_start[from + 1]; e++) {
      uint32_t t = g->succs[e], x = s->sg.node[t];
      if (t != from && s->batch_of[t] == s->batch && absorbed(s, t)) {
        rc_vec_push(&s->links, t);
        continue;
      }
      int kind = s->label[x] != RC_NONE && s->edge[x] != from ? EDGE_NEW_DEF : EDGE_NORMAL;
      push_label(s, bc, t, t, kind, from, false);
    }
  }
}

static void propagate_branch(rc_syncdep *s, uint32_t B, rc_syncdep_result *r) {
  s->npropagations++;
  branch_ctx bc = {.block = B, .last_header = RC_NONE, .r = r, .chain = &s->chain};
  s->chain.len = 0;
  uint32_t bn = s->sg.node[B];
  if (s->sg.collapsed[bn] && s->cluster_done[s->sg.node_cycle[bn]])
    return; /* the same propagation ran for another branch in it */
  branch_setup(s, &bc, B);
  if (s->sg.collapsed[bn]) {
    diverge_cluster(s, &bc, s->sg.node_cycle[bn]);
  } else {
    push_successors(s, &bc, B);
  }
  while (!settled(s, &bc)) {
    uint32_t x = fresh_pop(s);
    uint32_t label = s->label[x], c = s->sg.node_cycle[x];
    s->flags[x] |= NODE_POPPED;
    if (s->sg.collapsed[x] && s->entered_div[x]) {
      diverge_cluster(s, &bc, c);
    } else if (c != RC_NONE) {
      /* a cycle's exits; for a reducible cycle around B these are exits in other iterations */
      int kind = !s->sg.collapsed[x] && rc_cycle_contains(s->ci, c, B) ? EDGE_CYCLE_EXIT : EDGE_NORMAL;
      for (uint32_t e = s->sg.start[x]; e < s->sg.start[x + 1]; e++)
        push_label(s, &bc, s->sg.to[e], label, kind, s->sg.via[e], true);
    } else if (s->sg.skip[x] != RC_NONE) {
      push_label(s, &bc, s->sg.skip[x], label, EDGE_NORMAL, x, false);
    } else {
      for (uint32_t e = s->sg.start[x]; e < s->sg.start[x + 1]; e++)
        push_label(s, &bc, s->sg.to[e], label, EDGE_NORMAL, x, false);
    }
  }
  while (s->nfresh) fresh_pop(s);
  for (uint32_t i = 0; i < s->touched.len; i++) {
    uint32_t x = s->touched.data[i];
    if (s->prune && !(s->flags[x] & NODE_OUTSIDE) && certainly_inside(s, &bc, x)) {
      bool first = s->stamp_branch[x] == RC_NONE;
      (first ? s->stamp_branch : s->last_branch)[x] = B;
      (first ? s->stamp_label : s->last_label)[x] = s->label[x];
    }
    s->label[x] = RC_NONE;
    s->entered_div[x] = s->flags[x] = 0;
  }
  s->touched.len = s->pending.len = 0;
  exited_cycles(s, &bc, r);
  rc_vec_free(&bc.div_exits);
}

void rc_syncdep_batch(rc_syncdep *s, const uint32_t *branches, uint32_t n, rc_syncdep_result *r) {
  s->batch++;
  for (uint32_t i = 0; i < n; i++) s->batch_of[branches[i]] = s->batch;
  for (uint32_t i = 0; i < n; i++)
    if (!absorbed(s, branches[i])) propagate_branch(s, branches[i], r);
}

void rc_syncdep_init(rc_syncdep *s, const rc_cfg *g, const rc_domtree *dom, const rc_domtree *pdom,
                     const rc_cycle_info *ci, bool prune) {
  memset(s, 0, sizeof *s);
  uint32_t n = g->nblocks, m = ci->ncycles;
  s->g = g;
  s->pdom = pdom;
  s->ci = ci;
  s->prune = prune;
  rc_syncgraph_build(&s->sg, g, dom, ci);
  s->label = rc_xmalloc((n ? n : 1) * sizeof *s->label);
  s->edge = rc_xmalloc((n ? n : 1) * sizeof *s->edge);
  s->stamp_branch = rc_xmalloc((n ? n : 1) * sizeof *s->stamp_branch);
  s->stamp_label = rc_xmalloc((n ? n : 1) * sizeof *s->stamp_label);
  s->last_branch = rc_xmalloc((n ? n : 1) * sizeof *s->last_branch);
  s->last_label = rc_xmalloc((n ? n : 1) * sizeof *s->last_label);
  for (uint32_t b = 0; b < n; b++) s->label[b] = s->stamp_branch[b] = s->last_branch[b] = RC_NONE;
  s->entered_div = rc_xcalloc(n ? n : 1, 1);
  s->flags = rc_xcalloc(n ? n : 1, 1);
  s->in_fresh = rc_xcalloc(n ? n : 1, 1);
  fresh_init(s, n);
  s->by_topo = rc_xmalloc((n ? n : 1) * sizeof *s->by_topo);
  for (uint32_t b = 0; b < n; b++)
    if (s->sg.topo[b] != RC_NONE) s->by_topo[s->sg.topo[b]] = b;
  s->lcount = rc_xcalloc(n ? n : 1, sizeof *s->lcount);
  s->cluster_done = rc_xcalloc(m ? m : 1, 1);
  s->batch_of = rc_xcalloc(n ? n : 1, sizeof *s->batch_of);
}

void rc_syncdep_free(rc_syncdep *s) {
  rc_syncgraph_free(&s->sg);
  free(s->label);
  free(s->edge);
  free(s->stamp_branch);
  free(s->stamp_label);
  free(s->last_branch);
  free(s->last_label);
  free(s->entered_div);
  free(s->flags);
  free(s->in_fresh);
  fresh_free(s);
  free(s->by_topo);
  free(s->lcount);
  free(s->cluster_done);
  free(s->batch_of);
  rc_vec_free(&s->links);
  rc_vec_free(&s->touched);
  rc_vec_free(&s->pending);
  rc_vec_free(&s->chain);
  memset(s, 0, sizeof *s);
}

void rc_syncdep_result_free(rc_syncdep_result *r) {
  rc_vec_free(&r->joins);
  rc_vec_free(&r->diverged);
  rc_vec_free(&r->exited);
}
