/* The verifier: the rules of docs/ir.md, section "Well-formedness". It stops at the first problem
 * in a kernel and reports it with the source position when the IR came from text. */
#include "reconv/analysis.h"
#include "reconv/ir.h"

#include <stdlib.h>
#include <string.h>

typedef struct verifier {
  rc_ctx *ctx;
  const rc_kernel *k;
  bool failed;
} verifier;

static bool fail(verifier *v, const rc_block *b, const rc_instr *i, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static bool fail(verifier *v, const rc_block *b, const rc_instr *i, const char *fmt, ...) {
  if (v->failed) return false;
  v->failed = true;
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  rc_strbuf where;
  rc_sb_init(&where);
  rc_sb_printf(&where, "in kernel @%s", v->k->name);
  if (b) rc_sb_printf(&where, ", block %s", b->name);
  if (i) {
    rc_sb_puts(&where, ", instruction `");
    rc_print_instr(i, &where);
    rc_sb_puts(&where, "`");
  }
  uint32_t line = i && i->line ? i->line : b && b->line ? b->line : v->k->line;
  uint32_t col = i && i->line ? i->col : b && b->line ? b->col : v->k->col;
  rc_report(v->ctx, RC_SEV_ERROR, line ? v->k->mod->filename : NULL, line, col, "%s: %s", where.data,
            msg);
  rc_sb_free(&where);
  return false;
}

static bool is_value_type(rc_type t) {
  return t != RC_VOID && t < RC_TYPE_COUNT;
}

static bool check_operand(verifier *v, const rc_block *b, const rc_instr *i, const rc_value *op) {
  if (!op) return fail(v, b, i, "missing operand");
  if (!is_value_type((rc_type)op->type)) return fail(v, b, i, "operand has no value type");
  if (op->kind == RC_V_PARAM) {
    if (op->id >= v->k->nparams || v->k->params[op->id] != op)
      return fail(v, b, i, "operand is a parameter of another kernel");
  } else if (op->kind == RC_V_INSTR) {
    const rc_instr *d = (const rc_instr *)op;
    if (!d->parent) return fail(v, b, i, "operand refers to an instruction that is not in a block");
    if (d->parent->parent != v->k) return fail(v, b, i, "operand refers to another kernel");
  }
  return true;
}

static bool same_type(verifier *v, const rc_block *b, const rc_instr *i, const rc_value *x, rc_type t,
                      const char *what) {
  if (x->type != t)
    return fail(v, b, i, "%s has type %s, expected %s", what, rc_type_name((rc_type)x->type),
                rc_type_name(t));
  return true;
}

static bool check_call(verifier *v, const rc_block *b, const rc_instr *i) {
  const rc_builtin_info *bi = rc_builtin_get((rc_builtin)i->pred);
  if (!bi) return fail(v, b, i, "unknown builtin");
  rc_type t = (rc_type)i->v.type;
  uint32_t want = 0;
  switch (bi->sig) {
  case RC_SIG_QUERY_DIM: want = 1; break;
  case RC_SIG_QUERY: case RC_SIG_VOID0: want = 0; break;
  case RC_SIG_F1: case RC_SIG_I1: want = 1; break;
  case RC_SIG_F2: case RC_SIG_I2: case RC_SIG_ATOMIC: want = 2; break;
  case RC_SIG_F3: case RC_SIG_CMPXCHG: case RC_SIG_MEMCPY: case RC_SIG_MEMSET: want = 3; break;
  }
  if (i->nops != want) return fail(v, b, i, "@%s takes %u arguments, not %u", bi->name, want, i->nops);
  switch (bi->sig) {
  case RC_SIG_QUERY_DIM:
    if (!rc_type_is_int(t) || t == RC_I1) return fail(v, b, i, "@%s returns an integer", bi->name);
    if (i->ops[0]->kind != RC_V_CONST || i->ops[0]->type != RC_I32 || rc_const_ival(i->ops[0]) < 0 ||
        rc_const_ival(i->ops[0]) > 2)
      return fail(v, b, i, "@%s takes a constant i32 dimension 0, 1 or 2", bi->name);
    return true;
  case RC_SIG_QUERY:
    if (!rc_type_is_int(t) || t == RC_I1) return fail(v, b, i, "@%s returns an integer", bi->name);
    return true;
  case RC_SIG_VOID0:
    if (t != RC_VOID) return fail(v, b, i, "@%s returns void", bi->name);
    return true;
  case RC_SIG_F1: case RC_SIG_F2: case RC_SIG_F3:
    if (!rc_type_is_float(t)) return fail(v, b, i, "@%s returns f32 or f64", bi->name);
    for (uint32_t o = 0; o < i->nops; o++)
      if (!same_type(v, b, i, i->ops[o], t, "argument")) return false;
    return true;
  case RC_SIG_I1: case RC_SIG_I2:
    if (!rc_type_is_int(t) || t == RC_I1) return fail(v, b, i, "@%s returns an integer", bi->name);
    for (uint32_t o = 0; o < i->nops; o++)
      if (!same_type(v, b, i, i->ops[o], t, "argument")) return false;
    return true;
  case RC_SIG_ATOMIC: case RC_SIG_CMPXCHG:
    if (!rc_type_is_int(t) || t == RC_I1) return fail(v, b, i, "@%s returns an integer", bi->name);
    if (!same_type(v, b, i, i->ops[0], RC_PTR, "address")) return false;
    for (uint32_t o = 1; o < i->nops; o++)
      if (!same_type(v, b, i, i->ops[o], t, "argument")) return false;
    return true;
  case RC_SIG_MEMCPY: case RC_SIG_MEMSET:
    if (t != RC_VOID) return fail(v, b, i, "@%s returns void", bi->name);
    if (!same_type(v, b, i, i->ops[0], RC_PTR, "destination")) return false;
    if (bi->sig == RC_SIG_MEMCPY && !same_type(v, b, i, i->ops[1], RC_PTR, "source")) return false;
    if (bi->sig == RC_SIG_MEMSET && !same_type(v, b, i, i->ops[1], RC_I8, "byte")) return false;
    if (!rc_type_is_int((rc_type)i->ops[2]->type) || i->ops[2]->type == RC_I1)
      return fail(v, b, i, "size must be an integer");
    return true;
  }
  return true;
}

static bool check_cast(verifier *v, const rc_block *b, const rc_instr *i) {
  rc_type from = (rc_type)i->ops[0]->type, to = (rc_type)i->v.type;
  bool ok = false;
  switch ((rc_opcode)i->op) {
  case RC_OP_TRUNC: ok = rc_type_is_int(from) && rc_type_is_int(to) && rc_type_bits(to) < rc_type_bits(from); break;
  case RC_OP_ZEXT:
  case RC_OP_SEXT: ok = rc_type_is_int(from) && rc_type_is_int(to) && rc_type_bits(to) > rc_type_bits(from); break;
  case RC_OP_FPTRUNC: ok = from == RC_F64 && to == RC_F32; break;
  case RC_OP_FPEXT: ok = from == RC_F32 && to == RC_F64; break;
  case RC_OP_FPTOSI:
  case RC_OP_FPTOUI: ok = rc_type_is_float(from) && rc_type_is_int(to); break;
  case RC_OP_SITOFP:
  case RC_OP_UITOFP: ok = rc_type_is_int(from) && rc_type_is_float(to); break;
  case RC_OP_PTRTOINT: ok = from == RC_PTR && rc_type_is_int(to) && to != RC_I1; break;
  case RC_OP_INTTOPTR: ok = rc_type_is_int(from) && from != RC_I1 && to == RC_PTR; break;
  case RC_OP_BITCAST:
    ok = is_value_type(from) && is_value_type(to) && from != RC_MASK && to != RC_MASK &&
         from != RC_I1 && to != RC_I1 && rc_type_bits(from) == rc_type_bits(to);
    break;
  default: break;
  }
  if (!ok)
    return fail(v, b, i, "cannot %s %s to %s", rc_opcode_name((rc_opcode)i->op), rc_type_name(from),
                rc_type_name(to));
  return true;
}

static bool check_instr(verifier *v, const rc_block *b, const rc_instr *i) {
  const rc_kernel *k = v->k;
  rc_opcode op = (rc_opcode)i->op;
  rc_type t = (rc_type)i->v.type;
  bool wave = k->level == RC_LEVEL_WAVE;
  if (op == RC_OP_NONE || op >= RC_OP_COUNT) return fail(v, b, i, "invalid opcode");
  if (op != RC_OP_PHI)
    for (uint32_t o = 0; o < i->nops; o++)
      if (!check_operand(v, b, i, i->ops[o])) return false;
  if (rc_opcode_is_int_binop(op)) {
    bool mask_ok = op == RC_OP_AND || op == RC_OP_OR || op == RC_OP_XOR || op == RC_OP_ANDN;
    if (!(rc_type_is_int(t) || (mask_ok && t == RC_MASK)))
      return fail(v, b, i, "%s needs integer operands", rc_opcode_name(op));
    if (t == RC_MASK && !wave) return fail(v, b, i, "the mask type is only allowed at wave level");
    return same_type(v, b, i, i->ops[0], t, "first operand") &&
           same_type(v, b, i, i->ops[1], t, "second operand");
  }
  if (rc_opcode_is_float_binop(op) || op == RC_OP_FNEG) {
    if (!rc_type_is_float(t)) return fail(v, b, i, "%s needs f32 or f64 operands", rc_opcode_name(op));
    for (uint32_t o = 0; o < i->nops; o++)
      if (!same_type(v, b, i, i->ops[o], t, "operand")) return false;
    return true;
  }
  if (rc_opcode_is_cast(op)) return check_cast(v, b, i);
  switch (op) {
  case RC_OP_ICMP:
  case RC_OP_FCMP: {
    rc_type ot = (rc_type)i->ops[0]->type;
    if (t != RC_I1) return fail(v, b, i, "comparisons produce i1");
    if (i->pred >= RC_CMP_COUNT || rc_cmp_is_float((rc_cmp)i->pred) != (op == RC_OP_FCMP))
      return fail(v, b, i, "invalid predicate");
    if (op == RC_OP_ICMP && !(rc_type_is_int(ot) || ot == RC_PTR || (wave && ot == RC_MASK)))
      return fail(v, b, i, "icmp compares integers or pointers");
    if (op == RC_OP_FCMP && !rc_type_is_float(ot)) return fail(v, b, i, "fcmp compares floats");
    return same_type(v, b, i, i->ops[1], ot, "second operand");
  }
  case RC_OP_SELECT:
    if (!is_value_type(t)) return fail(v, b, i, "select needs a value type");
    return same_type(v, b, i, i->ops[0], RC_I1, "condition") &&
           same_type(v, b, i, i->ops[1], t, "true value") &&
           same_type(v, b, i, i->ops[2], t, "false value");
  case RC_OP_LOAD:
    if (!is_value_type(t) || t == RC_MASK) return fail(v, b, i, "cannot load type %s", rc_type_name(t));
    return same_type(v, b, i, i->ops[0], RC_PTR, "address");
  case RC_OP_STORE:
    if (i->ops[0]->type == RC_MASK) return fail(v, b, i, "cannot store a mask");
    return same_type(v, b, i, i->ops[1], RC_PTR, "address");
  case RC_OP_GEP:
    if (t != RC_PTR) return fail(v, b, i, "gep produces ptr");
    if (!rc_type_is_int((rc_type)i->ops[1]->type)) return fail(v, b, i, "gep index must be an integer");
    return same_type(v, b, i, i->ops[0], RC_PTR, "base");
  case RC_OP_ALLOCA:
  case RC_OP_LOCALMEM:
    if (t != RC_PTR) return fail(v, b, i, "%s produces ptr", rc_opcode_name(op));
    if (i->imm <= 0 || i->imm > (1 << 24))
      return fail(v, b, i, "%s size must be between 1 and 16777216 bytes", rc_opcode_name(op));
    return true;
  case RC_OP_CALL: return check_call(v, b, i);
  case RC_OP_PHI: {
    if (wave) return fail(v, b, i, "wave-level kernels have no phis");
    if (!is_value_type(t)) return fail(v, b, i, "phi needs a value type");
    for (uint32_t o = 0; o < i->nops; o++) {
      if (!check_operand(v, b, i, i->ops[o])) return false;
      if (!same_type(v, b, i, i->ops[o], t, "incoming value")) return false;
      if (!i->targets[o] || i->targets[o]->parent != k)
        return fail(v, b, i, "incoming block is not in the kernel");
      if (!rc_block_has_pred(b, i->targets[o]))
        return fail(v, b, i, "%s is not a predecessor of %s", i->targets[o]->name, b->name);
      for (uint32_t p = 0; p < o; p++)
        if (i->targets[p] == i->targets[o])
          return fail(v, b, i, "two incoming values for %s", i->targets[o]->name);
    }
    for (uint32_t p = 0; p < b->npreds; p++)
      if (rc_phi_index_of(i, b->preds[p]) < 0)
        return fail(v, b, i, "no incoming value for predecessor %s", b->preds[p]->name);
    return true;
  }
  case RC_OP_BALLOT:
    if (!wave) return fail(v, b, i, "ballot is only allowed at wave level");
    return same_type(v, b, i, i->ops[0], RC_I1, "condition");
  case RC_OP_EXEC:
    if (!wave) return fail(v, b, i, "exec is only allowed at wave level");
    return true;
  case RC_OP_SETEXEC:
    if (!wave) return fail(v, b, i, "setexec is only allowed at wave level");
    return same_type(v, b, i, i->ops[0], RC_MASK, "mask");
  case RC_OP_RGET:
  case RC_OP_RSET:
    if (!wave) return fail(v, b, i, "registers are only allowed at wave level");
    if (!i->reg || i->reg->id >= k->nregs || k->regs[i->reg->id] != i->reg)
      return fail(v, b, i, "unknown register");
    if (op == RC_OP_RGET) return t == i->reg->type || fail(v, b, i, "rget type differs from the register's");
    return same_type(v, b, i, i->ops[0], (rc_type)i->reg->type, "value");
  case RC_OP_BR:
    if (i->ntargets != 2) return fail(v, b, i, "br has two targets");
    return same_type(v, b, i, i->ops[0], RC_I1, "condition");
  case RC_OP_JMP:
    return i->ntargets == 1 || fail(v, b, i, "jmp has one target");
  case RC_OP_BREXECZ:
    if (!wave) return fail(v, b, i, "brexecz is only allowed at wave level");
    return i->ntargets == 2 || fail(v, b, i, "brexecz has two targets");
  case RC_OP_SWITCH: {
    rc_type st = (rc_type)i->ops[0]->type;
    if (!rc_type_is_int(st)) return fail(v, b, i, "switch needs an integer value");
    if (i->ntargets < 1) return fail(v, b, i, "switch needs a default target");
    for (uint32_t c = 1; c < i->ntargets; c++)
      for (uint32_t d = 1; d < c; d++)
        if (i->cases[c - 1] == i->cases[d - 1])
          return fail(v, b, i, "duplicate case value %lld", (long long)i->cases[c - 1]);
    return true;
  }
  case RC_OP_RET:
  case RC_OP_UNREACHABLE: return true;
  default: return fail(v, b, i, "invalid opcode");
  }
}

/* Every edge of a terminator appears in the successor's preds as often as in the terminator. */
static bool check_edges(verifier *v, const rc_block *b) {
  const rc_instr *t = rc_block_term(b);
  for (uint32_t e = 0; t && e < t->ntargets; e++) {
    const rc_block *s = t->targets[e];
    if (!s || s->parent != v->k || s->id >= v->k->nblocks || v->k->blocks[s->id] != s)
      return fail(v, b, t, "branch target is not a block of this kernel");
    uint32_t want = 0;
    for (uint32_t f = 0; f < t->ntargets; f++) want += t->targets[f] == s;
    if (rc_block_count_pred(s, b) != want)
      return fail(v, b, t, "predecessor list of %s is out of date", s->name);
  }
  for (uint32_t p = 0; p < b->npreds; p++) {
    const rc_block *pb = b->preds[p];
    const rc_instr *pt = pb && pb->parent == v->k ? rc_block_term(pb) : NULL;
    bool found = false;
    for (uint32_t f = 0; pt && f < pt->ntargets; f++) found |= pt->targets[f] == b;
    if (!found) return fail(v, b, NULL, "predecessor list names a block that does not branch here");
  }
  return true;
}

static bool check_ssa(verifier *v) {
  const rc_kernel *k = v->k;
  rc_cfg g;
  rc_cfg_build(&g, k);
  rc_domtree dom;
  rc_domtree_build(&dom, &g, false);
  uint32_t *def_block = rc_xmalloc((k->nvalues ? k->nvalues : 1) * sizeof *def_block);
  uint32_t *def_pos = rc_xmalloc((k->nvalues ? k->nvalues : 1) * sizeof *def_pos);
  for (uint32_t i = 0; i < k->nvalues; i++) def_block[i] = def_pos[i] = RC_NONE;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    uint32_t pos = 0;
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next, pos++)
      if (i->v.id != RC_NONE) {
        def_block[i->v.id] = b;
        def_pos[i->v.id] = pos;
      }
  }
  bool ok = true;
  for (uint32_t b = 0; ok && b < k->nblocks; b++) {
    const rc_block *blk = k->blocks[b];
    if (!rc_domtree_contains(&dom, b)) continue; /* unreachable code: no dominance to check */
    uint32_t pos = 0;
    for (const rc_instr *i = blk->first; ok && i; i = i->next, pos++) {
      for (uint32_t o = 0; ok && o < i->nops; o++) {
        const rc_value *op = i->ops[o];
        if (op->kind != RC_V_INSTR) continue;
        uint32_t db = def_block[op->id];
        if (op->id == RC_NONE || db == RC_NONE) {
          ok = fail(v, blk, i, "operand is not defined in this kernel");
        } else if (i->op == RC_OP_PHI) {
          uint32_t from = i->targets[o]->id;
          if (rc_domtree_contains(&dom, from) && !rc_dominates(&dom, db, from))
            ok = fail(v, blk, i, "incoming value from %s is not defined on every path to %s",
                      i->targets[o]->name, i->targets[o]->name);
        } else if (db == b) {
          if (def_pos[op->id] >= pos) ok = fail(v, blk, i, "operand is used before its definition");
        } else if (!rc_dominates(&dom, db, b)) {
          ok = fail(v, blk, i, "operand defined in %s does not dominate this use",
                    k->blocks[db]->name);
        }
      }
    }
  }
  free(def_block);
  free(def_pos);
  rc_domtree_free(&dom);
  rc_cfg_free(&g);
  return ok;
}

