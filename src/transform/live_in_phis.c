/* Live-in phis: pass every value into the blocks that need it through phis, and take the trivial ones
 * out again afterwards.
 *
 * Before a transform reroutes edges, rc_ssa_expose_live_ins gives each value used outside its block
 * a phi in every block where it is live-in (the values of the entry block excepted: the entry keeps
 * dominating everything). The transform then treats these like any phi of a target block, so a value
 * follows exactly the flows that need it (reconverge routes phis through flow blocks by where each
 * flow goes). Repairing dominance after the fact with a generic SSA repair instead places phis at
 * every join the new flow blocks create, also where no flow that reaches a use passes, which made the
 * output grow with (values x flow blocks). rc_ssa_simplify_phis then removes the phis that ended up
 * trivial (one value besides undef and themselves, which dominates them), as in Braun et al. 2013.
 * Both run in time proportional to the live ranges. */
#include "reconv/analysis.h"
#include "reconv/transform.h"

#include <stdlib.h>
#include <string.h>

typedef struct use_ref {
  rc_instr *user;
  uint32_t op;
  uint32_t block; /* rc_ssa_expose_live_ins: the block where the use reads the value (for a phi, the
                     incoming block), noted when the use is found: finding it again per definition
                     took two dependent cache misses per use on a big kernel; RC_NONE elsewhere
                     (it fills what was padding) */
} use_ref;

void rc_ssa_expose_live_ins(rc_kernel *k, rc_instr_vec *added, rc_u32vec *origin) {
  uint32_t nb = k->nblocks, nv = k->nvalues;
  if (!nb) return;
  /* uses by value id (CSR). One walk over the kernel lists the uses in program order with the id
   * of the value each reads (on a big kernel every instruction and operand is a cache miss, so the
   * kernel is walked once, not once to count and again to fill); a counting sort by id follows. */
  RC_VEC(use_ref) found = {0};
  rc_u32vec found_id = {0};
  RC_VEC(rc_instr *) defs = {0};
  for (uint32_t b = 0; b < nb; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o]->kind == RC_V_INSTR) {
          rc_vec_push(&found, ((use_ref){i, o, i->op == RC_OP_PHI ? i->targets[o]->id : b}));
          rc_vec_push(&found_id, i->ops[o]->id);
        }
      if (i->v.id != RC_NONE && b != 0) rc_vec_push(&defs, i);
    }
  uint32_t *start = rc_xcalloc(nv + 2, sizeof *start);
  for (uint32_t u = 0; u < found_id.len; u++) start[found_id.data[u] + 1]++;
  for (uint32_t v = 0; v < nv; v++) start[v + 1] += start[v];
  use_ref *uses = rc_xmalloc((start[nv] ? start[nv] : 1) * sizeof *uses);
  uint32_t *fill = rc_xmalloc((nv + 1) * sizeof *fill);
  memcpy(fill, start, (nv + 1) * sizeof *fill);
  for (uint32_t u = 0; u < found.len; u++) uses[fill[found_id.data[u]]++] = found.data[u];
  free(fill);
  rc_vec_free(&found);
  rc_vec_free(&found_id);

  uint32_t *stamp = rc_xcalloc(nb, sizeof *stamp);
  rc_instr **phi_at = rc_xcalloc(nb, sizeof *phi_at);
  rc_u32vec work = {0}, live = {0};
  for (uint32_t d = 0; d < defs.len; d++) {
    rc_instr *def = defs.data[d];
    uint32_t id = def->v.id, db = def->parent->id, mark = d + 1;
    work.len = live.len = 0;
    /* the blocks where the value is live on entry, walking back from its uses to its block */
    for (uint32_t u = start[id]; u < start[id + 1]; u++) {
      uint32_t b = uses[u].block;
      if (b == db || stamp[b] == mark) continue;
      stamp[b] = mark;
      rc_vec_push(&work, b);
    }
    while (work.len) {
      uint32_t b = work.data[--work.len];
      rc_vec_push(&live, b);
      rc_block *blk = k->blocks[b];
      for (uint32_t p = 0; p < blk->npreds; p++) {
        uint32_t q = blk->preds[p]->id;
        if (q == db || stamp[q] == mark) continue;
        stamp[q] = mark;
        rc_vec_push(&work, q);
      }
    }
    if (!live.len) continue;
    for (uint32_t i = 0; i < live.len; i++) {
      rc_instr *phi = rc_instr_new(k, RC_OP_PHI, (rc_type)def->v.type, 0, 0);
      rc_instr_prepend(k->blocks[live.data[i]], phi);
      phi_at[live.data[i]] = phi;
      rc_vec_push(added, phi);
      if (origin) rc_vec_push(origin, id);
    }
    for (uint32_t i = 0; i < live.len; i++) {
      rc_block *blk = k->blocks[live.data[i]];
      for (uint32_t p = 0; p < blk->npreds; p++) {
        rc_block *q = blk->preds[p];
        if (rc_phi_index_of(phi_at[blk->id], q) >= 0) continue;
        rc_phi_add_incoming(phi_at[blk->id], q->id == db ? &def->v : &phi_at[q->id]->v, q);
      }
    }
    for (uint32_t u = start[id]; u < start[id + 1]; u++) {
      uint32_t b = uses[u].block;
      if (b != db) uses[u].user->ops[uses[u].op] = &phi_at[b]->v;
    }
  }
  rc_vec_free(&work);
  rc_vec_free(&live);
  rc_vec_free(&defs);
  free(stamp);
  free(phi_at);
  free(start);
  free(uses);
}

