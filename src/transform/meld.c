/* meld: DARM control-flow melding (Saumya, Sundararajah, Kulkarni, CGO 2022, section IV).
 *
 * Analysis (section IV-B/C, src/transform/meld_align.c for the alignment):
 *  - a meldable divergent region (Definition 5) is a block E ending in a divergent two-way branch
 *    `br C, T, F` whose successors do not post-dominate each other; its exit X is E's immediate
 *    post-dominator. A region is simple as a whole when its two paths T..X and F..X are disjoint,
 *    acyclic and single-entry (only E enters them). Other regions (irreducible or cyclic paths,
 *    paths entered from elsewhere, no post-dominating exit because the paths end in different
 *    returns, convergent operations such as barriers) go through region simplification (section
 *    IV-A, simplify_side): each side's simple regions, which may leave to several blocks; a region
 *    where a side has none, or nothing on the two sides is meldable, is left alone and counted in
 *    the statistics (meld_left_alone_*, by why it was not simple as a whole);
 *  - each path is a sequence of SESE subgraphs ordered by post-dominance: from p0 = T (or F), each
 *    p_{i+1} = ipdom(p_i) up to X, subgraph i being the blocks from p_i up to p_{i+1};
 *  - subgraphs of the two paths are meldable (Definition 6, cases 1 and 3) when they are
 *    isomorphic: a bijection of blocks that maps successor k to successor k and exit edges to exit
 *    edges; their profitability is MP_S (the MP_B of corresponding blocks weighted by latency);
 *  - the two sequences are aligned by Smith-Waterman with MP_S as score and a gap penalty
 *    (Definition 7); aligned pairs with MP_S >= threshold are melded.
 *
 * Code generation (section IV-D, Algorithm 2): corresponding blocks are visited in pre-order
 * (dominating definitions first); for each pair the instructions are aligned by Smith-Waterman
 * (compatible opcodes and types, scored by latency, gap penalty for unaligned ones). A melded block
 * gets, in alignment order:
 *  - for an aligned pair (I-I), one instruction whose operands are the two originals' operands where
 *    they agree and `select C, t, f` where they differ (Fig. 3b); loads and stores included, so a
 *    thread performs exactly the access it performed before (with its own address and value);
 *  - for runs of unaligned instructions (I-G), unpredication (section IV-E, Fig. 3c): the block is
 *    split, the true path's run goes to a block executed under C, the false path's run to one
 *    executed under !C, both join a tail; values they define reach their uses through phis made by
 *    SSA repair (undef from the path that does not define them), so no thread executes an
 *    instruction, memory access or fault it would not have executed;
 *  - the terminators melded with `select C` on differing branch conditions; an edge leaving the
 *    subgraph goes to a new block that branches on C to one block per path ("Melding Branch
 *    Instructions of Exit Blocks": %M and %N of Fig. 4c), so that phis after the subgraph still see
 *    which path a thread took;
 *  - phis are copied per path (section IV-D, "Melding phi Nodes"), with undef for the other path's
 *    predecessors at the subgraph's entry.
 * Post-processing (section IV-F): exit selections whose two blocks lead to the same block with the
 * same (or undef) phi values are folded, branches with two equal targets become jumps, and SSA repair
 * (src/transform/ssa_repair.c) restores dominance for the pre-processing case of Fig. 5.
 * Algorithm 1: regions are visited in post-order (inner ones first); after melding one region the
 * analyses are recomputed and the search starts again, until no profitable meld is left (or
 * max-rounds). Basic block to region melding (Fig. 2 case 2) replicates the region's structure
 * around the block first (replicate), and the next round melds the replica with the region.
 *
 * Correctness criterion (docs/meld.md): melding changes which blocks a thread runs, so it is checked
 * by effect traces (rc_run_spec.effect_traces: per thread the same stores, atomics and barriers with
 * the same addresses and values, in order) and the same final memory. */
#include "meld_internal.h"
#include "reconv/analysis.h"
#include "reconv/transform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUBGRAPH_GAP 0.05 /* Smith-Waterman gap penalty of the subgraph alignment (MP_S units) */
#define INSTR_GAP 1.0     /* ... of the instruction alignment (latency units: one extra branch) */

typedef RC_VEC(rc_block *) block_vec;
typedef RC_VEC(rc_instr *) instr_vec;

/* Why a region is left alone (statistics). */
enum { WHY_NONE, WHY_NO_EXIT, WHY_SHARED, WHY_MULTI_ENTRY, WHY_CYCLIC, WHY_UNSUPPORTED, WHY_COUNT };

typedef struct melder {
  rc_ctx *ctx;
  rc_kernel *k;
  rc_stats *stats;
  double threshold;
  bool dry;           /* the last round allowed: analyse only */
  bool simplify;      /* region simplification (section IV-A); off: nosimplify */
  block_vec no_meld;  /* blocks whose branch on C meld made (unpredication, exit selection) */
  block_vec exits;    /* exit selections meld made, for the post-processing */
  block_vec dead;     /* emptied blocks, removed at the end of a region */
  rc_value **repl;    /* per value id: the instruction an F-path instruction was melded into */
  uint32_t nrepl;
  rc_instr **uphi;    /* per value id: the phi in the tail that carries an unpredicated value */
  instr_vec phis;     /* the phis made for unpredicated values (unused ones are deleted) */
  uint32_t *pair_of;  /* per block id: index of its pair in the current meld, or RC_NONE */
  uint32_t npair_of;
  /* statistics */
  uint64_t regions, melded_regions, subgraphs, instrs, selects, runs, unprofitable, replications;
  uint64_t simplified; /* regions melded after region simplification (section IV-A) */
  uint64_t left[WHY_COUNT];
} melder;

/* A SESE subgraph of one path: entry, exit (the block after it), blocks. */
typedef struct subgraph {
  rc_block *entry, *exit; /* exit: NULL when a simplified side's last subgraph leaves to several blocks */
  uint32_t start, n; /* into the path's block list */
} subgraph;

typedef struct path {
  block_vec blocks;          /* by subgraph */
  RC_VEC(subgraph) subs;
} path;

static bool in_list(const block_vec *v, const rc_block *b) {
  for (uint32_t i = 0; i < v->len; i++)
    if (v->data[i] == b) return true;
  return false;
}

static rc_value *resolve(const melder *m, rc_value *v) {
  while (v && v->kind == RC_V_INSTR && v->id != RC_NONE && v->id < m->nrepl && m->repl[v->id]) v = m->repl[v->id];
  return v;
}

/* ---- analysis: the paths of a region ----------------------------------------------------------------- */

/* Blocks reachable from s without passing stop, marked `tag` in mark[]; false when one is already
 * marked otherwise (the paths share blocks) or is `avoid` (the region's entry). */
