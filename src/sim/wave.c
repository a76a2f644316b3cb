/* The wave simulator: runs wave kernels (docs/ir.md, "Wave level"; the output of the lower pass)
 * on the launch machinery of waverun.c and the lane engine of lanes.c.
 *
 * What runs once per wave (scalar) and what per lane:
 *   mask  ballot, exec, setexec, and/or/xor/andn on masks, icmp on masks, rget/rset of mask
 *         registers: once per wave (mask values are scalar); rset of a vector i1 register runs per
 *         lane but is counted as a mask instruction (i1 values are lane masks on GCN);
 *   scalar  instructions marked !scalar, rget/rset of scalar registers: once per wave; and the
 *         terminators br, jmp, switch, brexecz, ret, unreachable (the branch unit);
 *   vector  everything else: for the lanes in exec.
 * What an instruction costs is the cost model of docs/cost.md (src/cost/issue.c), an AMD GCN-like
 * machine: each instruction takes one issue slot of its class, except what such a machine does not
 * issue at all.
 * A scalar `br` or `switch` reads its condition once when it is a scalar value; when it is a vector
 * value every active lane must hold the same one, else the run faults: that is how a branch the
 * lowering kept as uniform (reconverge marks such branches !uniform) is checked on every run. */
#include "waves.h"

#include "reconv/analysis.h"

#include <inttypes.h>

/* The step budget counts, per lane, what a thread would have executed: the instructions of the
 * blocks it is active in, without the lowering's mask instructions and register reads and writes
 * (the phis they stand for are free in the interpreter: it copies on edges) and without inserted
 * blocks. A budget chosen for the kernel then holds for its lowered form (issue: sim --check
 * faulted on correct programs when the phi reads at block tops were charged). */
static bool counts_as_step(const rc_instr *i, int kind) {
  return kind != ISSUE_MASK && i->op != RC_OP_RSET && i->op != RC_OP_RGET && !(i->parent->bflags & RC_BLOCK_SYNTHETIC);
}

static void wave_prepare(sim_run *r) {
  const rc_kernel *k = r->k;
  for (uint32_t v = 0; v < r->code.nslots; v++) r->scalar_slot[v] = v < k->nparams || v >= k->nvalues;
  cost_wave_issue_classes(k, r->issue);
  for (uint32_t pc = 0; pc < r->code.ninst; pc++) {
    const rc_instr *i = r->code.src[pc];
    bool once = (r->issue[pc] & ISSUE_ONCE) != 0;
    int kind = r->issue[pc] & ISSUE_KIND;
    if (i->v.id != RC_NONE) r->scalar_slot[i->v.id] = once && i->op != RC_OP_SETEXEC;
    if (counts_as_step(i, kind)) r->step_len[i->parent->id]++;
    /* a vector instruction, and ballot, read their operands lane by lane */
    if (!once || i->op == RC_OP_BALLOT)
      for (uint32_t o = 0; o < i->nops; o++) {
        const sim_inst *x = &r->code.inst[pc];
        uint32_t slot = o == 0 ? x->a : o == 1 ? x->b : x->c;
        if (o < 3 && !rc_opcode_is_terminator((rc_opcode)i->op)) r->bcast[slot] = 1;
      }
  }
}

static int wave_start(sim_run *r, sim_wave *w) {
  w->pc = r->code.block_pc[0];
  return wave_enter_block(r, w, 0, w->pc);
}

/* The value a scalar branch reads: the scalar's, or the one every active lane agrees on. */
static int uniform_value(sim_run *r, sim_wave *w, uint32_t pc, uint32_t slot, int64_t *out) {
  const uint64_t *v = wave_val(r, w, slot);
  if (r->scalar_slot[slot]) {
    *out = (int64_t)v[0];
    return STEP_OK;
  }
  if (!w->exec)
    return wave_fault(r, w, pc, "scalar branch on a vector value with no active lane (its value is "
                      "undefined; keep the empty-exec skip on)");
  uint32_t first = (uint32_t)__builtin_ctzll(w->exec);
  for (uint64_t m = w->exec & (w->exec - 1); m; m &= m - 1) {
    uint32_t l = (uint32_t)__builtin_ctzll(m);
    if (v[l] != v[first])
      return wave_fault(r, w, pc, "the active lanes disagree on the condition of this scalar branch "
                        "(lane %u: %" PRId64 ", lane %u: %" PRId64 "): the branch is not uniform",
                        first, (int64_t)v[first], l, (int64_t)v[l]);
  }
  *out = (int64_t)v[first];
  return STEP_OK;
}

static int wave_run(sim_run *r, sim_wave *w) {
  const sim_inst *code = r->code.inst;
  const uint8_t *issue = r->issue;
  uint32_t pc = w->pc;
  for (;;) {
    const sim_inst *x = &code[pc];
    if (!(issue[pc] & ISSUE_FREE)) wave_issue(r, w, issue[pc] & (ISSUE_KIND | ISSUE_MEMORY | ISSUE_BARRIER));
    uint32_t e;
    int64_t v;
    switch ((rc_opcode)x->op) {
    case RC_OP_BR:
      if (uniform_value(r, w, pc, x->a, &v) != STEP_OK) return STEP_FAULT;
      e = v ? x->b : x->c;
      break;
    case RC_OP_SWITCH: {
      if (uniform_value(r, w, pc, x->a, &v) != STEP_OK) return STEP_FAULT;
      e = (uint32_t)x->imm;
      const sim_case *cs = r->code.cases + x->b;
      for (uint32_t c = 0; c < x->c; c++)
        if (cs[c].value == v) {
          e = cs[c].edge;
          break;
        }
      break;
    }
    case RC_OP_JMP: e = x->b; break;
    case RC_OP_BREXECZ: e = w->exec ? x->c : x->b; break;
    case RC_OP_RET:
      w->state = W_DONE;
      w->pc = pc;
      return STEP_OK;
    case RC_OP_UNREACHABLE: return wave_fault(r, w, pc, "unreachable executed");
    default: {
      int rc = lanes_exec(r, w, pc, (issue[pc] & ISSUE_ONCE) != 0);
      if (rc == STEP_BARRIER) {
        w->barrier_pc = pc;
        w->pc = pc + 1;
        return STEP_BARRIER;
      }
      if (rc != STEP_OK) return rc;
      pc++;
      continue;
    }
    }
    const sim_edge *ed = &r->code.edges[e];
    if (wave_enter_block(r, w, ed->block, pc) != STEP_OK) return STEP_FAULT;
    pc = ed->pc;
  }
}

static const sim_machine wave_machine = {"wave simulator", RC_LEVEL_WAVE, wave_prepare, wave_start, wave_run};

int rc_wave_run(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, rc_memory *mem,
                rc_traces *traces, rc_run_stats *stats, rc_fault *fault, rc_timeline *timeline) {
  return waverun(ctx, &wave_machine, k, s, mem, traces, stats, fault, timeline);
}