int rc_verify_kernel(rc_ctx *ctx, const rc_kernel *k) {
  verifier v = {ctx, k, false};
  if (k->nblocks == 0) {
    fail(&v, NULL, NULL, "kernel has no blocks");
    return -1;
  }
  for (uint32_t b = 0; b < k->nblocks && !v.failed; b++) {
    const rc_block *blk = k->blocks[b];
    if (blk->id != b || blk->parent != k) {
      fail(&v, blk, NULL, "block numbering is out of date");
      break;
    }
    if (!blk->first) {
      fail(&v, blk, NULL, "block is empty (it needs a terminator)");
      break;
    }
    bool phis_done = false;
    for (const rc_instr *i = blk->first; i && !v.failed; i = i->next) {
      if (i->parent != blk) {
        fail(&v, blk, i, "instruction list is corrupt");
        break;
      }
      bool term = rc_opcode_is_terminator((rc_opcode)i->op);
      if (term && i->next) fail(&v, blk, i, "terminator in the middle of a block");
      else if (!term && !i->next) fail(&v, blk, i, "block does not end in a terminator");
      else if (i->op == RC_OP_PHI && phis_done) fail(&v, blk, i, "phi after a non-phi instruction");
      else check_instr(&v, blk, i);
      if (i->op != RC_OP_PHI) phis_done = true;
    }
    if (!v.failed) check_edges(&v, blk);
  }
  if (!v.failed && k->blocks[0]->npreds) fail(&v, k->blocks[0], NULL, "the entry block has predecessors");
  if (!v.failed) check_ssa(&v);
  return v.failed ? -1 : 0;
}

int rc_verify_module(rc_ctx *ctx, const rc_module *m) {
  int r = 0;
  for (uint32_t i = 0; i < m->nkernels; i++)
    if (rc_verify_kernel(ctx, m->kernels[i])) r = -1;
  return r;
}