static bool reach(const rc_kernel *k, rc_block *s, const rc_block *stop, const rc_block *avoid, uint8_t *mark,
                  uint8_t tag, block_vec *out) {
  if (s == stop) return true;
  if (mark[s->id]) return mark[s->id] == tag;
  RC_VEC(rc_block *) stack = {0};
  mark[s->id] = tag;
  rc_vec_push(&stack, s);
  bool ok = true;
  while (stack.len && ok) {
    rc_block *b = stack.data[--stack.len];
    rc_vec_push(out, b);
    for (uint32_t i = 0, n = rc_block_nsuccs(b); i < n && ok; i++) {
      rc_block *c = rc_block_succ(b, i);
      if (c == stop) continue;
      if (c == avoid || (mark[c->id] && mark[c->id] != tag)) ok = false;
      else if (!mark[c->id]) {
        mark[c->id] = tag;
        rc_vec_push(&stack, c);
      }
    }
  }
  rc_vec_free(&stack);
  (void)k;
  return ok;
}

/* Can the blocks of one path be melded at all: only E enters the path, every other block is entered
 * from the path only, no cycle, two-way branches and jumps only, nothing convergent or placed
 * (allocas, localmem: their addresses follow block order). */
static int check_path(const rc_kernel *k, const rc_block *e, rc_block *first, const block_vec *bl, const uint8_t *mark,
                      uint8_t tag) {
  for (uint32_t p = 0; p < first->npreds; p++)
    if (first->preds[p] != e) return mark[first->preds[p]->id] == tag ? WHY_CYCLIC : WHY_MULTI_ENTRY;
  uint32_t *indeg = rc_xcalloc(k->nblocks, sizeof *indeg);
  int why = WHY_NONE;
  for (uint32_t i = 0; i < bl->len && !why; i++) {
    rc_block *b = bl->data[i];
    if (b != first) {
      for (uint32_t p = 0; p < b->npreds; p++) {
        if (mark[b->preds[p]->id] != tag) why = WHY_MULTI_ENTRY;
        else indeg[b->id]++;
      }
    }
    rc_instr *t = rc_block_term(b);
    if (!t || (t->op != RC_OP_BR && t->op != RC_OP_JMP)) why = WHY_UNSUPPORTED;
    else if (t->op == RC_OP_BR && t->targets[0] == t->targets[1]) why = WHY_UNSUPPORTED;
    for (rc_instr *x = b->first; x && !why; x = x->next)
      if (x->op == RC_OP_ALLOCA || x->op == RC_OP_LOCALMEM || x->op == RC_OP_CALLFN || x->op == RC_OP_OPAQUE ||
          (x->op == RC_OP_CALL && (x->pred == RC_BI_BARRIER || x->pred == RC_BI_READFIRSTLANE ||
                                   rc_builtin_get((rc_builtin)x->pred)->sig == RC_SIG_VOID0)))
        why = WHY_UNSUPPORTED;
  }
  if (!why) { /* acyclic: Kahn's algorithm over the path */
    RC_VEC(rc_block *) ready = {0};
    rc_vec_push(&ready, first);
    uint32_t seen = 0;
    while (ready.len) {
      rc_block *b = ready.data[--ready.len];
      seen++;
      for (uint32_t i = 0, n = rc_block_nsuccs(b); i < n; i++) {
        rc_block *c = rc_block_succ(b, i);
        if (mark[c->id] == tag && c != first && --indeg[c->id] == 0) rc_vec_push(&ready, c);
        else if (c == first) why = WHY_CYCLIC;
      }
    }
    if (seen != bl->len) why = WHY_CYCLIC;
    rc_vec_free(&ready);
  }
  free(indeg);
  return why;
}

/* Split the path starting at `first` into its chain of SESE subgraphs up to x (section IV-C: ordered
 * by post-dominance of their entries and exits). */
static void split_path(const rc_kernel *k, const rc_domtree *pdom, rc_block *first, rc_block *x, path *p) {
  uint8_t *mark = rc_xcalloc(k->nblocks, 1);
  rc_block *b = first;
  while (b != x) {
    uint32_t nx = pdom->idom[b->id];
    rc_block *next = nx < k->nblocks ? k->blocks[nx] : x;
    subgraph s = {b, next, p->blocks.len, 0};
    reach(k, b, next, NULL, mark, 1, &p->blocks);
    s.n = p->blocks.len - s.start;
    rc_vec_push(&p->subs, s);
    b = next;
  }
  free(mark);
}

/* ---- region simplification (section IV-A, Definitions 1-4) ------------------------------------------- */

/* Is instruction x something meld never moves (convergent or placed: Definition 6's note on
 * warp-level intrinsics; allocas and localmem, whose addresses follow block order)? */
static bool unmeldable(const rc_instr *x) {
  return x->op == RC_OP_ALLOCA || x->op == RC_OP_LOCALMEM || x->op == RC_OP_CALLFN || x->op == RC_OP_OPAQUE ||
         (x->op == RC_OP_CALL && (x->pred == RC_BI_BARRIER || x->pred == RC_BI_READFIRSTLANE ||
                                  rc_builtin_get((rc_builtin)x->pred)->sig == RC_SIG_VOID0));
}

/* Can block x be part of a simplified side: a two-way branch (to two blocks) or a jump, nothing
 * unmeldable, and not a block that only routes (!virtual: meld's own exit selections, which would
 * otherwise meld with each other for ever, round after round, for the branches they hold). */
static bool meldable_block(const rc_block *x) {
  const rc_instr *t = rc_block_term(x);
  if (x->bflags & RC_BLOCK_VIRTUAL) return false;
  if (!t || (t->op != RC_OP_BR && t->op != RC_OP_JMP) || (t->op == RC_OP_BR && t->targets[0] == t->targets[1]))
    return false;
  for (const rc_instr *i = x->first; i; i = i->next)
    if (unmeldable(i)) return false;
  return true;
}

/* One SESE subgraph of a side, from b up to its immediate post-dominator next (Definition 3), if it
 * is simple: b entered only from `from` (E for the side's first block; else the side's subgraphs so
 * far, marked `tag`), every other block only from inside, no cycle, two-way branches and jumps
 * only, nothing unmeldable. Its blocks are appended to *out and marked `tag`; false (and nothing
 * marked) when it is not simple. */
static bool simple_subgraph(const rc_kernel *k, const rc_block *e, rc_block *b, const rc_block *next, uint8_t *mark,
                            uint8_t tag, block_vec *out) {
  const uint8_t tmp = 3;
  uint32_t start = out->len;
  bool ok = mark[b->id] == 0 && b != e;
  if (ok) {
    mark[b->id] = tmp;
    rc_vec_push(out, b);
  }
  for (uint32_t q = start; q < out->len && ok; q++) { /* the blocks from b up to next */
    rc_block *x = out->data[q];
    rc_instr *t = rc_block_term(x);
    ok = meldable_block(x);
    for (uint32_t s = 0; ok && s < t->ntargets; s++) {
      rc_block *c = t->targets[s];
      if (c == next) continue;
      if (c == e || (mark[c->id] && mark[c->id] != tmp)) ok = false; /* E, the other side, or back to this side */
      else if (!mark[c->id]) {
        mark[c->id] = tmp;
        rc_vec_push(out, c);
      }
    }
  }
  uint32_t n = out->len - start;
  /* single entry: b from E or from this side's earlier subgraphs, the others from inside */
  for (uint32_t q = start; q < out->len && ok; q++) {
    rc_block *x = out->data[q];
    for (uint32_t p = 0; p < x->npreds && ok; p++) {
      uint8_t pm = mark[x->preds[p]->id];
      ok = x == b ? (x->preds[p] == e ? start == 0 : pm == tag && start > 0) : pm == tmp;
    }
  }
  if (ok) { /* acyclic: Kahn's algorithm over the subgraph */
    uint32_t *indeg = rc_xcalloc(k->nblocks, sizeof *indeg);
    for (uint32_t q = start; q < out->len; q++)
      if (out->data[q] != b) indeg[out->data[q]->id] = out->data[q]->npreds;
    block_vec ready = {0};
    rc_vec_push(&ready, b);
    uint32_t seen = 0;
    while (ready.len) {
      rc_block *x = ready.data[--ready.len];
      seen++;
      for (uint32_t s = 0, ns = rc_block_nsuccs(x); s < ns; s++) {
        rc_block *c = rc_block_succ(x, s);
        if (c != next && c != b && mark[c->id] == tmp && --indeg[c->id] == 0) rc_vec_push(&ready, c);
      }
    }
    ok = seen == n;
    rc_vec_free(&ready);
    free(indeg);
  }
  for (uint32_t q = start; q < out->len; q++) mark[out->data[q]->id] = ok ? tag : 0;
  if (!ok) out->len = start;
  return ok;
}

