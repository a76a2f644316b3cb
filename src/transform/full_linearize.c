/* full-linearize: the textbook baseline of SIMD compilation — every branch if-converted, every block
 * run in one straight-line order under its predicate, whether or not a lane wants it; loops kept, and
 * run again while any lane takes the back edge (the loop mask). It is what partial schemes
 * (reconverge, the linearizations of Anantpur and Beignet) are measured against: they save the
 * blocks no lane wants.
 *
 * Each block B has a predicate, a scalar mask register $e.B: the lanes waiting for B. Its dispatch
 * block sets exec to $e.B and clears it; a branch ORs the lanes of each edge into its target's
 * predicate. Every branch, uniform ones too, becomes predication (the "full" of full linearization);
 * a backward edge is a branch back while its mask is not empty. Irreducible cycles and several exits
 * need nothing special. The machinery is sweep.c's, without the empty-block skip. */
#include "sweep.h"

int rc_pass_full_linearize(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  if (rc_pass_args_check(ctx, "full-linearize", args) != 0) return -1;
  sweep_opts o = {"full-linearize", "pred", false, false};
  return rc_sweep_lower(ctx, k, &o, stats);
}
