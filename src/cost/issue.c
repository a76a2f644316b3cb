/* The cost model of the wave machines (docs/cost.md), the part that classifies instructions: what
 * issue slot each instruction of a wave kernel takes on an AMD GCN-like machine (vector, scalar,
 * mask), whether it runs once per wave, and what such a machine does not issue at all: reading exec
 * or a register (an operand), ballot (a compare writes its lane mask directly), a jmp to the next
 * block of the layout (it falls through), an rset that register coalescing removes (copies.c), and
 * a setexec whose mask an and/or/andn/xor of the same block computes for it alone (s_or_b64 exec,
 * exec, s[0:1]). The wave simulator counts by these classes (src/sim/wave.c); the static cost
 * weighs them (rc_wave_static_cost), which reconverge[order=auto] compares its candidates by. */
#include "cost_internal.h"

#include "reconv/analysis.h"
#include "reconv/cost.h"

#include <stdlib.h>
#include <string.h>

static bool is_mask_reg(const rc_instr *i) {
  return (i->op == RC_OP_RGET || i->op == RC_OP_RSET) && i->u.reg->type == RC_MASK;
}

/* ISSUE_MEMORY or ISSUE_BARRIER for the vector instructions a CPU prices apart, else 0. */
static int vector_subclass(const rc_instr *i) {
  if (i->op == RC_OP_LOAD || i->op == RC_OP_STORE) return ISSUE_MEMORY;
  if (i->op != RC_OP_CALL) return 0;
  if (i->pred == RC_BI_BARRIER) return ISSUE_BARRIER;
  return rc_builtin_get((rc_builtin)i->pred)->flags & RC_BF_MEMORY ? ISSUE_MEMORY : 0;
}

static int classify(const rc_instr *i, bool *once) {
  *once = false;
  switch ((rc_opcode)i->op) {
  case RC_OP_BR: case RC_OP_JMP: case RC_OP_SWITCH: case RC_OP_BREXECZ: case RC_OP_RET:
  case RC_OP_UNREACHABLE:
    return ISSUE_SCALAR;
  case RC_OP_BALLOT: case RC_OP_EXEC: case RC_OP_SETEXEC:
    *once = true;
    return ISSUE_MASK;
  case RC_OP_RGET: case RC_OP_RSET:
    *once = i->u.reg->scalar;
    /* a vector i1 register is a lane mask on a GCN-like machine: written by s_or/s_andn2 */
    return is_mask_reg(i) || i->u.reg->type == RC_I1 ? ISSUE_MASK : i->u.reg->scalar ? ISSUE_SCALAR : ISSUE_VECTOR;
  default: break;
  }
  if (i->v.type == RC_MASK || (i->op == RC_OP_ICMP && i->ops[0]->type == RC_MASK)) {
    *once = true;
    return ISSUE_MASK;
  }
  if (i->iflags & RC_IF_SCALAR) {
    *once = true;
    return ISSUE_SCALAR;
  }
  return ISSUE_VECTOR | vector_subclass(i);
}

/* A setexec whose operand a mask operation of its block computes for it alone: the operation
 * writes exec itself. */
static bool fused_setexec(const rc_instr *i, const uint32_t *uses) {
  const rc_value *m = i->ops[0];
  if (m->kind != RC_V_INSTR || uses[m->id] != 1) return false;
  const rc_instr *d = (const rc_instr *)m;
  return d->parent == i->parent && d->v.type == RC_MASK &&
         (d->op == RC_OP_AND || d->op == RC_OP_OR || d->op == RC_OP_ANDN || d->op == RC_OP_XOR);
}

static bool costs_nothing(const rc_instr *i, bool free_rset, const uint32_t *uses) {
  switch ((rc_opcode)i->op) {
  case RC_OP_EXEC: case RC_OP_RGET: case RC_OP_BALLOT: return true;
  case RC_OP_JMP: return cost_falls_through(i);
  case RC_OP_RSET: return free_rset;
  case RC_OP_SETEXEC: return fused_setexec(i, uses);
  default: return false;
  }
}

/* The issue class of every instruction of wave kernel k, in block order (the pcs of sim_decode):
 * rc_issue_kind | ISSUE_ONCE when it runs once per wave | ISSUE_FREE when it costs nothing. */