/* The last subgraph of a simplified side: from b, every block that only the side enters (all its
 * predecessors already in the subgraph; b itself entered from `e` for the side's first block, else
 * from the side's subgraphs so far, marked `tag`) and that meldable_block accepts. Added in
 * topological order, so it has no cycle. Its exit edges may lead to several blocks: the subgraph's
 * exit is the one block they lead to, or NULL. Appended to *out and marked `tag`; false when b
 * itself cannot start it. */
static bool exclusive_subgraph(const rc_kernel *k, const rc_block *e, rc_block *b, uint8_t *mark, uint8_t tag,
                               block_vec *out, rc_block **exit) {
  const uint8_t tmp = 3;
  uint32_t start = out->len;
  *exit = NULL;
  if (mark[b->id] || b == e || !meldable_block(b)) return false;
  for (uint32_t p = 0; p < b->npreds; p++)
    if (b->preds[p] == e ? start != 0 : mark[b->preds[p]->id] != tag || start == 0) return false;
  uint32_t *inside = rc_xcalloc(k->nblocks, sizeof *inside); /* per block: its predecessors in the subgraph */
  mark[b->id] = tmp;
  rc_vec_push(out, b);
  for (uint32_t q = start; q < out->len; q++) {
    rc_block *x = out->data[q];
    for (uint32_t s = 0, ns = rc_block_nsuccs(x); s < ns; s++) {
      rc_block *c = rc_block_succ(x, s);
      if (c == e || mark[c->id]) continue;
      if (++inside[c->id] == c->npreds && meldable_block(c)) {
        mark[c->id] = tmp;
        rc_vec_push(out, c);
      }
    }
  }
  bool one = true; /* the blocks its exit edges lead to */
  for (uint32_t q = start; q < out->len; q++)
    for (uint32_t s = 0, ns = rc_block_nsuccs(out->data[q]); s < ns; s++) {
      rc_block *c = rc_block_succ(out->data[q], s);
      if (mark[c->id] == tmp) continue;
      if (*exit && *exit != c) one = false;
      *exit = c;
    }
  if (!one) *exit = NULL;
  for (uint32_t q = start; q < out->len; q++) mark[out->data[q]->id] = tag;
  free(inside);
  return true;
}

/* Region simplification (section IV-A): a divergent region that is not simple as a whole (its two
 * paths share blocks, one is entered from elsewhere or holds a loop, or they end in different
 * returns) still holds simple regions on each side. From p0 = the side's first block, which only E
 * enters, p(i+1) = ipdom(p(i)): each SESE subgraph from p(i) up to p(i+1) that is simple
 * (simple_subgraph) joins the side; where the next is not (p(i+1) is the virtual exit, or the
 * subgraph is entered from elsewhere or holds a loop), the blocks from p(i) on that only the side
 * enters are its last subgraph (exclusive_subgraph), whose edges may leave to several blocks. Every
 * thread that runs E runs exactly one of the two sides (their blocks are dominated by their first
 * blocks, which only E enters), as section IV-C's melding of subgraphs L and M (Fig. 2) assumes.
 * No block is inserted for a region that does not meld: the simple region's new exit block per
 * side (X_new of Definition 3's note) is made when a pair melds: each exit edge of the melded
 * subgraph goes to an exit selection (%M, %N of Fig. 4c) branching on C to one new block per side,
 * which leads to the side's own successor. */
static void simplify_side(const rc_kernel *k, const rc_domtree *pdom, const rc_block *e, rc_block *first,
                          uint8_t *mark, uint8_t tag, path *p) {
  rc_block *b = first;
  for (;;) {
    uint32_t nx = pdom->idom[b->id];
    rc_block *next = nx < k->nblocks ? k->blocks[nx] : NULL;
    subgraph s = {b, next, p->blocks.len, 0};
    if (next && simple_subgraph(k, e, b, next, mark, tag, &p->blocks)) {
      s.n = p->blocks.len - s.start;
      rc_vec_push(&p->subs, s);
      b = next;
      continue;
    }
    if (exclusive_subgraph(k, e, b, mark, tag, &p->blocks, &s.exit)) {
      s.n = p->blocks.len - s.start;
      rc_vec_push(&p->subs, s);
    }
    break;
  }
}

/* Definition 6 (cases 1 and 3): are the subgraphs isomorphic? The corresponding blocks go to ta/tb
 * in pre-order (a block after every block that dominates it). */
static bool isomorphic(const rc_kernel *k, const path *pa, const subgraph *a, const path *pb, const subgraph *b,
                       block_vec *ta, block_vec *tb) {
  ta->len = tb->len = 0;
  if (a->n != b->n) return false;
  uint32_t *map = rc_xmalloc(k->nblocks * sizeof *map);
  for (uint32_t i = 0; i < k->nblocks; i++) map[i] = RC_NONE;
  uint8_t *inb = rc_xcalloc(k->nblocks, 1), *ina = rc_xcalloc(k->nblocks, 1);
  for (uint32_t i = 0; i < b->n; i++) inb[pb->blocks.data[b->start + i]->id] = 1;
  for (uint32_t i = 0; i < a->n; i++) ina[pa->blocks.data[a->start + i]->id] = 1;
  bool ok = true;
  map[a->entry->id] = b->entry->id;
  inb[b->entry->id] = 2; /* mapped */
  rc_vec_push(ta, a->entry);
  rc_vec_push(tb, b->entry);
  for (uint32_t q = 0; q < ta->len && ok; q++) {
    rc_block *x = ta->data[q], *y = tb->data[q];
    rc_instr *tx = rc_block_term(x), *ty = rc_block_term(y);
    if (!tx || !ty || tx->op != ty->op || tx->ntargets != ty->ntargets) {
      ok = false;
      break;
    }
    for (uint32_t s = 0; s < tx->ntargets && ok; s++) {
      rc_block *sx = tx->targets[s], *sy = ty->targets[s];
      bool ex = !ina[sx->id], ey = !inb[sy->id]; /* exit edges (to the exit, or to one of a simplified side's) */
      if (ex || ey) {
        ok = ex && ey;
        continue;
      }
      if (map[sx->id] != RC_NONE) ok = map[sx->id] == sy->id;
      else if (inb[sy->id] != 1) ok = false; /* outside b, or already the image of another block */
      else {
        map[sx->id] = sy->id;
        inb[sy->id] = 2;
        rc_vec_push(ta, sx);
        rc_vec_push(tb, sy);
      }
    }
  }
  ok = ok && ta->len == a->n;
  free(map);
  free(inb);
  free(ina);
  return ok;
}

