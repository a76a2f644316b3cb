/* Uniformity (divergence) analysis: which values and which branches may differ between the
 * threads of a wave. Reference: LLVM's "Convergence And Uniformity" document and
 * GenericUniformityAnalysis / SyncDependenceAnalysis (after Rosemann, Moll and Hack, POPL 2021);
 * Karrenberg and Hack. A fixpoint that starts with everything uniform:
 *
 * Sources. Calls of builtins marked divergent_source in src/ir/tables.c (global_id, local_id,
 *   lane_id, atomics); allocas (every thread has its own private memory, so the address differs);
 *   loads whose address may point to private memory; vector-register reads at wave level.
 *   "May point to private memory" is a taint that flows from allocas through every instruction but
 *   loads; if a tainted value is ever stored to memory (or handed to an atomic) the taint escapes
 *   and every loaded value is tainted too. Parameters, constants, localmem addresses, wave-size and
 *   group queries, ballot and exec are uniform.
 * Data dependence. An instruction with a divergent operand is divergent (ballot excepted).
 * Branches. A br or switch is divergent when its condition is. `!uniform` and `!divergent`
 *   annotations override that verdict (RC_IF_UNIFORM, RC_IF_DIVERGENT), and the flag
 *   RC_UNIF_ALL_DIVERGENT makes every br and switch divergent, annotations included.
 * Sync dependence (src/analysis/syncdep.c). A divergent branch B makes the phis divergent at
 *   each join of B: a block reached from two successors of B by paths that are disjoint but for
 *   their ends. Found as in LLVM's SyncDependenceAnalysis, by propagating "labels" (the nearest
 *   definition of a virtual variable assigned differently in each successor of B) in topological
 *   order of an acyclic graph; a block receiving two different labels is a join and becomes its
 *   own label.
 *   Propagation stops once all fresh labels are the same one (all later blocks would get that one
 *   label), which keeps it to the region that B controls (LLVM stops at one fresh block).
 *   The acyclic graph is LLVM's "modified post-order" made explicit (src/analysis/syncgraph.c):
 *   the header of a reducible cycle does not lead into its body but straight to the cycle's
 *   exits, so its back edges end there; a branch outside the cycle reaches at most its header (the
 *   only entry), a branch inside propagates through the body to the latches and from the header
 *   to the exits. Labels jump over single-entry single-exit regions, where nothing can join.
 *   A block with two labels is a join only if they came along two different incoming edges
 *   (edges from a cycle's header to its exits stand for the exiting edges of the cycle).
 *   Phis of a join block whose incoming values are all the same value (undef and the phi itself
 *   aside) stay uniform.
 *   Branches are propagated in batches in reverse post-order, each confined to the region that
 *   earlier ones leave it: where an earlier branch labelled otherwise, everything that could be
 *   found was found already (see "Sharing between branches" in syncdep.c). A branch reached only
 *   from another branch of the batch, in the same cycles (a link of a lowered switch's chain), is
 *   propagated with it, as one multi-way branch: one propagation per chain, not one per link
 *   (see "Chains of branches" in syncdep.c).
 * Temporal divergence. If an exit of a reducible cycle C that contains B has two labels and
 *   received one from C's header (threads that went round again), threads leave C in different
 *   iterations (a divergent exit). Then every value defined in the outermost cycle containing B
 *   but not that exit and used outside it is marked divergent itself (not only its outside uses,
 *   as LLVM does): a consumer that keeps a uniform value in one scalar register would hand a
 *   lane that left earlier the value of a later iteration. This costs precision inside the
 *   cycle. Except when every outside use is a phi that takes the value on edges leaving the
 *   innermost cycle around its definition, and the value is not an i1
 *   (read_outside_only_by_exit_phis): the copy into the phi is made on the exit edge, so only
 *   the phis diverge. The exit's phis diverge if threads reach it along two edges (B -> X now, or
 *   later through the header, which leaves along another edge).
 * Irreducible cycles, conservatively. Each outermost irreducible cycle K is one node of the
 *   acyclic graph, leading to K's exits. If a divergent branch lies in K, or two different labels
 *   reach K (threads enter it divergently), K is "assumed divergent" as in LLVM: every value
 *   defined in K is divergent (this includes the phis at its entries), and K acts as a divergent
 *   branch whose successors are its exits (each exit gets its own label).
 *
 * Cost: building the effect graph (one pass over the instructions) and the fixpoint are linear;
 * sync propagation costs, per divergent branch, the nodes its labels reach before they meet
 * within the region earlier branches leave it, with single-entry single-exit regions counting
 * as one, times a log for the heap; temporal marking visits each cycle with a divergent exit
 * once. On generated kernels (bench_analysis --shape gen) ten times the blocks take about eleven
 * times as long. */