void cost_wave_issue_classes(const rc_kernel *k, uint8_t *issue) {
  uint32_t n = 0;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) n++;
  bool *free_rset = rc_xcalloc(n + 1, sizeof *free_rset);
  uint32_t *uses = rc_xcalloc(k->nvalues + 1, sizeof *uses);
  cost_free_register_writes(k, free_rset);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next)
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o]->kind == RC_V_INSTR && i->ops[o]->id < k->nvalues) uses[i->ops[o]->id]++;
  uint32_t pc = 0;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next, pc++) {
      bool once;
      int kind = classify(i, &once);
      issue[pc] = (uint8_t)(kind | (once ? ISSUE_ONCE : 0) | (costs_nothing(i, free_rset[pc], uses) ? ISSUE_FREE : 0));
    }
  free(free_rset);
  free(uses);
}

/* The weights of the two machines (docs/cost.md, "Two machines"). GCN: a vector or mask
 * instruction 2, a scalar one 1 (it issues beside the vector unit). The host: this machine's
 * vector unit, calibrated on the clock by `bench_native_peers --fit` (docs/cost.md, "The host's
 * weights"), in nanoseconds per instruction of a 16-lane wave. */
const rc_cost_weights rc_cost_weights_gcn = {.name = "gcn", .vector = 2, .memory = 2, .barrier = 2, .mask = 2, .scalar = 1};
/* fitted by `bash bench/native_peers.sh --waves 16 --fit` on the bundled kernels (AMD Zen 4,
 * AVX-512; they explain 67% of how the rows of a kernel differ on the clock): a load or store of a
 * wave is a gather or scatter unless its lanes' addresses are consecutive, and costs some 75 vector
 * instructions; scalar instructions and branches issue beside the vector unit for nothing, and a
 * barrier (a switch of fibers) is lost in the noise */
const rc_cost_weights rc_cost_weights_host = {.name = "host", .vector = 0.22, .memory = 16.9, .barrier = 0, .mask = 0.38, .scalar = 0};

const rc_cost_weights *rc_cost_weights_named(const char *name) {
  if (!name || strcmp(name, "gcn") == 0) return &rc_cost_weights_gcn;
  if (strcmp(name, "host") == 0) return &rc_cost_weights_host;
  return NULL;
}

/* the weight of an instruction of class `issue` (vector instructions by their subclass) */
static double class_weight(const rc_cost_weights *w, uint8_t issue) {
  switch (issue & ISSUE_KIND) {
  case ISSUE_SCALAR: return w->scalar;
  case ISSUE_MASK: return w->mask;
  default: return issue & ISSUE_MEMORY ? w->memory : issue & ISSUE_BARRIER ? w->barrier : w->vector;
  }
}

/* Static cost (docs/cost.md, "Static cost"): the issue slots of one run through every block, each
 * weighted by 8 per enclosing cycle (at most 8^4), the usual static estimate of how often a block
 * runs, and by its class's weight. */
double rc_wave_static_cost_weighted(const rc_kernel *k, const rc_cost_weights *w) {
  uint32_t n = 0;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) n++;
  uint8_t *issue = rc_xcalloc(n + 1, 1);
  cost_wave_issue_classes(k, issue);
  rc_cfg g;
  rc_cycle_info ci;
  rc_cfg_build(&g, k);
  bool cycles = rc_cycles_build(&ci, &g) == 0;
  double cost = 0;
  uint32_t pc = 0;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    uint32_t c = cycles ? ci.innermost[b] : RC_NONE, depth = c == RC_NONE ? 0 : ci.cycles[c].depth;
    double weight = (double)((uint64_t)1 << (3 * (depth < 4 ? depth : 4)));
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next, pc++)
      if (!(issue[pc] & ISSUE_FREE)) cost += weight * class_weight(w, issue[pc]);
  }
  if (cycles) rc_cycles_free(&ci);
  rc_cfg_free(&g);
  free(issue);
  return cost;
}

uint64_t rc_wave_static_cost(const rc_kernel *k) {
  return (uint64_t)rc_wave_static_cost_weighted(k, &rc_cost_weights_gcn); /* integers: exact */
}

double rc_run_stats_cost(const rc_run_stats *st, const rc_cost_weights *w) {
  uint64_t plain = st->vector_instrs - st->memory_instrs - st->barrier_instrs;
  return w->vector * (double)plain + w->memory * (double)st->memory_instrs + w->barrier * (double)st->barrier_instrs +
         w->mask * (double)st->mask_instrs + w->scalar * (double)st->scalar_instrs;
}