/* MP_S (section IV-C) of corresponding blocks. */
static double subgraph_profit(const block_vec *ta, const block_vec *tb) {
  double common = 0, lat = 0;
  for (uint32_t i = 0; i < ta->len; i++) {
    double l;
    double p = rc_meld_block_profit(ta->data[i], tb->data[i], &l);
    common += p * l;
    lat += l;
  }
  return lat > 0 ? common / lat : 0;
}

/* ---- code generation ----------------------------------------------------------------------------------- */

static const char *pair_name(melder *m, const rc_block *a, const rc_block *b, const char *suffix) {
  char buf[256];
  if (strlen(a->name) + strlen(b->name) > 40) { /* melds of melds: a short name ("meld", "meld1", ...) */
    snprintf(buf, sizeof buf, "meld%s", suffix ? suffix : "");
    return rc_kernel_fresh_name(m->k, buf);
  }
  snprintf(buf, sizeof buf, "%s_%s%s", a->name, b->name, suffix ? suffix : "");
  return rc_arena_strdup(&m->k->mod->arena, buf);
}

static rc_block *new_block(melder *m, const char *name, uint32_t flags) {
  rc_block *b = rc_block_new(m->k, name);
  b->bflags |= flags;
  return b;
}

/* Unpredication (section IV-E, Fig. 3c): the pending unaligned runs of both paths go into blocks of
 * their own under C (true path) and !C (false path); *cur continues in a new tail block. */
static void unpredicate(melder *m, rc_value *C, rc_block **cur, const rc_block *base, uint32_t *nsplit,
                        instr_vec *runT, instr_vec *runF) {
  if (!runT->len && !runF->len) return;
  char buf[256];
  ++*nsplit;
  rc_block *pt = NULL, *pf = NULL;
  if (runT->len) {
    snprintf(buf, sizeof buf, "%s.t%u", base->name, *nsplit);
    pt = new_block(m, buf, 0);
  }
  if (runF->len) {
    snprintf(buf, sizeof buf, "%s.f%u", base->name, *nsplit);
    pf = new_block(m, buf, 0);
  }
  snprintf(buf, sizeof buf, "%s.%u", base->name, *nsplit);
  rc_block *tail = new_block(m, buf, 0);
  rc_builder bd;
  rc_builder_at_end(&bd, *cur);
  rc_build_br(&bd, C, pt ? pt : tail, pf ? pf : tail);
  rc_vec_push(&m->no_meld, *cur);
  for (int side = 0; side < 2; side++) {
    rc_block *blk = side ? pf : pt;
    instr_vec *run = side ? runF : runT;
    if (!blk) continue;
    for (uint32_t i = 0; i < run->len; i++) {
      rc_instr *x = run->data[i];
      rc_instr_detach(x);
      rc_instr_append(blk, x);
      /* Fig. 3c: a phi in the tail carries the value on, undef from the other path */
      if (x->v.type != RC_VOID && x->v.id < m->nrepl) {
        rc_instr *phi = rc_phi_new(tail, (rc_type)x->v.type, NULL);
        rc_phi_add_incoming(phi, &x->v, blk);
        rc_phi_add_incoming(phi, rc_undef(m->k, (rc_type)x->v.type), side ? (pt ? pt : *cur) : (pf ? pf : *cur));
        m->uphi[x->v.id] = phi;
        rc_vec_push(&m->phis, phi);
      }
    }
    rc_builder_at_end(&bd, blk);
    rc_build_jmp(&bd, tail);
    run->len = 0;
  }
  m->runs++;
  *cur = tail;
}

/* The instructions of a block that the alignment considers (not phis, not the terminator). */
static uint32_t block_body(rc_block *b, rc_instr ***out) {
  uint32_t n = 0;
  for (rc_instr *i = b->first; i; i = i->next)
    if (i->op != RC_OP_PHI && !rc_opcode_is_terminator((rc_opcode)i->op)) n++;
  *out = rc_xmalloc((n + 1) * sizeof **out);
  n = 0;
  for (rc_instr *i = b->first; i; i = i->next)
    if (i->op != RC_OP_PHI && !rc_opcode_is_terminator((rc_opcode)i->op)) (*out)[n++] = i;
  return n;
}

/* Meld the instructions of bt and bf into head (Algorithm 2's Clone/SetOperands, with unpredication
 * of the unaligned runs); returns the block the melded code ends in. */
static rc_block *meld_body(melder *m, rc_value *C, rc_block *bt, rc_block *bf, rc_block *head) {
  rc_instr **A, **B;
  uint32_t n = block_body(bt, &A), nb = block_body(bf, &B);
  double *score = rc_xmalloc(((size_t)n * nb + 1) * sizeof *score);
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < nb; j++)
      score[(size_t)i * nb + j] = rc_meld_compatible(A[i], B[j]) ? rc_meld_latency(A[i]) : -1;
  rc_meld_pair *al = rc_xmalloc((n + nb + 1) * sizeof *al);
  uint32_t nal = rc_meld_smith_waterman(score, n, nb, INSTR_GAP, al);
  rc_block *cur = head;
  uint32_t nsplit = 0;
  instr_vec runT = {0}, runF = {0};
  rc_builder bd;
  for (uint32_t e = 0; e < nal; e++) {
    if (al[e].a < 0 || al[e].b < 0) {
      if (al[e].a >= 0) rc_vec_push(&runT, A[al[e].a]);
      else rc_vec_push(&runF, B[al[e].b]);
      continue;
    }
    unpredicate(m, C, &cur, head, &nsplit, &runT, &runF);
    rc_instr *it = A[al[e].a], *jf = B[al[e].b];
    rc_instr_detach(it);
    rc_builder_at_end(&bd, cur);
    for (uint32_t o = 0; o < it->nops; o++) {
      rc_value *vt = resolve(m, it->ops[o]), *vf = resolve(m, jf->ops[o]);
      if (vt != vf) { /* Fig. 3b: a select on the divergent condition */
        vt = rc_build_select(&bd, C, vt, vf, NULL);
        m->selects++;
      }
      rc_instr_set_op(it, o, vt);
    }
    rc_instr_append(cur, it);
    if (jf->v.id != RC_NONE && jf->v.id < m->nrepl) m->repl[jf->v.id] = &it->v;
    rc_instr_detach(jf);
    m->instrs++;
  }
  unpredicate(m, C, &cur, head, &nsplit, &runT, &runF);
  rc_vec_free(&runT);
  rc_vec_free(&runF);
  free(A);
  free(B);
  free(score);
  free(al);
  return cur;
}