#include "reconv/analysis.h"

#include "escapes.h"
#include "syncdep.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* A use in the effect graph (see build_effects): the value that becomes divergent with the value
 * used, or a tagged block: the block whose branch becomes divergent, or the block of a use that
 * makes nothing divergent (kept for temporal divergence, which asks where values are used). */
enum { USE_BRANCH = 1u << 31, USE_ONLY = 1u << 30, USE_TAGS = USE_BRANCH | USE_ONLY };

typedef struct unif {
  const rc_kernel *k;
  const rc_cfg *g;
  const rc_domtree *dom, *pdom;
  const rc_cycle_info *ci;
  rc_uniformity *u;
  uint32_t n;
  unsigned flags;

  uint32_t *def_block;  /* per value: the block of its defining instruction, or RC_NONE */
  const rc_instr **def_instr; /* per value: its defining instruction, or NULL (parameters) */
  uint32_t *defs_start, *defs; /* per block (CSR): the values it defines, in order */
  uint32_t *use_start, *use; /* per value (CSR): the effects of its uses */
  rc_u32vec work;       /* divergent values whose effects are not yet applied */

  rc_syncdep sd;        /* sync dependence (syncdep.h), built on the first divergent branch */
  bool sd_ready;
  rc_u32vec branches;   /* divergent branches whose sync dependence is not yet propagated */
  uint32_t *rpo_index;  /* per block: position in reverse post-order (built with sd) */
  rc_escapes esc;       /* values escaping cycles, for temporal divergence (built on first use) */
  bool esc_ready;
} unif;

/* ---- marking ---------------------------------------------------------------------------------- */

static void mark_value(unif *s, uint32_t id) {
  if (id == RC_NONE || id >= s->u->nvalues || s->u->divergent_value[id]) return;
  s->u->divergent_value[id] = 1;
  rc_vec_push(&s->work, id);
}

static bool same_value(const rc_value *a, const rc_value *b) {
  if (a == b) return true;
  if (a->kind == RC_V_CONST && b->kind == RC_V_CONST && a->type == b->type)
    return rc_type_is_float((rc_type)a->type) ? rc_const_fval(a) == rc_const_fval(b)
                                              : rc_const_ival(a) == rc_const_ival(b);
  return false;
}

/* A phi whose incoming values are all one value, apart from undef and the phi itself (SSA repair
 * and the transforms make such phis), is that value on every path: which way a thread came makes
 * no difference (LLVM's PHINode::hasConstantOrUndefValue). It can still be divergent by data
 * dependence on that value. */
static bool phi_is_trivial(const rc_instr *phi) {
  const rc_value *only = NULL;
  for (uint32_t i = 0; i < phi->nops; i++) {
    const rc_value *v = phi->ops[i];
    if (v->kind == RC_V_UNDEF || v == &phi->v) continue;
    if (!only) only = v;
    else if (!same_value(only, v)) return false;
  }
  return true;
}

static void taint_phis(unif *s, uint32_t b) {
  for (rc_instr *i = s->k->blocks[b]->first; i && i->op == RC_OP_PHI; i = i->next) {
    if (!phi_is_trivial(i)) mark_value(s, i->v.id);
  }
  s->u->sync_join[b] = 1;
}

/* Through the per-block lists of definitions, not the instructions: an assumed-divergent cycle can
 * hold a large part of the kernel, and the lists are small and in order. */
static void taint_all_defs(unif *s, uint32_t c) {
  const rc_cycle *cy = &s->ci->cycles[c];
  for (uint32_t i = 0; i < cy->nblocks; i++) {
    uint32_t b = cy->blocks[i];
    for (uint32_t d = s->defs_start[b]; d < s->defs_start[b + 1]; d++) mark_value(s, s->defs[d]);
  }
}

static void branch_divergent(unif *s, uint32_t b);
static bool is_conditional(const rc_instr *t);

/* Whether every use of value id outside the innermost cycle around its definition is a phi that
 * takes it on edges from blocks of that cycle (an exit's phi). The copy into such a phi is made on
 * the exit edge, inside the cycle, by the lanes that leave then (the IPDOM model's edge copies;
 * lower's rset at the end of the block they leave), so no lane reads the value after a later
 * iteration changed it: the value can stay uniform, and only those phis diverge, as in LLVM's
 * rule: a loop counter that also feeds an exit's phi stays on the scalar unit. The innermost
 * cycle, not the one whose exit is divergent, because a value is taken from the escape index once:
 * its phis outside any cycle it leaves are marked now. */
