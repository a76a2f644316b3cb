/* SSA repair: the one utility every CFG transform uses to restore SSA form after rerouting edges.
 *
 * After edges move, two things can break (thesis 5.1, "Fix phi-nodes"):
 *  (a) a phi names incoming blocks that are no longer predecessors, and lacks entries for new ones;
 *  (b) a definition no longer dominates some of its uses.
 * Both are repaired the same way, as LLVM's SSAUpdater does (Braun et al. 2013 describe the
 * on-the-fly variant the thesis cites): a "variable" has definitions available at the ends of some
 * blocks; phis are placed at the iterated dominance frontier of those blocks (Cytron et al.); the
 * value reaching any point is found by walking up the dominator tree to the nearest definition or
 * placed phi; a point no definition reaches reads `undef` (no thread can get there along a path
 * that needs the value). Phis placed but never used are deleted afterwards.
 *
 * For (a), the definitions of the variable of phi P in block T are P's incoming values, each
 * available at the end of its incoming block; P's new entry for each current predecessor p is the
 * value at the end of p. For (b), the definition is the instruction itself.
 * Everything is iterative and uses per-block scratch arrays stamped per variable, so a repair costs
 * time proportional to the blocks and uses it touches. */
#include "reconv/analysis.h"
#include "reconv/transform.h"

#include <stdlib.h>
#include <string.h>

typedef struct use_ref {
  rc_instr *user;
  uint32_t op;
} use_ref;

typedef struct repair {
  rc_kernel *k;
  const rc_cfg *g;
  const rc_domtree *dom;
  rc_cfg own_g; /* g and dom when the repair built them */
  rc_domtree own_dom;
  bool owns_dominance;
  rc_domfrontier df;
  uint32_t nblocks;
  uint32_t cur;             /* stamp of the current variable */
  uint32_t *memo_stamp;     /* value at end of block, memoised */
  rc_value **memo_val;
  uint32_t *def_stamp;      /* definition available at end of block */
  rc_value **def_val;
  uint32_t *phi_stamp;      /* phi placed at the start of block */
  rc_instr **phi_at;
  uint32_t *idf_stamp;      /* IDF membership / worklist marks */
  rc_u32vec work, path, idf;
  RC_VEC(rc_instr *) placed; /* phis placed by this repair (candidates for deletion) */
  uint32_t phis_added;
  bool linearized;          /* rc_ssa_repair_linearized: original blocks are followed by a def */
  bool dead_at_original;    /* the current variable is a phi of an original block's (see there) */
} repair;

/* The dominator tree alone answers whether anything is broken; the frontier and the scratch arrays
 * are built only when there is something to repair. */
static void repair_init_dominance(repair *r, rc_kernel *k) {
  memset(r, 0, sizeof *r);
  r->k = k;
  rc_cfg_build(&r->own_g, k);
  rc_domtree_build(&r->own_dom, &r->own_g, false);
  r->g = &r->own_g;
  r->dom = &r->own_dom;
  r->owns_dominance = true;
}

static void repair_init_given(repair *r, rc_kernel *k, const rc_cfg *g, const rc_domtree *dom) {
  memset(r, 0, sizeof *r);
  r->k = k;
  r->g = g;
  r->dom = dom;
}

static void repair_init_rest(repair *r) {
  rc_domfrontier_build(&r->df, r->dom, r->g);
  uint32_t n = r->nblocks = r->k->nblocks;
  r->memo_stamp = rc_xcalloc(n + 1, sizeof *r->memo_stamp);
  r->memo_val = rc_xcalloc(n + 1, sizeof *r->memo_val);
  r->def_stamp = rc_xcalloc(n + 1, sizeof *r->def_stamp);
  r->def_val = rc_xcalloc(n + 1, sizeof *r->def_val);
  r->phi_stamp = rc_xcalloc(n + 1, sizeof *r->phi_stamp);
  r->phi_at = rc_xcalloc(n + 1, sizeof *r->phi_at);
  r->idf_stamp = rc_xcalloc(n + 1, sizeof *r->idf_stamp);
}

static void repair_init(repair *r, rc_kernel *k) {
  repair_init_dominance(r, k);
  repair_init_rest(r);
}

static void repair_free(repair *r) {
  rc_domfrontier_free(&r->df);
  if (r->owns_dominance) {
    rc_domtree_free(&r->own_dom);
    rc_cfg_free(&r->own_g);
  }
  free(r->memo_stamp);
  free(r->memo_val);
  free(r->def_stamp);
  free(r->def_val);
  free(r->phi_stamp);
  free(r->phi_at);
  free(r->idf_stamp);
  rc_vec_free(&r->work);
  rc_vec_free(&r->path);
  rc_vec_free(&r->idf);
  rc_vec_free(&r->placed);
}

