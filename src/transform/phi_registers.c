/* Out of SSA for the wave lowerings: phis become registers (phi_registers.h). */
#include "phi_registers.h"

#include <stdio.h>
#include <stdlib.h>

void phi_registers_init(phi_registers *p, const rc_kernel *k) {
  p->nvalues = k->nvalues;
  p->reg = rc_xcalloc(k->nvalues + 1, sizeof *p->reg);
  p->val = rc_xcalloc(k->nvalues + 1, sizeof *p->val);
  p->count = 0;
}

void phi_registers_free(phi_registers *p) {
  free(p->reg);
  free(p->val);
  p->reg = NULL;
  p->val = NULL;
}

void phi_registers_of_block(phi_registers *p, rc_kernel *k, rc_block *B, rc_builder *bl, const uint8_t *scalar) {
  uint32_t index = 0;
  for (rc_instr *phi = B->first; phi && phi->op == RC_OP_PHI; phi = phi->next, index++) {
    char name[1100];
    const char *pname = phi->v.name;
    if (pname) snprintf(name, sizeof name, "%s", pname);
    else snprintf(name, sizeof name, "%.1000s.phi%u", B->name, index);
    bool s = scalar && scalar[phi->v.id];
    rc_reg *r = rc_kernel_add_reg(k, (rc_type)phi->v.type, s, name);
    if (!r) r = rc_kernel_add_reg(k, (rc_type)phi->v.type, s, NULL);
    p->reg[phi->v.id] = r;
    p->count++;
    rc_value_set_name(k, &phi->v, NULL); /* the rget takes the name */
    p->val[phi->v.id] = rc_build_rget(bl, r, pname);
  }
}

void phi_registers_replace_uses(const phi_registers *p, rc_kernel *k, uint32_t nblocks) {
  for (uint32_t b = 0; b < nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next)
      for (uint32_t o = 0; o < i->nops; o++) {
        rc_value *v = i->ops[o];
        if (v->kind == RC_V_INSTR && v->id < p->nvalues && p->val[v->id]) i->ops[o] = p->val[v->id];
      }
}

bool phi_registers_edge_has_copies(const phi_registers *p, const rc_block *from, const rc_block *to) {
  for (rc_instr *phi = to->first; phi && phi->op == RC_OP_PHI; phi = phi->next) {
    rc_value *v = rc_phi_value_for(phi, from);
    if (v && v->kind != RC_V_UNDEF && p->reg[phi->v.id]) return true;
  }
  return false;
}

void phi_registers_copy_edge(const phi_registers *p, rc_builder *bl, const rc_block *from, const rc_block *to) {
  for (rc_instr *phi = to->first; phi && phi->op == RC_OP_PHI; phi = phi->next) {
    rc_value *v = rc_phi_value_for(phi, from);
    if (v && v->kind != RC_V_UNDEF) rc_build_rset(bl, p->reg[phi->v.id], v);
  }
}