static bool read_outside_only_by_exit_phis(const unif *s, uint32_t id) {
  /* An i1 is left divergent: at the divergent phi it becomes a lane mask, which a per-lane compare
   * writes directly, while a scalar i1 needs a mask instruction at every copy (docs/cost.md). */
  if (!s->def_instr[id] || s->def_instr[id]->v.type == RC_I1) return false;
  uint32_t c = s->ci->innermost[s->def_block[id]];
  for (uint32_t e = s->use_start[id]; e < s->use_start[id + 1]; e++) {
    uint32_t eff = s->use[e];
    uint32_t ub = eff & USE_TAGS ? eff & ~USE_TAGS : s->def_block[eff];
    if (ub == RC_NONE || rc_cycle_contains(s->ci, c, ub)) continue;
    const rc_instr *phi = eff & USE_TAGS ? NULL : s->def_instr[eff];
    if (!phi || phi->op != RC_OP_PHI) return false;
    for (uint32_t o = 0; o < phi->nops; o++)
      if (phi->ops[o]->kind == RC_V_INSTR && phi->ops[o]->id == id &&
          !rc_cycle_contains(s->ci, c, phi->targets[o]->id))
        return false;
  }
  return true;
}

/* Cycle c has a divergent exit: the values that leave it are divergent (escapes.c). Values that
 * are divergent already when the index is built are left out of it. */
static void mark_temporal(unif *s, uint32_t c) {
  if (s->u->temporal_cycle[c]) return;
  s->u->temporal_cycle[c] = 1;
  if (!s->esc_ready) {
    uint32_t nv = s->u->nvalues, nuses = s->use_start[nv];
    const uint8_t *skip = s->u->divergent_value;
    uint32_t *use_block = rc_xmalloc((nuses ? nuses : 1) * sizeof *use_block);
    for (uint32_t id = 0; id < nv; id++)
      for (uint32_t e = s->use_start[id]; !skip[id] && e < s->use_start[id + 1]; e++)
        use_block[e] = s->use[e] & USE_TAGS ? s->use[e] & ~USE_TAGS : s->def_block[s->use[e]];
    rc_escapes_build(&s->esc, s->ci, nv, s->def_block, s->use_start, use_block, skip);
    free(use_block);
    s->esc_ready = true;
  }
  for (uint32_t id; (id = rc_escapes_take(&s->esc, c)) != RC_NONE;) {
    uint32_t left = c; /* the cycle whose outside users diverge */
    if (!(s->flags & RC_UNIF_TARGET)) {
      if (!read_outside_only_by_exit_phis(s, id)) {
        mark_value(s, id);
        continue;
      }
      left = s->ci->innermost[s->def_block[id]];
    }
    /* LLVM's rule: the value stays uniform inside the cycle; its users outside diverge */
    for (uint32_t e = s->use_start[id]; e < s->use_start[id + 1]; e++) {
      uint32_t eff = s->use[e];
      uint32_t ub = eff & USE_TAGS ? eff & ~USE_TAGS : s->def_block[eff];
      if (ub == RC_NONE || rc_cycle_contains(s->ci, left, ub)) continue;
      if (eff & USE_BRANCH) branch_divergent(s, eff & ~USE_TAGS);
      else if (!(eff & USE_ONLY)) mark_value(s, eff);
    }
  }
}

