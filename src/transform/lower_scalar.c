/* Which values the lowering computes once per wave on the scalar unit (the `!scalar` marking of
 * docs/ir.md), decided for a thread-level kernel before it is lowered (see transform.h).
 *
 * Why these rules:
 * - Uniform: a scalar value is one per wave, so every lane that reads it must want the same one. The
 *   uniformity analysis guarantees that for the lanes that execute the definition together, and its
 *   temporal-divergence rule marks values that leave a cycle with a divergent exit, which a lane
 *   parked at the exit would otherwise read from a later iteration.
 * - Safe: a scalar instruction runs whatever exec holds, also when no lane is active (the wave may
 *   run a block with an empty exec when the empty-exec skip is off). So it must not fault and must
 *   not touch memory: no loads, stores, atomics, memcpy/memset, no division by a divisor that may
 *   be 0 (or -1: overflow). Loads of uniform addresses stay vector instructions.
 * - Scalar operands: a scalar instruction reads lane 0 of its operands, so they must be scalar.
 * - Phis: a scalar register holds one value per wave; at a primary successor lanes that arrive
 *   from different edges (some restored from the re-join mask) merge, and each needs the value of
 *   its own edge, so phis there are always vector registers. */
#include "reconv/analysis.h"
#include "reconv/transform.h"

#include <stdlib.h>
#include <string.h>

/* A divisor that cannot make sdiv/udiv/srem/urem fault. */
static bool safe_divisor(const rc_instr *i) {
  const rc_value *d = i->ops[1];
  if (d->kind != RC_V_CONST) return false;
  int64_t v = rc_const_ival(d);
  if (v == 0) return false;
  bool is_signed = i->op == RC_OP_SDIV || i->op == RC_OP_SREM;
  int64_t sv = d->type == RC_I1 ? -(v & 1) : v; /* i1 true is -1 as a signed value */
  return !is_signed || sv != -1;
}

static bool safe_op(const rc_instr *i) {
  rc_opcode op = (rc_opcode)i->op;
  switch (op) {
  case RC_OP_SDIV: case RC_OP_UDIV: case RC_OP_SREM: case RC_OP_UREM: return safe_divisor(i);
  case RC_OP_LOAD: case RC_OP_STORE: case RC_OP_ALLOCA: case RC_OP_PHI: return false;
  case RC_OP_GEP: case RC_OP_SELECT: case RC_OP_ICMP: case RC_OP_FCMP: case RC_OP_FNEG:
  case RC_OP_LOCALMEM:
    return true;
  case RC_OP_CALL: {
    const rc_builtin_info *bi = rc_builtin_get((rc_builtin)i->pred);
    if (bi->divergent_source || bi->has_side_effects) return false;
    switch (bi->sig) {
    case RC_SIG_QUERY_DIM: case RC_SIG_QUERY: case RC_SIG_F1: case RC_SIG_F2: case RC_SIG_F3:
    case RC_SIG_I1: case RC_SIG_I2:
      return true;
    default: return false;
    }
  }
  default:
    return rc_opcode_is_int_binop(op) || rc_opcode_is_float_binop(op) || rc_opcode_is_cast(op);
  }
}

static bool operand_scalar(const rc_value *v, const uint8_t *scalar) {
  return v->kind == RC_V_CONST || v->kind == RC_V_UNDEF || scalar[v->id];
}

void rc_scalar_values(const rc_kernel *k, const rc_uniformity *u, const uint8_t *vector_phi_block,
                      uint8_t *scalar) {
  uint32_t n = k->nvalues;
  memset(scalar, 0, n);
  rc_instr **def = rc_xcalloc(n + 1, sizeof *def);
  for (uint32_t p = 0; p < k->nparams; p++) scalar[p] = 1;
  /* candidates, and the users of every value (CSR) for the demotion worklist */
  uint32_t *count = rc_xcalloc(n + 1, sizeof *count);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->v.id == RC_NONE) continue;
      def[i->v.id] = i;
      bool cand = !u->divergent_value[i->v.id] &&
                  (i->op == RC_OP_PHI ? !vector_phi_block[b] : safe_op(i));
      scalar[i->v.id] = cand;
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o]->id != RC_NONE && i->ops[o]->kind != RC_V_CONST) count[i->ops[o]->id]++;
    }
  uint32_t *start = rc_xmalloc((n + 1) * sizeof *start);
  uint32_t total = 0;
  for (uint32_t v = 0; v < n; v++) {
    start[v] = total;
    total += count[v];
  }
  start[n] = total;
  rc_instr **users = rc_xmalloc((total + 1) * sizeof *users);
  memset(count, 0, n * sizeof *count);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next)
      for (uint32_t o = 0; i->v.id != RC_NONE && o < i->nops; o++) { /* the users counted above:
        instructions with a result (a store or branch is never scalar); counting the others here
        too ran past the end of `users` and shifted other values' user lists */
        const rc_value *x = i->ops[o];
        if (x->id != RC_NONE && x->kind != RC_V_CONST) users[start[x->id] + count[x->id]++] = i;
      }
  /* demote candidates with a vector operand, and then their users, until nothing changes */
  rc_u32vec work = {0};
  for (uint32_t v = k->nparams; v < n; v++) {
    rc_instr *i = def[v];
    if (!i || !scalar[v]) continue;
    for (uint32_t o = 0; o < i->nops; o++)
      if (!operand_scalar(i->ops[o], scalar)) {
        scalar[v] = 0;
        rc_vec_push(&work, v);
        break;
      }
  }
  while (work.len) {
    uint32_t v = work.data[--work.len];
    for (uint32_t j = start[v]; j < start[v + 1]; j++) {
      rc_instr *i = users[j];
      if (i->v.id != RC_NONE && scalar[i->v.id]) {
        scalar[i->v.id] = 0;
        rc_vec_push(&work, i->v.id);
      }
    }
  }
  rc_vec_free(&work);
  free(users);
  free(start);
  free(count);
  free(def);
}
