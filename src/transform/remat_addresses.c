/* Rematerializing addresses (the end of reconverge on the LLVM path).
 *
 * When reconverge moves a block, an address computed in one block and used in another may no
 * longer dominate its use, and the transform's phis (flow blocks, SSA repair) carry the pointer
 * across the new joins: `%p = phi i32 addrspace(5)* [%arrayidx, %B], [undef, %FLOW0]`. A GPU
 * backend pays dearly for that: AMDGPU's promotion of private arrays to registers gives up on an
 * alloca whose address flows through a phi, so the array goes to scratch memory (the N-Queens
 * kernel: 7 scratch accesses after reconverge, none before; bench/llc_memory.sh).
 *
 * So a web of phis the transform made (no origin in the LLVM module), all of pointer type, whose
 * only value that is not one of the web's phis or undef is one `getelementptr` g, is replaced: every
 * use outside the web gets a copy of g (at the end of the incoming block for a phi's use), and the
 * web goes. The copies' operands are g's, repaired where g's own operands no longer dominate them
 * (ssa_repair.c): integers in phis, which the backend keeps in registers. A copy computes the same
 * address as the last execution of g: in the original kernel g's block dominates the use, so its
 * operands' latest values at the use are those g saw, and the repaired operands are exactly the
 * latest values; where the web gave undef, the copy gives some address no thread uses.
 *
 * The copies stand for the original instruction (same origin): the export clones it with its
 * type, flags and metadata (src/llvm/export_inplace.c). The round repeats, since a copy's operand
 * may itself be an address that now needs a web; it stops when nothing is left (at most 8 rounds).
 * Phis of the user's kernel are never touched: only kernels from LLVM have origins to tell them
 * apart, and only there does a backend run after reconv. */
#include "reconv/analysis.h"
#include "reconv/transform.h"

#include <stdlib.h>
#include <string.h>

static bool is_candidate_phi(rc_value *v) {
  const rc_instr *i = rc_value_instr(v);
  return i && i->op == RC_OP_PHI && !i->origin && i->parent && rc_type_is_ptr((rc_type)i->v.type);
}

/* Webs: candidate phis connected through their operands (union-find over value ids). */
static uint32_t find_root(uint32_t *up, uint32_t x) {
  while (up[x] != x) x = up[x] = up[up[x]];
  return x;
}

/* One round; returns the number of webs replaced. */
static uint32_t remat_round(rc_ctx *ctx, rc_kernel *k) {
  rc_instr_vec phis = {0};
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i && i->op == RC_OP_PHI; i = i->next)
      if (is_candidate_phi(&i->v)) rc_vec_push(&phis, i);
  if (!phis.len) return 0;
  uint32_t n = k->nvalues + 1;
  uint32_t *up = rc_xmalloc(n * sizeof *up);
  for (uint32_t v = 0; v < n; v++) up[v] = v;
  for (uint32_t p = 0; p < phis.len; p++)
    for (uint32_t o = 0; o < phis.data[p]->nops; o++)
      if (is_candidate_phi(phis.data[p]->ops[o]))
        up[find_root(up, phis.data[p]->ops[o]->id)] = find_root(up, phis.data[p]->v.id);
  /* each web's one real value: NULL none yet, &bad several */
  rc_value bad, **real = rc_xcalloc(n, sizeof *real);
  for (uint32_t p = 0; p < phis.len; p++) {
    uint32_t w = find_root(up, phis.data[p]->v.id);
    for (uint32_t o = 0; o < phis.data[p]->nops; o++) {
      rc_value *v = phis.data[p]->ops[o];
      if (is_candidate_phi(v) || v->kind == RC_V_UNDEF || real[w] == v) continue;
      real[w] = real[w] ? &bad : v;
    }
  }
  /* a web goes when its one real value is a getelementptr of the function */
  uint8_t *go = rc_xcalloc(n, 1);
  uint32_t ngo = 0;
  for (uint32_t p = 0; p < phis.len; p++) {
    uint32_t w = find_root(up, phis.data[p]->v.id);
    const rc_instr *g = real[w] && real[w] != &bad ? rc_value_instr(real[w]) : NULL;
    if (!go[w] && g && g->op == RC_OP_GEP && g->origin && !(g->iflags & RC_IF_VIEW) && g->parent) go[w] = 1, ngo++;
  }
  if (ngo) {
    /* uses outside the webs get copies: one per block and web for ordinary uses (before the
     * first), one per incoming edge for phis' (at the end of the incoming block) */
    rc_instr **copy_in = rc_xcalloc(k->nblocks + 1, sizeof *copy_in);
    for (uint32_t b = 0; b < k->nblocks; b++)
      for (rc_instr *i = k->blocks[b]->first; i; i = i->next) {
        if (is_candidate_phi(&i->v) && go[find_root(up, i->v.id)]) continue;
        for (uint32_t o = 0; o < i->nops; o++) {
          rc_value *v = i->ops[o];
          if (!is_candidate_phi(v) || !go[find_root(up, v->id)]) continue;
          const rc_instr *g = rc_value_instr(real[find_root(up, v->id)]);
          if (i->op == RC_OP_PHI) {
            rc_instr *c = rc_instr_copy(k, g);
            rc_instr_insert_before_term(i->targets[o], c);
            i->ops[o] = &c->v;
            continue;
          }
          if (!copy_in[b] || copy_in[b]->origin != g->origin) {
            copy_in[b] = rc_instr_copy(k, g);
            rc_instr_insert_before(i, copy_in[b]);
          }
          i->ops[o] = &copy_in[b]->v;
        }
      }
    for (uint32_t p = 0; p < phis.len; p++)
      if (go[find_root(up, phis.data[p]->v.id)]) rc_instr_detach(phis.data[p]);
    free(copy_in);
    rc_ssa_repair_kernel(ctx, k); /* the copies' operands */
  }
  free(go);
  free(real);
  free(up);
  rc_vec_free(&phis);
  return ngo;
}

uint32_t rc_remat_addresses(rc_ctx *ctx, rc_kernel *k) {
  if (!k->origin) return 0;
  uint32_t total = 0;
  for (int round = 0; round < 8; round++) {
    uint32_t n = remat_round(ctx, k);
    if (!n) break;
    total += n;
  }
  return total;
}
