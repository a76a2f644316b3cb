/* Internals of the meld pass (DARM, Saumya et al. 2022, section IV): the cost table, instruction
 * compatibility, the melding profitability of blocks (MP_B) and the Smith-Waterman alignment used for
 * both subgraph sequences and instruction sequences (meld_align.c). */
#ifndef RECONV_MELD_INTERNAL_H
#define RECONV_MELD_INTERNAL_H

#include "reconv/ir.h"

/* The static latency of one instruction (section IV-C: "w_i is the latency of instruction type i";
 * DARM takes them from a modified LLVM cost model). The table is in meld_align.c and docs/meld.md. */
double rc_meld_latency(const rc_instr *i);
/* lat(b): the sum of the latencies of b's instructions, terminator included. */
double rc_meld_block_latency(const rc_block *b);
/* Can a and b be melded into one instruction (section IV-C, "Instruction Alignment", after Rocha et
 * al.): the same opcode, result type, operand types, comparison predicate or builtin, and the same
 * static fields (gep scales and offset, modifiers). Phis, terminators, allocas, localmem, device
 * calls, opaque instructions and convergent builtins never meld. */
bool rc_meld_compatible(const rc_instr *a, const rc_instr *b);
/* MP_B(b1, b2) = sum over instruction classes q of min(freq(q, b1), freq(q, b2)) * w_q, divided by
 * lat(b1) + lat(b2) (section IV-C); *lat gets lat(b1) + lat(b2). Classes are the compatibility
 * classes above, so that what the profit counts is what the alignment can meld. */
double rc_meld_block_profit(const rc_block *b1, const rc_block *b2, double *lat);

/* One entry of an alignment: a and b are indices into the two sequences, -1 for a gap. */
typedef struct rc_meld_pair {
  int32_t a, b;
} rc_meld_pair;
/* Smith-Waterman (section IV-C) on an n x m score matrix (score[i * m + j] < 0: i and j may not be
 * aligned) with a linear gap penalty: the best-scoring local alignment. *out (room for n + m
 * entries) receives every element of both sequences in an order that keeps each sequence's order:
 * the elements before the local alignment as gaps, the alignment (matches and gaps), the elements
 * after it as gaps. Returns the number of entries. */
uint32_t rc_meld_smith_waterman(const double *score, uint32_t n, uint32_t m, double gap, rc_meld_pair *out);

#endif
