/* All analyses of a kernel at once, in dependency order: CFG snapshot, dominator and
 * post-dominator trees, cycles, uniformity. */
#include "reconv/analysis.h"

#include <string.h>

int rc_analysis_build(rc_analysis *a, const rc_kernel *k, unsigned unif_flags) {
  memset(a, 0, sizeof *a);
  rc_cfg_build(&a->cfg, k);
  rc_domtree_build(&a->dom, &a->cfg, false);
  rc_domtree_build(&a->pdom, &a->cfg, true);
  rc_cycles_build(&a->cycles, &a->cfg);
  return rc_uniformity_build(&a->unif, k, &a->cfg, &a->dom, &a->pdom, &a->cycles, unif_flags);
}

int rc_analysis_build_from(rc_analysis *a, const rc_kernel *k, unsigned unif_flags, rc_cfg *cfg, rc_domtree *dom) {
  memset(a, 0, sizeof *a);
  a->cfg = *cfg;
  a->dom = *dom;
  memset(cfg, 0, sizeof *cfg);
  memset(dom, 0, sizeof *dom);
  rc_domtree_build(&a->pdom, &a->cfg, true);
  rc_cycles_build(&a->cycles, &a->cfg);
  return rc_uniformity_build(&a->unif, k, &a->cfg, &a->dom, &a->pdom, &a->cycles, unif_flags);
}

void rc_analysis_free(rc_analysis *a) {
  rc_uniformity_free(&a->unif);
  rc_cycles_free(&a->cycles);
  rc_domtree_free(&a->pdom);
  rc_domtree_free(&a->dom);
  rc_cfg_free(&a->cfg);
}

int rc_kernel_reconverging(rc_ctx *ctx, const rc_kernel *k, unsigned unif_flags, rc_u32vec *where) {
  rc_analysis a;
  if (rc_analysis_build(&a, k, unif_flags | rc_uniformity_target_flags(k)) != 0) {
    rc_analysis_free(&a);
    return rc_error(ctx, "kernel @%s: the uniformity analysis failed", k->name);
  }
  bool yes = rc_is_reconverging(k, &a.cfg, &a.pdom, &a.unif, where);
  rc_analysis_free(&a);
  return yes ? 1 : 0;
}
