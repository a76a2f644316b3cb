/* A random edit script for the IR builder, shared by the property test tests/property/
 * prop_ir_builder.c (scripts from a PRNG) and the fuzz harness tests/fuzz/fuzz_builder.c (scripts
 * from libFuzzer). The bytes choose edits — new blocks, terminators set, retargeted, detached and
 * re-attached, phis added, blocks moved, removed one by one or in a batch, kernels cloned — and
 * after every edit the invariants the builder promises (docs/ir.md, "Object model") are checked:
 *
 *   - block ids are dense and every block is found under its name;
 *   - each block's predecessor list is exactly the multiset of CFG edges into it;
 *   - a removed block is gone from every phi of its former successors;
 *   - printing works, and a clone prints the same text (and verifies when the original does).
 *
 * Static functions in a header: each test program includes it once. */
#ifndef RECONV_TEST_BUILDER_SCRIPT_H
#define RECONV_TEST_BUILDER_SCRIPT_H

#include "reconv/analysis.h"
#include "reconv/ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct script {
  const uint8_t *p, *end;
  rc_module *m;
  rc_kernel *k;
  rc_value *x, *c; /* parameters: i32 %x (switch value), i1 %c (branch condition) */
  char *why;
  size_t whylen;
  bool failed;
} script;

static unsigned script_byte(script *s) {
  return s->p < s->end ? *s->p++ : 0;
}

static rc_block *script_block(script *s) {
  return s->k->blocks[script_byte(s) % s->k->nblocks];
}

static bool script_fail(script *s, const char *fmt, ...) {
  if (s->failed) return false;
  s->failed = true;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->why, s->whylen, fmt, ap);
  va_end(ap);
  return false;
}

static void script_quiet(void *user, const rc_diag *d) {
  (void)user;
  (void)d;
}

static char *script_print_kernel(const rc_kernel *k) {
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_print_kernel(k, &sb);
  return sb.data;
}

/* The invariants; counts[] has one zeroed entry per block and is left zeroed. */
static bool script_check(script *s, uint32_t *counts) {
  rc_kernel *k = s->k;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    rc_block *blk = k->blocks[b];
    if (blk->id != b || blk->parent != k) return script_fail(s, "block %u has id %u", b, blk->id);
    if (rc_kernel_find_block(k, blk->name) != blk)
      return script_fail(s, "block %s is not found under its name", blk->name);
    for (uint32_t i = 0; i < blk->npreds; i++)
      if (!blk->preds[i] || blk->preds[i]->parent != k)
        return script_fail(s, "block %s has a removed predecessor", blk->name);
  }
  /* per block: count its preds entries, subtract the edges into it (the CFG snapshot collects
   * them from the terminators), and expect zero everywhere */
  rc_cfg g;
  rc_cfg_build(&g, k);
  bool ok = true;
  for (uint32_t b = 0; b < k->nblocks && ok; b++) {
    rc_block *blk = k->blocks[b];
    for (uint32_t i = 0; i < blk->npreds; i++) counts[blk->preds[i]->id]++;
    for (uint32_t e = g.pred_start[b]; e < g.pred_start[b + 1]; e++) {
      uint32_t q = g.preds[e];
      if (counts[q] == 0 && ok)
        ok = script_fail(s, "edge %s -> %s missing from preds", k->blocks[q]->name, blk->name);
      if (counts[q]) counts[q]--;
    }
    for (uint32_t i = 0; i < blk->npreds; i++) {
      if (ok && counts[blk->preds[i]->id])
        ok = script_fail(s, "preds of %s name %s once too often", blk->name, blk->preds[i]->name);
      counts[blk->preds[i]->id] = 0;
    }
  }
  rc_cfg_free(&g);
  return ok;
}

static rc_instr *script_new_term(script *s, rc_block *b) {
  rc_kernel *k = s->k;
  rc_instr *t = NULL;
  switch (script_byte(s) % 4) {
  case 0:
    t = rc_instr_new(k, RC_OP_RET, RC_VOID, 0, 0);
    break;
  case 1:
    t = rc_instr_new(k, RC_OP_JMP, RC_VOID, 0, 1);
    t->targets[0] = script_block(s);
    break;
  case 2:
    t = rc_instr_new(k, RC_OP_BR, RC_VOID, 1, 2);
    t->ops[0] = s->c;
    t->targets[0] = script_block(s);
    t->targets[1] = script_block(s);
    break;
  default: {
    uint32_t ncases = script_byte(s) % 4;
    t = rc_instr_new(k, RC_OP_SWITCH, RC_VOID, 1, ncases + 1);
    t->ops[0] = s->x;
    for (uint32_t i = 0; i <= ncases; i++) t->targets[i] = script_block(s);
    for (uint32_t i = 0; i < ncases; i++) t->cases[i] = (int64_t)i * 3 - 2; /* distinct */
    break;
  }
  }
  (void)b;
  return t;
}

