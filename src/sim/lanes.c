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
 * the same in every lane) and broadcasts the result. */
#include "waves.h"

#include <inttypes.h>
#include <stdlib.h>

/* ---- helpers --------------------------------------------------------------------------------------- */

static inline bool covers(const sim_run *r, const sim_wave *w, uint64_t lanes) {
  return ((lanes | ~w->exists) & r->wmask) == r->wmask;
}

static void broadcast(sim_slot *d, uint32_t W) {
  for (uint32_t l = 1; l < W; l++) d[l] = d[0];
}

/* d[l] = t[l] for the lanes in mask. */
static void blend(sim_slot *restrict d, const sim_slot *restrict t, uint32_t W, uint64_t mask) {
  for (uint32_t l = 0; l < W; l++) {
    uint64_t keep = (uint64_t)0 - ((mask >> l) & 1); /* all ones for an active lane */
    d[l].u = (t[l].u & keep) | (d[l].u & ~keep);
  }
}

static int mem_fault(sim_run *r, sim_wave *w, uint32_t lane, uint32_t pc, const char *what,
                     uint64_t addr, uint64_t n) {
  char why[200];
  rc_addr_describe(&r->map, r->mem->names, addr, n, why, sizeof why);
  const char *unit = n == 1 ? "byte" : "bytes";
  if (addr < 0x10000)
    return wave_fault_lane(r, w, lane, pc, "%s of %" PRIu64 " %s through a null pointer (address 0x%" PRIx64 ")",
                           what, n, unit, addr);
  return wave_fault_lane(r, w, lane, pc, "out-of-bounds %s of %" PRIu64 " %s at 0x%016" PRIx64 " (%s)", what,
                         n, unit, addr, why);
}

/* Point the private space at lane l's regions. */
static inline void use_lane(sim_run *r, sim_wave *w, uint32_t l) {
  r->map.seg[RC_SPACE_PRIVATE] = w->priv + (size_t)l * r->layout.nprivate;
}

/* ---- pure operations: every lane at once ---------------------------------------------------------- */