/* The exit edge of a melded block pair (section IV-D, "Melding Branch Instructions of Exit Blocks"):
 * a block branching on C to one block per path, which jump to the paths' successors, so that phis
 * there keep telling the paths apart. */
static rc_block *exit_select(melder *m, rc_value *C, rc_block *bt, rc_block *bf, rc_block *xt, rc_block *xf) {
  rc_block *sel = new_block(m, pair_name(m, bt, bf, ".exit"), RC_BLOCK_VIRTUAL);
  char buf[256];
  snprintf(buf, sizeof buf, "%s.t", sel->name);
  rc_block *nt = new_block(m, buf, RC_BLOCK_VIRTUAL);
  snprintf(buf, sizeof buf, "%s.f", sel->name);
  rc_block *nf = new_block(m, buf, RC_BLOCK_VIRTUAL);
  rc_builder bd;
  rc_builder_at_end(&bd, sel);
  rc_build_br(&bd, C, nt, nf);
  rc_builder_at_end(&bd, nt);
  rc_build_jmp(&bd, xt);
  rc_builder_at_end(&bd, nf);
  rc_build_jmp(&bd, xf);
  for (rc_instr *p = xt->first; p && p->op == RC_OP_PHI; p = p->next) {
    int i = rc_phi_index_of(p, bt);
    if (i >= 0) p->targets[i] = nt;
  }
  for (rc_instr *p = xf->first; p && p->op == RC_OP_PHI; p = p->next) {
    int i = rc_phi_index_of(p, bf);
    if (i >= 0) p->targets[i] = nf;
  }
  rc_vec_push(&m->no_meld, sel);
  rc_vec_push(&m->exits, sel);
  return sel;
}

/* Move the phis of an old block into the melded block (section IV-D, "Melding phi Nodes"): incoming
 * blocks of the subgraph become the melded blocks' tails; at the entry, the other path's
 * predecessors give undef. */
static void move_phis(melder *m, rc_block *old, rc_block *to, rc_block *const *tails, const rc_block *other_entry,
                      bool entry) {
  rc_instr *p = old->first;
  while (p && p->op == RC_OP_PHI) {
    rc_instr *next = p->next;
    rc_instr_detach(p);
    for (uint32_t i = 0; i < p->nops; i++) {
      rc_block *from = p->targets[i];
      if (from->id < m->npair_of && m->pair_of[from->id] != RC_NONE) p->targets[i] = tails[m->pair_of[from->id]];
    }
    if (entry)
      for (uint32_t q = 0; q < other_entry->npreds; q++)
        if (rc_phi_index_of(p, other_entry->preds[q]) < 0)
          rc_phi_add_incoming(p, rc_undef(m->k, (rc_type)p->v.type), other_entry->preds[q]);
    rc_instr_insert_after_phis(to, p);
    p = next;
  }
}

/* A phi whose incoming values are all one value is that value. */
static void drop_trivial_phis(melder *m, rc_block *b) {
  rc_instr *p = b->first;
  while (p && p->op == RC_OP_PHI) {
    rc_instr *next = p->next;
    bool same = p->nops > 0;
    for (uint32_t i = 1; i < p->nops && same; i++) same = resolve(m, p->ops[i]) == resolve(m, p->ops[0]);
    if (same && resolve(m, p->ops[0]) != &p->v && p->v.id < m->nrepl) {
      m->repl[p->v.id] = resolve(m, p->ops[0]);
      rc_instr_detach(p);
    }
    p = next;
  }
}

/* Retarget every edge from outside into `old` to `to`. */
static void retarget_preds(rc_block *old, rc_block *to) {
  while (old->npreds) {
    rc_block *p = old->preds[0];
    rc_instr *t = rc_block_term(p);
    bool moved = false;
    for (uint32_t i = 0; t && i < t->ntargets; i++)
      if (t->targets[i] == old) {
        rc_term_set_target(t, i, to);
        moved = true;
      }
    if (!moved) break; /* not an edge of a terminator: cannot happen in valid IR */
  }
}

/* Meld subgraph a of the true path with subgraph b of the false path (Algorithm 2). ta/tb: the
 * corresponding blocks in pre-order. */
static void meld_subgraphs(melder *m, rc_value *C, const subgraph *a, const subgraph *b, const block_vec *ta,
                           const block_vec *tb) {
  rc_kernel *k = m->k;
  uint32_t n = ta->len;
  rc_block **head = rc_xmalloc(n * sizeof *head), **tail = rc_xmalloc(n * sizeof *tail);
  for (uint32_t i = 0; i < k->nblocks && i < m->npair_of; i++) m->pair_of[i] = RC_NONE;
  for (uint32_t i = 0; i < n; i++) {
    m->pair_of[ta->data[i]->id] = i;
    m->pair_of[tb->data[i]->id] = i;
    head[i] = new_block(m, pair_name(m, ta->data[i], tb->data[i], NULL), 0);
  }
  drop_trivial_phis(m, a->entry);
  drop_trivial_phis(m, b->entry);
  for (uint32_t i = 0; i < n; i++) {
    rc_block *bt = ta->data[i], *bf = tb->data[i];
    rc_block *cur = meld_body(m, C, bt, bf, head[i]);
    rc_instr *tt = rc_block_term(bt), *tf = rc_block_term(bf);
    rc_block *targets[2] = {NULL, NULL};
    for (uint32_t s = 0; s < tt->ntargets; s++) {
      rc_block *st = tt->targets[s], *sf = tf->targets[s];
      bool exit = st->id >= m->npair_of || m->pair_of[st->id] == RC_NONE; /* leaves the subgraph */
      targets[s] = exit ? exit_select(m, C, bt, bf, st, sf) : head[m->pair_of[st->id]];
    }
    rc_builder bd;
    rc_builder_at_end(&bd, cur);
    if (tt->op == RC_OP_BR) {
      rc_value *ct = resolve(m, tt->ops[0]), *cf = resolve(m, tf->ops[0]);
      if (ct != cf) {
        ct = rc_build_select(&bd, C, ct, cf, NULL);
        m->selects++;
      }
      rc_build_br(&bd, ct, targets[0], targets[1]);
    } else {
      rc_build_jmp(&bd, targets[0]);
    }
    tail[i] = cur;
    /* a branch on C that meld made stays unmelded when it is melded itself (melding its sides again
     * would unpredicate the same runs again, for ever) */
    if (in_list(&m->no_meld, bt) || in_list(&m->no_meld, bf)) rc_vec_push(&m->no_meld, cur);
  }
  for (uint32_t i = 0; i < n; i++) {
    move_phis(m, ta->data[i], head[i], tail, b->entry, i == 0);
    move_phis(m, tb->data[i], head[i], tail, a->entry, i == 0);
  }
  retarget_preds(a->entry, head[0]);
  retarget_preds(b->entry, head[0]);
  for (uint32_t i = 0; i < n; i++)
    for (int side = 0; side < 2; side++) {
      rc_block *old = side ? tb->data[i] : ta->data[i];
      rc_instr *t = rc_block_term(old);
      if (t) rc_instr_detach(t);
      while (old->first) rc_instr_detach(old->first);
      rc_vec_push(&m->dead, old);
    }
  m->subgraphs++;
  free(head);
  free(tail);
}

