/* Internal interface of the cost model (docs/cost.md), shared by the wave machines (src/sim/), which
 * count what they issue by it, and by its static form (rc_wave_static_cost), which the transforms
 * choose by:
 *
 *   issue.c   the issue class of every instruction of a wave kernel, the static cost
 *   copies.c  which copies a register allocator keeps (rset into registers, phi copies on edges)
 *
 * Not installed. */
#ifndef RECONV_COST_INTERNAL_H
#define RECONV_COST_INTERNAL_H

#include "reconv/sim.h"

/* How an instruction issues (rc_issue_kind), plus whether it runs once per wave (scalar) and whether
 * it costs an issue slot at all. */
enum { ISSUE_VECTOR = RC_ISSUE_VECTOR, ISSUE_SCALAR = RC_ISSUE_SCALAR, ISSUE_MASK = RC_ISSUE_MASK,
       ISSUE_KIND = 3, ISSUE_ONCE = 4,
       ISSUE_FREE = 8, /* costs no issue slot on the machine the cost model describes */
       /* finer classes of a vector instruction, which a CPU's vector unit prices differently
        * (docs/cost.md, "Two machines"): a load, store, atomic or memory builtin (per-lane
        * addresses: a gather or scatter), and a work-group barrier (a switch of wave contexts) */
       ISSUE_MEMORY = 16, ISSUE_BARRIER = 32 };

/* The issue class of every instruction of wave kernel k, in block order (pc numbering: the
 * instructions counted block by block): rc_issue_kind | ISSUE_ONCE | ISSUE_FREE. */
void cost_wave_issue_classes(const rc_kernel *k, uint8_t *issue);

/* A jmp to the block laid out right after its own (the kernel's block order is the layout): the
 * machine falls through, no instruction issues. */
static inline bool cost_falls_through(const rc_instr *jmp) {
  return jmp->op == RC_OP_JMP && jmp->targets[0]->id == jmp->parent->id + 1;
}

/* ---- copies.c ----------------------------------------------------------------------------------- */

/* Wave kernels: free_at_pc[pc] = the rset at pc is coalesced (its value is computed in place). */
void cost_free_register_writes(const rc_kernel *k, bool *free_at_pc);

/* Thread-level kernels: the phi copies of an edge that are not coalesced. */
typedef struct cost_copies cost_copies;
cost_copies *cost_copies_open(const rc_kernel *k);
/* The copies of edge from -> to into to's phis: kept[0] into vector values, kept[1] into i1 values
 * (lane masks on a GCN-like machine, written by a mask instruction), kept[2] into scalar values
 * (scalar[value id], s_mov). */
void cost_edge_copies(cost_copies *c, const rc_block *from, const rc_block *to, const uint8_t *scalar,
                      uint32_t kept[3]);
void cost_copies_close(cost_copies *c);

#endif
