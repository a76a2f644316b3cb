/* The thread-level interpreter: runs a decoded kernel (decode.h) for every work-item of a launch,
 * work-group by work-group. Within a group the threads are scheduled cooperatively: each runs until
 * it reaches a barrier or returns, then the next; when all have stopped they must all wait at the
 * same barrier (then all resume) or all have returned, otherwise the run faults with "barrier
 * divergence". A kernel without barriers runs its threads one after another in a single frame, so
 * memory stays proportional to one thread however large the group or the kernel.
 *
 * Values follow scalar.h (the semantics of docs/ir.md). Every fault names the kernel, the block, the
 * instruction's text and the thread (its linear global id). */
#include "decode.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum { T_RUNNING, T_BARRIER, T_DONE };
enum { STOP_DONE = 0, STOP_BARRIER = 1, STOP_FAULT = -1 };

typedef struct sim_thread {
  sim_slot *slots;
  rc_segment *priv;     /* this thread's private regions */
  uint8_t *priv_data;
  uint32_t pc;
  int state;
  uint32_t barrier_pc;  /* where it waits (state T_BARRIER) */
  uint64_t steps;       /* instructions of the blocks it entered */
  uint64_t charged;     /* what the step budget counts of them (sim_decode) */
  uint64_t entries;     /* blocks it entered */
  uint32_t lid[3], gid[3];
  uint64_t linear;      /* linear global id */
  uint32_t lane;        /* local linear id % wave size */
  bool counted;         /* its steps are in interp.instructions */
  rc_u32vec trace;
} sim_thread;

typedef struct interp {
  const rc_kernel *k;
  const char *name;            /* the user's kernel's name (k may be its copy, run_form.c) */
  const rc_run_spec *s;
  sim_code code;
  rc_frame_layout layout;
  rc_memory *mem;
  sim_globals globals;         /* the module space */
  rc_addr_map map;
  uint64_t budget;
  uint64_t max_entries;        /* blocks a thread may enter: 8 x budget (loops of inserted blocks) */
  uint32_t local[3], ngroups[3];
  uint32_t group[3], gsize[3]; /* the current work-group and its actual size */
  sim_slot *params;            /* the value of every parameter */
  bool has_barrier;
  uint32_t nframes;            /* threads held at once: the group size, or 1 without barriers */
  sim_thread *threads;
  sim_slot *slot_store;
  uint8_t *priv_store, *local_store;
  rc_segment *priv_segs, *local_segs;
  sim_slot *tmp;               /* parallel phi copies */
  uint64_t *block_entries;
  uint64_t instructions;
  bool want_traces;
  bool want_blocks, want_effects; /* what the traces record (rc_run_spec.effect_traces) */
  uint32_t ntraced;            /* blocks below this id are the kernel's own (run_form.c appends the
                                  blocks of inlined calls: not traced, not counted) */
  rc_u32vec chunk;             /* traces in execution order ... */
  uint64_t *toff;              /* ... thread (linear id) -> offset in chunk and length */
  uint32_t *tlen;
  rc_fault *fault;
} interp;

/* ---- faults ---------------------------------------------------------------------------------- */

