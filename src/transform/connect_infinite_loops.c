/* connect-infinite-loops: give every block a path to an exit.
 *
 * The thesis requires loops with reachable exits (4: "loops are required to have reachable exits"),
 * since a post-dominator, and so a reconvergence point, only exists on paths that end. Instead of
 * refusing kernels with infinite loops, this pass adds to one block of each region that cannot
 * reach an exit an edge to an exit that is never taken: `br false, EXIT, T` (a uniform branch on a
 * constant). These are exactly the blocks the post-dominator tree connects to its virtual exit
 * (dominance.c), so afterwards the real CFG has the shape the virtual exit pretended. Runs behave
 * as before: the new edge is never taken. A block ending in a two-way branch gets the test in a new
 * block on its first edge. When the kernel has no exit at all, an `exit` block that returns is
 * added. */
#include "reconv/analysis.h"
#include "reconv/transform.h"

#include <stdlib.h>

int rc_pass_connect_infinite_loops(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  rc_cfg g;
  rc_cfg_build(&g, k);
  rc_domtree pdom;
  rc_domtree_build(&pdom, &g, true);
  uint32_t n = pdom.nextra_exits;
  if (n == 0) {
    rc_domtree_free(&pdom);
    rc_cfg_free(&g);
    return 0;
  }
  rc_block **from = rc_xmalloc(n * sizeof *from);
  for (uint32_t i = 0; i < n; i++) from[i] = k->blocks[pdom.extra_exits[i]];
  rc_domtree_free(&pdom);
  rc_cfg_free(&g);

  rc_block *exit = NULL;
  for (uint32_t b = 0; b < k->nblocks && !exit; b++) {
    rc_instr *t = rc_block_term(k->blocks[b]);
    if (t && t->op == RC_OP_RET) exit = k->blocks[b];
  }
  rc_builder bld;
  if (!exit) {
    exit = rc_block_new(k, "exit");
    exit->bflags |= RC_BLOCK_VIRTUAL;
    rc_builder_at_end(&bld, exit);
    if (k->is_function && k->ret_type != RC_VOID) rc_build_ret_value(&bld, rc_undef(k, k->ret_type));
    else rc_build_ret(&bld);
  }
  for (uint32_t i = 0; i < n; i++) {
    rc_block *b = from[i];
    rc_instr *t = rc_block_term(b);
    rc_block *site = b;
    rc_block *cont = t->targets[0];
    if (t->ntargets != 1) { /* test on the first edge, in a block of its own */
      site = rc_block_new(k, rc_kernel_fresh_name(k, "loopexit"));
      site->bflags |= RC_BLOCK_VIRTUAL;
      rc_term_set_target(t, 0, site);
      for (rc_instr *phi = cont->first; phi && phi->op == RC_OP_PHI; phi = phi->next) {
        int idx = rc_phi_index_of(phi, b);
        if (idx >= 0 && !rc_block_has_pred(cont, b)) phi->targets[idx] = site;
        else if (idx >= 0) rc_phi_add_incoming(phi, phi->ops[idx], site);
      }
    } else {
      rc_instr_detach(t);
    }
    rc_builder_at_end(&bld, site);
    rc_instr *br = rc_build_br(&bld, rc_const_bool(k, false), exit, cont);
    br->iflags |= RC_IF_UNIFORM;
    /* the exit gains a predecessor: its phis (if any) get undef from it */
    for (rc_instr *phi = exit->first; phi && phi->op == RC_OP_PHI; phi = phi->next)
      if (rc_phi_index_of(phi, site) < 0) rc_phi_add_incoming(phi, rc_undef(k, (rc_type)phi->v.type), site);
  }
  free(from);
  if (stats) rc_stats_add(stats, "infinite_loops_connected", n);
  return 0;
}
