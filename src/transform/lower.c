/* lower: a reconverging thread-level kernel becomes a wave kernel (thesis 4.2, LowerReconvCFG,
 * Listing 4.2; docs/ir.md, "Wave level").
 *
 * Every divergent branch of block p has exactly two successors, one of which, the *primary
 * successor* B, strictly post-dominates p (thesis Def. 15; anything else is refused, naming the
 * branch). The wave goes on to the *secondary* successor S with the lanes that want S; the lanes
 * that want B wait in B's *re-join mask* m_B (a scalar mask register) and are added back to exec
 * at the top of B:
 *
 *   p:  %p.toB = ballot %c           (or exec andn ballot %c when B is the false target)
 *       rset $m.B, %p.toB            p in P0 (MOVE), else  rset $m.B, (or (rget $m.B), %p.toB)
 *       setexec %p.rest              exec minus the lanes that wait
 *       brexecz B, S                 skip to B when no lane is left, where the skip pays (worth_skipping;
 *                                    else, and under `noskip` where safe: jmp S)
 *   B:  setexec (or exec, (rget $m.B))
 *
 * The sets of LowerReconvCFG for a primary successor B, and what this pass makes of them:
 *   P   the divergent predecessors whose primary successor is B;
 *   P*  B and the blocks on paths from P to B. The thesis says *simple* paths; here it is every
 *       block reachable from P without passing through B (the region). With simple paths a branch
 *       inside a loop that B closes (latch -> header | exit, primary exit) has no predecessor in
 *       P*, gets the MOVE, and each iteration forgets the lanes that left in the earlier ones; with
 *       the region the latch's predecessors are in P*, it gets the OR and the preheader (in Q) the
 *       zeroing. Lanes wait in m_B only while the wave is inside the region, which it leaves only
 *       through B, so no zeroing or MOVE of m_B can run while lanes wait;
 *   P0  the members of P without a predecessor in the region: the wave enters the region there, so
 *       m_B is set (MOVE) instead of accumulated (OR);
 *   Q   blocks outside P* with an edge into P* \ P0 (into the region, or into B itself): they set
 *       m_B to 0, so that the OR at B restores nothing stale (Figs. 4.2, 4.3: uniform side entries);
 *       one zeroing in their common dominator does where that is safe (place_zeros);
 *   virtual split (SplitNode, Fig. 4.4): B_head holds the restore and B_tail B's code and
 *       successors, so an edge from B back into P* (a self loop, a back edge) makes B_tail a member
 *       of Q: m_B is zeroed right after the restore. That is always sound; it is counted as a split
 *       when B has such an edge.
 * `flow` (the thesis's optional flow blocks, Figs. 4.1c, 4.3b, 4.4): a primary successor with edges
 * from outside its region gets a flow block that takes the region's edges and does the restore;
 * B's outside predecessors then need no zeroing and B no split (Q keeps only entries into the
 * region, as in Fig. 4.2a).
 *
 * Uniform branches (the uniformity analysis, which honours !uniform: reconverge marks the branches
 * it keeps) stay scalar branches; the wave simulator checks on every run that the active lanes
 * agree. Out of SSA: each phi becomes a register (scalar or vector, lower_scalar.c) read by an
 * `rget` at its block's top, after the restore, and written by an `rset` at the end of every
 * predecessor: at a divergent branch the copies into B's phis come before the exec change (for all
 * active lanes; the ones going to S write B's registers again on their own edge into B) and the
 * copies into S's after it; at a uniform branch the copies for every target are made (a register is
 * read only right after an edge into its block, and every such edge writes it). No edge is split,
 * so no primary successor loses its post-dominance. Instructions the scalar analysis allows are
 * marked !scalar. */
#include "reconv/analysis.h"
#include "reconv/transform.h"
#include "lower_regions.h"
#include "phi_registers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct zero_init {
  uint32_t block; /* the block (in Q) that zeroes ... */
  uint32_t mask;  /* ... the re-join mask of this primary successor */
} zero_init;

typedef struct lower {
  rc_ctx *ctx;
  rc_kernel *k;
  uint32_t nb;        /* blocks of the thread-level kernel */
  bool skip, flow, scalarize;
  uint32_t skip_threshold; /* worth_skipping: the region size from which a brexecz is kept */
  uint32_t zero_max;  /* place_zeros: the most blocks of Q that zero m_B before B clears it instead */
  rc_block **primary, **secondary; /* per divergent block */
  uint8_t *is_primary;
  uint8_t *move;      /* per divergent block p: p is in P0 of its primary successor */
  uint8_t *keep_skip; /* per divergent block p: `noskip` must keep its brexecz (skip_needed) */
  uint8_t *split;     /* per primary successor: zero m_B after the restore (B_tail in Q, or
                         place_zeros's cap) */
  uint8_t *wants_join;/* per primary successor: gets a flow block (`flow`) */
  const rc_domtree *dom; /* of the thread-level CFG (place_zeros), the analysis's */
  bool rejoin_valid;  /* the rejoin sets were made by the last wave-level divergence run (analyse) */
  rc_u32vec qblocks;  /* rejoin_sets: Q of the current primary successor (blocks may repeat) */
  uint32_t *qstamp, qcur; /* per block: == qcur when in qblocks (place_zeros) */
  rc_block **join;    /* per primary successor: that flow block */
  rc_reg **mask;      /* per primary successor: $m.B */
  rc_u64map retarget; /* (pred << 32 | B): the edge pred -> B goes to B's flow block */
  RC_VEC(zero_init) zeros;
  uint32_t *stamp, *zstamp, cur;
  rc_u32vec queue;
  phi_registers phis; /* out of SSA */
  /* statistics */
  uint32_t ndivergent, nuniform, nprimary, nmoves, nors, nzeros, nsplits, nflow, nskips, nscalar;
  uint32_t ncleared, nwavediv, nreruns, ninverted, nrepeated;
} lower;

/* ---- checks and the sets ------------------------------------------------------------------------------- */