/* Start a new variable: defs are given with add_def, then place_phis. */
static void begin_variable(repair *r) {
  r->cur++;
  r->work.len = 0;
}

static void add_def(repair *r, uint32_t block, rc_value *v) {
  if (!rc_domtree_contains(r->dom, block)) return; /* unreachable definitions reach nothing */
  if (r->def_stamp[block] != r->cur) rc_vec_push(&r->work, block);
  r->def_stamp[block] = r->cur;
  r->def_val[block] = v;
}

/* Value of the variable at the end of block b. */
static rc_value *read_end(repair *r, uint32_t b, rc_type t) {
  if (!rc_domtree_contains(r->dom, b)) return rc_undef(r->k, t);
  r->path.len = 0;
  rc_value *v = NULL;
  uint32_t x = b;
  for (;;) {
    if (r->memo_stamp[x] == r->cur) {
      v = r->memo_val[x];
      break;
    }
    if (r->def_stamp[x] == r->cur) {
      v = r->def_val[x];
      break;
    }
    if (r->phi_stamp[x] == r->cur) {
      v = &r->phi_at[x]->v;
      break;
    }
    if (r->dead_at_original && !(r->k->blocks[x]->bflags & RC_BLOCK_GUARD)) {
      v = rc_undef(r->k, t); /* no definition here: one of T's own predecessors follows */
      break;
    }
    rc_vec_push(&r->path, x);
    if (r->dom->idom[x] == x) {
      v = rc_undef(r->k, t);
      break;
    }
    x = r->dom->idom[x];
  }
  for (uint32_t i = 0; i < r->path.len; i++) {
    r->memo_stamp[r->path.data[i]] = r->cur;
    r->memo_val[r->path.data[i]] = v;
  }
  return v;
}

/* Value at the start of block b (for a use in b that no definition in b precedes). */
static rc_value *read_begin(repair *r, uint32_t b, rc_type t) {
  if (!rc_domtree_contains(r->dom, b)) return rc_undef(r->k, t);
  if (r->phi_stamp[b] == r->cur) return &r->phi_at[b]->v;
  if (r->dom->idom[b] == b) return rc_undef(r->k, t);
  return read_end(r, r->dom->idom[b], t);
}

/* Place phis at the iterated dominance frontier of the definition blocks and fill them. When the
 * frontier contains `own_block`, `own_phi` (the phi being repaired) stands for the variable there
 * instead of a duplicate; its operands are rebuilt by the caller. */
static void place_phis(repair *r, rc_type t, uint32_t own_block, rc_instr *own_phi) {
  r->idf.len = 0;
  while (r->work.len) {
    uint32_t b = r->work.data[--r->work.len];
    for (uint32_t e = r->df.start[b]; e < r->df.start[b + 1]; e++) {
      uint32_t f = r->df.nodes[e];
      if (r->idf_stamp[f] == r->cur) continue;
      r->idf_stamp[f] = r->cur;
      rc_vec_push(&r->idf, f);
      if (r->def_stamp[f] != r->cur) rc_vec_push(&r->work, f);
    }
  }
  for (uint32_t i = 0; i < r->idf.len; i++) {
    uint32_t f = r->idf.data[i];
    if (f == own_block) {
      r->phi_stamp[f] = r->cur;
      r->phi_at[f] = own_phi;
      continue;
    }
    rc_instr *phi = rc_instr_new(r->k, RC_OP_PHI, t, 0, 0);
    rc_instr_prepend(r->k->blocks[f], phi); /* O(1); placed phis go before the existing ones */
    r->phi_stamp[f] = r->cur;
    r->phi_at[f] = phi;
    rc_vec_push(&r->placed, phi);
    r->phis_added++;
  }
  for (uint32_t i = 0; i < r->idf.len; i++) {
    uint32_t f = r->idf.data[i];
    if (f == own_block) continue;
    rc_block *blk = r->k->blocks[f];
    for (uint32_t p = 0; p < blk->npreds; p++) {
      rc_block *pb = blk->preds[p];
      if (rc_phi_index_of(r->phi_at[f], pb) >= 0) continue;
      rc_phi_add_incoming(r->phi_at[f], read_end(r, pb->id, t), pb);
    }
  }
}

/* ---- (b): definitions that no longer dominate their uses -------------------------------------------- */

static bool use_is_dominated(const repair *r, const rc_instr *def, const use_ref *u) {
  uint32_t db = def->parent->id;
  if (u->user->op == RC_OP_PHI) {
    uint32_t from = u->user->targets[u->op]->id;
    if (!rc_domtree_contains(r->dom, from)) return true; /* dead edge: nothing to read */
    return rc_dominates(r->dom, db, from);
  }
  uint32_t ub = u->user->parent->id;
  if (!rc_domtree_contains(r->dom, ub)) return true;
  return db == ub || rc_dominates(r->dom, db, ub);
}

