/* Inlining one call of a device function (rc_inline_call, include/reconv/ir.h). The simulators'
 * form of a kernel (src/sim/run_form.c) inlines every call, so that the machines run kernels with
 * device functions as they are: the callee runs in the caller's thread, at wave level under the
 * caller's exec mask, with no call stack to model. */
#include "ir_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* A block name "<block>.<prefix>.<what>", made unique by the kernel if taken. */
static rc_block *new_block(rc_kernel *k, const rc_block *at, const char *prefix, const char *what) {
  rc_strbuf name = {0};
  rc_sb_printf(&name, "%s.%s.%s", at->name, prefix, what);
  rc_block *b = rc_block_new(k, name.data);
  rc_sb_free(&name);
  return b;
}

/* Phis of b's successors that name `from` as incoming block name `to` instead. */
static void rename_incoming(rc_block *b, rc_block *from, rc_block *to) {
  for (uint32_t s = 0; s < rc_block_nsuccs(b); s++) {
    rc_block *succ = rc_block_succ(b, s);
    for (rc_instr *phi = succ->first; phi && phi->op == RC_OP_PHI; phi = phi->next)
      for (uint32_t o = 0; o < phi->nops; o++)
        if (phi->targets[o] == from) phi->targets[o] = to;
  }
}

rc_block *rc_inline_call(rc_instr *call, const char *prefix) {
  rc_block *at = call->parent;
  rc_kernel *k = at->parent;
  const rc_kernel *f = call->u.callee;
  if (!f || f->nblocks == 0) return NULL;
  /* the rest of the block moves to `rest`, edges and all */
  rc_block *rest = new_block(k, at, prefix, "ret");
  rest->bflags |= RC_BLOCK_VIRTUAL;
  while (call->next) {
    rc_instr *i = call->next;
    rc_instr_detach(i);
    rc_instr_append(rest, i);
  }
  rename_incoming(rest, at, rest);
  /* the callee's body, its parameters the call's arguments */
  rc_block **bmap = rc_xmalloc(f->nblocks * sizeof *bmap);
  for (uint32_t b = 0; b < f->nblocks; b++) {
    bmap[b] = new_block(k, at, prefix, f->blocks[b]->name);
    bmap[b]->bflags = f->blocks[b]->bflags | RC_BLOCK_INLINED;
    bmap[b]->line = f->blocks[b]->line;
    bmap[b]->col = f->blocks[b]->col;
  }
  rc_value **map = rc_xcalloc(f->nvalues ? f->nvalues : 1, sizeof *map);
  for (uint32_t p = 0; p < f->nparams && p < call->nops; p++) map[f->params[p]->id] = call->ops[p];
  ir_copy_body(k, f, map, bmap);
  free(map);
  /* every return goes on with the rest; the result is what the returns give */
  rc_value **rets = rc_xmalloc(f->nblocks * sizeof *rets); /* per copied block: its returned value */
  uint32_t nrets = 0, last = 0;
  rc_builder bl;
  for (uint32_t b = 0; b < f->nblocks; b++) {
    rets[b] = NULL;
    rc_instr *t = rc_block_term(bmap[b]);
    if (!t || t->op != RC_OP_RET) continue;
    /* non-NULL for every returning block: a void callee's marks it with the call itself */
    rets[b] = t->nops ? t->ops[0] : call->v.type != RC_VOID ? rc_undef(k, (rc_type)call->v.type) : &call->v;
    nrets++, last = b;
    rc_instr_detach(t);
    rc_builder_at_end(&bl, bmap[b]);
    rc_build_jmp(&bl, rest);
  }
  rc_value *result = nrets == 1 ? rets[last] : NULL;
  if (nrets > 1 && call->v.type != RC_VOID) {
    rc_instr *phi = rc_phi_new(rest, (rc_type)call->v.type, NULL);
    for (uint32_t b = 0; b < f->nblocks; b++)
      if (rets[b]) rc_phi_add_incoming(phi, rets[b], bmap[b]);
    result = &phi->v;
  }
  free(rets);
  if (call->v.type != RC_VOID)
    rc_kernel_replace_uses(k, &call->v, result ? result : rc_undef(k, (rc_type)call->v.type));
  rc_instr_detach(call);
  rc_builder_at_end(&bl, at);
  rc_build_jmp(&bl, bmap[0]);
  free(bmap);
  return rest;
}

long rc_inline_calls(rc_kernel *k, uint32_t max_new_blocks, const rc_instr **stuck) {
  uint64_t limit = (uint64_t)k->nblocks + max_new_blocks;
  long n = 0;
  /* a block's walk stops at its first call: the rest of the block is a new block, walked later */
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->op != RC_OP_CALLFN || !i->u.callee || i->u.callee->nblocks == 0) continue;
      if (k->nblocks > limit) {
        if (stuck) *stuck = i;
        return -1;
      }
      rc_inline_call(i, i->u.callee->name);
      n++;
      break;
    }
  return n;
}