/* ---- basic block to region melding: region replication (section IV-C, Fig. 2 case 2) -------------- */

/* The profitability of melding block a with region r after replicating r's structure around a:
 * MP_S of the replica (empty blocks but for their branches, a in place of the block of r it melds
 * best with, *best) and r. */
static double replication_profit(const rc_block *a, const path *pr, const subgraph *r, rc_block **best) {
  double best_common = -1, lat_a = rc_meld_block_latency(a), num = 0, den = 0;
  *best = NULL;
  for (uint32_t i = 0; i < r->n; i++) {
    rc_block *b = pr->blocks.data[r->start + i];
    double l, c = rc_meld_block_profit(a, b, &l) * l;
    if (c > best_common) best_common = c, *best = b;
  }
  for (uint32_t i = 0; i < r->n; i++) {
    rc_block *b = pr->blocks.data[r->start + i];
    double lb = rc_meld_block_latency(b);
    if (b == *best) num += best_common, den += lat_a + lb;
    else num += 1, den += 1 + lb; /* the replica's block holds only its branch, which melds */
  }
  return den > 0 ? num / den : 0;
}

/* Region replication (section IV-C, "Basic Block to Region Melding"): the single-block subgraph sa
 * (block a) is replaced by a copy of the structure of region r of the other path, with a's
 * instructions in the copy of `best` and the copies' branch conditions made constant so that
 * every thread goes through a's place ("concretizing the branch conditions"); values a defines
 * reach their uses through phis that SSA repair places. The next round melds the replica with r. */
static void replicate(melder *m, const subgraph *sa, const path *pr, const subgraph *r, rc_block *best) {
  rc_kernel *k = m->k;
  rc_block *a = sa->entry, *xa = sa->exit;
  uint32_t n = r->n;
  rc_block **copy = rc_xmalloc(n * sizeof *copy);
  uint32_t nb = k->nblocks;
  uint8_t *can = rc_xcalloc(nb, 1); /* per block id: reaches best inside r */
  uint32_t *idx = rc_xmalloc(nb * sizeof *idx);
  for (uint32_t i = 0; i < nb; i++) idx[i] = RC_NONE;
  for (uint32_t i = 0; i < n; i++) {
    rc_block *b = pr->blocks.data[r->start + i];
    idx[b->id] = i;
    char buf[256];
    snprintf(buf, sizeof buf, "%s.%s", strlen(a->name) < 40 ? a->name : "rep", strlen(b->name) < 40 ? b->name : "rep");
    copy[i] = new_block(m, buf, 0);
  }
  /* the blocks that reach best: backwards from it (r is acyclic) */
  RC_VEC(rc_block *) stack = {0};
  can[best->id] = 1;
  rc_vec_push(&stack, best);
  while (stack.len) {
    rc_block *b = stack.data[--stack.len];
    for (uint32_t p = 0; p < b->npreds; p++) {
      rc_block *q = b->preds[p];
      if (q->id < nb && idx[q->id] != RC_NONE && !can[q->id]) {
        can[q->id] = 1;
        rc_vec_push(&stack, q);
      }
    }
  }
  rc_vec_free(&stack);
  rc_builder bd;
  for (uint32_t i = 0; i < n; i++) {
    rc_block *b = pr->blocks.data[r->start + i];
    rc_instr *t = rc_block_term(b);
    rc_block *to[2] = {NULL, NULL};
    uint32_t take = 0;
    for (uint32_t s2 = 0; s2 < t->ntargets && s2 < 2; s2++) {
      rc_block *sx = t->targets[s2];
      bool out = idx[sx->id] == RC_NONE; /* an exit edge of r (r may have several exits, section IV-A) */
      to[s2] = out ? xa : copy[idx[sx->id]];
      if (b != best && can[b->id] && !out && can[sx->id]) take = s2;
    }
    rc_builder_at_end(&bd, copy[i]);
    if (t->op == RC_OP_BR) rc_build_br(&bd, rc_const_bool(k, take == 0), to[0], to[1]);
    else rc_build_jmp(&bd, to[0]);
  }
  rc_block *entry = copy[idx[r->entry->id]], *home = copy[idx[best->id]];
  /* a's phis go to the replica's entry, its instructions to best's copy */
  while (a->first && a->first->op == RC_OP_PHI) {
    rc_instr *p = a->first;
    rc_instr_detach(p);
    rc_instr_insert_after_phis(entry, p);
  }
  rc_instr *at = rc_block_term(a);
  if (at) rc_instr_detach(at);
  while (a->first) {
    rc_instr *x = a->first;
    rc_instr_detach(x);
    rc_instr_insert_before_term(home, x);
  }
  retarget_preds(a, entry);
  /* phis after a: one incoming per exiting block of the replica */
  for (rc_instr *p = xa->first; p && p->op == RC_OP_PHI; p = p->next) {
    int i = rc_phi_index_of(p, a);
    if (i < 0) continue;
    rc_value *v = p->ops[i];
    rc_phi_remove_incoming(p, (uint32_t)i);
    for (uint32_t q = 0; q < xa->npreds; q++) {
      bool ours = false;
      for (uint32_t c = 0; c < n && !ours; c++) ours = copy[c] == xa->preds[q];
      if (ours && rc_phi_index_of(p, xa->preds[q]) < 0) rc_phi_add_incoming(p, v, xa->preds[q]);
    }
  }
  rc_vec_push(&m->dead, a);
  m->replications++;
  free(copy);
  free(can);
  free(idx);
}

/* ---- post-processing (section IV-F) ----------------------------------------------------------------------- */

static bool only_jump(const rc_block *b) {
  return b->first && b->first == b->last && b->first->op == RC_OP_JMP && b->npreds == 1;
}

/* An exit selection `br C, NT, NF` whose blocks both jump to Y, where every phi of Y gets the same
 * value (or undef) from both, becomes `jmp Y`; then the selection block itself goes when its one
 * predecessor can jump to Y directly. */
static void fold_exit(melder *m, rc_block *sel) {
  rc_instr *t = rc_block_term(sel);
  if (!t || t->op != RC_OP_BR) return;
  rc_block *nt = t->targets[0], *nf = t->targets[1];
  if (nt == nf || !only_jump(nt) || !only_jump(nf) || nt->first->targets[0] != nf->first->targets[0]) return;
  rc_block *y = nt->first->targets[0];
  for (rc_instr *p = y->first; p && p->op == RC_OP_PHI; p = p->next) {
    rc_value *vt = rc_phi_value_for(p, nt), *vf = rc_phi_value_for(p, nf);
    if (!vt || !vf) return;
    if (vt != vf && vt->kind != RC_V_UNDEF && vf->kind != RC_V_UNDEF) return;
  }
  for (rc_instr *p = y->first; p && p->op == RC_OP_PHI; p = p->next) {
    int it = rc_phi_index_of(p, nt), jf = rc_phi_index_of(p, nf);
    rc_value *v = p->ops[it]->kind == RC_V_UNDEF ? p->ops[jf] : p->ops[it];
    rc_phi_remove_incoming(p, (uint32_t)(it > jf ? it : jf));
    rc_phi_remove_incoming(p, (uint32_t)(it > jf ? jf : it));
    rc_phi_add_incoming(p, v, sel);
  }
  rc_instr_detach(t);
  rc_instr_detach(nt->first);
  rc_instr_detach(nf->first);
  rc_vec_push(&m->dead, nt);
  rc_vec_push(&m->dead, nf);
  rc_builder bd;
  rc_builder_at_end(&bd, sel);
  rc_build_jmp(&bd, y);
  /* the selection block, now an empty jump: its predecessor jumps to y itself */
  if (sel->npreds != 1) return;
  rc_block *p = sel->preds[0];
  if (p == sel || rc_block_has_pred(y, p)) return;
  rc_instr *pt = rc_block_term(p);
  for (uint32_t i = 0; i < pt->ntargets; i++)
    if (pt->targets[i] == sel) rc_term_set_target(pt, i, y);
  for (rc_instr *q = y->first; q && q->op == RC_OP_PHI; q = q->next) {
    int i = rc_phi_index_of(q, sel);
    if (i >= 0) q->targets[i] = p;
  }
  rc_instr_detach(sel->first);
  rc_vec_push(&m->dead, sel);
}

