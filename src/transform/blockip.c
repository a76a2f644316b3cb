/* blockip: Beignet's per-lane block-IP linearization ("Unstructured Branches", the Beignet OpenCL
 * compiler's note, solution 2: "Linearizing the control flow graph"), as a lowering from a thread
 * kernel to a wave kernel.
 *
 * Every lane holds the layout position of its next block in a vector register $ip (the note's
 * "blockIP", a short per lane there, an i32 here). The blocks are laid out in one order; on top of
 * each a dispatch block activates the lanes whose $ip is at most the block's position and, when there
 * is none, jumps to the next block of the layout (the note's JOIN point). Branches only write $ip
 * (forward branches fall through to the next block); a branch to a block at or before the current one
 * jumps back there when any lane took it ("backward branches are always taken if any of lanes in the
 * predicate is true"). A return writes a label past every block, so the wave ends after the last
 * block with every lane (the note: one return block at the end of the program). The CFG itself —
 * reducible or not, one exit or several — is not changed. The machinery is sweep.c's. */
#include "sweep.h"

int rc_pass_blockip(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  if (rc_pass_args_check(ctx, "blockip", args) != 0) return -1;
  sweep_opts o = {"blockip", "ip", true, true};
  return rc_sweep_lower(ctx, k, &o, stats);
}
