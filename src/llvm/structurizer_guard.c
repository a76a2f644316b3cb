/* rc_llvm_guard_structurizer (include/reconv/llvm.h): a reconv kernel made safe for LLVM 14's
 * StructurizeCFG before it is exported to LLVM's structurizer pipeline. */
#include "reconv/llvm.h"

#include <stdlib.h>

/* LLVM 14's StructurizeCFG miscompiles a compare that is both a branch condition and the incoming
 * value of a phi in the region it restructures: simplifyConditions runs while the region's phi
 * values are parked (DeletedPhis), sees the `not` it built for the branch as the compare's only
 * use, flips the compare's predicate in place, and then puts the flipped compare back into the phis.
 * meld's output has such phis (SSA repair carries an inner region's condition into the melded
 * blocks: examples/darm/srad_chain.rir). See include/reconv/llvm.h. */
void rc_llvm_guard_structurizer(rc_kernel *k) {
  rc_builder bd;
  rc_value **copy = rc_xcalloc(k->nvalues + 1, sizeof *copy);
  uint32_t nvalues = k->nvalues;
  uint8_t *cond = rc_xcalloc(nvalues + 1, 1); /* per value id: a branch condition */
  for (uint32_t b = 0; b < k->nblocks; b++) {
    rc_instr *t = rc_block_term(k->blocks[b]);
    rc_instr *c = t && t->op == RC_OP_BR ? rc_value_instr(t->ops[0]) : NULL;
    if (c && c->v.id < nvalues) cond[c->v.id] = 1;
  }
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *p = k->blocks[b]->first; p && p->op == RC_OP_PHI; p = p->next)
      for (uint32_t o = 0; o < p->nops; o++) {
        rc_instr *c = rc_value_instr(p->ops[o]);
        if (!c || (c->op != RC_OP_ICMP && c->op != RC_OP_FCMP) || c->v.id >= nvalues || !cond[c->v.id] || !c->next)
          continue;
        if (!copy[c->v.id]) {
          rc_builder_before(&bd, c->next);
          copy[c->v.id] = rc_build_select(&bd, &c->v, rc_const_bool(k, true), rc_const_bool(k, false), NULL);
        }
        rc_instr_set_op(p, o, copy[c->v.id]);
      }
  free(copy);
  free(cond);
}
