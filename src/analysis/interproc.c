/* Uniformity across calls: which parameters of a device function can differ between the threads
 * that call it together. A parameter is divergent when some call in the module passes a value that
 * is divergent at the call; a device function the module never calls is called from elsewhere, and
 * its parameters stay divergent. Calls under divergent control flow pass their values as they are:
 * the threads that make the call together agree on a uniform value.
 *
 * The module's calls form a graph without cycles (OpenCL C has no recursion), but the fixpoint
 * below does not need that: parameters start uniform and only ever become divergent, each round
 * analyses every function that calls another with the parameters known so far, and the rounds stop
 * when one changes nothing. Each round costs one uniformity analysis per calling function. */
#include "reconv/analysis.h"

#include <string.h>

static bool is_divergent(const rc_uniformity *u, const rc_value *v) {
  return (v->kind == RC_V_PARAM || v->kind == RC_V_INSTR) && v->id < u->nvalues && u->divergent_value[v->id];
}

static bool has_calls(const rc_kernel *k) {
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next)
      if (i->op == RC_OP_CALLFN) return true;
  return false;
}

int rc_module_param_uniformity(rc_module *m, unsigned flags) {
  /* which device functions the module calls */
  bool *called = rc_xcalloc(m->nkernels + 1, sizeof *called);
  for (uint32_t f = 0; f < m->nkernels; f++)
    for (uint32_t b = 0; b < m->kernels[f]->nblocks; b++)
      for (const rc_instr *i = m->kernels[f]->blocks[b]->first; i; i = i->next)
        if (i->op == RC_OP_CALLFN && i->u.callee)
          for (uint32_t g = 0; g < m->nkernels; g++)
            if (m->kernels[g] == i->u.callee) called[g] = true;
  for (uint32_t f = 0; f < m->nkernels; f++) {
    rc_kernel *k = m->kernels[f];
    if (!k->is_function) continue;
    if (!k->param_divergent) k->param_divergent = rc_arena_alloc(&m->arena, k->nparams ? k->nparams : 1);
    memset(k->param_divergent, called[f] ? 0 : 1, k->nparams);
  }
  free(called);
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t f = 0; f < m->nkernels; f++) {
      const rc_kernel *k = m->kernels[f];
      if (!has_calls(k)) continue;
      rc_analysis a;
      if (rc_analysis_build(&a, k, flags) != 0) return -1;
      for (uint32_t b = 0; b < k->nblocks; b++)
        for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) {
          if (i->op != RC_OP_CALLFN || !i->u.callee || !i->u.callee->param_divergent) continue;
          rc_kernel *callee = i->u.callee;
          for (uint32_t o = 0; o < i->nops && o < callee->nparams; o++)
            if (!callee->param_divergent[o] && is_divergent(&a.unif, i->ops[o])) {
              callee->param_divergent[o] = 1;
              changed = true;
            }
        }
      rc_analysis_free(&a);
    }
  }
  return 0;
}
