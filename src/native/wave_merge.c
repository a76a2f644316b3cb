/* Which vector values must merge under exec (wave_codegen.h).
 *
 * docs/ir.md, "Wave level": a vector instruction acts for the lanes in exec; the inactive lanes
 * keep their element of the result from before. The lowering relies on it: a lane parked at a
 * primary successor keeps what it computed before, while the wave runs the same instructions for
 * other lanes (a loop's exit value, computed in the loop by the lanes still iterating), and reads
 * it again once the restore at the primary successor has brought it back into exec. On AVX-512 the
 * merge is free (merge-masking), on AVX2 a blend per instruction, and it needs the previous value
 * kept alive in a register; so it is done only where a lane can observe it.
 *
 * A use J of value v (defined by instruction I) reads the lanes active at J. Each of them was
 * active at the latest execution of I, unless exec widened on the way from I to J: every setexec
 * that only narrows exec (its mask is the current exec, a ballot under it, or an and / andn of such
 * a mask with anything) keeps the active lanes a subset of those at I. So v needs the merge exactly
 * when some path from I to a use, not passing I again, passes a widening setexec. Paths through I's
 * block again are cut there (they run I again); a use in I's block before I is reached by such a
 * path only around a cycle.
 *
 * Values that are the same every time a lane computes them need no merge whatever the paths: the
 * lane's ids, its private addresses, the group's local addresses, and pure arithmetic on those and
 * on values that are the same for the whole launch (parameters, constants). */
#include "wave_codegen.h"

#include <stdlib.h>
#include <string.h>

/* Work beyond which the path search stops and every value used on another block merges (sound:
 * merging is always correct, only slower). */
#define SEARCH_BUDGET 50000000u

/* Is m (a mask) a subset of the current exec at the setexec `at`? (Defined in at's block after the
 * block's previous setexec.) */
static bool within_exec(const rc_value *m, const rc_instr *at, int depth) {
  if (m->kind != RC_V_INSTR || depth > 8) return false;
  const rc_instr *d = (const rc_instr *)m;
  if (d->parent != at->parent) return false;
  for (const rc_instr *x = d->next; x && x != at; x = x->next)
    if (x->op == RC_OP_SETEXEC) return false; /* exec changed between the mask and the setexec */
  switch ((rc_opcode)d->op) {
  case RC_OP_EXEC: case RC_OP_BALLOT: return true;
  case RC_OP_AND: return within_exec(d->ops[0], at, depth + 1) || within_exec(d->ops[1], at, depth + 1);
  case RC_OP_ANDN: return within_exec(d->ops[0], at, depth + 1);
  default: return false;
  }
}

static bool widens(const rc_instr *i) {
  return i->op == RC_OP_SETEXEC && !within_exec(i->ops[0], i, 0);
}

/* Pure operations whose result depends on their operands only. */
static bool pure_op(const rc_instr *i) {
  switch ((rc_opcode)i->op) {
  case RC_OP_ADD: case RC_OP_SUB: case RC_OP_MUL: case RC_OP_AND: case RC_OP_OR: case RC_OP_XOR:
  case RC_OP_ANDN: case RC_OP_SHL: case RC_OP_LSHR: case RC_OP_ASHR: case RC_OP_FADD: case RC_OP_FSUB:
  case RC_OP_FMUL: case RC_OP_FDIV: case RC_OP_FREM: case RC_OP_FNEG: case RC_OP_ICMP: case RC_OP_FCMP:
  case RC_OP_SELECT: case RC_OP_GEP: case RC_OP_FREEZE:
    return true;
  default: return rc_opcode_is_cast((rc_opcode)i->op);
  }
}

