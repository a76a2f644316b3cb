/* The analysis half of the meld pass (DARM, Saumya et al. 2022, section IV-C): the latency table,
 * instruction compatibility, block melding profitability MP_B, and Smith-Waterman alignment, which
 * the pass uses both for the subgraph alignment (Definition 7, scored by MP_S) and for the
 * instruction alignment of corresponding blocks (scored by latency, with a gap penalty for
 * instructions that stay unaligned). */
#include "meld_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- the cost table (docs/meld.md, "Cost table") --------------------------------------------------
 * Latencies in cycles of a generic GPU, in the spirit of LLVM's cost model that DARM modified: simple
 * integer ALU operations 1, integer multiply 4, integer division 20, float add/multiply 4, float
 * division 16, memory 20 (loads and stores), atomics 40, math builtins 16, queries 1, branches 1. */
double rc_meld_latency(const rc_instr *i) {
  switch ((rc_opcode)i->op) {
  case RC_OP_PHI: return 0;
  case RC_OP_MUL: return 4;
  case RC_OP_SDIV: case RC_OP_UDIV: case RC_OP_SREM: case RC_OP_UREM: return 20;
  case RC_OP_FADD: case RC_OP_FSUB: case RC_OP_FMUL: case RC_OP_FNEG: case RC_OP_FCMP: return 4;
  case RC_OP_FDIV: case RC_OP_FREM: return 16;
  case RC_OP_FPTRUNC: case RC_OP_FPEXT: case RC_OP_FPTOSI: case RC_OP_FPTOUI: case RC_OP_SITOFP:
  case RC_OP_UITOFP: return 4;
  case RC_OP_LOAD: case RC_OP_STORE: return 20;
  case RC_OP_CALL: {
    const rc_builtin_info *bi = rc_builtin_get((rc_builtin)i->pred);
    if (bi->sig == RC_SIG_ATOMIC || bi->sig == RC_SIG_CMPXCHG) return 40;
    if (bi->sig == RC_SIG_QUERY || bi->sig == RC_SIG_QUERY_DIM) return 1;
    if (bi->flags & RC_BF_MEMORY) return 20;
    return 16;
  }
  case RC_OP_CALLFN: return 20;
  default: return 1;
  }
}

double rc_meld_block_latency(const rc_block *b) {
  double s = 0;
  for (const rc_instr *i = b->first; i; i = i->next) s += rc_meld_latency(i);
  return s;
}

/* Builtins that must not be melded or unpredicated: they synchronise threads or read other lanes
 * (DARM, section IV-C: "we do not consider subgraphs that contain warp-level intrinsics"). */
static bool convergent_call(const rc_instr *i) {
  return i->op == RC_OP_CALL &&
         (i->pred == RC_BI_BARRIER || i->pred == RC_BI_READFIRSTLANE ||
          rc_builtin_get((rc_builtin)i->pred)->sig == RC_SIG_VOID0);
}

bool rc_meld_compatible(const rc_instr *a, const rc_instr *b) {
  if (a->op != b->op || a->v.type != b->v.type || a->nops != b->nops) return false;
  switch ((rc_opcode)a->op) {
  case RC_OP_PHI: case RC_OP_ALLOCA: case RC_OP_LOCALMEM: case RC_OP_CALLFN: case RC_OP_OPAQUE:
  case RC_OP_BR: case RC_OP_JMP: case RC_OP_SWITCH: case RC_OP_RET: case RC_OP_UNREACHABLE:
    return false;
  default: break;
  }
  if (a->op >= RC_OP_BALLOT && a->op < RC_OP_BR) return false; /* wave level */
  if (convergent_call(a) || convergent_call(b)) return false;
  if (a->pred != b->pred || a->imm != b->imm || a->iflags != b->iflags) return false;
  for (uint32_t o = 0; o < a->nops; o++) {
    if (a->ops[o]->type != b->ops[o]->type) return false;
    /* a builtin's constant arguments (query dimensions) stay constants: no select for them */
    if (a->op == RC_OP_CALL && (rc_value_is_const(a->ops[o]) || rc_value_is_const(b->ops[o])) &&
        a->ops[o] != b->ops[o])
      return false;
  }
  /* the static fields: gep scales, shuffle masks, aggregate indices */
  uint32_t ncases = 0;
  if (a->op == RC_OP_GEP) ncases = a->nops ? a->nops - 1 : 0;
  else if (a->op == RC_OP_SHUFFLE || a->op == RC_OP_EXTRACTVAL || a->op == RC_OP_INSERTVAL) ncases = (uint32_t)a->imm;
  if (ncases && (!a->cases || !b->cases || memcmp(a->cases, b->cases, ncases * sizeof *a->cases) != 0)) return false;
  return true;
}