static void repair_definition(repair *r, rc_instr *def, const use_ref *uses, uint32_t nuses) {
  rc_type t = (rc_type)def->v.type;
  begin_variable(r);
  add_def(r, def->parent->id, &def->v);
  place_phis(r, t, RC_NONE, NULL);
  for (uint32_t i = 0; i < nuses; i++) {
    const use_ref *u = &uses[i];
    rc_value *nv;
    if (u->user->op == RC_OP_PHI)
      nv = read_end(r, u->user->targets[u->op]->id, t);
    else if (u->user->parent == def->parent)
      nv = &def->v;
    else
      nv = read_begin(r, u->user->parent->id, t);
    u->user->ops[u->op] = nv;
  }
}

/* ---- (a): phis whose incoming blocks are not the predecessors any more ------------------------------- */

static bool phi_is_stale(const rc_instr *phi) {
  const rc_block *b = phi->parent;
  uint32_t distinct = 0;
  for (uint32_t p = 0; p < b->npreds; p++) {
    bool first = true;
    for (uint32_t q = 0; q < p; q++) first &= b->preds[q] != b->preds[p];
    if (!first) continue;
    distinct++;
    if (rc_phi_index_of(phi, b->preds[p]) < 0) return true;
  }
  return distinct != phi->nops;
}

static void repair_phi_incomings(repair *r, rc_instr *phi) {
  rc_type t = (rc_type)phi->v.type;
  begin_variable(r);
  for (uint32_t i = 0; i < phi->nops; i++) add_def(r, phi->targets[i]->id, phi->ops[i]);
  r->dead_at_original = r->linearized && !(phi->parent->bflags & RC_BLOCK_GUARD);
  place_phis(r, t, phi->parent->id, phi);
  rc_block *b = phi->parent;
  RC_VEC(rc_value *) vals = {0};
  RC_VEC(rc_block *) from = {0};
  for (uint32_t p = 0; p < b->npreds; p++) {
    bool first = true;
    for (uint32_t q = 0; q < p; q++) first &= b->preds[q] != b->preds[p];
    if (!first) continue;
    rc_vec_push(&vals, read_end(r, b->preds[p]->id, t));
    rc_vec_push(&from, b->preds[p]);
  }
  r->dead_at_original = false;
  while (phi->nops) rc_phi_remove_incoming(phi, phi->nops - 1);
  for (uint32_t i = 0; i < vals.len; i++) rc_phi_add_incoming(phi, vals.data[i], from.data[i]);
  rc_vec_free(&vals);
  rc_vec_free(&from);
}

/* ---- deleting placed phis nobody uses ------------------------------------------------------------------ */

/* Delete the placed phis that no real instruction needs: a placed phi is live when an instruction
 * that is not a placed phi uses it, or a live placed phi does. Dead ones, including cycles of phis
 * that only feed each other (around loops), go. */
static void delete_unused_placed(repair *r) {
  rc_kernel *k = r->k;
  if (!r->placed.len) return;
  uint32_t *placed_index = rc_xmalloc((k->nvalues + 1) * sizeof *placed_index);
  for (uint32_t i = 0; i <= k->nvalues; i++) placed_index[i] = RC_NONE;
  for (uint32_t i = 0; i < r->placed.len; i++) placed_index[r->placed.data[i]->v.id] = i;
  uint8_t *live = rc_xcalloc(r->placed.len, 1);
  rc_u32vec work = {0};
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->v.id != RC_NONE && i->v.id <= k->nvalues && placed_index[i->v.id] != RC_NONE) continue;
      for (uint32_t o = 0; o < i->nops; o++) {
        rc_value *v = i->ops[o];
        if (v->kind != RC_V_INSTR || placed_index[v->id] == RC_NONE) continue;
        uint32_t pi = placed_index[v->id];
        if (!live[pi]) {
          live[pi] = 1;
          rc_vec_push(&work, pi);
        }
      }
    }
  while (work.len) {
    rc_instr *phi = r->placed.data[work.data[--work.len]];
    for (uint32_t o = 0; o < phi->nops; o++) {
      rc_value *v = phi->ops[o];
      if (v->kind != RC_V_INSTR || placed_index[v->id] == RC_NONE) continue;
      uint32_t pi = placed_index[v->id];
      if (!live[pi]) {
        live[pi] = 1;
        rc_vec_push(&work, pi);
      }
    }
  }
  for (uint32_t i = 0; i < r->placed.len; i++)
    if (!live[i] && r->placed.data[i]->parent) {
      rc_instr_detach(r->placed.data[i]);
      r->phis_added--;
    }
  rc_vec_free(&work);
  free(live);
  free(placed_index);
}

/* ---- entry points ------------------------------------------------------------------------------------------- */