/* The same every time a lane (or, for scalars, the wave) computes it. */
static bool lane_invariant_instr(const rc_instr *i, const uint8_t *inv) {
  switch ((rc_opcode)i->op) {
  case RC_OP_ALLOCA: case RC_OP_LOCALMEM: return true;
  case RC_OP_CALL: {
    const rc_builtin_info *b = rc_builtin_get((rc_builtin)i->pred);
    if (b->sig == RC_SIG_QUERY_DIM || b->sig == RC_SIG_QUERY) return true;
    if (!(b->flags & RC_BF_PURE) || i->pred == RC_BI_READFIRSTLANE) return false;
    break;
  }
  default:
    if (!pure_op(i)) return false;
    break;
  }
  for (uint32_t o = 0; o < i->nops; o++) {
    const rc_value *v = i->ops[o];
    if (v->kind == RC_V_INSTR && !inv[v->id]) return false;
  }
  return true;
}

typedef struct merge_state {
  const rc_kernel *k;
  uint32_t *pos;            /* per value id of an instruction: its position in its block */
  uint32_t *use_start, *use_at; /* per value id: its users (instruction positions, CSR) */
  const rc_instr **instr;   /* per position (global numbering): the instruction */
  uint32_t *block_first;    /* per block: global position of its first instruction */
  uint32_t *first_widen, *last_widen; /* per block: local positions, RC_NONE: none */
  uint8_t *seen;            /* per block, 2 bits: reached without / with a widening */
  rc_u32vec stack, touched;
  uint64_t work;
} merge_state;

/* Is there a widening setexec in block b strictly between local positions from and to? */
static bool widen_between(const merge_state *m, uint32_t b, uint32_t from, uint32_t to) {
  if (m->first_widen[b] == RC_NONE || m->first_widen[b] >= to || m->last_widen[b] <= from) return false;
  uint32_t g0 = m->block_first[b];
  for (uint32_t p = from + 1; p < to; p++)
    if (widens(m->instr[g0 + p])) return true;
  return false;
}

/* ... before local position to? */
static bool widen_before(const merge_state *m, uint32_t b, uint32_t to) {
  return m->first_widen[b] != RC_NONE && m->first_widen[b] < to;
}

/* Does a use of the value defined at local position p of block d see lanes inactive at the def? */
static bool needs_merge(merge_state *m, const rc_instr *def) {
  uint32_t d = def->parent->id, p = m->pos[def->v.id], id = def->v.id;
  bool elsewhere = false;
  for (uint32_t u = m->use_start[id]; u < m->use_start[id + 1]; u++) {
    const rc_instr *j = m->instr[m->use_at[u]];
    uint32_t q = m->use_at[u] - m->block_first[j->parent->id];
    if (j->parent->id == d && q > p) {
      if (widen_between(m, d, p, q)) return true;
    } else {
      elsewhere = true;
    }
  }
  if (!elsewhere) return false;
  if (m->work > SEARCH_BUDGET) return true;
  const rc_kernel *k = m->k;
  bool widened0 = m->last_widen[d] != RC_NONE && m->last_widen[d] > p;
  m->stack.len = m->touched.len = 0;
  bool found = false;
  uint32_t nsucc = rc_block_nsuccs(def->parent);
  for (uint32_t s = 0; s < nsucc; s++) {
    uint32_t t = rc_block_succ(def->parent, s)->id;
    rc_vec_push(&m->stack, t << 1 | (uint32_t)widened0);
  }
  while (m->stack.len && !found) {
    uint32_t e = m->stack.data[--m->stack.len], b = e >> 1, w = e & 1;
    uint8_t bit = (uint8_t)(1u << w);
    if (m->seen[b] & bit) continue;
    if (!m->seen[b]) rc_vec_push(&m->touched, b);
    m->seen[b] |= bit;
    m->work += 1 + m->use_start[id + 1] - m->use_start[id];
    /* uses in b */
    for (uint32_t u = m->use_start[id]; u < m->use_start[id + 1] && !found; u++) {
      const rc_instr *j = m->instr[m->use_at[u]];
      if (j->parent->id != b) continue;
      uint32_t q = m->use_at[u] - m->block_first[b];
      if (b == d && q > p) continue; /* after I again: the in-block check's */
      if (w || widen_before(m, b, q)) found = true;
    }
    if (b == d) continue; /* the path runs I again */
    uint32_t w2 = w | (m->first_widen[b] != RC_NONE);
    const rc_block *bb = k->blocks[b];
    uint32_t ns = rc_block_nsuccs(bb);
    for (uint32_t s = 0; s < ns; s++) rc_vec_push(&m->stack, rc_block_succ(bb, s)->id << 1 | w2);
  }
  for (uint32_t t = 0; t < m->touched.len; t++) m->seen[m->touched.data[t]] = 0;
  return found;
}