static int not_reconverging(lower *L, const rc_block *b, const char *why) {
  rc_strbuf text;
  rc_sb_init(&text);
  rc_print_instr(rc_block_term(b), &text);
  int rc = rc_report(L->ctx, RC_SEV_ERROR, b->line ? L->k->mod->filename : NULL, b->line, b->col,
                     "lower: kernel @%s is not reconverging (thesis Def. 15): %s the divergent branch "
                     "in block %s (`%s`); run reconverge first (the pipeline reconverge,lower)",
                     L->k->name, why, b->name, text.data ? text.data : "");
  rc_sb_free(&text);
  return rc;
}

static void rejoin_begin(lower *L, const rc_analysis *a);
static void rejoin_region(void *ctx, lower_regions *r, uint32_t B);

/* The analyses lower works with: uniformity refined for wave execution (lower_divergence.c). A
 * kernel that is not reconverging for the uniformity analysis is refused. Branches that only the
 * refinement finds divergent are marked !divergent (and lose a !uniform claim); if one of them has
 * no post-dominating successor, reconverge runs again on the kernel (thesis 4.3 for the branches the
 * wave model adds), at most three times, unless `norepair` asks for the error instead. */
static int analyse(lower *L, rc_analysis *a, unsigned flags, bool repair) {
  rc_kernel *k = L->k;
  rc_u32vec newdiv = {0}, where = {0};
  for (uint32_t round = 0;; round++) {
    if (rc_analysis_build(a, k, flags) != 0) return rc_error(L->ctx, "lower: the analyses of @%s failed", k->name);
    where.len = 0;
    if (round == 0 && !rc_is_reconverging(k, &a->cfg, &a->pdom, &a->unif, &where)) break;
    newdiv.len = 0;
    /* the rejoin sets are made on the regions the refinement walks, which are those of the final
     * analysis when the refinement finds no branch (lower_wave_divergence) */
    for (;;) {
      rejoin_begin(L, a);
      L->rejoin_valid = false;
      if (!lower_wave_divergence(k, &a->cfg, &a->pdom, &a->unif, &newdiv, rejoin_region, L)) {
        L->rejoin_valid = true;
        break;
      }
      for (uint32_t i = 0; i < newdiv.len; i++) {
        rc_instr *t = rc_block_term(k->blocks[newdiv.data[i]]);
        t->iflags = (uint8_t)((t->iflags & ~RC_IF_UNIFORM) | RC_IF_DIVERGENT);
        L->nwavediv++;
      }
      newdiv.len = 0;
      rc_analysis_free(a);
      rc_analysis_build(a, k, flags);
    }
    where.len = 0;
    if (rc_is_reconverging(k, &a->cfg, &a->pdom, &a->unif, &where)) break;
    if (!repair || round == 3) break;
    rc_analysis_free(a);
    if (rc_pass_reconverge(L->ctx, k, NULL, NULL) != 0) {
      rc_vec_free(&newdiv);
      rc_vec_free(&where);
      return -1;
    }
    L->nreruns++;
  }
  rc_vec_free(&newdiv);
  int rc = 0;
  if (where.len) {
    rc_block *b = k->blocks[where.data[0]];
    rc_instr *t = rc_block_term(b);
    rc = not_reconverging(L, b, t && t->op == RC_OP_SWITCH ? "a divergent switch has more than two successors:"
                                : L->nwavediv ? "at wave level (lanes waiting at a primary successor meet lanes "
                                                "from another loop iteration there), neither successor post-dominates"
                                              : "neither successor post-dominates");
    rc_analysis_free(a);
  }
  rc_vec_free(&where);
  return rc;
}

/* Primary and secondary successor of every divergent branch. */
static int find_primaries(lower *L, const rc_analysis *a) {
  rc_kernel *k = L->k;
  for (uint32_t b = 0; b < L->nb; b++) {
    if (!a->unif.divergent_branch[b]) {
      rc_instr *t = rc_block_term(k->blocks[b]);
      if (t && (t->op == RC_OP_BR || t->op == RC_OP_SWITCH)) L->nuniform++;
      continue;
    }
    rc_instr *t = rc_block_term(k->blocks[b]);
    if (t->op != RC_OP_BR) return not_reconverging(L, k->blocks[b], "a divergent switch has more than two successors:");
    rc_block *T = t->targets[0], *F = t->targets[1];
    bool pt = rc_strictly_dominates(&a->pdom, T->id, b), pf = rc_strictly_dominates(&a->pdom, F->id, b);
    if (!pt && !pf) return not_reconverging(L, k->blocks[b], "neither successor post-dominates");
    L->primary[b] = pt ? T : F;
    L->secondary[b] = pt ? F : T;
    L->is_primary[L->primary[b]->id] = 1;
    L->ndivergent++;
  }
  return 0;
}

static void add_zero(lower *L, uint32_t x, uint32_t B) {
  if (L->zstamp[x] == L->cur) return;
  L->zstamp[x] = L->cur;
  zero_init z = {x, B};
  rc_vec_push(&L->zeros, z);
  L->nzeros++;
}

/* Is a block of qblocks (qstamp == qcur) reachable from B's successors without passing through
 * block `avoid`? (At most ZERO_SEARCH_MAX blocks are looked at; past that, assume it is.) */
enum { ZERO_SEARCH_MAX = 4096 };
static bool reaches_avoiding(lower *L, rc_block *B, uint32_t avoid) {
  uint32_t cur = ++L->cur, seen = 0;
  L->queue.len = 0;
  rc_vec_push(&L->queue, B->id);
  L->stamp[B->id] = cur;
  while (L->queue.len) {
    rc_block *x = L->k->blocks[L->queue.data[--L->queue.len]];
    for (uint32_t i = 0; i < rc_block_nsuccs(x); i++) {
      rc_block *y = rc_block_succ(x, i);
      if (y->id == avoid || L->stamp[y->id] == cur) continue;
      if (L->qstamp[y->id] == L->qcur || ++seen > ZERO_SEARCH_MAX) return true;
      L->stamp[y->id] = cur;
      rc_vec_push(&L->queue, y->id);
    }
  }
  return false;
}

