/* The IPDOM-stack SIMT model: runs a thread-level kernel (the original, untransformed) in waves with
 * a hardware reconvergence stack, as Fung et al. (MICRO 2007) describe it and Anantpur and
 * Govindarajan (2014, section 2) use it as their baseline.
 *
 * Each stack entry holds the block the entry executes next, its reconvergence block (RPC) and its
 * lanes. The wave executes the top entry's block with exec = the entry's lanes. At a branch whose
 * active lanes all go one way, the entry moves on. At a divergent branch of block B with immediate
 * post-dominator R (the virtual exit when B's paths end in different exits):
 *   - the top entry becomes the reconvergence entry: its next block is R, its lanes stay, unless R
 *     is already its RPC, in which case it is popped (the entry below waits at R with all of its
 *     lanes; this keeps loops with divergent exits from growing the stack);
 *   - one entry (target, R, lanes going there) is pushed per target other than R, the false target
 *     first, so that the true target runs first.
 * An entry whose next block is its RPC, or whose lanes are all gone, is popped. Lanes that return
 * leave every entry. Phi copies are performed when a branch is taken, for the lanes that take each
 * edge. Metrics, by the cost model of docs/cost.md (the rules the wave simulator counts lowered code
 * by, applied to the code a GCN-like machine runs for a reconvergence stack): each instruction of
 * an executed block is issued once, as a scalar instruction when the lowering would compute it once
 * per wave (uniform and safe, rc_scalar_values) and as a vector instruction otherwise; terminators
 * as scalar (branch) instructions, but for a jmp to the next block (it falls through); an edge's
 * phi copies as vector moves (mask instructions for i1 phis: lane masks), under the lanes that take
 * it, except those register coalescing removes (copies.c); one mask instruction per change of exec
 * when the stack hands the wave a new entry, and one per further target of a divergent branch (the
 * mask of the lanes that wait: s_and_saveexec then s_xor, as LLVM's AMDGPU backend lowers an if).
 * The stack depth is recorded; blocks the stack runs more often than the busiest lane needed are
 * the duplicates Anantpur's Fig. 1 shows (B3 twice, B5 three times). Step budget and traces per
 * lane are exactly the interpreter's. */
#include "waves.h"

#include "reconv/analysis.h"
#include "reconv/transform.h"

#include <inttypes.h>
#include <stdlib.h>

/* Which values a compiler for the machine computes once per wave on the scalar unit: those the
 * lowering would (rc_scalar_values: uniform, safe, with scalar operands), with the phis at the
 * joins of divergent branches kept per lane. They run per lane here as everything does (the stack
 * model executes the thread-level kernel); only their issue class is scalar. None when the
 * analysis fails. */
static void ipdom_scalar_values(const rc_kernel *k, uint8_t *scalar) {
  rc_analysis a;
  if (rc_analysis_build(&a, k, rc_uniformity_target_flags(k)) != 0) return;
  rc_scalar_values(k, &a.unif, a.unif.sync_join, scalar);
  rc_analysis_free(&a);
}

/* Per decoded edge, the phi copies a register allocator keeps (the cost model's, src/cost/copies.c). */
static void kept_edge_copies(sim_run *r, const uint8_t *scalar) {
  const sim_code *code = &r->code;
  cost_copies *c = cost_copies_open(r->k);
  for (uint32_t pc = 0; pc < code->ninst; pc++) {
    const rc_instr *t = code->src[pc];
    if (!rc_opcode_is_terminator((rc_opcode)t->op)) continue;
    const sim_inst *x = &code->inst[pc];
    uint32_t edges[2], n = 0, first_case = 0, ncases = 0;
    if (t->op == RC_OP_JMP) edges[n++] = x->b;
    else if (t->op == RC_OP_BR || t->op == RC_OP_BREXECZ) edges[n++] = x->b, edges[n++] = x->c;
    else if (t->op == RC_OP_SWITCH) edges[n++] = (uint32_t)x->imm, first_case = x->b, ncases = x->c;
    for (uint32_t i = 0; i < n + ncases; i++) {
      uint32_t e = i < n ? edges[i] : code->cases[first_case + i - n].edge;
      cost_edge_copies(c, t->parent, r->k->blocks[code->edges[e].block], scalar, &r->edge_copies[3 * e]);
    }
  }
  cost_copies_close(c);
}