static int fault_at(interp *it, const sim_thread *t, uint32_t pc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int fault_at(interp *it, const sim_thread *t, uint32_t pc, const char *fmt, ...) {
  char msg[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const rc_instr *i = it->code.src[pc];
  rc_strbuf text;
  rc_sb_init(&text);
  rc_print_instr(i, &text);
  char thread[96];
  sim_thread_name(it->s, t->linear, t->gid, thread, sizeof thread);
  it->fault->happened = true;
  sim_fault_where(it->fault, i);
  snprintf(it->fault->message, sizeof it->fault->message,
           "kernel @%s, block %s, instruction `%s`, thread %s: %s", it->name, i->parent->name,
           text.data ? text.data : "", thread, msg);
  rc_sb_free(&text);
  return STOP_FAULT;
}

static int mem_fault(interp *it, const sim_thread *t, uint32_t pc, const char *what, uint64_t addr,
                     uint64_t n) {
  char text[300];
  sim_access_fault_text(&it->map, it->mem->names, what, addr, n, text, sizeof text);
  return fault_at(it, t, pc, "%s", text);
}

/* ---- builtins ---------------------------------------------------------------------------------- */

static int64_t query(const interp *it, const sim_thread *t, rc_builtin f, unsigned d) {
  switch (f) {
  case RC_BI_GLOBAL_ID: return t->gid[d];
  case RC_BI_LOCAL_ID: return t->lid[d];
  case RC_BI_GROUP_ID: return it->group[d];
  case RC_BI_GLOBAL_SIZE: return it->s->global[d];
  case RC_BI_LOCAL_SIZE: return it->gsize[d];
  case RC_BI_NUM_GROUPS: return it->ngroups[d];
  case RC_BI_LANE_ID: return t->lane;
  default: return it->s->wave; /* wave_size */
  }
}

/* Atomics run one at a time at thread level, so they are plain read-modify-writes. */
static int atomic(interp *it, sim_thread *t, const sim_inst *x, uint32_t pc) {
  sim_slot *S = t->slots;
  unsigned size = rc_type_size((rc_type)x->type);
  uint8_t *p = rc_addr_resolve(&it->map, S[x->a].u, size);
  if (!p) return mem_fault(it, t, pc, "atomic access", S[x->a].u, size);
  sim_slot old = sim_from_bits(sim_read_le(p, size), (rc_type)x->type), nw;
  if (x->aux == RC_BI_ATOMIC_CMPXCHG)
    nw.i = old.i == S[x->b].i ? S[x->c].i : old.i;
  else
    nw.i = sim_atomic_op((rc_builtin)x->aux, x->bits, old.i, S[x->b].i);
  sim_write_le(p, size, sim_to_bits(nw, (rc_type)x->type));
  if (it->want_effects)
    sim_effect_push(&t->trace, RC_EFFECT_ATOMIC, x->aux, S[x->a].u, S[x->b].u,
                    x->aux == RC_BI_ATOMIC_CMPXCHG ? S[x->c].u : 0);
  S[x->dst] = old;
  return STOP_DONE;
}

static int block_op(interp *it, sim_thread *t, const sim_inst *x, uint32_t pc) {
  sim_slot *S = t->slots;
  uint64_t n = sim_uval(S[x->c].i, x->bits);
  if (it->want_effects) sim_effect_push(&t->trace, RC_EFFECT_CALL, x->aux, S[x->a].u, S[x->b].u, n);
  if (n == 0) return STOP_DONE;
  uint8_t *dst = rc_addr_resolve(&it->map, S[x->a].u, n);
  if (!dst) return mem_fault(it, t, pc, x->aux == RC_BI_MEMCPY ? "memcpy store" : "memset", S[x->a].u, n);
  if (x->aux == RC_BI_MEMSET) {
    memset(dst, (int)(S[x->b].i & 0xff), n);
    return STOP_DONE;
  }
  uint8_t *src = rc_addr_resolve(&it->map, S[x->b].u, n);
  if (!src) return mem_fault(it, t, pc, "memcpy load", S[x->b].u, n);
  memmove(dst, src, n);
  return STOP_DONE;
}

/* The long tail (builtins.c), the same computation as the wave machines'. */
static int other(interp *it, sim_thread *t, const sim_inst *x, uint32_t pc) {
  sim_slot *S = t->slots;
  sim_bcall c;
  sim_bcall_init(&c, it->code.src[pc]);
  sim_slot args[4] = {S[x->a], S[x->b], S[x->c], S[x->d]};
  c.args = args;
  c.map = &it->map;
  c.buffer_names = it->mem->names;
  c.lane = t->lane;
  c.dims = it->s->dims;
  char why[300];
  sim_slot r;
  if (sim_builtin_other(&c, &r, why, sizeof why) != 0) return fault_at(it, t, pc, "%s", why);
  if (it->want_effects && (rc_builtin_get((rc_builtin)x->aux)->flags & RC_BF_EFFECTS))
    sim_effect_push(&t->trace, RC_EFFECT_CALL, x->aux, S[x->a].u, S[x->b].u, S[x->c].u);
  if (x->type != RC_VOID) S[x->dst] = r;
  return STOP_DONE;
}

static int call(interp *it, sim_thread *t, const sim_inst *x, uint32_t pc) {
  sim_slot *S = t->slots;
  rc_builtin f = (rc_builtin)x->aux;
  rc_type ty = (rc_type)x->type;
  switch (rc_builtin_get(f)->sig) {
  case RC_SIG_QUERY_DIM:
  case RC_SIG_QUERY: S[x->dst].i = sim_canon((uint64_t)query(it, t, f, (unsigned)x->imm), x->bits); return STOP_DONE;
  case RC_SIG_VOID0: /* barrier: stop here; the group scheduler resumes after it */
    if (it->want_effects) sim_effect_push(&t->trace, RC_EFFECT_BARRIER, 0, 0, 0, 0);
    t->state = T_BARRIER;
    t->barrier_pc = pc;
    t->pc = pc + 1;
    return STOP_BARRIER;
  case RC_SIG_F1:
  case RC_SIG_F2:
  case RC_SIG_F3:
    S[x->dst] = sim_fput(sim_math(f, ty, sim_fget(S[x->a], ty), sim_fget(S[x->b], ty),
                                  sim_fget(S[x->c], ty)), ty);
    return STOP_DONE;
  case RC_SIG_I1:
  case RC_SIG_I2: S[x->dst].i = sim_int_math(f, x->bits, S[x->a].i, S[x->b].i); return STOP_DONE;
  case RC_SIG_ATOMIC:
  case RC_SIG_CMPXCHG: return atomic(it, t, x, pc);
  case RC_SIG_OTHER: return other(it, t, x, pc);
  default: return block_op(it, t, x, pc);
  }
}

/* ---- the dispatch loop ------------------------------------------------------------------------------ */

static void trace_push(rc_u32vec *v, uint32_t block) {
  if (v->len == v->cap) rc_vec_reserve(v, v->len + 1);
  v->data[v->len++] = block;
}

/* The step budget ran out: too many instructions of the kernel's own blocks, or too many blocks
 * entered at all (a loop of inserted blocks, which cost no steps). */
static int budget_fault(interp *it, const sim_thread *t, uint32_t pc) {
  if (t->charged > it->budget)
    return fault_at(it, t, pc, "step budget of %" PRIu64 " instructions per thread exceeded (raise it with --steps)",
                    it->budget);
  return fault_at(it, t, pc, "entered more than %" PRIu64 " blocks (8 x the step budget; raise it with --steps)",
                  it->max_entries);
}

/* Run thread t until it returns (STOP_DONE), reaches a barrier (STOP_BARRIER) or faults. */
static int run_thread(interp *it, sim_thread *t) {
  const sim_inst *code = it->code.inst;
  const sim_edge *edges = it->code.edges;
  const sim_copy *copies = it->code.copies;
  const uint32_t *block_len = it->code.block_len, *budget_len = it->code.budget_len;
  sim_slot *S = t->slots;
  uint32_t pc = t->pc;
  uint32_t e;
  int fault = 0;
  for (;;) {
    const sim_inst *x = &code[pc];
    switch ((rc_opcode)x->op) {
    case RC_OP_ADD: S[x->dst].i = sim_canon(S[x->a].u + S[x->b].u, x->bits); break;
    case RC_OP_SUB: S[x->dst].i = sim_canon(S[x->a].u - S[x->b].u, x->bits); break;
    case RC_OP_MUL: S[x->dst].i = sim_canon(S[x->a].u * S[x->b].u, x->bits); break;
    case RC_OP_AND: S[x->dst].i = S[x->a].i & S[x->b].i; break;
    case RC_OP_OR: S[x->dst].i = S[x->a].i | S[x->b].i; break;
    case RC_OP_XOR: S[x->dst].i = S[x->a].i ^ S[x->b].i; break;
    case RC_OP_ANDN:
    case RC_OP_SHL:
    case RC_OP_LSHR:
    case RC_OP_ASHR:
      S[x->dst].i = sim_int_binop((rc_opcode)x->op, x->bits, S[x->a].i, S[x->b].i, &fault);
      break;
    case RC_OP_SDIV:
    case RC_OP_UDIV:
    case RC_OP_SREM:
    case RC_OP_UREM: {
      int64_t r = sim_int_binop((rc_opcode)x->op, x->bits, S[x->a].i, S[x->b].i, &fault);
      if (fault == 1) return fault_at(it, t, pc, "division by zero");
      if (fault == 2)
        return fault_at(it, t, pc, "signed division overflow (%" PRId64 " / -1)", sim_smin_of(x->bits));
      S[x->dst].i = r;
      break;
    }
    case RC_OP_FADD:
    case RC_OP_FSUB:
    case RC_OP_FMUL:
    case RC_OP_FDIV:
    case RC_OP_FREM: {
      rc_type ty = (rc_type)x->type;
      S[x->dst] = sim_fput(sim_float_binop((rc_opcode)x->op, ty, sim_fget(S[x->a], ty),
                                           sim_fget(S[x->b], ty)), ty);
      break;
    }
    case RC_OP_FNEG: S[x->dst] = sim_fput(-sim_fget(S[x->a], (rc_type)x->type), (rc_type)x->type); break;
    case RC_OP_ICMP: S[x->dst].i = sim_icmp((rc_cmp)x->aux, x->bits, S[x->a].i, S[x->b].i); break;
    case RC_OP_FCMP:
      S[x->dst].i = sim_fcmp((rc_cmp)x->aux, sim_fget(S[x->a], (rc_type)x->otype),
                             sim_fget(S[x->b], (rc_type)x->otype));
      break;
    case RC_OP_SELECT: S[x->dst] = S[x->a].i ? S[x->b] : S[x->c]; break;
    case RC_OP_TRUNC: case RC_OP_ZEXT: case RC_OP_SEXT: case RC_OP_FPTRUNC: case RC_OP_FPEXT:
    case RC_OP_FPTOSI: case RC_OP_FPTOUI: case RC_OP_SITOFP: case RC_OP_UITOFP:
    case RC_OP_PTRTOINT: case RC_OP_INTTOPTR: case RC_OP_BITCAST:
      S[x->dst] = sim_cast((rc_opcode)x->op, (rc_type)x->otype, (rc_type)x->type, S[x->a]);
      break;
    case RC_OP_LOAD: {
      uint8_t *p = rc_addr_resolve(&it->map, S[x->a].u, (uint64_t)x->imm);
      if (!p) return mem_fault(it, t, pc, "load", S[x->a].u, (uint64_t)x->imm);
      S[x->dst] = sim_from_bits(sim_read_le(p, (unsigned)x->imm), (rc_type)x->type);
      break;
    }
    case RC_OP_STORE: {
      uint8_t *p = rc_addr_resolve(&it->map, S[x->b].u, (uint64_t)x->imm);
      if (!p) return mem_fault(it, t, pc, "store", S[x->b].u, (uint64_t)x->imm);
      uint64_t bits = sim_to_bits(S[x->a], (rc_type)x->type);
      sim_write_le(p, (unsigned)x->imm, bits);
      if (it->want_effects) sim_effect_push(&t->trace, RC_EFFECT_STORE, (unsigned)x->imm, S[x->b].u, bits, 0);
      break;
    }
    case RC_OP_GEP:
      S[x->dst].u = S[x->a].u + (uint64_t)sim_sval(S[x->b].i, x->bits) * (uint64_t)x->imm;
      break;
    case RC_OP_ALLOCA:
    case RC_OP_LOCALMEM: S[x->dst].u = (uint64_t)x->imm; break;
    case RC_OP_CALL: {
      int r = call(it, t, x, pc);
      if (r != STOP_DONE) return r;
      break;
    }
    case RC_OP_BR: e = S[x->a].i ? x->b : x->c; goto take_edge;
    case RC_OP_JMP: e = x->b; goto take_edge;
    case RC_OP_SWITCH: {
      e = (uint32_t)x->imm;
      const sim_case *cs = it->code.cases + x->b;
      for (uint32_t c = 0; c < x->c; c++)
        if (cs[c].value == S[x->a].i) {
          e = cs[c].edge;
          break;
        }
      goto take_edge;
    }
    case RC_OP_RET:
      t->state = T_DONE;
      t->pc = pc;
      return STOP_DONE;
    case RC_OP_UNREACHABLE: return fault_at(it, t, pc, "unreachable executed");
    case RC_OP_OPAQUE: return fault_at(it, t, pc, "%s", sim_opaque_text);
    default:
      return fault_at(it, t, pc, "'%s' cannot run at thread level", rc_opcode_name((rc_opcode)x->op));
    }
    pc++;
    continue;
  take_edge: {
    const sim_edge *ed = &edges[e];
    if (ed->parallel) {
      for (uint32_t c = 0; c < ed->ncopies; c++) it->tmp[c] = S[copies[ed->copy + c].src];
      for (uint32_t c = 0; c < ed->ncopies; c++) S[copies[ed->copy + c].dst] = it->tmp[c];
    } else {
      for (uint32_t c = 0; c < ed->ncopies; c++) S[copies[ed->copy + c].dst] = S[copies[ed->copy + c].src];
    }
    t->steps += block_len[ed->block];
    t->charged += budget_len[ed->block];
    if (t->charged > it->budget || ++t->entries > it->max_entries) return budget_fault(it, t, pc);
    if (it->want_blocks && ed->block < it->ntraced) trace_push(&t->trace, ed->block);
    it->block_entries[ed->block]++;
    pc = ed->pc;
  }
  }
}

/* ---- work-groups ---------------------------------------------------------------------------------- */

static void trace_flush(interp *it, sim_thread *t) {
  if (!it->want_traces) return;
  it->toff[t->linear] = it->chunk.len;
  it->tlen[t->linear] = t->trace.len;
  rc_vec_reserve(&it->chunk, it->chunk.len + t->trace.len);
  if (t->trace.len) memcpy(it->chunk.data + it->chunk.len, t->trace.data, t->trace.len * sizeof(uint32_t));
  it->chunk.len += t->trace.len;
  t->trace.len = 0;
}

/* Set up thread t of the current group as the work-item with local linear id l. */
static int start_thread(interp *it, sim_thread *t, uint32_t l) {
  const uint32_t *L = it->gsize;
  t->lid[0] = l % L[0];
  t->lid[1] = (l / L[0]) % L[1];
  t->lid[2] = l / (L[0] * L[1]);
  for (int d = 0; d < 3; d++) t->gid[d] = it->group[d] * it->local[d] + t->lid[d];
  t->linear = t->gid[0] + (uint64_t)t->gid[1] * it->s->global[0] +
              (uint64_t)t->gid[2] * it->s->global[0] * it->s->global[1];
  t->lane = l % it->s->wave;
  memcpy(t->slots, it->code.frame0, it->code.nslots * sizeof *t->slots);
  memcpy(t->slots, it->params, it->k->nparams * sizeof *t->slots);
  if (it->layout.private_bytes) memset(t->priv_data, 0, it->layout.private_bytes);
  t->state = T_RUNNING;
  t->pc = it->code.block_pc[0];
  t->steps = it->code.block_len[0];
  t->charged = it->code.budget_len[0];
  t->entries = 1;
  t->counted = false;
  t->trace.len = 0;
  if (it->want_blocks) trace_push(&t->trace, 0);
  it->block_entries[0]++;
  if (t->charged > it->budget) return budget_fault(it, t, t->pc);
  return STOP_DONE;
}

static int finish_thread(interp *it, sim_thread *t) {
  it->instructions += t->steps;
  t->counted = true;
  trace_flush(it, t);
  return STOP_DONE;
}

static void use_thread(interp *it, sim_thread *t) {
  it->map.seg[RC_SPACE_PRIVATE] = t->priv;
}

/* All stopped threads of the group must wait at the same barrier, or all have returned. */
static int barrier_check(interp *it, uint32_t n, bool *all_done) {
  sim_thread *w = NULL;
  for (uint32_t i = 0; i < n && !w; i++)
    if (it->threads[i].state == T_BARRIER) w = &it->threads[i];
  *all_done = w == NULL;
  if (!w) return STOP_DONE;
  for (uint32_t i = 0; i < n; i++) {
    sim_thread *t = &it->threads[i];
    if (t->state == T_DONE)
      return fault_at(it, w, w->barrier_pc, "barrier divergence: thread %" PRIu64 " waits here but "
                      "thread %" PRIu64 " of its work-group has returned", w->linear, t->linear);
    if (t->barrier_pc != w->barrier_pc) {
      const rc_instr *o = it->code.src[t->barrier_pc];
      return fault_at(it, w, w->barrier_pc, "barrier divergence: thread %" PRIu64 " waits here but "
                      "thread %" PRIu64 " waits at another barrier (block %s)", w->linear, t->linear,
                      o->parent->name);
    }
  }
  for (uint32_t i = 0; i < n; i++) it->threads[i].state = T_RUNNING;
  return STOP_DONE;
}

static int run_group(interp *it) {
  uint32_t n = it->gsize[0] * it->gsize[1] * it->gsize[2];
  if (it->layout.local_bytes) memset(it->local_store, 0, it->layout.local_bytes);
  if (!it->has_barrier) { /* independent threads, one frame */
    sim_thread *t = &it->threads[0];
    use_thread(it, t);
    for (uint32_t l = 0; l < n; l++) {
      if (start_thread(it, t, l) != STOP_DONE || run_thread(it, t) != STOP_DONE) return STOP_FAULT;
      finish_thread(it, t);
    }
    return STOP_DONE;
  }
  for (uint32_t l = 0; l < n; l++) {
    use_thread(it, &it->threads[l]);
    if (start_thread(it, &it->threads[l], l) != STOP_DONE) return STOP_FAULT;
  }
  for (;;) {
    for (uint32_t l = 0; l < n; l++) {
      sim_thread *t = &it->threads[l];
      if (t->state != T_RUNNING) continue;
      use_thread(it, t);
      if (run_thread(it, t) == STOP_FAULT) return STOP_FAULT;
    }
    bool done;
    if (barrier_check(it, n, &done) != STOP_DONE) return STOP_FAULT;
    if (done) break;
  }
  for (uint32_t l = 0; l < n; l++) finish_thread(it, &it->threads[l]);
  return STOP_DONE;
}

/* ---- setup ------------------------------------------------------------------------------------------- */

static int param_values(rc_ctx *ctx, interp *it) {
  it->params = rc_xcalloc(it->k->nparams ? it->k->nparams : 1, sizeof *it->params);
  return sim_param_values(ctx, it->k, it->s, it->mem, &it->layout, it->params);
}

static int setup(rc_ctx *ctx, interp *it) {
  const rc_kernel *k = it->k;
  if (rc_frame_layout_build(ctx, &it->layout, k, it->s) != 0) return -1;
  sim_decode(&it->code, k, &it->layout);
  if (param_values(ctx, it) != 0) return -1;
  it->has_barrier = sim_kernel_has_barrier(k);
  rc_run_spec_local(it->s, it->local);
  for (int d = 0; d < 3; d++) it->ngroups[d] = (it->s->global[d] + it->local[d] - 1) / it->local[d];
  it->nframes = it->has_barrier ? it->local[0] * it->local[1] * it->local[2] : 1;
  uint64_t frame_bytes = (uint64_t)it->code.nslots * sizeof(sim_slot) + it->layout.private_bytes;
  if (frame_bytes * it->nframes > RC_REGION_MAX_BYTES)
    return rc_error(ctx, "kernel @%s: %u threads of %" PRIu64 " bytes each do not fit in the "
                    "simulator's memory; use a smaller --local", k->name, it->nframes, frame_bytes);
  it->threads = rc_xcalloc(it->nframes, sizeof *it->threads);
  it->slot_store = rc_xcalloc((size_t)it->code.nslots * it->nframes + 1, sizeof *it->slot_store);
  it->priv_store = rc_xcalloc((size_t)it->layout.private_bytes * it->nframes + 1, 1);
  it->priv_segs = rc_xcalloc((size_t)it->layout.nprivate * it->nframes + 1, sizeof *it->priv_segs);
  it->local_store = rc_xcalloc(it->layout.local_bytes + 1, 1);
  it->local_segs = rc_xcalloc(it->layout.nlocal + 1, sizeof *it->local_segs);
  it->tmp = rc_xcalloc(it->code.max_copies + 1, sizeof *it->tmp);
  it->block_entries = rc_xcalloc(k->nblocks + 1, sizeof *it->block_entries);
  for (uint32_t f = 0; f < it->nframes; f++) {
    sim_thread *t = &it->threads[f];
    t->slots = it->slot_store + (size_t)f * it->code.nslots;
    t->priv_data = it->priv_store + (size_t)f * it->layout.private_bytes;
    t->priv = it->priv_segs + (size_t)f * it->layout.nprivate;
    rc_frame_segments(t->priv, t->priv_data, it->layout.private_offset, it->layout.private_size,
                      it->layout.nprivate);
  }
  rc_frame_segments(it->local_segs, it->local_store, it->layout.local_offset, it->layout.local_size,
                    it->layout.nlocal);
  it->map.seg[RC_SPACE_GLOBAL] = it->mem->segs;
  it->map.nseg[RC_SPACE_GLOBAL] = it->mem->nbufs;
  it->map.seg[RC_SPACE_LOCAL] = it->local_segs;
  it->map.nseg[RC_SPACE_LOCAL] = it->layout.nlocal;
  it->map.nseg[RC_SPACE_PRIVATE] = it->layout.nprivate;
  if (sim_globals_init(ctx, &it->globals, k) != 0) return -1;
  sim_globals_map(&it->globals, &it->map);
  if (it->want_traces) {
    uint64_t n = rc_run_spec_threads(it->s);
    it->toff = rc_xcalloc(n + 1, sizeof *it->toff);
    it->tlen = rc_xcalloc(n + 1, sizeof *it->tlen);
  }
  return 0;
}

static void teardown(interp *it) {
  for (uint32_t f = 0; f < it->nframes; f++) rc_vec_free(&it->threads[f].trace);
  free(it->threads);
  free(it->slot_store);
  free(it->priv_store);
  free(it->priv_segs);
  free(it->local_store);
  free(it->local_segs);
  free(it->tmp);
  free(it->block_entries);
  free(it->params);
  free(it->toff);
  free(it->tlen);
  rc_vec_free(&it->chunk);
  sim_code_free(&it->code);
  rc_frame_layout_free(&it->layout);
  sim_globals_free(&it->globals);
}

/* Hand the traces over in linear thread order (already so for one-dimensional launches). */
static void build_traces(interp *it, rc_traces *out) {
  sim_traces_gather(out, rc_run_spec_threads(it->s), it->toff, it->tlen, &it->chunk);
  out->effects = it->want_effects;
}

int rc_interp_run(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, rc_memory *mem,
                  rc_traces *traces, rc_run_stats *stats, rc_fault *fault) {
  rc_fault scratch;
  if (!fault) fault = &scratch;
  memset(fault, 0, sizeof *fault);
  if (traces) memset(traces, 0, sizeof *traces);
  if (stats) memset(stats, 0, sizeof *stats);
  if (k->level != RC_LEVEL_THREAD)
    return rc_report(ctx, RC_SEV_ERROR, k->line ? k->mod->filename : NULL, k->line, k->col,
                     "kernel @%s is a wave kernel; the thread-level interpreter runs only "
                     "thread-level kernels (wave kernels run on the wave simulator)", k->name);
  if (ctx->verify_each && rc_verify_kernel(ctx, k) != 0) return -1;
  if (rc_run_spec_check(ctx, s, k) != 0) return -1;
  rc_kernel *owned; /* the kernel in the machines' form, when it differs (run_form.c) */
  const char *name = k->name;
  uint32_t ntraced = k->nblocks;
  if (sim_run_form(ctx, k, &k, &owned) != 0) return -1;
  interp it0;
  memset(&it0, 0, sizeof it0);
  interp *it = &it0;
  it->ntraced = ntraced;
  it->k = k;
  it->name = name;
  it->s = s;
  it->mem = mem;
  it->fault = fault;
  it->budget = s->step_budget ? s->step_budget : RC_DEFAULT_STEP_BUDGET;
  it->max_entries = it->budget > UINT64_MAX / 8 ? UINT64_MAX : 8 * it->budget;
  it->want_traces = traces != NULL;
  it->want_effects = it->want_traces && s->effect_traces;
  it->want_blocks = it->want_traces && !s->effect_traces;
  int rc = setup(ctx, it);
  for (uint32_t gz = 0; rc == 0 && gz < it->ngroups[2]; gz++)
    for (uint32_t gy = 0; rc == 0 && gy < it->ngroups[1]; gy++)
      for (uint32_t gx = 0; rc == 0 && gx < it->ngroups[0]; gx++) {
        uint32_t g[3] = {gx, gy, gz};
        for (int d = 0; d < 3; d++) {
          it->group[d] = g[d];
          uint32_t left = s->global[d] - g[d] * it->local[d];
          it->gsize[d] = left < it->local[d] ? left : it->local[d];
        }
        if (run_group(it) != STOP_DONE) rc = -1;
      }
  if (rc == 0 && traces) build_traces(it, traces);
  if (fault->happened) /* count what the threads of the faulting group executed */
    for (uint32_t f = 0; f < it->nframes; f++)
      if (!it->threads[f].counted) it->instructions += it->threads[f].steps;
  if ((rc == 0 || fault->happened) && stats) {
    stats->instructions = it->instructions;
    stats->threads = rc_run_spec_threads(s);
    stats->wave_size = s->wave;
    stats->nblocks = ntraced;
    stats->block_entries = it->block_entries;
    for (uint32_t b = 0; b < ntraced; b++) stats->blocks += it->block_entries[b];
    it->block_entries = NULL;
  }
  teardown(it);
  sim_run_form_free(owned);
  return rc;
}