/* The zeroings of m_B for the blocks of Q (rejoin_sets). Each block of Q zeroes m_B before the wave
 * enters the region (LowerReconvCFG). One zeroing in their nearest common dominator Z does the
 * same when Z is outside the region and the wave cannot get from B back to a block of Q without
 * passing Z: then every entry into the region from Q is preceded by Z's zeroing since m_B was last
 * restored. Fewer mask instructions when several blocks of Q run one after another (thesis Fig. 4.2:
 * the uniform side entries), the lean lowering of issue 15.
 *
 * More than zero_max blocks of Q (far jumps into deeply nested regions, where one edge makes its
 * source a block of Q for every region it enters, so that the zeroings grow with the square of
 * the kernel: issue 31) zero nothing; B zeroes m_B right after its restore instead (the virtual
 * split's zeroing). That is sound for any Q: registers start at zero, only P writes m_B, and the
 * wave leaves the region only through B, so m_B is zero whenever the wave is outside the region,
 * and every entry into it finds m_B zero. It costs one mask instruction each time B runs, which
 * is why it is kept for large Q. Returns whether B clears. */
static bool place_zeros(lower *L, lower_regions *r, rc_block *B) {
  uint32_t n = L->qblocks.len, z = n ? L->qblocks.data[0] : RC_NONE;
  L->qcur++;
  uint32_t distinct = 0;
  for (uint32_t i = 0; i < n; i++)
    if (L->qstamp[L->qblocks.data[i]] != L->qcur) {
      L->qstamp[L->qblocks.data[i]] = L->qcur;
      distinct++;
    }
  for (uint32_t i = 1; i < n && z != RC_NONE; i++) z = rc_domtree_lca(L->dom, z, L->qblocks.data[i]);
  bool one = false;
  if (n > 1 && z != RC_NONE && z != B->id && !lower_regions_member(r, z)) one = !reaches_avoiding(L, B, z);
  bool clear = !one && distinct > L->zero_max;
  if (clear) L->split[B->id] = 1;
  else if (one) add_zero(L, z, B->id);
  else
    for (uint32_t i = 0; i < n; i++) add_zero(L, L->qblocks.data[i], B->id);
  L->qblocks.len = 0;
  return clear;
}

/* P0, Q and the split for primary successor B, whose region (P* without B) r has just made. */
static void rejoin_sets(lower *L, lower_regions *r, rc_block *B) {
  ++L->cur; /* add_zero's stamps */
  for (uint32_t i = 0; i < r->np; i++) { /* P0: no predecessor in the region */
    uint32_t p = r->blocks.data[i];
    bool entry = lower_regions_in_p0(r, p);
    L->move[p] = entry;
    if (entry) L->nmoves++;
    else L->nors++;
  }
  bool outside_edge = false; /* B has a predecessor outside the region (itself included) */
  for (uint32_t i = 0; i < B->npreds; i++) outside_edge |= !lower_regions_member(r, B->preds[i]->id);
  L->wants_join[B->id] = L->flow && outside_edge;
  /* Q: outside blocks with an edge into the region minus P0, or (without a flow block) into B */
  for (uint32_t e = 0; e < r->ent.len; e += 2) {
    uint32_t x = r->ent.data[e], y = r->ent.data[e + 1];
    if (lower_regions_in_p0(r, y)) continue;
    if (x == B->id && !L->wants_join[B->id]) L->split[B->id] = 1; /* B_tail is in Q */
    else rc_vec_push(&L->qblocks, x);
  }
  if (!L->wants_join[B->id]) {
    for (uint32_t j = 0; j < B->npreds; j++) {
      rc_block *x = B->preds[j];
      if (lower_regions_member(r, x->id)) continue;
      if (x == B) L->split[B->id] = 1;
      else rc_vec_push(&L->qblocks, x->id);
    }
  } else {
    for (uint32_t j = 0; j < B->npreds; j++) /* the region's edges go to the flow block */
      if (lower_regions_member(r, B->preds[j]->id))
        rc_u64map_put(&L->retarget, (uint64_t)B->preds[j]->id << 32 | B->id, B);
  }
  bool split = L->split[B->id], cleared = place_zeros(L, r, B);
  if (L->split[B->id]) {
    if (cleared && !split) L->ncleared++;
    else L->nsplits++;
    L->nzeros++;
  }
}

/* Fresh rejoin state for the kernel as analysis a sees it (analyse makes the sets again on each
 * run of the wave-level divergence, and keeps those of the last). */
static void rejoin_begin(lower *L, const rc_analysis *a) {
  uint32_t nb = L->k->nblocks;
  free(L->move);
  free(L->split);
  free(L->wants_join);
  free(L->stamp);
  free(L->zstamp);
  free(L->qstamp);
  L->move = rc_xcalloc(nb + 1, 1);
  L->split = rc_xcalloc(nb + 1, 1);
  L->wants_join = rc_xcalloc(nb + 1, 1);
  L->stamp = rc_xcalloc(nb + 1, sizeof *L->stamp);
  L->zstamp = rc_xcalloc(nb + 1, sizeof *L->zstamp);
  L->qstamp = rc_xcalloc(nb + 1, sizeof *L->qstamp);
  rc_u64map_free(&L->retarget);
  rc_u64map_init(&L->retarget);
  L->zeros.len = L->qblocks.len = 0;
  L->cur = L->qcur = 0;
  L->nmoves = L->nors = L->nzeros = L->nsplits = L->ncleared = 0;
  L->dom = &a->dom;
}

static void rejoin_region(void *ctx, lower_regions *r, uint32_t B) {
  lower *L = ctx;
  rejoin_sets(L, r, L->k->blocks[B]);
}

/* ---- building wave code ------------------------------------------------------------------------------------ */

