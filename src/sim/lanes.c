/* The lane engine of the wave-level machines: one instruction executed for the active lanes of a
 * wave (a vector instruction) or once for the wave (a scalar one), with the value semantics of
 * scalar.h, which the thread-level interpreter uses too.
 *
 * Pure operations (arithmetic, comparisons, casts, select, gep, math) cannot fault, so they are
 * computed for every lane in one loop without a test per lane, straight into the result when exec
 * covers every lane that exists, else into scratch and then blended into the active lanes; the
 * loops are simple enough for the compiler to vectorise. Operations that may fault or touch memory
 * (division, loads, stores, atomics, memcpy/memset, queries of per-thread ids) visit the active
 * lanes one by one, in lane order. A scalar instruction computes lane 0 (its operands are scalar,
 * the same in every lane) and broadcasts the result when some instruction reads it lane by lane
 * (run->bcast; scalar instructions and branches read lane 0 only). */
#include "waves.h"

#include <inttypes.h>
#include <stdlib.h>

/* ---- helpers --------------------------------------------------------------------------------------- */

static inline bool covers(const sim_run *r, const sim_wave *w, uint64_t lanes) {
  return ((lanes | ~w->exists) & r->wmask) == r->wmask;
}

static void broadcast(uint64_t *d, uint32_t W) {
  uint64_t v = d[0];
  for (uint32_t l = 1; l < W; l++) d[l] = v;
}

/* d[l] = t[l] for the lanes whose keep[l] is all ones (the others have 0). */
static void blend(uint64_t *restrict d, const uint64_t *restrict t, uint32_t W, const uint64_t *restrict keep) {
  for (uint32_t l = 0; l < W; l++) d[l] = (t[l] & keep[l]) | (d[l] & ~keep[l]);
}

/* Truncate to `bits` and sign-extend, as sim_canon, for the widths of 8 bits and more: the shift
 * is computed once per instruction, so the lane loops have no branch. */
static inline uint64_t canon_sh(uint64_t r, unsigned sh) {
  return (uint64_t)((int64_t)(r << sh) >> sh);
}

static int mem_fault(sim_run *r, sim_wave *w, uint32_t lane, uint32_t pc, const char *what,
                     uint64_t addr, uint64_t n) {
  char text[300];
  sim_access_fault_text(&r->map, r->mem->names, what, addr, n, text, sizeof text);
  return wave_fault_lane(r, w, lane, pc, "%s", text);
}

/* Point the private space at lane l's regions. */
static inline void use_lane(sim_run *r, sim_wave *w, uint32_t l) {
  r->map.seg[RC_SPACE_PRIVATE] = w->priv + (size_t)l * r->layout.nprivate;
}

/* ---- pure operations: every lane at once ---------------------------------------------------------- */

static void int_add_sub_mul(rc_opcode op, uint64_t *restrict T, const uint64_t *restrict A,
                            const uint64_t *restrict B, uint32_t n, unsigned bits) {
  unsigned sh = bits >= 64 ? 0 : 64 - bits;
  if (bits == 1) { /* i1 is 0 or 1, not sign-extended */
    for (uint32_t l = 0; l < n; l++)
      T[l] = (op == RC_OP_ADD ? A[l] + B[l] : op == RC_OP_SUB ? A[l] - B[l] : A[l] * B[l]) & 1;
  } else if (op == RC_OP_ADD) {
    for (uint32_t l = 0; l < n; l++) T[l] = canon_sh(A[l] + B[l], sh);
  } else if (op == RC_OP_SUB) {
    for (uint32_t l = 0; l < n; l++) T[l] = canon_sh(A[l] - B[l], sh);
  } else {
    for (uint32_t l = 0; l < n; l++) T[l] = canon_sh(A[l] * B[l], sh);
  }
}

