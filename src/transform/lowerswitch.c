/* lowerswitch: replace every switch by a balanced tree of two-way branches (or, when its cases go
 * to only two distinct targets, by one branch on `x == c1 | x == c2 ...`, rc_switch_to_branch).
 *
 * The thesis assumes conditional branches with two successors (4, "switch statements are assumed to
 * be resolved ... by an earlier transformation"); the Beignet note suggests the divide-and-conquer
 * form, which dispatches n cases in about log2(n) comparisons. The switch block keeps the root
 * comparison; the other comparisons go into new blocks flagged RC_BLOCK_VIRTUAL (skipped in traces).
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

typedef struct range_job {
  rc_block *block; /* where the comparison for cases[lo..hi) goes */
  uint32_t lo, hi;
} range_job;

/* Emit the decision tree for one switch. The jobs form an explicit stack (no recursion). */
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

  rc_builder b;
  if (n == 0) {
    rc_builder_at_end(&b, sw_block);
    rc_build_jmp(&b, dflt);
  } else {
    RC_VEC(range_job) stack = {0};
    rc_vec_push(&stack, ((range_job){sw_block, 0, n}));
    while (stack.len) {
      range_job j = stack.data[--stack.len];
      rc_builder_at_end(&b, j.block);
      rc_instr *br;
      if (j.hi - j.lo == 1) {
        rc_value *eq = rc_build_cmp(&b, RC_CMP_EQ, v, rc_const_int(k, t, cases[j.lo].value), NULL);
        br = rc_build_br(&b, eq, cases[j.lo].target, dflt);
      } else {
        uint32_t mid = j.lo + (j.hi - j.lo) / 2;
        rc_value *lt = rc_build_cmp(&b, RC_CMP_SLT, v, rc_const_int(k, t, cases[mid].value), NULL);
        rc_block *left = rc_block_new(k, rc_kernel_fresh_name(k, "switch."));
        rc_block *right = rc_block_new(k, rc_kernel_fresh_name(k, "switch."));
        left->bflags |= RC_BLOCK_VIRTUAL;
        right->bflags |= RC_BLOCK_VIRTUAL;
        *new_blocks += 2;
        br = rc_build_br(&b, lt, left, right);
        rc_vec_push(&stack, ((range_job){right, mid, j.hi}));
        rc_vec_push(&stack, ((range_job){left, j.lo, mid}));
      }
      br->iflags |= flags;
    }
    rc_vec_free(&stack);
  }

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