/* "a.b" as a value name, or NULL (unnamed) when it would be too long for a name. */
static const char *vname(char *buf, size_t len, const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  if (na + nb + 2 > len || na + nb + 1 > 1000) return NULL;
  memcpy(buf, a, na);
  buf[na] = '.';
  memcpy(buf + na + 1, b, nb + 1);
  return buf;
}

/* exec |= m_B at the top of B (or of its flow block). */
static void emit_restore(lower *L, rc_builder *bl, rc_block *B) {
  char n1[1100], n2[1100], n3[1100];
  rc_value *m = rc_build_rget(bl, L->mask[B->id], vname(n1, sizeof n1, B->name, "waiting"));
  rc_value *e = rc_build_exec(bl, vname(n2, sizeof n2, B->name, "arrived"));
  rc_value *j = rc_build_binop(bl, RC_OP_OR, e, m, vname(n3, sizeof n3, B->name, "joined"));
  rc_build_setexec(bl, j);
}

static rc_block *target_of(lower *L, const rc_block *from, rc_block *to) {
  if (to->id >= L->nb || !L->wants_join[to->id]) return to;
  return rc_u64map_get(&L->retarget, (uint64_t)from->id << 32 | to->id) ? L->join[to->id] : to;
}

static void retarget_all(lower *L, rc_block *x, rc_instr *t) {
  for (uint32_t i = 0; i < t->ntargets; i++) {
    rc_block *nt = target_of(L, x, t->targets[i]);
    if (nt != t->targets[i]) rc_term_set_target(t, i, nt);
  }
}

/* What a walk over a secondary region asks of each block: does it decide the question (stop)? */
typedef struct region_query {
  const uint8_t *scalar; /* skip_needed: the values that are scalar */
  uint32_t count;        /* worth_skipping: the machine instructions seen so far */
} region_query;

typedef bool (*region_block_check)(lower *L, rc_block *p, rc_block *x, region_query *q);

/* Does `check` hold for some block of p's secondary region: the blocks reachable from the
 * secondary successor S without passing the primary successor B (breadth-first, in the
 * thread-level CFG)? */
static bool region_any(lower *L, rc_block *p, region_block_check check, region_query *query) {
  rc_block *B = L->primary[p->id], *S = L->secondary[p->id];
  uint32_t cur = ++L->cur;
  L->queue.len = 0;
  rc_vec_push(&L->queue, S->id);
  L->stamp[S->id] = cur;
  for (uint32_t q = 0; q < L->queue.len; q++) {
    rc_block *x = L->k->blocks[L->queue.data[q]];
    if (check(L, p, x, query)) return true;
    for (uint32_t i = 0; i < rc_block_nsuccs(x); i++) {
      rc_block *y = rc_block_succ(x, i);
      if (y != B && L->stamp[y->id] != cur) {
        L->stamp[y->id] = cur;
        rc_vec_push(&L->queue, y->id);
      }
    }
  }
  return false;
}

/* `noskip` drops the empty-exec skip of a divergent branch only where the wave, running on with no
 * lane, still reaches the primary successor B correctly: the blocks of the secondary region must
 * not lead back to p (a loop whose exit is B would spin with an empty exec: the thesis's skip is
 * optional only for acyclic secondary regions) and must hold no scalar branch on a vector value
 * (undefined with no lane). */
static bool unsafe_without_lanes(lower *L, rc_block *p, rc_block *x, region_query *q) {
  if (x == p) return true;
  rc_instr *t = rc_block_term(x);
  if (L->primary[x->id] || !t || (t->op != RC_OP_BR && t->op != RC_OP_SWITCH)) return false;
  const rc_value *c = t->ops[0];
  return c->kind != RC_V_CONST && c->kind != RC_V_PARAM && !(c->id != RC_NONE && q->scalar[c->id]);
}

static bool skip_needed(lower *L, rc_block *p, const uint8_t *scalar) {
  region_query q = {scalar, 0};
  return region_any(L, p, unsafe_without_lanes, &q);
}

/* About how many GCN instructions an instruction becomes, for the skip threshold (which LLVM
 * applies to machine instructions): 64-bit integers and addresses take two 32-bit halves, integer
 * division has no instruction of its own (a sequence of about 20), float division a scaled
 * reciprocal with fix-ups (about 10). */
static uint32_t machine_instructions(const rc_instr *i) {
  switch (i->op) {
  case RC_OP_SDIV: case RC_OP_UDIV: case RC_OP_SREM: case RC_OP_UREM: return 20;
  case RC_OP_FDIV: case RC_OP_FREM: return 10;
  case RC_OP_GEP: return 2 * (i->nops > 1 ? i->nops - 1 : 1);
  default: return i->v.id != RC_NONE && rc_type_bits((rc_type)i->v.type) > 32 ? 2 : 1;
  }
}

/* Is the secondary region of p worth a `brexecz` over it? As LLVM's AMDGPU backend decides
 * (SIPreEmitPeephole::mustRetainExeczBranch, LLVM 14): a wave with an empty exec still issues every
 * instruction it runs, so a skip pays where the region is long (skip_threshold machine
 * instructions or more), holds a conditional branch (a uniform loop in it might never exit with no
 * lane), or an instruction that costs even with no lane or must not run without one: memory
 * accesses, calls, instructions reconv does not model. Elsewhere the wave runs the short region
 * with an empty exec, and the branch saves its s_cbranch_execz. */
static bool costly_without_lanes(lower *L, rc_block *p, rc_block *x, region_query *q) {
  (void)p;
  for (const rc_instr *i = x->first; i; i = i->next) {
    switch (i->op) {
    case RC_OP_PHI: case RC_OP_JMP: continue;
    case RC_OP_BR: case RC_OP_SWITCH: case RC_OP_RET: case RC_OP_UNREACHABLE:
    case RC_OP_LOAD: case RC_OP_STORE: case RC_OP_CALL: case RC_OP_CALLFN: case RC_OP_OPAQUE:
      return true;
    default:
      q->count += machine_instructions(i);
      if (q->count >= L->skip_threshold) return true;
    }
  }
  return false;
}