/* Compute lanes [0, n) of a pure operation into T. Returns false when x is not pure. */
static bool pure_op(const sim_inst *x, uint64_t *restrict T, const uint64_t *A, const uint64_t *B,
                    const uint64_t *C, uint32_t n) {
  unsigned bits = x->bits;
  rc_type ty = (rc_type)x->type, oty = (rc_type)x->otype;
  rc_opcode op = (rc_opcode)x->op;
  int f = 0;
  switch (op) {
  case RC_OP_ADD: case RC_OP_SUB: case RC_OP_MUL: int_add_sub_mul(op, T, A, B, n, bits); return true;
  case RC_OP_AND: for (uint32_t l = 0; l < n; l++) T[l] = A[l] & B[l]; return true;
  case RC_OP_OR: for (uint32_t l = 0; l < n; l++) T[l] = A[l] | B[l]; return true;
  case RC_OP_XOR: for (uint32_t l = 0; l < n; l++) T[l] = A[l] ^ B[l]; return true;
  case RC_OP_ANDN:
    if (ty == RC_MASK) {
      for (uint32_t l = 0; l < n; l++) T[l] = A[l] & ~B[l];
      return true;
    }
    /* fall through */
  case RC_OP_SHL: case RC_OP_LSHR: case RC_OP_ASHR:
    for (uint32_t l = 0; l < n; l++) T[l] = (uint64_t)sim_int_binop(op, bits, (int64_t)A[l], (int64_t)B[l], &f);
    return true;
  case RC_OP_FADD: case RC_OP_FSUB: case RC_OP_FMUL: case RC_OP_FDIV: case RC_OP_FREM:
    for (uint32_t l = 0; l < n; l++)
      T[l] = sim_fput(sim_float_binop(op, ty, sim_fget(lane_slot(A[l]), ty), sim_fget(lane_slot(B[l]), ty)), ty).u;
    return true;
  case RC_OP_FNEG: for (uint32_t l = 0; l < n; l++) T[l] = sim_fput(-sim_fget(lane_slot(A[l]), ty), ty).u; return true;
  case RC_OP_ICMP:
    for (uint32_t l = 0; l < n; l++) T[l] = sim_icmp((rc_cmp)x->aux, bits, (int64_t)A[l], (int64_t)B[l]);
    return true;
  case RC_OP_FCMP:
    for (uint32_t l = 0; l < n; l++)
      T[l] = sim_fcmp((rc_cmp)x->aux, sim_fget(lane_slot(A[l]), oty), sim_fget(lane_slot(B[l]), oty));
    return true;
  case RC_OP_SELECT: for (uint32_t l = 0; l < n; l++) T[l] = A[l] ? B[l] : C[l]; return true;
  case RC_OP_TRUNC: case RC_OP_ZEXT: case RC_OP_SEXT: case RC_OP_FPTRUNC: case RC_OP_FPEXT:
  case RC_OP_FPTOSI: case RC_OP_FPTOUI: case RC_OP_SITOFP: case RC_OP_UITOFP:
  case RC_OP_PTRTOINT: case RC_OP_INTTOPTR: case RC_OP_BITCAST:
    for (uint32_t l = 0; l < n; l++) T[l] = sim_cast(op, oty, ty, lane_slot(A[l])).u;
    return true;
  case RC_OP_GEP: /* the index is canonical: sign-extended, or 0/1 for i1 */
    if (bits == 1)
      for (uint32_t l = 0; l < n; l++) T[l] = A[l] + (uint64_t)sim_sval((int64_t)B[l], 1) * (uint64_t)x->imm;
    else
      for (uint32_t l = 0; l < n; l++) T[l] = A[l] + B[l] * (uint64_t)x->imm;
    return true;
  case RC_OP_ALLOCA:
  case RC_OP_LOCALMEM:
    for (uint32_t l = 0; l < n; l++) T[l] = (uint64_t)x->imm;
    return true;
  case RC_OP_CALL: {
    rc_builtin fn = (rc_builtin)x->aux;
    switch (rc_builtin_get(fn)->sig) {
    case RC_SIG_F1: case RC_SIG_F2: case RC_SIG_F3:
      for (uint32_t l = 0; l < n; l++)
        T[l] = sim_fput(sim_math(fn, ty, sim_fget(lane_slot(A[l]), ty), sim_fget(lane_slot(B[l]), ty),
                                 sim_fget(lane_slot(C[l]), ty)), ty).u;
      return true;
    case RC_SIG_I1: case RC_SIG_I2:
      for (uint32_t l = 0; l < n; l++) T[l] = (uint64_t)sim_int_math(fn, bits, (int64_t)A[l], (int64_t)B[l]);
      return true;
    default: return false;
    }
  }
  default: return false;
  }
}