/* Every use of a melded false-path instruction reads the instruction it was melded into; every use
 * of an unpredicated value outside its block reads its phi in the tail (Fig. 3c). Phis nobody reads
 * go. */
static void replace_all(melder *m) {
  rc_kernel *k = m->k;
  uint32_t *uses = rc_xcalloc(k->nvalues + 1, sizeof *uses);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next)
      for (uint32_t o = 0; o < i->nops; o++) {
        rc_value *v = resolve(m, i->ops[o]);
        rc_instr *d = rc_value_instr(v);
        if (d && d->v.id < m->nrepl && m->uphi[d->v.id] && m->uphi[d->v.id] != i && d->parent != k->blocks[b])
          v = &m->uphi[d->v.id]->v;
        if (v != i->ops[o]) rc_instr_set_op(i, o, v);
        if (v->kind == RC_V_INSTR && v->id != RC_NONE && v->id < k->nvalues) uses[v->id]++;
      }
  for (uint32_t i = 0; i < m->phis.len; i++)
    if (!uses[m->phis.data[i]->v.id]) rc_instr_detach(m->phis.data[i]);
  m->phis.len = 0;
  free(uses);
}

static int remove_dead(melder *m) {
  rc_kernel *k = m->k;
  bool *dead = rc_xcalloc(k->nblocks + 1, sizeof *dead);
  int rc = 0;
  for (uint32_t i = 0; i < m->dead.len; i++) {
    rc_block *b = m->dead.data[i];
    if (!b->parent) continue;
    if (b->npreds) rc = rc_error(m->ctx, "meld: block %s of @%s still has predecessors (a bug in reconv)", b->name, k->name);
    dead[b->id] = true;
  }
  if (rc == 0) rc_kernel_remove_blocks(k, dead);
  free(dead);
  m->dead.len = 0;
  return rc;
}

/* ---- Algorithm 1 ------------------------------------------------------------------------------------------- */

/* Try to meld the region of block e; 1 when something was melded, 0 when not, -1 on error. */
static int meld_region(melder *m, const rc_analysis *an, rc_block *e) {
  rc_kernel *k = m->k;
  rc_instr *br = rc_block_term(e);
  if (!br || br->op != RC_OP_BR || !an->unif.divergent_branch[e->id] || in_list(&m->no_meld, e)) return 0;
  rc_block *t = br->targets[0], *f = br->targets[1];
  if (t == f) return 0;
  uint32_t xi = an->pdom.idom[e->id];
  /* Definition 5, condition 2: neither successor post-dominates the other */
  if (xi < k->nblocks && (xi == t->id || xi == f->id)) return 0;
  if (rc_dominates(&an->pdom, t->id, f->id) || rc_dominates(&an->pdom, f->id, t->id)) return 0;
  m->regions++;
  int why = WHY_NONE;
  if (xi >= k->nblocks) why = WHY_NO_EXIT; /* the paths end in different exits */
  rc_block *x = why ? NULL : k->blocks[xi];
  uint8_t *mark = rc_xcalloc(k->nblocks, 1);
  block_vec bt = {0}, bf = {0};
  if (!why && (!reach(k, t, x, e, mark, 1, &bt) || !reach(k, f, x, e, mark, 2, &bf))) why = WHY_SHARED;
  if (!why) why = check_path(k, e, t, &bt, mark, 1);
  if (!why) why = check_path(k, e, f, &bf, mark, 2);
  free(mark);
  rc_vec_free(&bt);
  rc_vec_free(&bf);
  /* the subgraph sequences and their alignment (Definition 7) */
  path pt = {0}, pf = {0};
  bool simplified = false;
  if (why && m->simplify) { /* not simple as a whole: region simplification (section IV-A) */
    uint8_t *sm = rc_xcalloc(k->nblocks, 1);
    simplify_side(k, &an->pdom, e, t, sm, 1, &pt);
    simplify_side(k, &an->pdom, e, f, sm, 2, &pf);
    free(sm);
    if (!pt.subs.len || !pf.subs.len) {
      m->left[why]++;
      rc_vec_free(&pt.blocks);
      rc_vec_free(&pt.subs);
      rc_vec_free(&pf.blocks);
      rc_vec_free(&pf.subs);
      return 0;
    }
    simplified = true;
  } else if (why) {
    m->left[why]++;
    return 0;
  } else {
    split_path(k, &an->pdom, t, x, &pt);
    split_path(k, &an->pdom, f, x, &pf);
  }
  uint32_t ns = pt.subs.len, nf = pf.subs.len;
  double *score = rc_xmalloc(((size_t)ns * nf + 1) * sizeof *score);
  block_vec ta = {0}, tb = {0};
  rc_block **best = rc_xcalloc((size_t)ns * nf + 1, sizeof *best); /* replication: a's place */
  bool meldable = false; /* some pair of subgraphs is meldable (Definition 6) */
  for (uint32_t i = 0; i < ns; i++)
    for (uint32_t j = 0; j < nf; j++) {
      const subgraph *sa = &pt.subs.data[i], *sb = &pf.subs.data[j];
      size_t at = (size_t)i * nf + j;
      if (isomorphic(k, &pt, sa, &pf, sb, &ta, &tb)) score[at] = subgraph_profit(&ta, &tb);
      else if (sa->n == 1 && sb->n > 1 && sa->exit) score[at] = replication_profit(sa->entry, &pf, sb, &best[at]);
      else if (sb->n == 1 && sa->n > 1 && sb->exit) score[at] = replication_profit(sb->entry, &pt, sa, &best[at]);
      else score[at] = -1;
      meldable |= score[at] >= 0;
    }
  rc_meld_pair *al = rc_xmalloc((ns + nf + 1) * sizeof *al);
  uint32_t nal = rc_meld_smith_waterman(score, ns, nf, SUBGRAPH_GAP, al);
  int melded = 0;
  rc_value *C = br->ops[0];
  for (uint32_t i = 0; i < nal && !m->dry; i++) {
    if (al[i].a < 0 || al[i].b < 0) continue;
    double s = score[(size_t)al[i].a * nf + al[i].b];
    if (!(s >= m->threshold && s > 0)) continue;
    const subgraph *sa = &pt.subs.data[al[i].a], *sb = &pf.subs.data[al[i].b];
    rc_block *place = best[(size_t)al[i].a * nf + al[i].b];
    if (place) { /* block to region: replicate now, meld in the next round (the CFG changed) */
      if (!melded) {
        if (sa->n == 1) replicate(m, sa, &pf, sb, place);
        else replicate(m, sb, &pt, sa, place);
        melded = 1;
      }
      break;
    }
    isomorphic(k, &pt, sa, &pf, sb, &ta, &tb);
    meld_subgraphs(m, C, sa, sb, &ta, &tb);
    melded = 1;
  }
  if (melded) { /* E's branch now has the melded subgraph on both sides: a jump (section IV-F) */
    rc_instr *eb = rc_block_term(e);
    if (eb && eb->op == RC_OP_BR && eb->targets[0] == eb->targets[1]) {
      rc_block *to = eb->targets[0];
      rc_instr_detach(eb);
      rc_builder bd;
      rc_builder_at_end(&bd, e);
      rc_build_jmp(&bd, to);
    }
  }
  if (!melded && simplified && !meldable) m->left[why]++; /* simplification found nothing to meld */
  else if (!melded) m->unprofitable++;
  if (melded) m->melded_regions++;
  if (melded && simplified) m->simplified++;
  free(score);
  free(best);
  free(al);
  rc_vec_free(&ta);
  rc_vec_free(&tb);
  rc_vec_free(&pt.blocks);
  rc_vec_free(&pt.subs);
  rc_vec_free(&pf.blocks);
  rc_vec_free(&pf.subs);
  return melded;
}