static bool worth_skipping(lower *L, rc_block *p) {
  region_query q = {NULL, 0};
  return region_any(L, p, costly_without_lanes, &q);
}

static bool is_compare(const rc_value *v) {
  if (v->kind != RC_V_INSTR) return false;
  rc_opcode op = (rc_opcode)((const rc_instr *)v)->op;
  return op == RC_OP_ICMP || op == RC_OP_FCMP;
}

/* Whether i1 phi `phi` can hold its negation at no cost: every incoming value is a constant, undef,
 * or a compare that only this phi reads (its predicate flips). A flow block's condition is such a
 * phi: `true` from the flows that want one target, `false` from the others (flow_blocks.c). */
static bool phi_inverts_for_free(const rc_instr *phi, const uint32_t *uses) {
  for (uint32_t o = 0; o < phi->nops; o++) {
    const rc_value *v = phi->ops[o];
    if (v->kind == RC_V_CONST || v->kind == RC_V_UNDEF) continue;
    if (!is_compare(v)) return false;
    uint32_t here = 0;
    for (uint32_t q = 0; q < phi->nops; q++) here += phi->ops[q] == v;
    if (uses[v->id] != here) return false;
  }
  return true;
}

static void invert_phi(rc_kernel *k, rc_instr *phi) {
  for (uint32_t o = 0; o < phi->nops; o++) {
    rc_value *v = phi->ops[o];
    if (v->kind == RC_V_CONST) {
      phi->ops[o] = rc_const_bool(k, rc_const_ival(v) == 0);
    } else if (is_compare(v)) {
      bool seen = false; /* one compare may come in on several edges: flip it once */
      for (uint32_t q = 0; q < o; q++) seen |= phi->ops[q] == v;
      if (!seen) ((rc_instr *)v)->pred = (uint16_t)rc_cmp_inverse((rc_cmp)((rc_instr *)v)->pred);
    }
  }
}

/* `xor i1 %c, true` of a compare %c that nothing else reads becomes %c with the inverse predicate.
 * A flow block's condition is often such a negation (flow_blocks.c's not_of: the flows that take a
 * branch's false edge want the flow block's true target), and once the flow block took over the
 * branch, only the xor reads %c. The xor would be a vector instruction per wave; LLVM's
 * StructurizeCFG inverts the compare (invertCondition), and so does this. One walk finds the xors,
 * one more rewrites their readers (a compare is never itself replaced, so no chain forms). */
static uint32_t fold_negated_compares(rc_kernel *k, uint32_t *uses) {
  uint32_t folded = 0;
  rc_value **by = rc_xcalloc(k->nvalues + 1, sizeof *by); /* xor's id -> the compare standing for it */
  for (uint32_t b = 0; b < k->nblocks; b++) {
    rc_instr *next;
    for (rc_instr *x = k->blocks[b]->first; x; x = next) {
      next = x->next;
      if (x->op != RC_OP_XOR || x->v.type != RC_I1 || x->nops != 2) continue;
      uint32_t t = x->ops[1]->kind == RC_V_CONST ? 1 : 0; /* the operand that must be `true` */
      rc_value *c = x->ops[1 - t];
      if (x->ops[t]->kind != RC_V_CONST || rc_const_ival(x->ops[t]) == 0 || !is_compare(c) || uses[c->id] != 1)
        continue;
      rc_instr *cmp = (rc_instr *)c;
      cmp->pred = (uint16_t)rc_cmp_inverse((rc_cmp)cmp->pred);
      uses[c->id] = uses[x->v.id];
      by[x->v.id] = c;
      rc_instr_detach(x);
      folded++;
    }
  }
  for (uint32_t b = 0; folded && b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next)
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o]->kind == RC_V_INSTR && i->ops[o]->id < k->nvalues && by[i->ops[o]->id])
          rc_instr_set_op(i, o, by[i->ops[o]->id]);
  free(by);
  return folded;
}

/* How many operands read each instruction's value. */
static uint32_t *count_uses(const rc_kernel *k) {
  uint32_t *uses = rc_xcalloc(k->nvalues + 1, sizeof *uses);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next)
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o]->kind == RC_V_INSTR && i->ops[o]->id < k->nvalues) uses[i->ops[o]->id]++;
  return uses;
}

/* A divergent branch whose waiting lanes go to its false target costs two mask instructions (the
 * waiting lanes exec andn ballot %c, then setexec of the ballot), one whose waiting lanes go to
 * its true target one (ballot %c is the waiting lanes as it is, and exec andn it writes exec
 * directly: docs/cost.md). When the condition is a compare that only this branch reads, flip
 * the compare's predicate and the branch's targets, as LLVM's AMDGPU backend picks the v_cmp that
 * yields the mask it needs: the thread-level meaning is unchanged. A flow block's condition phi of
 * constants and single-use compares is negated the same way, entry by entry. */
static void branch_on_waiting_lanes(lower *L) {
  rc_kernel *k = L->k;
  uint32_t *uses = count_uses(k);
  for (uint32_t b = 0; b < L->nb; b++) {
    rc_block *p = k->blocks[b];
    rc_instr *t = rc_block_term(p);
    if (!L->primary[b] || t->op != RC_OP_BR || t->targets[1] != L->primary[b] || t->targets[0] == t->targets[1])
      continue;
    rc_value *c = t->ops[0];
    if (c->kind != RC_V_INSTR || uses[c->id] != 1) continue;
    rc_instr *cmp = (rc_instr *)c;
    if (cmp->op == RC_OP_PHI && cmp->parent == p && phi_inverts_for_free(cmp, uses)) {
      invert_phi(k, cmp);
    } else {
      if ((cmp->op != RC_OP_ICMP && cmp->op != RC_OP_FCMP) || cmp->parent != p) continue;
      cmp->pred = (uint16_t)rc_cmp_inverse((rc_cmp)cmp->pred);
    }
    t->targets[1] = t->targets[0];
    t->targets[0] = L->primary[b];
    L->ninverted++;
  }
  free(uses);
}