/* ---- per-lane operations ------------------------------------------------------------------------------ */

static int64_t query(const sim_run *r, const sim_wave *w, uint32_t l, rc_builtin f, unsigned d) {
  switch (f) {
  case RC_BI_GLOBAL_ID: return w->gid[l * 3 + d];
  case RC_BI_LOCAL_ID: return w->lid[l * 3 + d];
  case RC_BI_GROUP_ID: return r->group[d];
  case RC_BI_GLOBAL_SIZE: return r->s->global[d];
  case RC_BI_LOCAL_SIZE: return r->gsize[d];
  case RC_BI_NUM_GROUPS: return r->ngroups[d];
  case RC_BI_LANE_ID: return l;
  default: return r->W; /* wave_size */
  }
}

static int lane_call(sim_run *r, sim_wave *w, const sim_inst *x, uint32_t pc, uint32_t l, uint64_t *D,
                     const uint64_t *A, const uint64_t *B, const uint64_t *C) {
  rc_type ty = (rc_type)x->type;
  rc_builtin f = (rc_builtin)x->aux;
  switch (rc_builtin_get(f)->sig) {
  case RC_SIG_QUERY_DIM:
  case RC_SIG_QUERY:
    D[l] = (uint64_t)sim_canon((uint64_t)query(r, w, l, f, (unsigned)x->imm), x->bits);
    return STEP_OK;
  case RC_SIG_ATOMIC:
  case RC_SIG_CMPXCHG: { /* lanes perform their atomics one after another, in lane order */
    use_lane(r, w, l);
    unsigned size = rc_type_size(ty);
    uint8_t *p = rc_addr_resolve(&r->map, A[l], size);
    if (!p) return mem_fault(r, w, l, pc, "atomic access", A[l], size);
    sim_slot old = sim_from_bits(sim_read_le(p, size), ty), nw;
    if (f == RC_BI_ATOMIC_CMPXCHG) nw.i = old.i == (int64_t)B[l] ? (int64_t)C[l] : old.i;
    else nw.i = sim_atomic_op(f, x->bits, old.i, (int64_t)B[l]);
    sim_write_le(p, size, sim_to_bits(nw, ty));
    if (r->want_effects)
      sim_effect_push(&w->trace[l], RC_EFFECT_ATOMIC, f, A[l], B[l], f == RC_BI_ATOMIC_CMPXCHG ? C[l] : 0);
    D[l] = old.u;
    return STEP_OK;
  }
  case RC_SIG_MEMCPY:
  case RC_SIG_MEMSET: {
    uint64_t n = sim_uval((int64_t)C[l], x->bits);
    if (r->want_effects) sim_effect_push(&w->trace[l], RC_EFFECT_CALL, f, A[l], B[l], n);
    if (n == 0) return STEP_OK;
    use_lane(r, w, l);
    uint8_t *dst = rc_addr_resolve(&r->map, A[l], n);
    if (!dst) return mem_fault(r, w, l, pc, f == RC_BI_MEMCPY ? "memcpy store" : "memset", A[l], n);
    if (f == RC_BI_MEMSET) {
      memset(dst, (int)(B[l] & 0xff), n);
      return STEP_OK;
    }
    uint8_t *src = rc_addr_resolve(&r->map, B[l], n);
    if (!src) return mem_fault(r, w, l, pc, "memcpy load", B[l], n);
    memmove(dst, src, n);
    return STEP_OK;
  }
  case RC_SIG_OTHER: {
    if (f == RC_BI_READFIRSTLANE) { /* the value of the first active lane, in every lane */
      D[l] = A[w->exec ? (uint32_t)__builtin_ctzll(w->exec) : 0];
      return STEP_OK;
    }
    use_lane(r, w, l);
    sim_bcall c;
    sim_bcall_init(&c, r->code.src[pc]);
    const uint64_t *Dv = wave_val(r, w, x->d);
    sim_slot args[4] = {lane_slot(A[l]), lane_slot(B[l]), lane_slot(C[l]), lane_slot(Dv[l])};
    c.args = args;
    c.map = &r->map;
    c.buffer_names = r->mem->names;
    c.lane = l;
    c.dims = r->s->dims;
    char why[300];
    sim_slot v;
    if (sim_builtin_other(&c, &v, why, sizeof why) != 0) return wave_fault_lane(r, w, l, pc, "%s", why);
    if (r->want_effects && (rc_builtin_get(f)->flags & RC_BF_EFFECTS))
      sim_effect_push(&w->trace[l], RC_EFFECT_CALL, f, A[l], B[l], C[l]);
    if (ty != RC_VOID) D[l] = v.u;
    return STEP_OK;
  }
  default: return wave_fault_lane(r, w, l, pc, "unexpected builtin");
  }
}