/* Branch b is divergent; its sync dependence is propagated with the next batch. */
static void branch_divergent(unif *s, uint32_t b) {
  if (s->u->divergent_branch[b]) return;
  s->u->divergent_branch[b] = 1;
  if (rc_domtree_contains(s->dom, b)) rc_vec_push(&s->branches, b);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Propagate the pending divergent branches, in reverse post-order (outer and earlier branches
 * first: later ones then share what they found, see syncdep.c), and apply what they found. */
static void propagate_branches(unif *s) {
  if (!s->sd_ready) { /* uniform kernels never pay for it */
    rc_syncdep_init(&s->sd, s->g, s->dom, s->pdom, s->ci, !(s->flags & RC_UNIF_EXHAUSTIVE));
    s->rpo_index = rc_xmalloc((s->n ? s->n : 1) * sizeof *s->rpo_index);
    uint32_t *rpo = rc_xmalloc((s->n ? s->n : 1) * sizeof *rpo);
    rc_cfg_rpo(s->g, rpo, s->rpo_index);
    free(rpo);
    s->sd_ready = true;
  }
  uint32_t nb = s->branches.len;
  uint64_t *order = rc_xmalloc(nb * sizeof *order);
  for (uint32_t i = 0; i < nb; i++) {
    uint32_t b = s->branches.data[i];
    order[i] = (uint64_t)s->rpo_index[b] << 32 | b;
  }
  s->branches.len = 0;
  qsort(order, nb, sizeof *order, cmp_u64);
  uint32_t *sorted = rc_xmalloc((nb ? nb : 1) * sizeof *sorted);
  for (uint32_t i = 0; i < nb; i++) sorted[i] = (uint32_t)order[i];
  free(order);
  rc_syncdep_result r = {0};
  rc_syncdep_batch(&s->sd, sorted, nb, &r);
  free(sorted);
  for (uint32_t i = 0; i < r.joins.len; i++) taint_phis(s, r.joins.data[i]);
  for (uint32_t i = 0; i < r.diverged.len; i++) {
    s->u->assumed_divergent[r.diverged.data[i]] = 1;
    taint_all_defs(s, r.diverged.data[i]);
  }
  for (uint32_t i = 0; i < r.exited.len; i++) mark_temporal(s, r.exited.data[i]);
  rc_syncdep_result_free(&r);
}

/* ---- private memory ------------------------------------------------------------------------------ */

/* Which values may hold an address into private memory (derived from an alloca)? */
static uint8_t *private_taint(const rc_kernel *k) {
  uint32_t nv = k->nvalues;
  /* users of each value, and its definition */
  uint32_t *start = rc_xcalloc(nv + 2, sizeof *start);
  const rc_instr **def = rc_xcalloc(nv ? nv : 1, sizeof *def);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->v.type != RC_VOID && i->v.id < nv) def[i->v.id] = i;
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o] && i->ops[o]->id < nv) start[i->ops[o]->id + 2]++;
    }
  for (uint32_t id = 0; id < nv; id++) start[id + 2] += start[id + 1];
  const rc_instr **users = rc_xmalloc((start[nv + 1] ? start[nv + 1] : 1) * sizeof *users);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next)
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o] && i->ops[o]->id < nv) users[start[i->ops[o]->id + 1]++] = i;
  /* start[id] .. start[id + 1] now */
  uint8_t *pt = rc_xcalloc(nv ? nv : 1, 1);
  rc_u32vec work = {0};
  bool escaped = false;
  for (uint32_t id = 0; id < nv; id++)
    if (def[id] && def[id]->op == RC_OP_ALLOCA) {
      pt[id] = 1;
      rc_vec_push(&work, id);
    }
  for (;;) {
    while (work.len) {
      uint32_t id = work.data[--work.len];
      for (uint32_t e = start[id]; e < start[id + 1]; e++) {
        const rc_instr *u = users[e];
        if (u->op == RC_OP_STORE && u->ops[0]->id == id && u->ops[0]->kind != RC_V_CONST) escaped = true;
        if (u->op == RC_OP_CALL && rc_builtin_get((rc_builtin)u->pred)->has_side_effects)
          for (uint32_t o = 1; o < u->nops; o++) escaped |= u->ops[o]->id == id;
        if (u->op == RC_OP_LOAD || u->v.type == RC_VOID || u->v.id == RC_NONE || pt[u->v.id]) continue;
        pt[u->v.id] = 1;
        rc_vec_push(&work, u->v.id);
      }
    }
    if (!escaped) break;
    /* a private address went to memory: any load may bring it back */
    bool added = false;
    for (uint32_t id = 0; id < nv; id++)
      if (def[id] && def[id]->op == RC_OP_LOAD && !pt[id]) {
        pt[id] = 1;
        rc_vec_push(&work, id);
        added = true;
      }
    if (!added) break;
  }
  rc_vec_free(&work);
  free(start);
  free(def);
  free(users);
  return pt;
}

/* Loads through an address that may point to private memory are sources (each thread reads its
 * own memory). Only kernels with an alloca pay for this. */
static void private_loads(unif *s) {
  const rc_kernel *k = s->k;
  uint8_t *pt = private_taint(k);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next)
      if (i->op == RC_OP_LOAD && i->ops[0]->kind != RC_V_CONST && i->ops[0]->id < k->nvalues &&
          pt[i->ops[0]->id])
        mark_value(s, i->v.id);
  free(pt);
}

