/* Launch invariance (analysis.h): values every thread of a launch computes the same, wherever and
 * whenever it computes them. reconverge marks a uniform branch !uniform in its output only when its
 * condition is launch-invariant; a condition that is uniform only per dynamic instance (a uniform
 * loop's counter) can become divergent once flow blocks let lanes of different iterations meet. */
#include "reconv/analysis.h"

/* memo states; EXPANDED: on the walk's current path, its operands being decided */
enum { MEMO_UNKNOWN, MEMO_EXPANDED, MEMO_YES, MEMO_NO };

/* Can this instruction give different threads different values, whatever its operands? */
static bool varies_by_itself(const rc_instr *i) {
  switch ((rc_opcode)i->op) {
  case RC_OP_PHI: case RC_OP_LOAD: case RC_OP_ALLOCA: case RC_OP_RGET: case RC_OP_BALLOT: case RC_OP_EXEC:
    return true;
  case RC_OP_CALL: {
    const rc_builtin_info *bi = rc_builtin_get((rc_builtin)i->pred);
    return !bi || bi->divergent_source || bi->has_side_effects;
  }
  default: return false;
  }
}

/* A depth-first walk over instruction operands. Values form no cycle except through phis, which are
 * decided without looking at their operands; an operand found on the current path anyway (code in
 * an unreachable block may use itself) counts as not invariant. */
bool rc_launch_invariant(const rc_value *root, uint8_t *memo) {
  if (root->kind != RC_V_INSTR) return true; /* constants, parameters, undef */
  RC_VEC(const rc_value *) stack = {0};
  rc_vec_push(&stack, root);
  while (stack.len) {
    const rc_value *v = stack.data[stack.len - 1];
    const rc_instr *i = (const rc_instr *)v;
    uint8_t *m = &memo[v->id];
    if (*m == MEMO_YES || *m == MEMO_NO) {
      stack.len--;
    } else if (*m == MEMO_UNKNOWN) {
      if (varies_by_itself(i)) {
        *m = MEMO_NO;
        continue;
      }
      *m = MEMO_EXPANDED;
      for (uint32_t o = 0; o < i->nops; o++) {
        const rc_value *x = i->ops[o];
        if (x->kind != RC_V_INSTR) continue;
        if (memo[x->id] == MEMO_UNKNOWN) rc_vec_push(&stack, x);
        else if (memo[x->id] == MEMO_EXPANDED) *m = MEMO_NO; /* a cycle; v is decided, its operands
                                                                 pushed are walked anyway */
      }
    } else { /* back from the operands */
      bool no = false;
      for (uint32_t o = 0; o < i->nops && !no; o++)
        no = i->ops[o]->kind == RC_V_INSTR && memo[i->ops[o]->id] != MEMO_YES;
      *m = no ? MEMO_NO : MEMO_YES;
      stack.len--;
    }
  }
  rc_vec_free(&stack);
  return memo[root->id] == MEMO_YES;
}
