/* lowerswitch: replace every switch by two-way branches, one per distinct target: `br (x == c1 |
 * x == c2 ...), T1, next`, ..., the last `next` the default (a switch with two distinct targets is
 * one such branch, rc_switch_to_branch).
 *
 * The thesis assumes conditional branches with two successors (4, "switch statements are assumed to
 * be resolved ... by an earlier transformation"). The Beignet note suggests a divide-and-conquer
 * tree of comparisons on the case values, which reaches a case in about log2(n) comparisons but
 * adds two blocks per comparison; grouping the cases by target adds one block per distinct target
 * beyond the first, and every block added is one more place where reconverge may need flow (issue
 * 15: the tree inserted 21 blocks into a nested loop whose two-target switch needs none). The
 * switch block keeps the first comparison; the others go into new blocks flagged RC_BLOCK_VIRTUAL
 * (skipped in traces).
 * The new branches inherit the switch's !uniform / !divergent annotation. */
#include "reconv/transform.h"

#include <stdlib.h>
#include <string.h>

typedef struct case_entry {
  int64_t value;
  rc_block *target;
} case_entry;

static int cmp_case(const void *a, const void *b) {
  int64_t x = ((const case_entry *)a)->value, y = ((const case_entry *)b)->value;
  return x < y ? -1 : x > y;
}

/* Emit the chain of comparisons for one switch. */
static void lower_one(rc_kernel *k, rc_block *sw_block, uint32_t *new_blocks) {
  rc_instr *sw = rc_block_term(sw_block);
  rc_value *v = sw->ops[0];
  rc_type t = (rc_type)v->type;
  rc_block *dflt = sw->targets[0];
  uint8_t flags = sw->iflags & (RC_IF_UNIFORM | RC_IF_DIVERGENT);
  uint32_t n = sw->ntargets - 1;
  case_entry *cases = rc_xmalloc((n ? n : 1) * sizeof *cases);
  for (uint32_t i = 0; i < n; i++) cases[i] = (case_entry){sw->cases[i], sw->targets[i + 1]};
  qsort(cases, n, sizeof *cases, cmp_case);

  /* remember the phi values the switch block provided, per target, before edges move */
  RC_VEC(rc_block *) targets = {0};
  for (uint32_t i = 0; i < sw->ntargets; i++) {
    bool seen = false;
    for (uint32_t j = 0; j < targets.len; j++) seen |= targets.data[j] == sw->targets[i];
    if (!seen) rc_vec_push(&targets, sw->targets[i]);
  }
  rc_instr_detach(sw);

  /* one comparison per distinct target (thesis 4: two-way branches; issue 15: no block that is
   * not needed): `br (x == c1 | x == c2 ...), T1, next`, the last one's `next` the default. The
   * targets come in the order of their smallest case value. */
  RC_VEC(rc_block *) groups = {0};
  for (uint32_t i = 0; i < n; i++) {
    bool seen = cases[i].target == dflt;
    for (uint32_t g = 0; g < groups.len && !seen; g++) seen = groups.data[g] == cases[i].target;
    if (!seen) rc_vec_push(&groups, cases[i].target);
  }
  rc_builder b;
  rc_block *at = sw_block;
  rc_builder_at_end(&b, at);
  if (groups.len == 0) rc_build_jmp(&b, dflt);
  for (uint32_t g = 0; g < groups.len; g++) {
    rc_builder_at_end(&b, at);
    rc_value *cond = NULL;
    for (uint32_t i = 0; i < n; i++) {
      if (cases[i].target != groups.data[g]) continue;
      rc_value *eq = rc_build_cmp(&b, RC_CMP_EQ, v, rc_const_int(k, t, cases[i].value), NULL);
      cond = cond ? rc_build_binop(&b, RC_OP_OR, cond, eq, NULL) : eq;
    }
    rc_block *next = dflt;
    if (g + 1 < groups.len) {
      next = rc_block_new(k, rc_kernel_fresh_name(k, "switch."));
      next->bflags |= RC_BLOCK_VIRTUAL;
      ++*new_blocks;
    }
    rc_instr *br = rc_build_br(&b, cond, groups.data[g], next);
    br->iflags |= flags;
    at = next;
  }
  rc_vec_free(&groups);

  /* Phis in the targets had one entry for the switch block; now every block that branches to the
   * target provides the same value. */
  for (uint32_t ti = 0; ti < targets.len; ti++) {
    rc_block *tb = targets.data[ti];
    for (rc_instr *phi = tb->first; phi && phi->op == RC_OP_PHI; phi = phi->next) {
      int idx = rc_phi_index_of(phi, sw_block);
      if (idx < 0) continue;
      rc_value *val = phi->ops[idx];
      if (!rc_block_has_pred(tb, sw_block)) rc_phi_remove_incoming(phi, (uint32_t)idx);
      for (uint32_t p = 0; p < tb->npreds; p++)
        if (rc_phi_index_of(phi, tb->preds[p]) < 0) rc_phi_add_incoming(phi, val, tb->preds[p]);
    }
  }
  rc_vec_free(&targets);
  free(cases);
}

bool rc_switch_to_branch(rc_kernel *k, rc_block *b) {
  rc_instr *sw = rc_block_term(b);
  if (!sw || sw->op != RC_OP_SWITCH) return false;
  rc_block *dflt = sw->targets[0], *other = NULL;
  for (uint32_t i = 1; i < sw->ntargets; i++) {
    if (sw->targets[i] == dflt || sw->targets[i] == other) continue;
    if (other) return false; /* a third target */
    other = sw->targets[i];
  }
  if (!other) return false;
  /* cond = x == c1 | x == c2 ... over the cases that go to `other` */
  rc_builder bl;
  rc_builder_before(&bl, sw);
  rc_value *x = sw->ops[0], *cond = NULL;
  for (uint32_t i = 1; i < sw->ntargets; i++) {
    if (sw->targets[i] != other) continue;
    rc_value *eq = rc_build_cmp(&bl, RC_CMP_EQ, x, rc_const_int(k, (rc_type)x->type, sw->cases[i - 1]), NULL);
    cond = cond ? rc_build_binop(&bl, RC_OP_OR, cond, eq, NULL) : eq;
  }
  rc_instr *br = rc_instr_new(k, RC_OP_BR, RC_VOID, 1, 2);
  br->ops[0] = cond;
  br->targets[0] = other;
  br->targets[1] = dflt;
  br->iflags |= sw->iflags & (RC_IF_UNIFORM | RC_IF_DIVERGENT);
  br->line = sw->line;
  br->col = sw->col;
  rc_block_set_term(b, br);
  return true;
}

int rc_pass_lowerswitch(rc_ctx *ctx, rc_kernel *k, const rc_pass_args *args, rc_stats *stats) {
  uint32_t lowered = 0, new_blocks = 0;
  uint32_t nb = k->nblocks; /* new blocks have no switches */
  for (uint32_t i = 0; i < nb; i++) {
    rc_instr *t = rc_block_term(k->blocks[i]);
    if (t && t->op == RC_OP_SWITCH) {
      /* two distinct targets: one branch, no new block (issue: clang's two-target switches) */
      if (!rc_switch_to_branch(k, k->blocks[i])) lower_one(k, k->blocks[i], &new_blocks);
      lowered++;
    }
  }
  if (stats) {
    rc_stats_add(stats, "switches_lowered", lowered);
    rc_stats_add(stats, "switch_blocks", new_blocks);
  }
  return 0;
}