void wave_merge_analysis(const rc_kernel *k, uint8_t *merge) {
  memset(merge, 0, k->nvalues ? k->nvalues : 1);
  merge_state m = {0};
  m.k = k;
  uint32_t n = 0;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) n++;
  m.pos = rc_xcalloc(k->nvalues + 1, sizeof *m.pos);
  m.instr = rc_xcalloc(n + 1, sizeof *m.instr);
  m.block_first = rc_xcalloc(k->nblocks + 1, sizeof *m.block_first);
  m.first_widen = rc_xcalloc(k->nblocks + 1, sizeof *m.first_widen);
  m.last_widen = rc_xcalloc(k->nblocks + 1, sizeof *m.last_widen);
  m.seen = rc_xcalloc(k->nblocks + 1, 1);
  m.use_start = rc_xcalloc(k->nvalues + 2, sizeof *m.use_start);
  uint8_t *inv = rc_xcalloc(k->nvalues + 1, 1);
  uint32_t g = 0;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    m.block_first[b] = g;
    m.first_widen[b] = m.last_widen[b] = RC_NONE;
    uint32_t p = 0;
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next, p++, g++) {
      m.instr[g] = i;
      if (i->v.id != RC_NONE && i->v.id < k->nvalues) m.pos[i->v.id] = p;
      if (widens(i)) {
        if (m.first_widen[b] == RC_NONE) m.first_widen[b] = p;
        m.last_widen[b] = p;
      }
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o]->kind == RC_V_INSTR && i->ops[o]->id < k->nvalues) m.use_start[i->ops[o]->id + 1]++;
    }
  }
  for (uint32_t v = 0; v < k->nvalues; v++) m.use_start[v + 1] += m.use_start[v];
  m.use_at = rc_xcalloc(m.use_start[k->nvalues] + 1, sizeof *m.use_at);
  uint32_t *fill = rc_xcalloc(k->nvalues + 1, sizeof *fill);
  for (uint32_t p = 0; p < n; p++) {
    const rc_instr *i = m.instr[p];
    for (uint32_t o = 0; o < i->nops; o++) {
      const rc_value *v = i->ops[o];
      if (v->kind == RC_V_INSTR && v->id < k->nvalues) m.use_at[m.use_start[v->id] + fill[v->id]++] = p;
    }
  }
  free(fill);
  /* lane invariance: wave code has no phis, so a few sweeps in block order settle it (a sweep that
   * changes nothing ends it; stopping early only leaves values merged that need not be) */
  for (int sweep = 0, changed = 1; changed && sweep < 8; sweep++) {
    changed = 0;
    for (uint32_t p = 0; p < n; p++) {
      const rc_instr *i = m.instr[p];
      if (i->v.id == RC_NONE || i->v.id >= k->nvalues || inv[i->v.id]) continue;
      if (lane_invariant_instr(i, inv)) inv[i->v.id] = 1, changed = 1;
    }
  }
  for (uint32_t p = 0; p < n; p++) {
    const rc_instr *i = m.instr[p];
    if (i->v.type == RC_VOID || i->v.id == RC_NONE || i->v.id >= k->nvalues) continue;
    if (wave_instr_is_scalar(i) || inv[i->v.id]) continue;
    if (needs_merge(&m, i)) merge[i->v.id] = 1;
  }
  free(inv);
  free(m.pos);
  free(m.instr);
  free(m.block_first);
  free(m.first_widen);
  free(m.last_widen);
  free(m.seen);
  free(m.use_start);
  free(m.use_at);
  rc_vec_free(&m.stack);
  rc_vec_free(&m.touched);
}