/* Compute lanes [0, n) of a pure operation into T. Returns false when x is not pure. */
static bool pure_op(const sim_inst *x, sim_slot *restrict T, const sim_slot *A, const sim_slot *B,
                    const sim_slot *C, uint32_t n) {
  unsigned bits = x->bits;
  rc_type ty = (rc_type)x->type, oty = (rc_type)x->otype;
  int f = 0;
  switch ((rc_opcode)x->op) {
  case RC_OP_ADD: for (uint32_t l = 0; l < n; l++) T[l].i = sim_canon(A[l].u + B[l].u, bits); return true;
  case RC_OP_SUB: for (uint32_t l = 0; l < n; l++) T[l].i = sim_canon(A[l].u - B[l].u, bits); return true;
  case RC_OP_MUL: for (uint32_t l = 0; l < n; l++) T[l].i = sim_canon(A[l].u * B[l].u, bits); return true;
  case RC_OP_AND: for (uint32_t l = 0; l < n; l++) T[l].i = A[l].i & B[l].i; return true;
  case RC_OP_OR: for (uint32_t l = 0; l < n; l++) T[l].i = A[l].i | B[l].i; return true;
  case RC_OP_XOR: for (uint32_t l = 0; l < n; l++) T[l].i = A[l].i ^ B[l].i; return true;
  case RC_OP_ANDN:
    if (ty == RC_MASK) {
      for (uint32_t l = 0; l < n; l++) T[l].u = A[l].u & ~B[l].u;
      return true;
    }
    for (uint32_t l = 0; l < n; l++) T[l].i = sim_int_binop(RC_OP_ANDN, bits, A[l].i, B[l].i, &f);
    return true;
  case RC_OP_SHL: for (uint32_t l = 0; l < n; l++) T[l].i = sim_int_binop(RC_OP_SHL, bits, A[l].i, B[l].i, &f); return true;
  case RC_OP_LSHR: for (uint32_t l = 0; l < n; l++) T[l].i = sim_int_binop(RC_OP_LSHR, bits, A[l].i, B[l].i, &f); return true;
  case RC_OP_ASHR: for (uint32_t l = 0; l < n; l++) T[l].i = sim_int_binop(RC_OP_ASHR, bits, A[l].i, B[l].i, &f); return true;
  case RC_OP_FADD:
  case RC_OP_FSUB:
  case RC_OP_FMUL:
  case RC_OP_FDIV:
  case RC_OP_FREM:
    for (uint32_t l = 0; l < n; l++)
      T[l] = sim_fput(sim_float_binop((rc_opcode)x->op, ty, sim_fget(A[l], ty), sim_fget(B[l], ty)), ty);
    return true;
  case RC_OP_FNEG: for (uint32_t l = 0; l < n; l++) T[l] = sim_fput(-sim_fget(A[l], ty), ty); return true;
  case RC_OP_ICMP:
    for (uint32_t l = 0; l < n; l++) T[l].i = sim_icmp((rc_cmp)x->aux, bits, A[l].i, B[l].i);
    return true;
  case RC_OP_FCMP:
    for (uint32_t l = 0; l < n; l++) T[l].i = sim_fcmp((rc_cmp)x->aux, sim_fget(A[l], oty), sim_fget(B[l], oty));
    return true;
  case RC_OP_SELECT: for (uint32_t l = 0; l < n; l++) T[l] = A[l].i ? B[l] : C[l]; return true;
  case RC_OP_TRUNC: case RC_OP_ZEXT: case RC_OP_SEXT: case RC_OP_FPTRUNC: case RC_OP_FPEXT:
  case RC_OP_FPTOSI: case RC_OP_FPTOUI: case RC_OP_SITOFP: case RC_OP_UITOFP:
  case RC_OP_PTRTOINT: case RC_OP_INTTOPTR: case RC_OP_BITCAST:
    for (uint32_t l = 0; l < n; l++) T[l] = sim_cast((rc_opcode)x->op, oty, ty, A[l]);
    return true;
  case RC_OP_GEP:
    for (uint32_t l = 0; l < n; l++) T[l].u = A[l].u + (uint64_t)sim_sval(B[l].i, bits) * (uint64_t)x->imm;
    return true;
  case RC_OP_ALLOCA:
  case RC_OP_LOCALMEM:
    for (uint32_t l = 0; l < n; l++) T[l].u = (uint64_t)x->imm;
    return true;
  case RC_OP_CALL: {
    rc_builtin fn = (rc_builtin)x->aux;
    switch (rc_builtin_get(fn)->sig) {
    case RC_SIG_F1:
    case RC_SIG_F2:
    case RC_SIG_F3:
      for (uint32_t l = 0; l < n; l++)
        T[l] = sim_fput(sim_math(fn, ty, sim_fget(A[l], ty), sim_fget(B[l], ty), sim_fget(C[l], ty)), ty);
      return true;
    case RC_SIG_I1:
    case RC_SIG_I2: for (uint32_t l = 0; l < n; l++) T[l].i = sim_int_math(fn, bits, A[l].i, B[l].i); return true;
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

/* One lane of an operation that may fault or touches memory; the result goes to D[l]. */
static int lane_op(sim_run *r, sim_wave *w, const sim_inst *x, uint32_t pc, uint32_t l, sim_slot *D,
                   const sim_slot *A, const sim_slot *B, const sim_slot *C) {
  rc_type ty = (rc_type)x->type;
  switch ((rc_opcode)x->op) {
  case RC_OP_SDIV:
  case RC_OP_UDIV:
  case RC_OP_SREM:
  case RC_OP_UREM: {
    int f = 0;
    int64_t v = sim_int_binop((rc_opcode)x->op, x->bits, A[l].i, B[l].i, &f);
    if (f == 1) return wave_fault_lane(r, w, l, pc, "division by zero");
    if (f == 2)
      return wave_fault_lane(r, w, l, pc, "signed division overflow (%" PRId64 " / -1)", sim_smin_of(x->bits));
    D[l].i = v;
    return STEP_OK;
  }
  case RC_OP_LOAD: {
    use_lane(r, w, l);
    uint8_t *p = rc_addr_resolve(&r->map, A[l].u, (uint64_t)x->imm);
    if (!p) return mem_fault(r, w, l, pc, "load", A[l].u, (uint64_t)x->imm);
    D[l] = sim_from_bits(sim_read_le(p, (unsigned)x->imm), ty);
    return STEP_OK;
  }
  case RC_OP_STORE: {
    use_lane(r, w, l);
    uint8_t *p = rc_addr_resolve(&r->map, B[l].u, (uint64_t)x->imm);
    if (!p) return mem_fault(r, w, l, pc, "store", B[l].u, (uint64_t)x->imm);
    sim_write_le(p, (unsigned)x->imm, sim_to_bits(A[l], ty));
    return STEP_OK;
  }
  case RC_OP_CALL: break;
  default: return wave_fault_lane(r, w, l, pc, "'%s' cannot run here", rc_opcode_name((rc_opcode)x->op));
  }
  rc_builtin f = (rc_builtin)x->aux;
  switch (rc_builtin_get(f)->sig) {
  case RC_SIG_QUERY_DIM:
  case RC_SIG_QUERY:
    D[l].i = sim_canon((uint64_t)query(r, w, l, f, (unsigned)x->imm), x->bits);
    return STEP_OK;
  case RC_SIG_ATOMIC:
  case RC_SIG_CMPXCHG: { /* lanes perform their atomics one after another, in lane order */
    use_lane(r, w, l);
    unsigned size = rc_type_size(ty);
    uint8_t *p = rc_addr_resolve(&r->map, A[l].u, size);
    if (!p) return mem_fault(r, w, l, pc, "atomic access", A[l].u, size);
    sim_slot old = sim_from_bits(sim_read_le(p, size), ty), nw;
    if (f == RC_BI_ATOMIC_CMPXCHG) nw.i = old.i == B[l].i ? C[l].i : old.i;
    else nw.i = sim_atomic_op(f, x->bits, old.i, B[l].i);
    sim_write_le(p, size, sim_to_bits(nw, ty));
    D[l] = old;
    return STEP_OK;
  }
  case RC_SIG_MEMCPY:
  case RC_SIG_MEMSET: {
    uint64_t n = sim_uval(C[l].i, x->bits);
    if (n == 0) return STEP_OK;
    use_lane(r, w, l);
    uint8_t *dst = rc_addr_resolve(&r->map, A[l].u, n);
    if (!dst) return mem_fault(r, w, l, pc, f == RC_BI_MEMCPY ? "memcpy store" : "memset", A[l].u, n);
    if (f == RC_BI_MEMSET) {
      memset(dst, (int)(B[l].i & 0xff), n);
      return STEP_OK;
    }
    uint8_t *src = rc_addr_resolve(&r->map, B[l].u, n);
    if (!src) return mem_fault(r, w, l, pc, "memcpy load", B[l].u, n);
    memmove(dst, src, n);
    return STEP_OK;
  }
  default: return wave_fault_lane(r, w, l, pc, "unexpected builtin");
  }
}

/* ---- wave instructions ---------------------------------------------------------------------------------- */

static int wave_op(sim_run *r, sim_wave *w, const sim_inst *x, uint32_t pc, bool scalar, sim_slot *D,
                   const sim_slot *A) {
  uint32_t W = r->W;
  switch ((rc_opcode)x->op) {
  case RC_OP_BALLOT: {
    uint64_t m = 0;
    for (uint32_t l = 0; l < W; l++) m |= (uint64_t)(A[l].i & 1) << l;
    D[0].u = m & w->exec;
    broadcast(D, W);
    return STEP_OK;
  }
  case RC_OP_EXEC:
    D[0].u = w->exec;
    broadcast(D, W);
    return STEP_OK;
  case RC_OP_SETEXEC: {
    uint64_t old = w->exec;
    w->exec = A[0].u & w->exists;
    return wave_activate(r, w, w->exec & ~old, pc);
  }
  case RC_OP_RGET: {
    if (scalar) {
      D[0] = w->sreg[x->imm];
      broadcast(D, W);
    } else {
      const sim_slot *R = w->vreg + (size_t)x->imm * W;
      if (covers(r, w, w->exec)) memcpy(D, R, W * sizeof *D);
      else blend(D, R, W, w->exec);
    }
    return STEP_OK;
  }
  case RC_OP_RSET: {
    if (scalar) {
      w->sreg[x->imm] = A[0];
    } else {
      sim_slot *R = w->vreg + (size_t)x->imm * W;
      if (covers(r, w, w->exec)) memcpy(R, A, W * sizeof *R);
      else blend(R, A, W, w->exec);
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
  sim_slot *D = wave_val(r, w, x->dst);
  const sim_slot *A = wave_val(r, w, x->a), *B = wave_val(r, w, x->b), *C = wave_val(r, w, x->c);
  switch ((rc_opcode)x->op) {
  case RC_OP_BALLOT: case RC_OP_EXEC: case RC_OP_SETEXEC: case RC_OP_RGET: case RC_OP_RSET:
    return wave_op(r, w, x, pc, scalar, D, A);
  case RC_OP_CALL:
    if (x->aux == RC_BI_BARRIER) return STEP_BARRIER;
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
    if (x->type != RC_VOID) broadcast(D, W);
    return STEP_OK;
  }
  if (!exec) return STEP_OK;
  bool direct = covers(r, w, exec);
  if (pure_op(x, direct ? D : r->tmp, A, B, C, W)) {
    if (!direct) blend(D, r->tmp, W, exec);
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
  if (e->parallel) { /* a phi reads another phi of the block: read every source first */
    for (uint32_t c = 0; c < e->ncopies; c++)
      memcpy(r->copy_tmp + (size_t)c * W, wave_val(r, w, cp[c].src), W * sizeof(sim_slot));
    for (uint32_t c = 0; c < e->ncopies; c++) {
      if (direct) memcpy(wave_val(r, w, cp[c].dst), r->copy_tmp + (size_t)c * W, W * sizeof(sim_slot));
      else blend(wave_val(r, w, cp[c].dst), r->copy_tmp + (size_t)c * W, W, mask);
    }
    return;
  }
  for (uint32_t c = 0; c < e->ncopies; c++) {
    if (direct) memcpy(wave_val(r, w, cp[c].dst), wave_val(r, w, cp[c].src), W * sizeof(sim_slot));
    else blend(wave_val(r, w, cp[c].dst), wave_val(r, w, cp[c].src), W, mask);
  }
}
