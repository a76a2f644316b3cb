/* Private to the reconverge transform: its open tree and flow blocks (reconverge.c describes the
 * algorithm; open_tree.c processes the blocks, flow_blocks.c builds the flow blocks' branches and
 * phis). */
#ifndef RECONV_RECONVERGE_INTERNAL_H
#define RECONV_RECONVERGE_INTERNAL_H

#include "reconv/analysis.h"
#include "reconv/transform.h"

#include <stdlib.h>
#include <string.h>

#define ROOT (UINT32_MAX - 1)

enum { FP_TARGET, FP_COND, FP_FLOW };

typedef struct flow_pred {
  rc_block *block; /* the IR predecessor of the flow block */
  rc_block *src;   /* FP_TARGET/FP_COND: the block whose branch originally led to the target(s) */
  uint8_t kind;    /* FP_TARGET: always t1; FP_COND: cond ? t1 : t2; FP_FLOW: what `flow` wants */
  uint32_t t1, t2;
  rc_value *cond;
  uint32_t flow;   /* index of a flow node */
} flow_pred;

typedef struct flow_node {
  rc_block *block;
  RC_VEC(flow_pred) preds;
  rc_u32vec open;     /* targets still open, distinct */
  rc_u32vec closed;   /* closed targets, in closing order */
  uint32_t remainder; /* block id of the flow block the open targets went to, or RC_NONE */
  rc_u32vec forwarded; /* those targets, sorted (binary search; kept per flow node for locality) */
  rc_value **forwarded_cond; /* per forwarded target: its flow condition here, once built */
  rc_instr *last_phi;  /* phis are added after this one (keeps insertion O(1)) */
  RC_VEC(rc_instr *) value_phis; /* phis carrying values of target phis (flow_value) */
  rc_u32vec value_phi_origin;    /* per value phi: the value it carries (reconv_origin) */
  rc_u32vec value_phi_exit;      /* per value phi: 1 if it is a cycle's exit phi (flow_value) */
} flow_node;

typedef struct otn {
  uint32_t parent, first_child, last_child, next, prev;
  uint32_t open_in;   /* edges from blocks not visited yet */
  uint32_t visit;     /* visit index, RC_NONE before */
  uint32_t flow;      /* flow node index, RC_NONE for other blocks */
  uint32_t anchor;    /* new blocks: the original block they are laid out before */
  uint32_t stamp;
  uint32_t uf;        /* union-find parent: the region this quiescent block was merged into */
  bool in_tree, divergent, is_new;
  rc_value *not_cond; /* memoised `xor c, true` of this block's branch condition */
} otn;

typedef struct reconv {
  rc_ctx *ctx;
  rc_kernel *k;
  RC_VEC(otn) n;      /* by block id, grows with new blocks */
  otn root;
  RC_VEC(flow_node) flows;
  RC_VEC(rc_u32vec) flow_in; /* per block id: flow nodes that had it as a target */
  rc_u64map cond_memo;  /* (flow << 32 | target) -> i1 value true for flows that want target, for
                           the targets a flow does not forward (those are in forwarded_cond) */
  rc_u64map value_memo; /* (flow << 32 | phi value id) -> value the phi gets through the flow */
  uint32_t *origin;     /* by value id, below norigin: for a live-in phi of rc_ssa_expose_live_ins,
                           the id of the value it stands for; RC_NONE for other values */
  uint32_t norigin;
  uint32_t visits, stamp;
  uint32_t current;   /* block being processed (layout anchor for new blocks) */
  bool cond2;         /* apply the thesis's Condition 2 (`reconverge[cond2]`) */
  bool trace;         /* report the order, the open tree after each block, and each reroute */
  uint32_t entry;
  rc_u32vec tmp_roots, tmp_nodes, tmp_targets, tmp_preds;
  rc_u32vec tmp_starts; /* where each root's nodes start in tmp_nodes */
  rc_u32vec tmp_succs, tmp_seeds, closure;
  const rc_cycle_info *cycles; /* of the CFG with its flow blocks, while target phis are fixed */
  uint32_t *def_block;         /* then: per value id below ndef_block, its block (RC_NONE: none) */
  uint32_t ndef_block;
  /* flow_value's scratch (flow_blocks.c), kept across its calls: one per phi and flow predecessor */
  rc_u32vec fv_stack;
  RC_VEC(rc_value *) fv_vals;
  /* statistics */
  uint32_t flow_blocks, split_blocks, virtual_nodes, rerouted_edges;
} reconv;

/* The value a target phi carries: the exposed value for a live-in phi, the phi itself otherwise.
 * Flow blocks share a phi only among target phis of one origin (flow_blocks.c, merge_value_phi). */
static inline uint32_t reconv_origin(const reconv *r, const rc_instr *phi) {
  uint32_t id = phi->v.id;
  return id < r->norigin && r->origin[id] != RC_NONE ? r->origin[id] : id;
}

static inline otn *N(reconv *r, uint32_t id) {
  return id == ROOT ? &r->root : &r->n.data[id];
}

static inline bool visited(reconv *r, uint32_t b) {
  return r->n.data[b].visit != RC_NONE;
}

static inline uint64_t memo_key(uint32_t flow, uint32_t x) {
  return (uint64_t)flow << 32 | x;
}

/* open_tree.c */
uint32_t reconv_new_node(reconv *r, rc_block *b, bool divergent);
void reconv_process_block(reconv *r, uint32_t b);
/* flow_blocks.c */
rc_value *reconv_flow_cond(reconv *r, uint32_t fi, uint32_t target);
int reconv_materialize_flows(reconv *r);
void reconv_fix_target_phis(reconv *r, const rc_domtree *dom); /* dom: of the current CFG */

#endif