/* One lane of an operation that may fault or touches memory; the result goes to D[l]. */
static int lane_op(sim_run *r, sim_wave *w, const sim_inst *x, uint32_t pc, uint32_t l, uint64_t *D,
                   const uint64_t *A, const uint64_t *B, const uint64_t *C) {
  rc_type ty = (rc_type)x->type;
  switch ((rc_opcode)x->op) {
  case RC_OP_SDIV:
  case RC_OP_UDIV:
  case RC_OP_SREM:
  case RC_OP_UREM: {
    int f = 0;
    int64_t v = sim_int_binop((rc_opcode)x->op, x->bits, (int64_t)A[l], (int64_t)B[l], &f);
    if (f == 1) return wave_fault_lane(r, w, l, pc, "division by zero");
    if (f == 2)
      return wave_fault_lane(r, w, l, pc, "signed division overflow (%" PRId64 " / -1)", sim_smin_of(x->bits));
    D[l] = (uint64_t)v;
    return STEP_OK;
  }
  case RC_OP_LOAD: {
    use_lane(r, w, l);
    uint8_t *p = rc_addr_resolve(&r->map, A[l], (uint64_t)x->imm);
    if (!p) return mem_fault(r, w, l, pc, "load", A[l], (uint64_t)x->imm);
    D[l] = sim_from_bits(sim_read_le(p, (unsigned)x->imm), ty).u;
    return STEP_OK;
  }
  case RC_OP_STORE: {
    use_lane(r, w, l);
    uint8_t *p = rc_addr_resolve(&r->map, B[l], (uint64_t)x->imm);
    if (!p) return mem_fault(r, w, l, pc, "store", B[l], (uint64_t)x->imm);
    uint64_t bits = sim_to_bits(lane_slot(A[l]), ty);
    sim_write_le(p, (unsigned)x->imm, bits);
    if (r->want_effects) sim_effect_push(&w->trace[l], RC_EFFECT_STORE, (unsigned)x->imm, B[l], bits, 0);
    return STEP_OK;
  }
  case RC_OP_CALL: return lane_call(r, w, x, pc, l, D, A, B, C);
  case RC_OP_OPAQUE: return wave_fault_lane(r, w, l, pc, "%s", sim_opaque_text);
  default: return wave_fault_lane(r, w, l, pc, "'%s' cannot run here", rc_opcode_name((rc_opcode)x->op));
  }
}

/* ---- wave instructions ---------------------------------------------------------------------------------- */

static int wave_op(sim_run *r, sim_wave *w, const sim_inst *x, uint32_t pc, bool scalar, uint64_t *D,
                   const uint64_t *A) {
  uint32_t W = r->W;
  switch ((rc_opcode)x->op) {
  case RC_OP_BALLOT: {
    uint64_t m = 0;
    for (uint32_t l = 0; l < W; l++) m |= (A[l] & 1) << l;
    D[0] = m & w->exec;
    if (r->bcast[x->dst]) broadcast(D, W);
    return STEP_OK;
  }
  case RC_OP_EXEC:
    D[0] = w->exec;
    if (r->bcast[x->dst]) broadcast(D, W);
    return STEP_OK;
  case RC_OP_SETEXEC: {
    uint64_t old = w->exec;
    wave_set_exec(r, w, A[0] & w->exists);
    return wave_activate(r, w, w->exec & ~old, pc);
  }
  case RC_OP_RGET: {
    if (scalar) {
      D[0] = w->sreg[x->imm];
      if (r->bcast[x->dst]) broadcast(D, W);
    } else {
      const uint64_t *R = w->vreg + (size_t)x->imm * W;
      if (covers(r, w, w->exec)) memcpy(D, R, W * sizeof *D);
      else blend(D, R, W, w->keep);
    }
    return STEP_OK;
  }
  case RC_OP_RSET: {
    if (scalar) {
      w->sreg[x->imm] = A[0];
    } else {
      uint64_t *R = w->vreg + (size_t)x->imm * W;
      if (covers(r, w, w->exec)) memcpy(R, A, W * sizeof *R);
      else blend(R, A, W, w->keep);
    }
    return STEP_OK;
  }
  default: return wave_fault(r, w, pc, "'%s' is not a wave instruction", rc_opcode_name((rc_opcode)x->op));
  }
}

