/* Random kernels for the reconverge property tests (shared by prop_reconverge_*.c).
 *
 * Block i computes a value from the thread id, merges its predecessors' values in a phi (so SSA
 * repair has work), and ends in ret, jmp or a two-way branch, divergent (condition on the thread id)
 * or, one in four, uniform (condition on the parameter %u, annotated !uniform). Targets are random,
 * so the CFGs are irreducible, have several exits, self loops and infinite loops.
 *
 * With `terminating`, every thread ends: a step counter in private memory is decremented in each
 * block, and once it runs out each branch takes an edge to a later block (every block has one, the
 * last block returns); uniform branches only go forward. Every block stores to out[tid], so the
 * final memory reflects the path. */
#ifndef RECONV_TEST_RANDOM_KERNEL_H
#define RECONV_TEST_RANDOM_KERNEL_H

#include "reconv/ir.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct rng {
  uint64_t s;
} rng;
static uint32_t rnd(rng *r, uint32_t n) {
  r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)((r->s >> 33) % n);
}

static rc_kernel *random_kernel(rc_module *m, uint64_t seed, uint32_t n, bool terminating) {
  rng r = {seed * 2654435761u + 1};
  rc_kernel *k = rc_kernel_new(m, "k");
  rc_value *out = rc_kernel_add_param(k, RC_PTR, "out");
  rc_value *u = rc_kernel_add_param(k, RC_I32, "u");
  rc_kernel_set_run_spec(k, "--global 64 --arg out=i32[N] --arg u=5");
  rc_block **b = rc_xmalloc(n * sizeof *b);
  for (uint32_t i = 0; i < n; i++) {
    char name[16];
    snprintf(name, sizeof name, "B%u", i);
    b[i] = rc_block_new(k, name);
  }
  rc_builder bl;
  rc_builder_at_end(&bl, b[0]);
  rc_value *arg0 = rc_const_int(k, RC_I32, 0);
  rc_value *tid = &rc_build_call(&bl, RC_BI_GLOBAL_ID, RC_I32, &arg0, 1, "tid")->v;
  rc_value *addr = rc_build_gep(&bl, out, tid, 4, "addr");
  rc_value *counter = NULL;
  if (terminating) {
    counter = rc_build_alloca(&bl, 4, "steps");
    rc_build_store(&bl, rc_const_int(k, RC_I32, 12 + (int64_t)rnd(&r, 30)), counter);
  }
  rc_value **val = rc_xmalloc(n * sizeof *val);
  rc_value **go = rc_xcalloc(n, sizeof *go);
  for (uint32_t i = 0; i < n; i++) {
    rc_builder_at_end(&bl, b[i]);
    val[i] = rc_build_binop(&bl, RC_OP_ADD, tid, rc_const_int(k, RC_I32, i), NULL);
    if (terminating) {
      rc_value *c = rc_build_load(&bl, RC_I32, counter, NULL);
      rc_value *c1 = rc_build_binop(&bl, RC_OP_SUB, c, rc_const_int(k, RC_I32, 1), NULL);
      rc_build_store(&bl, c1, counter);
      go[i] = rc_build_cmp(&bl, RC_CMP_SGT, c1, rc_const_int(k, RC_I32, 0), NULL);
      rc_build_store(&bl, val[i], addr);
    }
  }
  uint32_t exits = 0;
  for (uint32_t i = 0; i < n; i++) {
    rc_builder_at_end(&bl, b[i]);
    uint32_t kind = rnd(&r, 10);
    bool last = i == n - 1;
    if ((kind == 0 && i > 0) || last || (!terminating && i == n - 1 && exits == 0)) {
      rc_build_store(&bl, val[i], addr);
      rc_build_ret(&bl);
      exits++;
      continue;
    }
    uint32_t fwd = i + 1 + rnd(&r, n - 1 - i); /* a later block */
    if (kind <= 3) {
      uint32_t t = 1 + rnd(&r, n - 1);
      if (!terminating || t > i) {
        rc_build_jmp(&bl, b[t]);
      } else {
        rc_build_br(&bl, go[i], b[t], b[fwd]);
      }
      continue;
    }
    bool uniform = rnd(&r, 4) == 0;
    uint32_t t1 = 1 + rnd(&r, n - 1), t2 = terminating ? fwd : 1 + rnd(&r, n - 1);
    if (uniform && terminating && t1 <= i) t1 = i + 1 + rnd(&r, n - 1 - i);
    if (t1 == t2) t2 = terminating ? (t2 + 1 < n ? t2 + 1 : i + 1) : 1 + (t2 % (n - 1));
    if (t1 == t2) {
      rc_build_jmp(&bl, b[t1]);
      continue;
    }
    rc_value *c;
    if (uniform) {
      c = rc_build_cmp(&bl, RC_CMP_SLT, u, rc_const_int(k, RC_I32, (int64_t)(i % 9)), NULL);
    } else {
      c = rc_build_cmp(&bl, RC_CMP_SLT, rc_build_binop(&bl, RC_OP_AND, val[i], rc_const_int(k, RC_I32, 15), NULL),
                       rc_const_int(k, RC_I32, 1 + (int64_t)rnd(&r, 14)), NULL);
      if (terminating) c = rc_build_binop(&bl, RC_OP_AND, c, go[i], NULL);
    }
    rc_instr *br = rc_build_br(&bl, c, b[t1], b[t2]);
    if (uniform) br->iflags |= RC_IF_UNIFORM;
  }
  /* a phi in every block with predecessors, merging the predecessors' values, and a use of it */
  for (uint32_t i = 1; i < n; i++) {
    if (!b[i]->npreds) continue;
    rc_instr *phi = rc_phi_new(b[i], RC_I32, NULL);
    for (uint32_t p = 0; p < b[i]->npreds; p++)
      if (rc_phi_index_of(phi, b[i]->preds[p]) < 0)
        rc_phi_add_incoming(phi, val[b[i]->preds[p]->id], b[i]->preds[p]);
    rc_instr *first = rc_block_first_nonphi(b[i]);
    rc_builder_before(&bl, first);
    rc_value *x = rc_build_binop(&bl, RC_OP_XOR, &phi->v, val[0], NULL);
    if (terminating) {
      rc_builder_before_term(&bl, b[i]);
      rc_build_store(&bl, x, addr);
    }
  }
  free(go);
  free(val);
  free(b);
  return k;
}

#endif
