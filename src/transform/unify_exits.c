/* unify-exits: give the kernel a single exit block when it has several.
 *
 * The reconverge transform needs a unique sink that comes last in its block ordering (thesis 4.1,
 * step 1: "make sure a unique sink exists by adding a common virtual exit"). Every `ret` becomes a
 * jump to a new block `exit` (flagged RC_BLOCK_VIRTUAL) that returns (a device function's result
 * through a phi of the values its exits returned). `unreachable` blocks are
 * sinks as well and jump to the exit too: executing `unreachable` is a fault, so the transformed
 * kernel only refines the original there (a run that faulted may now finish); runs that do not
 * fault are unchanged. */
#include "reconv/transform.h"

int rc_pass_unify_exits(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  uint32_t nexits = 0;
  for (uint32_t i = 0; i < k->nblocks; i++) {
    rc_instr *t = rc_block_term(k->blocks[i]);
    if (t && (t->op == RC_OP_RET || t->op == RC_OP_UNREACHABLE)) nexits++;
  }
  if (stats) rc_stats_set(stats, "exits_before", nexits);
  if (nexits <= 1) return 0;
  uint32_t nb = k->nblocks;
  rc_block *exit = rc_block_new(k, "exit");
  exit->bflags |= RC_BLOCK_VIRTUAL;
  rc_builder b;
  rc_builder_at_end(&b, exit);
  /* a device function's result: a phi of what each exit returned (undef from `unreachable`) */
  bool value = k->is_function && k->ret_type != RC_VOID;
  rc_instr *result = value ? rc_phi_new(exit, k->ret_type, NULL) : NULL;
  if (value) rc_build_ret_value(&b, &result->v); else rc_build_ret(&b);
  for (uint32_t i = 0; i < nb; i++) {
    rc_block *blk = k->blocks[i];
    rc_instr *t = rc_block_term(blk);
    if (!t || (t->op != RC_OP_RET && t->op != RC_OP_UNREACHABLE)) continue;
    rc_value *rv = value ? (t->op == RC_OP_RET && t->nops ? t->ops[0] : rc_undef(k, k->ret_type)) : NULL;
    rc_instr_detach(t);
    rc_builder_at_end(&b, blk);
    rc_build_jmp(&b, exit);
    if (value) rc_phi_add_incoming(result, rv, blk);
  }
  if (stats) rc_stats_add(stats, "exit_blocks_added", 1);
  return 0;
}