/* Lists of uses, one per candidate phi, in order, in one pool. A list grows at its tail when the
 * users of a removed phi move to the candidate that replaced it. */
typedef struct use_node {
  use_ref use;
  uint32_t next;
} use_node;

typedef struct use_lists {
  uint32_t *head, *tail;
  RC_VEC(use_node) pool;
} use_lists;

static void use_lists_init(use_lists *l, uint32_t n) {
  l->head = rc_xmalloc((n ? n : 1) * sizeof *l->head);
  l->tail = rc_xmalloc((n ? n : 1) * sizeof *l->tail);
  for (uint32_t i = 0; i < n; i++) l->head[i] = l->tail[i] = RC_NONE;
  memset(&l->pool, 0, sizeof l->pool);
}

static void use_lists_append(use_lists *l, uint32_t list, use_ref u) {
  uint32_t node = l->pool.len;
  rc_vec_push(&l->pool, ((use_node){u, RC_NONE}));
  if (l->tail[list] == RC_NONE) l->head[list] = node;
  else l->pool.data[l->tail[list]].next = node;
  l->tail[list] = node;
}

static void use_lists_free(use_lists *l) {
  free(l->head);
  free(l->tail);
  rc_vec_free(&l->pool);
}

void rc_ssa_simplify_phis(rc_kernel *k, const rc_instr_vec *phis) {
  if (!phis->len) return;
  rc_cfg g;
  rc_cfg_build(&g, k);
  rc_domtree dom;
  rc_domtree_build(&dom, &g, false);
  rc_ssa_simplify_phis_dom(k, phis, &dom);
  rc_domtree_free(&dom);
  rc_cfg_free(&g);
}