/* The instructions of a block that alignment considers: not phis, not the terminator. */
static uint32_t body(const rc_block *b, const rc_instr **out, uint32_t cap) {
  uint32_t n = 0;
  for (const rc_instr *i = b->first; i; i = i->next)
    if (i->op != RC_OP_PHI && !rc_opcode_is_terminator((rc_opcode)i->op)) {
      if (out && n < cap) out[n] = i;
      n++;
    }
  return n;
}

double rc_meld_block_profit(const rc_block *b1, const rc_block *b2, double *lat) {
  double l = rc_meld_block_latency(b1) + rc_meld_block_latency(b2);
  if (lat) *lat = l;
  uint32_t n1 = body(b1, NULL, 0), n2 = body(b2, NULL, 0);
  const rc_instr **x = rc_xmalloc((n1 + n2 + 1) * sizeof *x);
  body(b1, x, n1);
  body(b2, x + n1, n2);
  bool *used = rc_xcalloc(n2 + 1, 1);
  double common = 0;
  /* sum_q min(freq(q, b1), freq(q, b2)) * w_q: compatibility is an equivalence relation, so
   * pairing each instruction of b1 with an unused compatible one of b2 counts exactly that */
  for (uint32_t i = 0; i < n1; i++)
    for (uint32_t j = 0; j < n2; j++)
      if (!used[j] && rc_meld_compatible(x[i], x[n1 + j])) {
        used[j] = true;
        common += rc_meld_latency(x[i]);
        break;
      }
  /* the terminators: a branch melds with a branch of the same kind */
  const rc_instr *t1 = rc_block_term(b1), *t2 = rc_block_term(b2);
  if (t1 && t2 && t1->op == t2->op) common += rc_meld_latency(t1);
  free(used);
  free(x);
  return l > 0 ? common / l : 0;
}

/* ---- Smith-Waterman -------------------------------------------------------------------------------- */

enum { FROM_NONE, FROM_DIAG, FROM_UP, FROM_LEFT };

uint32_t rc_meld_smith_waterman(const double *score, uint32_t n, uint32_t m, double gap, rc_meld_pair *out) {
  size_t w = (size_t)m + 1;
  double *H = rc_xcalloc((size_t)(n + 1) * w, sizeof *H);
  uint8_t *from = rc_xcalloc((size_t)(n + 1) * w, 1);
  double best = 0;
  uint32_t bi = 0, bj = 0;
  for (uint32_t i = 1; i <= n; i++)
    for (uint32_t j = 1; j <= m; j++) {
      double h = 0, s = score[(size_t)(i - 1) * m + (j - 1)];
      uint8_t f = FROM_NONE;
      if (s >= 0 && H[(i - 1) * w + j - 1] + s > h) h = H[(i - 1) * w + j - 1] + s, f = FROM_DIAG;
      if (H[(i - 1) * w + j] - gap > h) h = H[(i - 1) * w + j] - gap, f = FROM_UP;
      if (H[i * w + j - 1] - gap > h) h = H[i * w + j - 1] - gap, f = FROM_LEFT;
      H[i * w + j] = h;
      from[i * w + j] = f;
      if (h > best) best = h, bi = i, bj = j;
    }
  /* trace back from the best cell to where the local alignment starts */
  uint32_t cap = n + m, len = 0;
  rc_meld_pair *path = rc_xmalloc((cap + 1) * sizeof *path);
  uint32_t i = bi, j = bj;
  while (i > 0 && j > 0 && from[i * w + j] != FROM_NONE) {
    uint8_t f = from[i * w + j];
    if (f == FROM_DIAG) path[len++] = (rc_meld_pair){(int32_t)(i - 1), (int32_t)(j - 1)}, i--, j--;
    else if (f == FROM_UP) path[len++] = (rc_meld_pair){(int32_t)(i - 1), -1}, i--;
    else path[len++] = (rc_meld_pair){-1, (int32_t)(j - 1)}, j--;
  }
  uint32_t k = 0;
  for (uint32_t a = 0; a < i; a++) out[k++] = (rc_meld_pair){(int32_t)a, -1};
  for (uint32_t b = 0; b < j; b++) out[k++] = (rc_meld_pair){-1, (int32_t)b};
  while (len) out[k++] = path[--len];
  for (uint32_t a = bi; a < n; a++) out[k++] = (rc_meld_pair){(int32_t)a, -1};
  for (uint32_t b = bj; b < m; b++) out[k++] = (rc_meld_pair){-1, (int32_t)b};
  free(path);
  free(H);
  free(from);
  return k;
}