/* ---- the entry point ---------------------------------------------------------------------------------------- */

int lanes_exec(sim_run *r, sim_wave *w, uint32_t pc, bool scalar) {
  const sim_inst *x = &r->code.inst[pc];
  uint32_t W = r->W;
  uint64_t *D = wave_val(r, w, x->dst);
  const uint64_t *A = wave_val(r, w, x->a), *B = wave_val(r, w, x->b), *C = wave_val(r, w, x->c);
  switch ((rc_opcode)x->op) {
  case RC_OP_BALLOT: case RC_OP_EXEC: case RC_OP_SETEXEC: case RC_OP_RGET: case RC_OP_RSET:
    return wave_op(r, w, x, pc, scalar, D, A);
  case RC_OP_CALL:
    if (x->aux == RC_BI_BARRIER) {
      if (r->want_effects)
        for (uint64_t m = w->exec; m; m &= m - 1)
          sim_effect_push(&w->trace[__builtin_ctzll(m)], RC_EFFECT_BARRIER, 0, 0, 0, 0);
      return STEP_BARRIER;
    }
    break;
  default: break;
  }
  uint64_t exec = w->exec;
  if (scalar) {
    /* once per wave: lane 0's operands are the wave's */
    if (!pure_op(x, D, A, B, C, 1)) {
      int rc = lane_op(r, w, x, pc, 0, D, A, B, C);
      if (rc != STEP_OK) return rc;
    }
    if (x->type != RC_VOID && r->bcast[x->dst]) broadcast(D, W);
    return STEP_OK;
  }
  if (!exec) return STEP_OK;
  bool direct = covers(r, w, exec);
  if (pure_op(x, direct ? D : r->tmp, A, B, C, W)) {
    if (!direct) blend(D, r->tmp, W, w->keep);
    return STEP_OK;
  }
  for (uint64_t m = exec; m; m &= m - 1) {
    int rc = lane_op(r, w, x, pc, (uint32_t)__builtin_ctzll(m), D, A, B, C);
    if (rc != STEP_OK) return rc;
  }
  return STEP_OK;
}

void lanes_edge_copies(sim_run *r, sim_wave *w, const sim_edge *e, uint64_t mask) {
  if (!e->ncopies || !mask) return;
  uint32_t W = r->W;
  const sim_copy *cp = r->code.copies + e->copy;
  bool direct = covers(r, w, mask);
  uint64_t keep[64];
  for (uint32_t l = 0; l < W; l++) keep[l] = (uint64_t)0 - ((mask >> l) & 1);
  if (e->parallel) { /* a phi reads another phi of the block: read every source first */
    for (uint32_t c = 0; c < e->ncopies; c++)
      memcpy(r->copy_tmp + (size_t)c * W, wave_val(r, w, cp[c].src), W * sizeof *r->copy_tmp);
    for (uint32_t c = 0; c < e->ncopies; c++) {
      if (direct) memcpy(wave_val(r, w, cp[c].dst), r->copy_tmp + (size_t)c * W, W * sizeof *r->copy_tmp);
      else blend(wave_val(r, w, cp[c].dst), r->copy_tmp + (size_t)c * W, W, keep);
    }
    return;
  }
  for (uint32_t c = 0; c < e->ncopies; c++) {
    if (direct) memcpy(wave_val(r, w, cp[c].dst), wave_val(r, w, cp[c].src), W * sizeof *r->copy_tmp);
    else blend(wave_val(r, w, cp[c].dst), wave_val(r, w, cp[c].src), W, keep);
  }
}