static void ipdom_prepare(sim_run *r) {
  const rc_kernel *k = r->k;
  uint8_t *scalar = rc_xcalloc(k->nvalues + 1, 1);
  ipdom_scalar_values(k, scalar);
  for (uint32_t pc = 0; pc < r->code.ninst; pc++) {
    const rc_instr *i = r->code.src[pc];
    bool once = i->v.id != RC_NONE && i->v.id < k->nvalues && scalar[i->v.id];
    r->issue[pc] = rc_opcode_is_terminator((rc_opcode)i->op) || once ? ISSUE_SCALAR : ISSUE_VECTOR;
    if (sim_falls_through(i)) r->issue[pc] |= ISSUE_FREE;
  }
  rc_cfg g;
  rc_domtree pdom;
  rc_cfg_build(&g, k);
  rc_domtree_build(&pdom, &g, true);
  r->ipdom = rc_xmalloc((k->nblocks + 1) * sizeof *r->ipdom);
  r->edge_copies = rc_xcalloc(3 * r->code.nedges + 1, sizeof *r->edge_copies);
  kept_edge_copies(r, scalar);
  for (uint32_t b = 0; b < k->nblocks; b++) {
    /* blocks outside the tree are unreachable and never run; treat them as reconverging at exit */
    r->ipdom[b] = rc_domtree_contains(&pdom, b) ? pdom.idom[b] : k->nblocks;
    r->step_len[b] = r->code.budget_len[b]; /* as the interpreter counts */
  }
  rc_domtree_free(&pdom);
  rc_cfg_free(&g);
  free(scalar);
}

static void push(sim_run *r, sim_wave *w, uint32_t pc, uint32_t rpc, uint64_t mask) {
  sim_stack_entry e = {pc, rpc, mask};
  rc_vec_push(&w->stack, e);
  if (w->stack.len > r->max_stack) r->max_stack = w->stack.len;
}

static int ipdom_start(sim_run *r, sim_wave *w) {
  push(r, w, 0, r->k->nblocks, w->exists);
  w->pc = RC_NONE; /* between blocks: the stack decides */
  return STEP_OK;
}

/* The edge of a switch each lane takes, grouped by target block: lanes[t] for targets[t]. */
static uint32_t switch_groups(sim_run *r, sim_wave *w, const sim_inst *x, uint32_t *edge, uint64_t *lanes) {
  const uint64_t *v = wave_val(r, w, x->a);
  const sim_case *cs = r->code.cases + x->b;
  uint32_t n = 0;
  for (uint64_t m = w->exec; m; m &= m - 1) {
    uint32_t l = (uint32_t)__builtin_ctzll(m), e = (uint32_t)x->imm;
    for (uint32_t c = 0; c < x->c; c++)
      if (cs[c].value == (int64_t)v[l]) {
        e = cs[c].edge;
        break;
      }
    uint32_t t = 0;
    while (t < n && r->code.edges[edge[t]].block != r->code.edges[e].block) t++;
    if (t == n) {
      edge[n] = e;
      lanes[n++] = 0;
    }
    lanes[t] |= (uint64_t)1 << l;
  }
  return n;
}