/* Run one script; 0 when every invariant held, -1 with a description in why. */
static int run_builder_script(const uint8_t *data, size_t size, char *why, size_t whylen) {
  rc_ctx ctx;
  rc_ctx_init(&ctx);
  ctx.diag = script_quiet;
  script s = {data, data + size, NULL, NULL, NULL, NULL, why, whylen, false};
  s.m = rc_module_new(&ctx, NULL);
  s.k = rc_kernel_new(s.m, "k");
  s.x = rc_kernel_add_param(s.k, RC_I32, "x");
  s.c = rc_kernel_add_param(s.k, RC_I1, "c");
  for (int i = 0; i < 4; i++) {
    rc_builder bld;
    rc_builder_at_end(&bld, rc_block_new(s.k, i ? NULL : "entry"));
    rc_build_ret(&bld);
  }
  uint32_t cap = 64;
  uint32_t *counts = calloc(cap, sizeof *counts);
  while (s.p < s.end && !s.failed) {
    rc_kernel *k = s.k;
    unsigned op = script_byte(&s) % 11;
    rc_block *b = script_block(&s);
    rc_instr *t = rc_block_term(b);
    switch (op) {
    case 0: /* a new block ending in ret */
      if (k->nblocks < 200) {
        rc_builder bld;
        rc_builder_at_end(&bld, rc_block_new(k, script_byte(&s) & 1 ? "B" : NULL));
        rc_build_ret(&bld);
      }
      break;
    case 1: /* replace the terminator */
      rc_block_set_term(b, script_new_term(&s, b));
      break;
    case 2: /* retarget one edge */
      if (t && t->ntargets) rc_term_set_target(t, script_byte(&s) % t->ntargets, script_block(&s));
      break;
    case 3: /* detach the terminator, then put it back or put a new one */
      if (t) {
        rc_instr_detach(t);
        unsigned how = script_byte(&s) % 3; /* back, a new one, or none (cases 1 and 9 add one) */
        if (how == 0) rc_instr_append(b, t);
        else if (how == 1) rc_instr_append(b, script_new_term(&s, b));
      }
      break;
    case 4: { /* a phi with one entry per distinct predecessor */
      rc_instr *phi = rc_phi_new(b, RC_I32, NULL);
      for (uint32_t i = 0; i < b->npreds; i++)
        if (rc_phi_index_of(phi, b->preds[i]) < 0) rc_phi_add_incoming(phi, s.x, b->preds[i]);
      break;
    }
    case 5: /* move a block (not the entry) */
      if (b->id && k->nblocks > 2) rc_block_move(b, 1 + script_byte(&s) % (k->nblocks - 1));
      break;
    case 6: { /* remove a block without predecessors (not the entry) */
      if (!b->id || b->npreds || k->nblocks < 3) break;
      rc_instr *bt = rc_block_term(b);
      rc_block *succ[64];
      uint32_t nsucc = 0;
      for (uint32_t e = 0; bt && e < bt->ntargets && nsucc < 64; e++) succ[nsucc++] = bt->targets[e];
      rc_block_remove(b);
      for (uint32_t i = 0; i < nsucc; i++)
        for (rc_instr *phi = succ[i]->first; phi && phi->op == RC_OP_PHI; phi = phi->next)
          if (rc_phi_index_of(phi, b) >= 0)
            script_fail(&s, "a phi of %s still names the removed block", succ[i]->name);
      break;
    }
    case 7: { /* remove every block the entry cannot reach, in one batch */
      rc_cfg g;
      rc_cfg_build(&g, k);
      uint32_t *rpo = malloc(k->nblocks * sizeof *rpo), *index = malloc(k->nblocks * sizeof *index);
      rc_cfg_rpo(&g, rpo, index);
      bool *dead = calloc(k->nblocks, sizeof *dead);
      for (uint32_t i = 0; i < k->nblocks; i++) dead[i] = index[i] == RC_NONE;
      rc_kernel_remove_blocks(k, dead);
      free(rpo);
      free(index);
      free(dead);
      rc_cfg_free(&g);
      break;
    }
    case 8: { /* clone into a fresh module: same text; verifies when the original does */
      rc_module *cm = rc_module_new(&ctx, NULL);
      rc_kernel *c = rc_kernel_clone(cm, k, "k");
      char *a = script_print_kernel(k), *bb = script_print_kernel(c);
      if (strcmp(a, bb) != 0) script_fail(&s, "the clone prints differently");
      if (rc_verify_kernel(&ctx, k) == 0 && rc_verify_kernel(&ctx, c) != 0)
        script_fail(&s, "the clone of a valid kernel does not verify");
      free(a);
      free(bb);
      rc_module_free(cm);
      break;
    }
    case 9: /* a terminator without a parent block gets retargeted, then attached */
      if (!t) {
        rc_instr *nt = script_new_term(&s, b);
        if (nt->ntargets) rc_term_set_target(nt, 0, script_block(&s));
        rc_instr_append(b, nt);
      }
      break;
    default: /* print and verify: must not crash whatever the state */
      free(script_print_kernel(k));
      rc_verify_kernel(&ctx, k);
      break;
    }
    if (k->nblocks > cap) {
      free(counts);
      cap = k->nblocks * 2;
      counts = calloc(cap, sizeof *counts);
    }
    if (!s.failed) script_check(&s, counts);
  }
  free(counts);
  rc_module_free(s.m);
  return s.failed ? -1 : 0;
}

#endif
