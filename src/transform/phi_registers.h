/* Out of SSA for the wave lowerings (lower.c, sweep.c): wave kernels have no phis, so each phi
 * becomes a register, read by an `rget` at the top of its block and written by an `rset` on every
 * edge into it (docs/ir.md, "Wave level"). */
#ifndef RECONV_PHI_REGISTERS_H
#define RECONV_PHI_REGISTERS_H

#include "reconv/ir.h"

typedef struct phi_registers {
  uint32_t nvalues; /* the kernel's values when made: the phis' ids are below */
  rc_reg **reg;     /* per value id of a phi: its register */
  rc_value **val;   /* per value id of a phi: the rget that replaces it */
  uint32_t count;   /* registers made */
} phi_registers;

void phi_registers_init(phi_registers *p, const rc_kernel *k);
void phi_registers_free(phi_registers *p);
/* The phis of B get registers (scalar where scalar[phi's id] is set; scalar NULL: every one vector),
 * each read by an rget built at bl, which takes the phi's name. */
void phi_registers_of_block(phi_registers *p, rc_kernel *k, rc_block *B, rc_builder *bl, const uint8_t *scalar);
/* Every use of a phi in blocks[0 .. nblocks) reads its rget instead (phi incomings included: the
 * edge copies read them). */
void phi_registers_replace_uses(const phi_registers *p, rc_kernel *k, uint32_t nblocks);
/* Does the edge from -> to write a register (an incoming value that is not undef)? */
bool phi_registers_edge_has_copies(const phi_registers *p, const rc_block *from, const rc_block *to);
/* The rsets of the edge from -> to, at bl. */
void phi_registers_copy_edge(const phi_registers *p, rc_builder *bl, const rc_block *from, const rc_block *to);

#endif