/* The lowering of a divergent branch (LowerReconvCFG lines 9-17). */
static void emit_divergent(lower *L, rc_builder *bl, rc_block *p, rc_instr *t) {
  rc_block *B = L->primary[p->id], *S = L->secondary[p->id];
  rc_value *c = t->ops[0];
  char n1[1100], n2[1100], n3[1100], n4[1100], n5[1100];
  char to[1100];
  snprintf(to, sizeof to, "to%.1000s", B->name);
  phi_registers_copy_edge(&L->phis, bl, p, B);
  rc_value *toB, *rest, *e;
  if (t->targets[0] == B) {
    toB = rc_build_ballot(bl, c, vname(n1, sizeof n1, p->name, to));
    e = rc_build_exec(bl, vname(n2, sizeof n2, p->name, "exec"));
    rest = rc_build_binop(bl, RC_OP_ANDN, e, toB, vname(n3, sizeof n3, p->name, "rest"));
  } else {
    rest = rc_build_ballot(bl, c, vname(n3, sizeof n3, p->name, "rest"));
    e = rc_build_exec(bl, vname(n2, sizeof n2, p->name, "exec"));
    toB = rc_build_binop(bl, RC_OP_ANDN, e, rest, vname(n1, sizeof n1, p->name, to));
  }
  rc_reg *m = L->mask[B->id];
  if (L->move[p->id]) { /* p in P0: MOVE */
    rc_build_rset(bl, m, toB);
  } else {                /* OR */
    char mb[1100];
    snprintf(mb, sizeof mb, "m.%.1000s", B->name);
    rc_value *old = rc_build_rget(bl, m, vname(n4, sizeof n4, p->name, mb));
    const char *n4s = vname(n5, sizeof n5, n4, "1");
    rc_build_rset(bl, m, rc_build_binop(bl, RC_OP_OR, old, toB, old->name ? n4s : NULL));
  }
  rc_build_setexec(bl, rest);
  phi_registers_copy_edge(&L->phis, bl, p, S);
  rc_instr *nt;
  if (L->keep_skip[p->id]) {
    nt = rc_instr_new(L->k, RC_OP_BREXECZ, RC_VOID, 0, 2);
    nt->targets[0] = target_of(L, p, B);
    nt->targets[1] = target_of(L, p, S);
    L->nskips++;
  } else {
    nt = rc_instr_new(L->k, RC_OP_JMP, RC_VOID, 0, 1);
    nt->targets[0] = target_of(L, p, S);
  }
  rc_block_set_term(p, nt);
}

/* Zeroings, phi copies and the lowered terminator at the end of block x. */
static void emit_end(lower *L, rc_block *x, const zero_init *z, uint32_t nz) {
  rc_instr *t = rc_block_term(x);
  rc_builder bl;
  rc_builder_before(&bl, t);
  for (uint32_t i = 0; i < nz; i++) rc_build_rset(&bl, L->mask[z[i].mask], rc_const_int(L->k, RC_MASK, 0));
  if (L->primary[x->id]) {
    emit_divergent(L, &bl, x, t);
    return;
  }
  for (uint32_t i = 0; i < t->ntargets; i++) {
    bool seen = false;
    for (uint32_t j = 0; j < i && !seen; j++) seen = t->targets[j] == t->targets[i];
    if (!seen) phi_registers_copy_edge(&L->phis, &bl, x, t->targets[i]);
  }
  retarget_all(L, x, t);
}

static int cmp_zero(const void *a, const void *b) {
  const zero_init *x = a, *y = b;
  if (x->block != y->block) return x->block < y->block ? -1 : 1;
  return x->mask < y->mask ? -1 : x->mask > y->mask;
}

/* Registers for the phis and rgets in their place; the restore (and the split's zeroing) first. */
static void replace_phis(lower *L, const uint8_t *scalar) {
  rc_kernel *k = L->k;
  for (uint32_t b = 0; b < L->nb; b++) {
    rc_block *B = k->blocks[b];
    rc_builder bl;
    rc_builder_before(&bl, rc_block_first_nonphi(B));
    if (L->is_primary[b] && !L->wants_join[b]) emit_restore(L, &bl, B);
    if (L->split[b]) rc_build_rset(&bl, L->mask[b], rc_const_int(k, RC_MASK, 0));
    phi_registers_of_block(&L->phis, k, B, &bl, scalar);
  }
  phi_registers_replace_uses(&L->phis, k, L->nb);
}

/* ---- the pass ---------------------------------------------------------------------------------------------------- */

static void free_lower(lower *L) {
  free(L->primary);
  free(L->secondary);
  free(L->is_primary);
  free(L->move);
  free(L->keep_skip);
  free(L->split);
  free(L->wants_join);
  rc_vec_free(&L->qblocks);
  free(L->qstamp);
  free(L->join);
  free(L->mask);
  rc_u64map_free(&L->retarget);
  rc_vec_free(&L->zeros);
  free(L->stamp);
  free(L->zstamp);
  rc_vec_free(&L->queue);
  phi_registers_free(&L->phis);
}

