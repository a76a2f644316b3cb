/* remove-dead-blocks: delete the blocks that cannot be reached from the entry (thesis 4: "nodes that
 * are unreachable from the entry node will not be considered"). Phi entries for removed
 * predecessors are dropped. */
#include "reconv/analysis.h"
#include "reconv/transform.h"

#include <stdlib.h>

int rc_pass_remove_dead_blocks(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  rc_cfg g;
  rc_cfg_build(&g, k);
  uint32_t *rpo = rc_xmalloc((g.nblocks ? g.nblocks : 1) * sizeof *rpo);
  uint32_t *idx = rc_xmalloc((g.nblocks ? g.nblocks : 1) * sizeof *idx);
  uint32_t nreach = rc_cfg_rpo(&g, rpo, idx);
  uint32_t removed = k->nblocks - nreach;
  if (removed) {
    bool *dead = rc_xcalloc(k->nblocks, sizeof *dead);
    for (uint32_t b = 0; b < k->nblocks; b++) dead[b] = idx[b] == RC_NONE;
    rc_kernel_remove_blocks(k, dead);
    free(dead);
  }
  free(rpo);
  free(idx);
  rc_cfg_free(&g);
  if (stats) rc_stats_add(stats, "dead_blocks_removed", removed);
  return 0;
}
