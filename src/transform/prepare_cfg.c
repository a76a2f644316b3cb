/* The preparation that reconverge (thesis 4.1, steps 1 and 4) and linearize both need: two-way
 * branches only (switches lowered, `br c, T, T` made a jump), reachable blocks only, an exit edge out
 * of every region that cannot reach an exit, and one exit block. */
#include "reconv/transform.h"

int rc_prepare_cfg(rc_ctx *ctx, rc_kernel *k, rc_stats *stats) {
  bool has_switch = false;
  for (uint32_t b = 0; b < k->nblocks && !has_switch; b++) {
    rc_instr *t = rc_block_term(k->blocks[b]);
    has_switch = t && t->op == RC_OP_SWITCH;
  }
  if (has_switch && rc_pass_lowerswitch(ctx, k, NULL, stats)) return -1;
  if (rc_pass_remove_dead_blocks(ctx, k, NULL, stats) || rc_pass_connect_infinite_loops(ctx, k, NULL, stats) ||
      rc_pass_unify_exits(ctx, k, NULL, stats))
    return -1;
  for (uint32_t b = 0; b < k->nblocks; b++) { /* br c, T, T is a jump */
    rc_instr *t = rc_block_term(k->blocks[b]);
    if (t && t->op == RC_OP_BR && t->targets[0] == t->targets[1]) {
      rc_block *target = t->targets[0];
      rc_instr_detach(t);
      rc_builder bld;
      rc_builder_at_end(&bld, k->blocks[b]);
      rc_build_jmp(&bld, target);
    }
  }
  return 0;
}