void rc_ssa_simplify_phis_dom(rc_kernel *k, const rc_instr_vec *phis, const rc_domtree *dom) {
  if (!phis->len) return;
  uint32_t nv = k->nvalues;
  /* which values are candidate phis, and who uses them */
  uint32_t *cand = rc_xmalloc((nv + 1) * sizeof *cand);
  for (uint32_t v = 0; v <= nv; v++) cand[v] = RC_NONE;
  for (uint32_t i = 0; i < phis->len; i++)
    if (phis->data[i]->parent) cand[phis->data[i]->v.id] = i;
  /* the users of each candidate, as lists in one pool (millions of candidates: one allocation
   * each would cost more than the simplification) */
  use_lists users;
  use_lists_init(&users, phis->len);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next)
      for (uint32_t o = 0; o < i->nops; o++) {
        rc_value *v = i->ops[o];
        if (v->kind == RC_V_INSTR && v->id <= nv && cand[v->id] != RC_NONE)
          use_lists_append(&users, cand[v->id], (use_ref){i, o, RC_NONE});
      }
  rc_u32vec work = {0};
  uint8_t *queued = rc_xcalloc(phis->len, 1);
  for (uint32_t i = 0; i < phis->len; i++)
    if (phis->data[i]->parent) {
      rc_vec_push(&work, i);
      queued[i] = 1;
    }
  while (work.len) {
    uint32_t pi = work.data[--work.len];
    queued[pi] = 0;
    rc_instr *phi = phis->data[pi];
    if (!phi->parent) continue;
    rc_value *same = NULL;
    bool trivial = true;
    for (uint32_t o = 0; o < phi->nops && trivial; o++) {
      rc_value *v = phi->ops[o];
      if (v == &phi->v || v->kind == RC_V_UNDEF || v == same) continue;
      if (same) trivial = false;
      else same = v;
    }
    /* live users: a phi nobody uses any more goes too (whether there is one is all that counts,
     * so the walk stops at the first: the lists of long-lived values are long). A use that is no
     * longer the phi's (its user removed, or its operand replaced) never is again: a use that gets
     * the phi back is appended anew. So the stale uses before the first live one are unlinked,
     * and a phi queued again and again does not walk them again (each once in all: linear). */
    bool used = false;
    while (users.head[pi] != RC_NONE && !used) {
      const use_node *n = &users.pool.data[users.head[pi]];
      used = n->use.user->parent && n->use.user->ops[n->use.op] == &phi->v && n->use.user != phi;
      if (!used) users.head[pi] = n->next;
    }
    if (users.head[pi] == RC_NONE) users.tail[pi] = RC_NONE;
    if (!trivial && used) continue;
    if (trivial && same && used) {
      /* `same` must strictly dominate the phi's block: a phi [v, undef] whose v is defined in its own
       * block (another phi there, say) reads v's value from the previous pass through the block,
       * which is not v's value after it (found by the property tests: a value carried around a
       * cycle of flow blocks took the new value of a sibling phi). */
      rc_instr *def = rc_value_instr(same);
      if (def && !(def->parent && def->parent != phi->parent && rc_dominates(dom, def->parent->id, phi->parent->id)))
        continue;
    }
    rc_value *repl = same ? same : rc_undef(k, (rc_type)phi->v.type);
    for (uint32_t u = users.head[pi]; u != RC_NONE; u = users.pool.data[u].next) {
      use_ref r = users.pool.data[u].use;
      if (!r.user->parent || r.user->ops[r.op] != &phi->v || r.user == phi) continue;
      r.user->ops[r.op] = repl;
      if (repl->kind == RC_V_INSTR && repl->id <= nv && cand[repl->id] != RC_NONE)
        use_lists_append(&users, cand[repl->id], r);
      if (r.user->op == RC_OP_PHI && r.user->v.id <= nv && cand[r.user->v.id] != RC_NONE &&
          !queued[cand[r.user->v.id]]) {
        queued[cand[r.user->v.id]] = 1;
        rc_vec_push(&work, cand[r.user->v.id]);
      }
    }
    /* operands that are candidate phis may have become unused */
    for (uint32_t o = 0; o < phi->nops; o++) {
      rc_value *v = phi->ops[o];
      if (v->kind == RC_V_INSTR && v->id <= nv && cand[v->id] != RC_NONE && !queued[cand[v->id]]) {
        queued[cand[v->id]] = 1;
        rc_vec_push(&work, cand[v->id]);
      }
    }
    rc_instr_detach(phi);
  }
  use_lists_free(&users);
  free(queued);
  free(cand);
  rc_vec_free(&work);
}