/* ---- sources, the effect graph and the fixpoint ------------------------------------------------- */

static bool is_conditional(const rc_instr *t) {
  return t && (t->op == RC_OP_BR || t->op == RC_OP_SWITCH) && t->ntargets >= 2;
}

unsigned rc_uniformity_target_flags(const rc_kernel *k) {
  const char *t = k->mod->triple;
  return t && strncmp(t, "amdgcn", 6) == 0 ? RC_UNIF_TARGET : 0;
}

/* Sources but loads through private memory (private_loads). In the target's view (RC_UNIF_TARGET,
 * amdgcn), what its analysis calls divergent whatever the operands: calls it cannot see into
 * (RC_IF_VARYING), loads through flat (0) and private (5) pointers; not allocas. */
static bool is_source(const rc_instr *i, unsigned flags) {
  bool target = flags & RC_UNIF_TARGET;
  switch (i->op) {
  case RC_OP_CALL:
    return rc_builtin_get((rc_builtin)i->pred)->divergent_source || (target && (i->iflags & RC_IF_VARYING));
  case RC_OP_CALLFN: return true; /* reconv does not look into callees: their results may differ */
  case RC_OP_OPAQUE: return i->iflags & RC_IF_VARYING;
  case RC_OP_ALLOCA: return !target;
  case RC_OP_LOAD: {
    unsigned as = rc_type_addrspace((rc_type)i->ops[0]->type);
    return target && (as == 0 || as == 5);
  }
  case RC_OP_RGET: return i->u.reg && !i->u.reg->scalar;
  default: return false;
  }
}

/* What operand o of instruction i (in block b) makes divergent when its value is: the value of i
 * (data dependence; ballot excepted: one mask per wave), USE_BRANCH | b for the condition of a
 * conditional branch (unless annotated !uniform, or all branches are divergent anyway), or
 * USE_ONLY | b for nothing. */
static uint32_t use_effect(const rc_instr *i, uint32_t o, uint32_t b, unsigned flags) {
  if (rc_opcode_is_terminator((rc_opcode)i->op))
    return (is_conditional(i) && o == 0 && !(i->iflags & RC_IF_UNIFORM) && !(flags & RC_UNIF_ALL_DIVERGENT)
                ? USE_BRANCH
                : USE_ONLY) |
           b;
  return i->op == RC_OP_BALLOT || i->v.type == RC_VOID ? USE_ONLY | b : i->v.id;
}

/* One pass over the instructions in block order, which walks memory mostly in sequence: the
 * block of every definition, the sources (but private loads), the divergent branches by
 * annotation, and every use as a pair (value used, effect); then the pairs sorted by value into
 * the effect graph (use_start, use), which the fixpoint reads instead of chasing an instruction
 * for every use. */
static void build_effects(unif *s) {
  const rc_kernel *k = s->k;
  uint32_t nv = s->u->nvalues;
  assert(nv < USE_ONLY && k->nblocks < USE_ONLY);
  s->def_block = rc_xmalloc((nv ? nv : 1) * sizeof *s->def_block);
  s->def_instr = rc_xcalloc(nv ? nv : 1, sizeof *s->def_instr);
  for (uint32_t id = 0; id < nv; id++) s->def_block[id] = RC_NONE;
  s->use_start = rc_xcalloc(nv + 2, sizeof *s->use_start);
  s->defs_start = rc_xmalloc((k->nblocks + 1) * sizeof *s->defs_start);
  s->defs = rc_xmalloc((nv ? nv : 1) * sizeof *s->defs);
  uint32_t ndefs = 0;
  /* (value used, effect) pairs; about two uses per value */
  RC_VEC(uint64_t) pairs = {0};
  rc_vec_reserve(&pairs, 2 * nv + 16);
  bool allocas = false;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    s->defs_start[b] = ndefs;
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->v.type != RC_VOID && i->v.id < nv) {
        s->def_block[i->v.id] = b;
        s->def_instr[i->v.id] = i;
        s->defs[ndefs++] = i->v.id;
        if (is_source(i, s->flags)) mark_value(s, i->v.id);
        allocas |= i->op == RC_OP_ALLOCA;
      }
      for (uint32_t o = 0; o < i->nops; o++) {
        uint32_t id = i->ops[o] ? i->ops[o]->id : RC_NONE;
        if (id >= nv) continue;
        rc_vec_push(&pairs, (uint64_t)id << 32 | use_effect(i, o, b, s->flags));
        s->use_start[id + 2]++;
      }
    }
    const rc_instr *t = rc_block_term(k->blocks[b]);
    if (is_conditional(t) && ((s->flags & RC_UNIF_ALL_DIVERGENT) || (t->iflags & RC_IF_DIVERGENT)))
      branch_divergent(s, b);
  }
  s->defs_start[k->nblocks] = ndefs;
  for (uint32_t id = 0; id < nv; id++) s->use_start[id + 2] += s->use_start[id + 1];
  s->use = rc_xmalloc((pairs.len ? pairs.len : 1) * sizeof *s->use);
  for (uint32_t e = 0; e < pairs.len; e++) s->use[s->use_start[(pairs.data[e] >> 32) + 1]++] = (uint32_t)pairs.data[e];
  /* use_start[id] .. use_start[id + 1] now */
  rc_vec_free(&pairs);
  if (allocas && !(s->flags & RC_UNIF_TARGET)) private_loads(s);
  /* a device function's parameters differ between the threads of a call unless the module's
   * analysis of its call sites (or the target's calling convention) says otherwise */
  if (k->is_function)
    for (uint32_t p = 0; p < k->nparams; p++)
      if (!k->param_divergent || k->param_divergent[p]) mark_value(s, k->params[p]->id);
}