/* Uses of every value, as CSR by value id. */
static void collect_uses(const rc_kernel *k, uint32_t **start_out, use_ref **uses_out) {
  uint32_t n = k->nvalues;
  uint32_t *start = rc_xcalloc(n + 2, sizeof *start);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next)
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o]->kind == RC_V_INSTR) start[i->ops[o]->id + 1]++;
  for (uint32_t v = 0; v < n; v++) start[v + 1] += start[v];
  use_ref *uses = rc_xmalloc((start[n] ? start[n] : 1) * sizeof *uses);
  uint32_t *fill = rc_xmalloc((n + 1) * sizeof *fill);
  memcpy(fill, start, (n + 1) * sizeof *fill);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next)
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o]->kind == RC_V_INSTR) uses[fill[i->ops[o]->id]++] = (use_ref){i, o};
  free(fill);
  *start_out = start;
  *uses_out = uses;
}

static int repair_kernel(repair *r);

int rc_ssa_repair_kernel(rc_ctx *ctx, rc_kernel *k) {
  (void)ctx;
  if (!k->nblocks) return 0;
  repair r;
  repair_init_dominance(&r, k);
  return repair_kernel(&r);
}

int rc_ssa_repair_kernel_dom(rc_ctx *ctx, rc_kernel *k, const rc_cfg *g, const rc_domtree *dom) {
  (void)ctx;
  if (!k->nblocks) return 0;
  repair r;
  repair_init_given(&r, k, g, dom);
  return repair_kernel(&r);
}

int rc_ssa_repair_linearized(rc_ctx *ctx, rc_kernel *k) {
  (void)ctx;
  if (!k->nblocks) return 0;
  repair r;
  repair_init_dominance(&r, k);
  r.linearized = true;
  return repair_kernel(&r);
}

/* The repair of the whole kernel; frees what r owns. */
static int repair_kernel(repair *r) {
  rc_kernel *k = r->k;
  /* One scan finds the phis with stale incomings and the definitions that no longer dominate a
   * use, before anything changes. Usually there are none (reconverge routes values through its flow
   * blocks itself), and then the frontier and the use lists are never built. */
  uint32_t nvalues = k->nvalues;
  RC_VEC(rc_instr *) stale = {0};
  uint8_t *broken = rc_xcalloc(nvalues + 1, 1);
  uint32_t nbroken = 0;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->op == RC_OP_PHI && phi_is_stale(i)) rc_vec_push(&stale, i);
      for (uint32_t o = 0; o < i->nops; o++) {
        rc_instr *def = rc_value_instr(i->ops[o]);
        if (!def || !def->parent || def->v.id >= nvalues || broken[def->v.id]) continue;
        if (!rc_domtree_contains(r->dom, def->parent->id)) continue;
        if (!use_is_dominated(r, def, &(use_ref){i, o})) {
          broken[def->v.id] = 1;
          nbroken++;
        }
      }
    }
  if (nbroken || stale.len) {
    repair_init_rest(r);
    /* (b) first: a stale phi's incoming values must themselves be valid at the ends of their blocks */
    uint32_t *start;
    use_ref *uses;
    collect_uses(k, &start, &uses);
    RC_VEC(rc_instr *) defs = {0};
    for (uint32_t b = 0; nbroken && b < k->nblocks; b++)
      for (rc_instr *i = k->blocks[b]->first; i; i = i->next)
        if (i->v.id != RC_NONE && i->v.id < nvalues && broken[i->v.id]) rc_vec_push(&defs, i);
    for (uint32_t d = 0; d < defs.len; d++) {
      uint32_t id = defs.data[d]->v.id;
      repair_definition(r, defs.data[d], &uses[start[id]], start[id + 1] - start[id]);
    }
    rc_vec_free(&defs);
    free(start);
    free(uses);
    for (uint32_t i = 0; i < stale.len; i++) repair_phi_incomings(r, stale.data[i]);
    delete_unused_placed(r);
  }
  free(broken);
  rc_vec_free(&stale);
  repair_free(r);
  return 0;
}

int rc_ssa_repair_value(rc_kernel *k, rc_value *defv) {
  rc_instr *def = rc_value_instr(defv);
  if (!def || !def->parent) return -1;
  repair r;
  repair_init(&r, k);
  RC_VEC(use_ref) uses = {0};
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next)
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o] == defv) rc_vec_push(&uses, ((use_ref){i, o}));
  if (rc_domtree_contains(r.dom, def->parent->id)) repair_definition(&r, def, uses.data, uses.len);
  rc_vec_free(&uses);
  delete_unused_placed(&r);
  repair_free(&r);
  return 0;
}

int rc_pass_ssa_repair(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  (void)args;
  (void)stats;
  return rc_ssa_repair_kernel(ctx, k);
}