static int parse_args(rc_ctx *ctx, const rc_pass_args *args, lower *L, unsigned *unif_flags, bool *repair) {
  *unif_flags = 0;
  *repair = true;
  if (rc_pass_args_check(ctx, "lower", args)) return -1;
  *repair = rc_pass_arg_get(args, "norepair") == NULL;
  L->skip = rc_pass_arg_get(args, "noskip") == NULL;
  L->skip_threshold = 12; /* LLVM 14's -amdgpu-skip-threshold */
  const char *st = rc_pass_arg_get(args, "skip-threshold");
  if (st) {
    char *end = NULL;
    unsigned long v = strtoul(st, &end, 10);
    if (!*st || *end || *st == '-' || v > 1000000)
      return rc_error(ctx, "lower: skip-threshold must be a number from 0 to 1000000, not '%s'", st);
    if (!L->skip) return rc_error(ctx, "lower: skip-threshold and noskip exclude each other");
    L->skip_threshold = (uint32_t)v;
  }
  L->zero_max = 64;
  const char *zm = rc_pass_arg_get(args, "zero-max");
  if (zm) {
    char *end = NULL;
    unsigned long v = strtoul(zm, &end, 10);
    if (!*zm || *end || *zm == '-' || v > 1000000)
      return rc_error(ctx, "lower: zero-max must be a number from 0 to 1000000, not '%s'", zm);
    L->zero_max = (uint32_t)v;
  }
  /* flow blocks are the default: a re-join restored in a flow block costs side entries nothing,
   * where zeroing costs a mask instruction in each (docs/ir.md) */
  L->flow = rc_pass_arg_get(args, "noflow") == NULL;
  if (!L->flow && rc_pass_arg_get(args, "flow"))
    return rc_error(ctx, "lower: flow and noflow exclude each other");
  L->scalarize = rc_pass_arg_get(args, "noscalar") == NULL;
  *unif_flags = rc_pass_arg_get(args, "all-divergent") ? RC_UNIF_ALL_DIVERGENT : 0;
  return 0;
}

/* ---- repeated copies ------------------------------------------------------------------------------------ */

static bool same_written_value(const rc_value *a, const rc_value *b) {
  if (a == b) return true;
  return a->kind == RC_V_CONST && b->kind == RC_V_CONST && a->type == b->type && rc_type_is_int((rc_type)a->type) &&
         rc_const_ival(a) == rc_const_ival(b);
}

/* A setexec that can only take lanes away: exec andn something, or a ballot (of active lanes). */
static bool narrows_exec(const rc_instr *set) {
  const rc_value *m = set->ops[0];
  if (m->kind != RC_V_INSTR) return false;
  const rc_instr *d = (const rc_instr *)m;
  return d->op == RC_OP_BALLOT ||
         (d->op == RC_OP_ANDN && d->ops[0]->kind == RC_V_INSTR && ((const rc_instr *)d->ops[0])->op == RC_OP_EXEC);
}

/* Drop an rset that writes what the register already holds for every lane that runs it: in a block
 * X whose only predecessor P (or a block up the chain of only predecessors above P, at most
 * REPEAT_CHAIN_MAX) wrote the same value into the register, with nothing since that widens exec,
 * before X widens exec or writes the register otherwise. The lowering makes these where a
 * divergent branch writes its primary successor's phi registers for all its lanes and the secondary
 * side then writes the same value again, e.g. a flow block's condition `true` from both the flow
 * block before it and the block between. Per register: `want` stamps the registers X writes first
 * (before widening exec), `first` holds their rset in X, `done` stamps those whose last write
 * above has been found; each block is walked once per X it is above, so the pass is linear in the
 * kernel for a bounded chain. */
enum { REPEAT_CHAIN_MAX = 64 };
static uint32_t drop_repeated_writes(rc_kernel *k) {
  uint32_t dropped = 0, nr = k->nregs;
  uint32_t *want = rc_xcalloc(nr + 1, sizeof *want), *done = rc_xcalloc(nr + 1, sizeof *done);
  rc_instr **first = rc_xcalloc(nr + 1, sizeof *first);
  for (uint32_t b = 0; b < k->nblocks; b++) {
    rc_block *X = k->blocks[b];
    if (X->npreds != 1 || X->preds[0] == X) continue;
    uint32_t stamp = b + 1, pending = 0;
    for (rc_instr *i = X->first; i && i->op != RC_OP_SETEXEC; i = i->next)
      if (i->op == RC_OP_RSET && want[i->u.reg->id] != stamp) {
        want[i->u.reg->id] = stamp;
        first[i->u.reg->id] = i;
        pending++;
      }
    const rc_block *P = X->preds[0];
    for (uint32_t n = 0; P && pending && n < REPEAT_CHAIN_MAX; n++) {
      bool widened = false;
      for (const rc_instr *i = P->last; i && pending && !widened; i = i->prev) {
        if (i->op == RC_OP_SETEXEC) widened = !narrows_exec(i);
        if (i->op != RC_OP_RSET) continue;
        uint32_t r = i->u.reg->id;
        if (want[r] != stamp || done[r] == stamp) continue;
        done[r] = stamp; /* the last write on the way: the value the register holds */
        pending--;
        if (same_written_value(i->ops[0], first[r]->ops[0])) {
          rc_instr_detach(first[r]);
          dropped++;
        }
      }
      if (widened) break;
      P = P->npreds == 1 && P->preds[0] != P && P->preds[0] != X ? P->preds[0] : NULL;
    }
  }
  free(want);
  free(done);
  free(first);
  return dropped;
}

static void set_stats(const lower *L, rc_stats *stats) {
  if (!stats) return;
  rc_stats_set(stats, "divergent_branches", L->ndivergent);
  rc_stats_set(stats, "uniform_branches", L->nuniform);
  rc_stats_set(stats, "primary_successors", L->nprimary);
  rc_stats_set(stats, "rejoin_moves", L->nmoves);
  rc_stats_set(stats, "rejoin_ors", L->nors);
  rc_stats_set(stats, "zero_inits", L->nzeros);
  rc_stats_set(stats, "virtual_splits", L->nsplits);
  rc_stats_set(stats, "cleared_at_restore", L->ncleared);
  rc_stats_set(stats, "rejoin_flow_blocks", L->nflow);
  rc_stats_set(stats, "empty_exec_skips", L->nskips);
  rc_stats_set(stats, "inverted_compares", L->ninverted);
  rc_stats_set(stats, "repeated_writes_dropped", L->nrepeated);
  rc_stats_set(stats, "phi_registers", L->phis.count);
  rc_stats_set(stats, "static_scalar_instructions", L->nscalar);
  rc_stats_set(stats, "wave_divergent_branches", L->nwavediv);
  rc_stats_set(stats, "reconverge_reruns", L->nreruns);
  rc_stats_set(stats, "blocks_after", L->k->nblocks);
}