/* The terminator at pc of block b ends the top entry's turn. */
static int branch(sim_run *r, sim_wave *w, uint32_t b, uint32_t pc) {
  const sim_inst *x = &r->code.inst[pc];
  uint64_t exec = w->exec;
  uint32_t edge[64];
  uint64_t lanes[64];
  uint32_t n = 0;
  switch ((rc_opcode)x->op) {
  case RC_OP_RET:
    for (uint32_t i = 0; i < w->stack.len; i++) w->stack.data[i].mask &= ~exec;
    return STEP_OK;
  case RC_OP_UNREACHABLE:
    return wave_fault_lane(r, w, (uint32_t)__builtin_ctzll(exec), pc, "unreachable executed");
  case RC_OP_JMP:
    edge[0] = x->b;
    lanes[0] = exec;
    n = 1;
    break;
  case RC_OP_BR: {
    const uint64_t *c = wave_val(r, w, x->a);
    uint64_t t = 0;
    for (uint64_t m = exec; m; m &= m - 1) {
      uint32_t l = (uint32_t)__builtin_ctzll(m);
      t |= (c[l] & 1) << l;
    }
    if (t) { edge[n] = x->b; lanes[n++] = t; }
    if (exec & ~t) { edge[n] = x->c; lanes[n++] = exec & ~t; }
    break;
  }
  case RC_OP_SWITCH: n = switch_groups(r, w, x, edge, lanes); break;
  default: return wave_fault(r, w, pc, "'%s' cannot run on the IPDOM model", rc_opcode_name((rc_opcode)x->op));
  }
  uint32_t active = w->active;
  for (uint32_t i = 0; i < n; i++) {
    lanes_edge_copies(r, w, &r->code.edges[edge[i]], lanes[i]);
    w->active = (uint32_t)__builtin_popcountll(lanes[i]); /* the copies run under the edge's lanes */
    const uint32_t *kept = &r->edge_copies[3 * edge[i]];
    for (uint32_t c = 0; c < kept[0]; c++) wave_issue(r, w, ISSUE_VECTOR);
    for (uint32_t c = 0; c < kept[1]; c++) wave_issue(r, w, ISSUE_MASK);
    for (uint32_t c = 0; c < kept[2]; c++) wave_issue(r, w, ISSUE_SCALAR);
  }
  w->active = active;
  for (uint32_t i = 1; i < n; i++) wave_issue(r, w, ISSUE_MASK); /* the waiting lanes' masks */
  sim_stack_entry *top = &w->stack.data[w->stack.len - 1];
  if (n == 1) { /* the lanes agree: no divergence */
    top->pc = r->code.edges[edge[0]].block;
    return STEP_OK;
  }
  uint32_t R = r->ipdom[b];
  if (R == top->rpc) w->stack.len--;
  else top->pc = R;
  for (uint32_t i = n; i-- > 0;) {
    uint32_t target = r->code.edges[edge[i]].block;
    if (target != R) push(r, w, target, R, lanes[i]);
  }
  return STEP_OK;
}

static int ipdom_run(sim_run *r, sim_wave *w) {
  const sim_inst *code = r->code.inst;
  for (;;) {
    if (w->pc == RC_NONE) { /* choose the next block from the stack */
      while (w->stack.len) {
        const sim_stack_entry *top = &w->stack.data[w->stack.len - 1];
        if (top->mask && top->pc != top->rpc) break;
        w->stack.len--;
      }
      if (!w->stack.len) {
        w->state = W_DONE;
        return STEP_OK;
      }
      const sim_stack_entry *top = &w->stack.data[w->stack.len - 1];
      bool exec_changes = top->mask != w->exec;
      wave_set_exec(r, w, top->mask);
      w->pc = r->code.block_pc[top->pc];
      if (wave_enter_block(r, w, top->pc, w->pc) != STEP_OK) return STEP_FAULT;
      if (exec_changes) wave_issue(r, w, ISSUE_MASK); /* the write of exec */
    }
    uint32_t pc = w->pc;
    while (!rc_opcode_is_terminator((rc_opcode)code[pc].op)) {
      wave_issue(r, w, r->issue[pc] & (ISSUE_KIND | ISSUE_MEMORY | ISSUE_BARRIER));
      int rc = lanes_exec(r, w, pc, false);
      if (rc == STEP_BARRIER) {
        w->barrier_pc = pc;
        w->pc = pc + 1;
        return STEP_BARRIER;
      }
      if (rc != STEP_OK) return rc;
      pc++;
    }
    if (!(r->issue[pc] & ISSUE_FREE)) wave_issue(r, w, ISSUE_SCALAR);
    if (branch(r, w, w->block, pc) != STEP_OK) return STEP_FAULT;
    w->pc = RC_NONE;
  }
}

static const sim_machine ipdom_machine = {"IPDOM model", RC_LEVEL_THREAD, ipdom_prepare, ipdom_start, ipdom_run};

int rc_ipdom_run(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, rc_memory *mem,
                 rc_traces *traces, rc_run_stats *stats, rc_fault *fault, rc_timeline *timeline) {
  return waverun(ctx, &ipdom_machine, k, s, mem, traces, stats, fault, timeline);
}