/* Value id became divergent: so do the values and branches its uses affect. */
static void apply_effects(unif *s, uint32_t id) {
  for (uint32_t e = s->use_start[id]; e < s->use_start[id + 1]; e++) {
    uint32_t eff = s->use[e];
    if (eff & USE_BRANCH) branch_divergent(s, eff & ~USE_TAGS);
    else if (!(eff & USE_ONLY)) mark_value(s, eff);
  }
}

int rc_uniformity_build(rc_uniformity *u, const rc_kernel *k, const rc_cfg *g,
                        const rc_domtree *dom, const rc_domtree *pdom,
                        const rc_cycle_info *ci, unsigned flags) {
  memset(u, 0, sizeof *u);
  uint32_t n = g->nblocks, nv = k->nvalues, m = ci->ncycles;
  u->nvalues = nv;
  u->nblocks = n;
  u->ncycles = m;
  u->divergent_value = rc_xcalloc(nv ? nv : 1, 1);
  u->divergent_branch = rc_xcalloc(n ? n : 1, 1);
  u->sync_join = rc_xcalloc(n ? n : 1, 1);
  u->temporal_cycle = rc_xcalloc(m ? m : 1, 1);
  u->assumed_divergent = rc_xcalloc(m ? m : 1, 1);

  unif s = {.k = k, .g = g, .dom = dom, .pdom = pdom, .ci = ci, .u = u, .n = n, .flags = flags};
  /* LLVM 14's divergence analysis gives up on a function with an irreducible cycle anywhere:
   * every value and branch of it is divergent (DivergenceInfo, "ContainsIrreducible"). The
   * target's view says the same, so that what reconverge makes of such a kernel is reconverging
   * for the backend too. */
  if (flags & RC_UNIF_TARGET)
    for (uint32_t c = 0; c < m; c++)
      if (!ci->cycles[c].reducible) {
        memset(u->divergent_value, 1, nv);
        for (uint32_t b = 0; b < n; b++) u->divergent_branch[b] = is_conditional(rc_block_term(k->blocks[b]));
        return 0;
      }
  build_effects(&s); /* and the sources */
  /* the fixpoint: data dependence to the end, then sync dependence of the branches that became
   * divergent meanwhile, until neither adds anything */
  for (;;) {
    while (s.work.len) apply_effects(&s, s.work.data[--s.work.len]);
    if (!s.branches.len) break;
    propagate_branches(&s);
  }

  free(s.def_block);
  free(s.def_instr);
  free(s.defs_start);
  free(s.defs);
  free(s.use_start);
  free(s.use);
  if (s.sd_ready) rc_syncdep_free(&s.sd);
  free(s.rpo_index);
  rc_vec_free(&s.branches);
  if (s.esc_ready) rc_escapes_free(&s.esc);
  rc_vec_free(&s.work);
  return 0;
}

void rc_uniformity_free(rc_uniformity *u) {
  free(u->divergent_value);
  free(u->divergent_branch);
  free(u->sync_join);
  free(u->temporal_cycle);
  free(u->assumed_divergent);
  memset(u, 0, sizeof *u);
}