int rc_pass_lower(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  lower L0;
  memset(&L0, 0, sizeof L0);
  lower *L = &L0;
  L->ctx = ctx;
  L->k = k;
  unsigned unif_flags;
  bool repair;
  if (parse_args(ctx, args, L, &unif_flags, &repair) != 0) return -1;
  /* thesis 4: unreachable blocks are not considered; `br c, T, T` is a jump */
  if (rc_pass_remove_dead_blocks(ctx, k, NULL, NULL) != 0) return -1;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    rc_instr *t = rc_block_term(k->blocks[b]);
    /* a switch with two distinct targets is a two-way branch (reconverging by Def. 15 when one of
     * them post-dominates it) */
    if (t && t->op == RC_OP_SWITCH && rc_switch_to_branch(k, k->blocks[b])) t = rc_block_term(k->blocks[b]);
    if (t && t->op == RC_OP_BR && t->targets[0] == t->targets[1]) {
      rc_instr *j = rc_instr_new(k, RC_OP_JMP, RC_VOID, 0, 1);
      j->targets[0] = t->targets[0];
      rc_block_set_term(k->blocks[b], j);
    }
  }
  uint32_t *uses = count_uses(k);
  L->ninverted = fold_negated_compares(k, uses);
  free(uses);
  rc_analysis a;
  if (analyse(L, &a, unif_flags, repair) != 0) {
    free_lower(L);
    return -1;
  }
  if (!L->rejoin_valid) { /* analyse succeeds only after a run of the refinement that made them */
    rc_analysis_free(&a);
    free_lower(L);
    return rc_error(ctx, "lower: internal error: no rejoin sets for @%s", k->name);
  }
  uint32_t nb = L->nb = k->nblocks;
  L->primary = rc_xcalloc(nb + 1, sizeof *L->primary);
  L->secondary = rc_xcalloc(nb + 1, sizeof *L->secondary);
  L->is_primary = rc_xcalloc(nb + 1, 1);
  L->keep_skip = rc_xcalloc(nb + 1, 1);
  L->join = rc_xcalloc(nb + 1, sizeof *L->join);
  L->mask = rc_xcalloc(nb + 1, sizeof *L->mask);

  if (find_primaries(L, &a) != 0) {
    rc_analysis_free(&a);
    free_lower(L);
    return -1;
  }
  uint8_t *scalar = rc_xcalloc(k->nvalues + 1, 1);
  if (L->scalarize) rc_scalar_values(k, &a.unif, L->is_primary, scalar);

  for (uint32_t b = 0; b < nb; b++) {
    if (!L->is_primary[b]) continue;
    L->nprimary++;
    char name[1100];
    snprintf(name, sizeof name, "m.%.1000s", k->blocks[b]->name);
    L->mask[b] = rc_kernel_add_reg(k, RC_MASK, true, name);
    if (!L->mask[b]) L->mask[b] = rc_kernel_add_reg(k, RC_MASK, true, NULL);
  }
  /* the rejoin sets, inner regions first (lower_regions.c), were made by analyse on the regions
   * of the thread-level CFG (a's) that the wave-level divergence walked last: its primary
   * successors are find_primaries' */
  rc_analysis_free(&a);
  L->dom = NULL;
  /* before any block is added: the CFG is still the thread-level one */
  for (uint32_t b = 0; b < nb; b++)
    if (L->primary[b])
      L->keep_skip[b] = (L->skip && (L->skip_threshold == 0 || worth_skipping(L, k->blocks[b]))) ||
                        skip_needed(L, k->blocks[b], scalar);
  /* the instructions that run once per wave */
  for (uint32_t b = 0; b < nb; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next)
      if (i->op != RC_OP_PHI && i->v.id != RC_NONE && scalar[i->v.id]) {
        i->iflags |= RC_IF_SCALAR;
        L->nscalar++;
      }
  /* the flow blocks of the `flow` variant: the region's edges into B end there */
  for (uint32_t b = 0; b < nb; b++) {
    if (!L->wants_join[b]) continue;
    char name[1100];
    snprintf(name, sizeof name, "%.1000s.flow", k->blocks[b]->name);
    rc_block *j = rc_block_new(k, name);
    j->bflags |= RC_BLOCK_FLOW;
    L->join[b] = j;
    L->nflow++;
  }
  branch_on_waiting_lanes(L);
  phi_registers_init(&L->phis, k);
  replace_phis(L, scalar);
  if (L->zeros.len) qsort(L->zeros.data, L->zeros.len, sizeof *L->zeros.data, cmp_zero);
  uint32_t z = 0;
  for (uint32_t b = 0; b < nb; b++) {
    uint32_t z0 = z;
    while (z < L->zeros.len && L->zeros.data[z].block == b) z++;
    /* no zero-exec edges at all: no array (NULL + 0 is undefined behaviour in C) */
    emit_end(L, k->blocks[b], z > z0 ? L->zeros.data + z0 : NULL, z - z0);
  }
  for (uint32_t b = 0; b < nb; b++) { /* the phis are registers now */
    rc_instr *next;
    for (rc_instr *phi = k->blocks[b]->first; phi && phi->op == RC_OP_PHI; phi = next) {
      next = phi->next;
      rc_instr_detach(phi);
    }
  }
  for (uint32_t b = 0; b < nb; b++) {
    if (!L->join[b]) continue;
    rc_builder bl;
    rc_builder_at_end(&bl, L->join[b]);
    emit_restore(L, &bl, k->blocks[b]);
    rc_build_jmp(&bl, k->blocks[b]);
  }
  k->level = RC_LEVEL_WAVE;
  L->nrepeated = drop_repeated_writes(k);
  set_stats(L, stats);
  /* lay each flow block out just before its block (block ids change from here on) */
  rc_block **owner = rc_xcalloc(nb + 1, sizeof *owner);
  for (uint32_t b = 0; b < nb; b++) owner[b] = k->blocks[b];
  for (uint32_t b = 0; b < nb; b++)
    if (L->join[b]) rc_block_move(L->join[b], owner[b]->id);
  free(owner);
  free(scalar);
  free_lower(L);
  return 0;
}