static int parse_args(rc_ctx *ctx, const rc_pass_args *args, double *threshold, uint64_t *rounds, bool *simplify) {
  if (rc_pass_args_check(ctx, "meld", args) != 0) return -1;
  *simplify = rc_pass_arg_get(args, "nosimplify") == NULL;
  const char *v = rc_pass_arg_get(args, "threshold");
  if (v) {
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= 0 && d <= 1))
      return rc_error(ctx, "meld: threshold expects a number from 0 to 1, not '%s'", v);
    *threshold = d;
  }
  v = rc_pass_arg_get(args, "max-rounds");
  if (v) {
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (end == v || *end || n < 1 || n > 1000000)
      return rc_error(ctx, "meld: max-rounds expects a number from 1 to 1000000, not '%s'", v);
    *rounds = n;
  }
  return 0;
}

int rc_pass_meld(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  melder m;
  memset(&m, 0, sizeof m);
  m.ctx = ctx;
  m.k = k;
  m.stats = stats;
  m.threshold = 0.2;
  uint64_t max_rounds = 1000;
  if (parse_args(ctx, args, &m.threshold, &max_rounds, &m.simplify) != 0) return -1;
  if (k->level != RC_LEVEL_THREAD) return rc_error(ctx, "meld: @%s is not a thread-level kernel", k->name);
  int rc = 0;
  uint64_t round = 0;
  bool changed = true;
  while (changed && rc == 0) {
    changed = false;
    rc_analysis an;
    if (rc_analysis_build(&an, k, 0) != 0) {
      rc = rc_error(ctx, "meld: the analyses of @%s failed", k->name);
      break;
    }
    m.dry = round >= max_rounds; /* the last scan only counts */
    /* the statistics of regions left alone come from the final scan (which melds nothing) */
    uint64_t left[WHY_COUNT], regions = m.regions, unprofitable = m.unprofitable;
    memcpy(left, m.left, sizeof left);
    m.nrepl = k->nvalues;
    m.repl = rc_xcalloc(m.nrepl + 1, sizeof *m.repl);
    m.uphi = rc_xcalloc(m.nrepl + 1, sizeof *m.uphi);
    m.npair_of = k->nblocks;
    m.pair_of = rc_xmalloc((m.npair_of + 1) * sizeof *m.pair_of);
    /* regions in post-order: inner regions (an else-if's inner if-then-else) meld before the
     * regions that contain them, so that these see the melded result */
    uint32_t *rpo = rc_xmalloc((an.cfg.nblocks + 1) * sizeof *rpo);
    uint32_t *rpo_index = rc_xmalloc((an.cfg.nblocks + 1) * sizeof *rpo_index);
    uint32_t nreach = rc_cfg_rpo(&an.cfg, rpo, rpo_index);
    for (uint32_t i = nreach; i-- > 0 && rc == 0 && !changed;) {
      int r = meld_region(&m, &an, k->blocks[rpo[i]]);
      if (r < 0) rc = -1;
      else if (r > 0) changed = true;
    }
    free(rpo);
    free(rpo_index);
    rc_analysis_free(&an);
    if (changed) {
      /* post-processing, then Algorithm 1's SimplifyFunction and a new round */
      m.regions = regions;
      m.unprofitable = unprofitable;
      memcpy(m.left, left, sizeof left);
      replace_all(&m);
      for (uint32_t i = 0; i < m.exits.len; i++)
        if (m.exits.data[i]->parent) fold_exit(&m, m.exits.data[i]);
      m.exits.len = 0;
      if (remove_dead(&m) != 0) rc = -1;
      if (rc == 0) rc = rc_ssa_repair_kernel(ctx, k);
      round++;
    }
    free(m.repl);
    free(m.uphi);
    free(m.pair_of);
    m.repl = NULL;
    m.pair_of = NULL;
  }
  if (stats) {
    rc_stats_add(stats, "meld_regions_remaining", (int64_t)m.regions);
    rc_stats_add(stats, "meld_regions_melded", (int64_t)m.melded_regions);
    rc_stats_add(stats, "meld_regions_simplified", (int64_t)m.simplified);
    rc_stats_add(stats, "meld_subgraphs_melded", (int64_t)m.subgraphs);
    rc_stats_add(stats, "meld_instructions_melded", (int64_t)m.instrs);
    rc_stats_add(stats, "meld_selects", (int64_t)m.selects);
    rc_stats_add(stats, "meld_unpredicated_runs", (int64_t)m.runs);
    rc_stats_add(stats, "meld_regions_replicated", (int64_t)m.replications);
    rc_stats_add(stats, "meld_regions_unprofitable", (int64_t)m.unprofitable);
    rc_stats_add(stats, "meld_left_alone_no_exit", (int64_t)m.left[WHY_NO_EXIT]);
    rc_stats_add(stats, "meld_left_alone_shared_blocks", (int64_t)m.left[WHY_SHARED]);
    rc_stats_add(stats, "meld_left_alone_multi_entry", (int64_t)m.left[WHY_MULTI_ENTRY]);
    rc_stats_add(stats, "meld_left_alone_cyclic", (int64_t)m.left[WHY_CYCLIC]);
    rc_stats_add(stats, "meld_left_alone_unsupported", (int64_t)m.left[WHY_UNSUPPORTED]);
    rc_stats_add(stats, "meld_rounds", (int64_t)round);
  }
  rc_vec_free(&m.no_meld);
  rc_vec_free(&m.exits);
  rc_vec_free(&m.dead);
  rc_vec_free(&m.phis);
  return rc;
}
