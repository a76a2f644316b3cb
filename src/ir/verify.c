/* The verifier: the rules of docs/ir.md, section "Well-formedness". Each `rule:` comment below
 * names the section of docs/ir.md it implements. The checks run in phases so that each phase may
 * rely on the previous ones (operands are only typed once they are known to exist, predecessor
 * lists only compared once every target is a block of the kernel, dominance only checked on a
 * consistent CFG). Every phase is linear in the size of the kernel (plus a sort of switch cases),
 * so kernels of a million blocks verify in well under a second. The verifier stops at the first
 * problem and reports it with the source position when the IR came from text. */
#include "reconv/analysis.h"
#include "reconv/ir.h"
#include "ir_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct verifier {
  rc_ctx *ctx;
  const rc_kernel *k;
  bool failed;
  /* per value id: the block and position of its defining instruction (RC_NONE: none seen yet),
   * filled while checking the blocks and used by the SSA dominance check */
  uint32_t *def_block, *def_pos;
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
  if (i) { /* a switch or phi can print very long: keep the message readable */
    rc_strbuf text;
    rc_sb_init(&text);
    rc_print_instr(i, &text);
    rc_sb_printf(&where, ", instruction `%.200s%s`", text.data ? text.data : "", text.len > 200 ? " ..." : "");
    rc_sb_free(&text);
  }
  uint32_t line = i && i->line ? i->line : b && b->line ? b->line : v->k->line;
  uint32_t col = i && i->line ? i->col : b && b->line ? b->col : v->k->col;
  rc_report(v->ctx, RC_SEV_ERROR, line ? v->k->mod->filename : NULL, line, col, "%s: %s", where.data,
            msg);
  rc_sb_free(&where);
  return false;
}

static const char *tn(const verifier *v, rc_type t) {
  return rc_type_str(v->k->mod, t);
}

/* A type values can have: not void, and (except for what opaque instructions carry) not a type
 * reconv only carries. */
static bool is_value_type(const verifier *v, rc_type t) {
  return rc_type_is_value(v->k->mod, t);
}

static bool is_carried_type(const verifier *v, rc_type t) {
  return t != RC_VOID && (rc_type_is_value(v->k->mod, t) || rc_type_info(v->k->mod, t) != NULL);
}

static bool is_block_of(const rc_kernel *k, const rc_block *b) {
  return b && b->parent == k && b->id < k->nblocks && k->blocks[b->id] == b;
}

/* rule: Level rules — the mask type exists only in wave kernels. */
static bool check_level_type(verifier *v, const rc_block *b, const rc_instr *i, rc_type t) {
  if (t == RC_MASK && v->k->level != RC_LEVEL_WAVE)
    return fail(v, b, i, "the mask type is only allowed in wave kernels");
  return true;
}

/* rule: Operands. */
static bool check_operand(verifier *v, const rc_block *b, const rc_instr *i, const rc_value *op) {
  if (!op) return fail(v, b, i, "missing operand");
  if (op->kind > RC_V_GLOBAL) return fail(v, b, i, "operand of unknown kind");
  if (!(i && i->op == RC_OP_OPAQUE ? is_carried_type(v, (rc_type)op->type) : is_value_type(v, (rc_type)op->type)))
    return fail(v, b, i, "operand has no value type");
  if (!check_level_type(v, b, i, (rc_type)op->type)) return false;
  if (op->kind == RC_V_PARAM) {
    if (op->id >= v->k->nparams || v->k->params[op->id] != op)
      return fail(v, b, i, "operand is a parameter of another kernel");
  } else if (op->kind == RC_V_INSTR) {
    const rc_instr *d = (const rc_instr *)op;
    if (!d->parent) return fail(v, b, i, "operand refers to an instruction that is not in a block");
    if (!d->parent->parent)
      return fail(v, b, i, "operand refers to an instruction of a removed block (%s)", d->parent->name);
    if (d->parent->parent != v->k) return fail(v, b, i, "operand refers to another kernel");
  } else if (op->kind == RC_V_GLOBAL) {
    const rc_module *m = v->k->mod;
    if (op->id >= m->nglobals || &m->globals[op->id]->v != op)
      return fail(v, b, i, "operand is a global of another module");
  }
  return true;
}

static bool same_type(verifier *v, const rc_block *b, const rc_instr *i, const rc_value *x, rc_type t,
                      const char *what) {
  if (x->type != t)
    return fail(v, b, i, "%s has type %s, expected %s", what, tn(v, (rc_type)x->type), tn(v, t));
  return true;
}

static bool is_int_not_i1(rc_type t) {
  return rc_type_is_int(t) && t != RC_I1;
}

/* The element type of a vector, or the type itself. */
static rc_type scalar_of(const verifier *v, rc_type t) {
  return rc_type_scalar_of(v->k->mod, t);
}

/* Do a and b have the same shape: both scalars, or vectors of the same length? */
static bool same_shape(const verifier *v, rc_type a, rc_type b) {
  const rc_module *m = v->k->mod;
  return rc_type_is_vector(m, a) == rc_type_is_vector(m, b) &&
         (!rc_type_is_vector(m, a) || rc_type_count(m, a) == rc_type_count(m, b));
}

/* rule: Builtin calls — the number of arguments, then the builtin's spec (types, modifiers:
 * src/ir/builtin_check.c). Element-wise builtins also take vectors. */
static bool check_call(verifier *v, const rc_block *b, const rc_instr *i) {
  const rc_builtin_info *bi = rc_builtin_get((rc_builtin)i->pred);
  if (!bi) return fail(v, b, i, "unknown builtin");
  if (i->nops != bi->nargs)
    return fail(v, b, i, "@%s takes %u argument%s, not %u", bi->name, bi->nargs, bi->nargs == 1 ? "" : "s",
                i->nops);
  char why[300];
  if (!rc_builtin_check(v->k->mod, (rc_builtin)i->pred, (rc_type)i->v.type, i->ops, i->imm, why, sizeof why))
    return fail(v, b, i, "%s", why);
  return true;
}

/* Total bits of a scalar or a vector of scalars (0 for other types). */
static uint64_t total_bits(const verifier *v, rc_type t) {
  const rc_module *m = v->k->mod;
  if (rc_type_is_scalar(t)) return rc_type_bits(t);
  if (rc_type_is_vector(m, t)) return (uint64_t)rc_type_count(m, t) * rc_type_bits(rc_type_scalar_of(m, t));
  return 0;
}

/* rule: Types of instructions (casts). On vectors, casts act element by element and keep the
 * length; bitcast reinterprets the bits and keeps their number. */
static bool check_cast(verifier *v, const rc_block *b, const rc_instr *i) {
  rc_type from = (rc_type)i->ops[0]->type, to = (rc_type)i->v.type;
  rc_type f = scalar_of(v, from), t = scalar_of(v, to);
  bool ok = false, shape = same_shape(v, from, to);
  switch ((rc_opcode)i->op) {
  case RC_OP_TRUNC: ok = shape && rc_type_is_int(f) && rc_type_is_int(t) && rc_type_bits(t) < rc_type_bits(f); break;
  case RC_OP_ZEXT:
  case RC_OP_SEXT: ok = shape && rc_type_is_int(f) && rc_type_is_int(t) && rc_type_bits(t) > rc_type_bits(f); break;
  case RC_OP_FPTRUNC: ok = shape && rc_type_is_float(f) && rc_type_is_float(t) && rc_type_bits(t) < rc_type_bits(f); break;
  case RC_OP_FPEXT: ok = shape && rc_type_is_float(f) && rc_type_is_float(t) && rc_type_bits(t) > rc_type_bits(f); break;
  case RC_OP_FPTOSI:
  case RC_OP_FPTOUI: ok = shape && rc_type_is_float(f) && rc_type_is_int(t); break;
  case RC_OP_SITOFP:
  case RC_OP_UITOFP: ok = shape && rc_type_is_int(f) && rc_type_is_float(t); break;
  case RC_OP_PTRTOINT: ok = shape && rc_type_is_ptr(f) && rc_type_is_int(t); break; /* to i1: the low bit */
  case RC_OP_INTTOPTR: ok = shape && is_int_not_i1(f) && rc_type_is_ptr(t); break;
  case RC_OP_ADDRSPACECAST: ok = shape && rc_type_is_ptr(f) && rc_type_is_ptr(t) && f != t; break;
  case RC_OP_BITCAST:
    if (rc_type_is_scalar(from) && rc_type_is_scalar(to))
      ok = from != RC_MASK && to != RC_MASK && from != RC_I1 && to != RC_I1 &&
           rc_type_bits(from) == rc_type_bits(to) && rc_type_addrspace(from) == rc_type_addrspace(to);
    else
      ok = total_bits(v, from) && total_bits(v, from) == total_bits(v, to) && !rc_type_is_ptr(f) &&
           !rc_type_is_ptr(t) && f != RC_MASK && t != RC_MASK;
    break;
  default: break;
  }
  if (!ok)
    return fail(v, b, i, "cannot %s %s to %s", rc_opcode_name((rc_opcode)i->op), tn(v, from), tn(v, to));
  return true;
}

/* rule: Operand and target counts. How many operands and targets each opcode has; -1 where it
 * varies (call: by builtin; phi: one target per operand; switch: one or more targets). */
static bool check_shape(verifier *v, const rc_block *b, const rc_instr *i) {
  rc_opcode op = (rc_opcode)i->op;
  int nops = 0, ntargets = 0;
  if (rc_opcode_is_int_binop(op) || rc_opcode_is_float_binop(op)) nops = 2;
  else if (rc_opcode_is_cast(op)) nops = 1;
  else switch (op) {
    case RC_OP_FNEG: case RC_OP_LOAD: case RC_OP_BALLOT: case RC_OP_SETEXEC: case RC_OP_RSET:
    case RC_OP_FREEZE: case RC_OP_EXTRACTVAL:
      nops = 1;
      break;
    case RC_OP_ICMP: case RC_OP_FCMP: case RC_OP_STORE: case RC_OP_EXTRACTELT: case RC_OP_SHUFFLE:
    case RC_OP_INSERTVAL:
      nops = 2;
      break;
    case RC_OP_SELECT: case RC_OP_INSERTELT: nops = 3; break;
    case RC_OP_CALL: case RC_OP_CALLFN: case RC_OP_OPAQUE: case RC_OP_GEP: case RC_OP_RET: nops = -1; break;
    case RC_OP_PHI: nops = ntargets = -1; break;
    case RC_OP_BR: nops = 1; ntargets = 2; break;
    case RC_OP_JMP: ntargets = 1; break;
    case RC_OP_BREXECZ: ntargets = 2; break;
    case RC_OP_SWITCH: nops = 1; ntargets = -1; break;
    default: break; /* alloca, localmem, exec, rget, unreachable */
    }
  const char *name = rc_opcode_name(op);
  if (nops >= 0 && i->nops != (uint32_t)nops)
    return fail(v, b, i, "%s takes %d operand%s, not %u", name, nops, nops == 1 ? "" : "s", i->nops);
  if (ntargets >= 0 && i->ntargets != (uint32_t)ntargets)
    return fail(v, b, i, "%s has %d target%s, not %u", name, ntargets, ntargets == 1 ? "" : "s",
                i->ntargets);
  if (op == RC_OP_PHI && i->ntargets != i->nops)
    return fail(v, b, i, "phi has %u values but %u incoming blocks", i->nops, i->ntargets);
  if (op == RC_OP_SWITCH && i->ntargets < 1) return fail(v, b, i, "switch needs a default target");
  if (op == RC_OP_GEP && i->nops < 1) return fail(v, b, i, "gep needs a base");
  if (op == RC_OP_GEP && i->nops > 1 && !i->cases) return fail(v, b, i, "gep scales are missing");
  if ((op == RC_OP_SHUFFLE || op == RC_OP_EXTRACTVAL || op == RC_OP_INSERTVAL) && (i->imm < 1 || !i->cases))
    return fail(v, b, i, "%s needs %s", name, op == RC_OP_SHUFFLE ? "a mask" : "indices");
  if (op != RC_OP_PHI && i->nops && !i->ops) return fail(v, b, i, "operand array is missing");
  if (i->ntargets && !i->targets) return fail(v, b, i, "target array is missing");
  return true;
}

/* rule: Value numbering — results are numbered once, below kernel->nvalues; void has no number. */
static bool check_value_id(verifier *v, const rc_block *b, const rc_instr *i, uint32_t pos) {
  uint32_t id = i->v.id;
  if (i->v.kind != RC_V_INSTR) return fail(v, b, i, "instruction value has the wrong kind");
  if (i->v.type == RC_VOID) {
    if (id != RC_NONE) return fail(v, b, i, "an instruction without a result has a value number");
    return true;
  }
  if (id == RC_NONE || id < v->k->nparams || id >= v->k->nvalues)
    return fail(v, b, i, "result number %u is not a value number of this kernel", id);
  if (v->def_block[id] != RC_NONE) return fail(v, b, i, "result number %u is used by two instructions", id);
  v->def_block[id] = b->id;
  v->def_pos[id] = pos;
  return true;
}

/* rule: Branch targets (br, jmp, switch, brexecz) — every target is a block of this kernel;
 * switch case values are distinct and written in the width of the switched type. */
static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static bool check_targets(verifier *v, const rc_block *b, const rc_instr *t) {
  for (uint32_t e = 0; e < t->ntargets; e++)
    if (!is_block_of(v->k, t->targets[e]))
      return fail(v, b, t, "branch target %u is not a block of this kernel", e);
  if (t->op != RC_OP_SWITCH || t->ntargets < 2) return true;
  uint32_t n = t->ntargets - 1;
  rc_type st = (rc_type)t->ops[0]->type;
  if (!t->cases) return fail(v, b, t, "switch case array is missing");
  for (uint32_t c = 0; c < n; c++)
    if (t->cases[c] != rc_int_canon(st, t->cases[c]))
      return fail(v, b, t, "case value %lld does not fit in %s", (long long)t->cases[c], tn(v, st));
  int64_t *sorted = rc_xmalloc(n * sizeof *sorted);
  memcpy(sorted, t->cases, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, cmp_i64);
  bool ok = true;
  for (uint32_t c = 1; ok && c < n; c++)
    if (sorted[c] == sorted[c - 1]) ok = fail(v, b, t, "duplicate case value %lld", (long long)sorted[c]);
  free(sorted);
  return ok;
}

/* rule: Vectors and aggregates — extractelement, insertelement, shufflevector, extractvalue,
 * insertvalue. */
static bool check_aggregate_op(verifier *v, const rc_block *b, const rc_instr *i) {
  const rc_module *m = v->k->mod;
  rc_opcode op = (rc_opcode)i->op;
  rc_type t = (rc_type)i->v.type, a = (rc_type)i->ops[0]->type;
  switch (op) {
  case RC_OP_EXTRACTELT:
  case RC_OP_INSERTELT: {
    if (!rc_type_is_vector(m, a)) return fail(v, b, i, "%s takes a vector", rc_opcode_name(op));
    const rc_value *idx = i->ops[op == RC_OP_EXTRACTELT ? 1 : 2];
    if (!rc_type_is_int((rc_type)idx->type)) return fail(v, b, i, "the index must be an integer");
    if (op == RC_OP_EXTRACTELT) return t == rc_type_scalar_of(m, a) || fail(v, b, i, "result is not the element type");
    return same_type(v, b, i, i->ops[0], t, "vector") &&
           same_type(v, b, i, i->ops[1], rc_type_scalar_of(m, a), "element");
  }
  case RC_OP_SHUFFLE: {
    if (!rc_type_is_vector(m, a) || !same_type(v, b, i, i->ops[1], a, "second vector")) return fail(v, b, i, "shufflevector takes two vectors of one type");
    if (!rc_type_is_vector(m, t) || rc_type_scalar_of(m, t) != rc_type_scalar_of(m, a) || rc_type_count(m, t) != (uint32_t)i->imm)
      return fail(v, b, i, "result is not a vector of one element per mask entry");
    for (int64_t c = 0; c < i->imm; c++)
      if (i->cases[c] < -1 || i->cases[c] >= 2 * (int64_t)rc_type_count(m, a))
        return fail(v, b, i, "mask entry %lld selects no element", (long long)i->cases[c]);
    return true;
  }
  default: { /* extractvalue, insertvalue */
    rc_type cur = a;
    for (int64_t c = 0; c < i->imm; c++) {
      const rc_typeinfo *ti = rc_type_info(m, cur);
      if (!ti || (ti->kind != RC_TK_STRUCT && ti->kind != RC_TK_ARRAY) || i->cases[c] < 0 ||
          (uint64_t)i->cases[c] >= ti->count)
        return fail(v, b, i, "index %lld is not an element of %s", (long long)i->cases[c], tn(v, cur));
      cur = rc_type_elem(m, cur, (uint32_t)i->cases[c]);
    }
    if (op == RC_OP_EXTRACTVAL) return t == cur || fail(v, b, i, "result is not the type of the element");
    return same_type(v, b, i, i->ops[0], t, "aggregate") && same_type(v, b, i, i->ops[1], cur, "element");
  }
  }
}

/* rule: Calls of functions — the callee is a device function of this module, the arguments have
 * its parameters' types, the result its result type. */
static bool check_callfn(verifier *v, const rc_block *b, const rc_instr *i) {
  const rc_kernel *f = i->u.callee;
  if (!f || f->mod != v->k->mod || rc_module_find_kernel(f->mod, f->name) != f)
    return fail(v, b, i, "the callee is not a function of this module");
  if (!f->is_function) return fail(v, b, i, "@%s is a kernel, not a function", f->name);
  if (i->nops != f->nparams) return fail(v, b, i, "@%s takes %u arguments, not %u", f->name, f->nparams, i->nops);
  for (uint32_t o = 0; o < i->nops; o++)
    if (!same_type(v, b, i, i->ops[o], (rc_type)f->params[o]->type, "argument")) return false;
  if ((rc_type)i->v.type != f->ret_type) return fail(v, b, i, "@%s returns %s", f->name, tn(v, f->ret_type));
  return true;
}

/* rule: Types of instructions, Level rules, Builtin calls, Memory instructions. Phi entries are
 * checked later (check_phis), once the predecessor lists are known to be right. */
static bool check_instr(verifier *v, const rc_block *b, const rc_instr *i, uint32_t pos) {
  const rc_kernel *k = v->k;
  const rc_module *m = k->mod;
  rc_opcode op = (rc_opcode)i->op;
  rc_type t = (rc_type)i->v.type;
  bool wave = k->level == RC_LEVEL_WAVE;
  if (op == RC_OP_NONE || op >= RC_OP_COUNT) return fail(v, b, i, "invalid opcode %u", (unsigned)op);
  if (!check_shape(v, b, i) || (v->def_block && !check_value_id(v, b, i, pos))) return false;
  /* rule: Level rules — wave instructions and registers only in wave kernels, phis only in
   * thread kernels; checked before types so that the message names the real problem */
  switch (op) {
  case RC_OP_BALLOT: case RC_OP_EXEC: case RC_OP_SETEXEC: case RC_OP_BREXECZ:
    if (!wave) return fail(v, b, i, "%s is only allowed at wave level", rc_opcode_name(op));
    break;
  case RC_OP_RGET: case RC_OP_RSET:
    if (!wave) return fail(v, b, i, "registers are only allowed at wave level");
    break;
  case RC_OP_PHI:
    if (wave) return fail(v, b, i, "wave-level kernels have no phis");
    break;
  default: break;
  }
  if (t != RC_VOID && !(op == RC_OP_OPAQUE ? is_carried_type(v, t) : is_value_type(v, t)))
    return fail(v, b, i, "result has an invalid type");
  if (!check_level_type(v, b, i, t)) return false;
  if (op != RC_OP_PHI)
    for (uint32_t o = 0; o < i->nops; o++)
      if (!check_operand(v, b, i, i->ops[o])) return false;
  /* rule: Annotations */
  if ((i->iflags & (RC_IF_UNIFORM | RC_IF_DIVERGENT)) && op != RC_OP_BR && op != RC_OP_SWITCH)
    return fail(v, b, i, "!uniform and !divergent annotate br and switch only");
  if ((i->iflags & RC_IF_UNIFORM) && (i->iflags & RC_IF_DIVERGENT))
    return fail(v, b, i, "a branch cannot be both !uniform and !divergent");
  rc_type st = scalar_of(v, t);
  if (rc_opcode_is_int_binop(op)) {
    bool mask_ok = op == RC_OP_AND || op == RC_OP_OR || op == RC_OP_XOR || op == RC_OP_ANDN;
    if (!(rc_type_is_int(st) || (mask_ok && t == RC_MASK)))
      return fail(v, b, i, "%s needs integer operands", rc_opcode_name(op));
    return same_type(v, b, i, i->ops[0], t, "first operand") &&
           same_type(v, b, i, i->ops[1], t, "second operand");
  }
  if (rc_opcode_is_float_binop(op) || op == RC_OP_FNEG) {
    if (!rc_type_is_float(st)) return fail(v, b, i, "%s needs floating-point operands", rc_opcode_name(op));
    for (uint32_t o = 0; o < i->nops; o++)
      if (!same_type(v, b, i, i->ops[o], t, "operand")) return false;
    return true;
  }
  if (rc_opcode_is_cast(op)) return check_cast(v, b, i);
  switch (op) {
  case RC_OP_ICMP:
  case RC_OP_FCMP: {
    rc_type ot = (rc_type)i->ops[0]->type, sot = scalar_of(v, ot);
    if (t != rc_type_like((rc_module *)m, ot, RC_I1)) return fail(v, b, i, "comparisons produce i1 (one per element)");
    if (i->pred >= RC_CMP_COUNT || rc_cmp_is_float((rc_cmp)i->pred) != (op == RC_OP_FCMP))
      return fail(v, b, i, "invalid predicate");
    if (op == RC_OP_ICMP && !(rc_type_is_int(sot) || rc_type_is_ptr(sot) || ot == RC_MASK))
      return fail(v, b, i, "icmp compares integers, pointers or masks");
    if (op == RC_OP_FCMP && !rc_type_is_float(sot)) return fail(v, b, i, "fcmp compares floats");
    return same_type(v, b, i, i->ops[1], ot, "second operand");
  }
  case RC_OP_SELECT: {
    rc_type ct = (rc_type)i->ops[0]->type;
    if (ct != RC_I1 && !(rc_type_is_vector(m, t) && ct == rc_type_like((rc_module *)m, t, RC_I1)))
      return same_type(v, b, i, i->ops[0], RC_I1, "condition");
    return same_type(v, b, i, i->ops[1], t, "true value") && same_type(v, b, i, i->ops[2], t, "false value");
  }
  case RC_OP_LOAD:
    if (t == RC_MASK) return fail(v, b, i, "cannot load type %s", tn(v, t));
    if (!rc_type_is_ptr((rc_type)i->ops[0]->type))
      return fail(v, b, i, "address has type %s, expected a pointer", tn(v, (rc_type)i->ops[0]->type));
    return true;
  case RC_OP_STORE:
    if (t != RC_VOID) return fail(v, b, i, "store has no result");
    if (i->ops[0]->type == RC_MASK) return fail(v, b, i, "cannot store a mask");
    if (!rc_type_is_ptr((rc_type)i->ops[1]->type))
      return fail(v, b, i, "address has type %s, expected a pointer", tn(v, (rc_type)i->ops[1]->type));
    return true;
  case RC_OP_GEP:
    if (!rc_type_is_ptr(t)) return fail(v, b, i, "gep produces a pointer");
    for (uint32_t o = 1; o < i->nops; o++)
      if (!rc_type_is_int((rc_type)i->ops[o]->type)) return fail(v, b, i, "gep index must be an integer");
    return same_type(v, b, i, i->ops[0], t, "base");
  case RC_OP_ALLOCA:
  case RC_OP_LOCALMEM:
    if (op == RC_OP_LOCALMEM ? t != RC_PTR : !rc_type_is_ptr(t))
      return fail(v, b, i, "%s produces ptr", rc_opcode_name(op));
    if (i->imm <= 0 || i->imm > (1 << 24))
      return fail(v, b, i, "%s size must be between 1 and 16777216 bytes", rc_opcode_name(op));
    return true;
  case RC_OP_CALL: return check_call(v, b, i);
  case RC_OP_CALLFN: return check_callfn(v, b, i);
  case RC_OP_FREEZE: return same_type(v, b, i, i->ops[0], t, "operand");
  case RC_OP_EXTRACTELT: case RC_OP_INSERTELT: case RC_OP_SHUFFLE: case RC_OP_EXTRACTVAL:
  case RC_OP_INSERTVAL:
    return check_aggregate_op(v, b, i);
  case RC_OP_OPAQUE:
    if (!i->u.text) return fail(v, b, i, "opaque instruction without a description");
    if (i->nops && !i->cases) return fail(v, b, i, "opaque operand numbers are missing");
    return true;
  case RC_OP_PHI:
    if (!is_value_type(v, t)) return fail(v, b, i, "phi needs a value type");
    for (uint32_t o = 0; o < i->nops; o++)
      if (!check_operand(v, b, i, i->ops[o]) || !same_type(v, b, i, i->ops[o], t, "incoming value"))
        return false;
    return true;
  case RC_OP_BALLOT:
    if (t != RC_MASK) return fail(v, b, i, "ballot produces a mask");
    return same_type(v, b, i, i->ops[0], RC_I1, "condition");
  case RC_OP_EXEC:
    return t == RC_MASK || fail(v, b, i, "exec produces a mask");
  case RC_OP_SETEXEC:
    return same_type(v, b, i, i->ops[0], RC_MASK, "mask");
  case RC_OP_RGET:
  case RC_OP_RSET:
    if (!i->u.reg || i->u.reg->id >= k->nregs || k->regs[i->u.reg->id] != i->u.reg)
      return fail(v, b, i, "unknown register");
    if (op == RC_OP_RGET) return t == i->u.reg->type || fail(v, b, i, "rget type differs from the register's");
    return same_type(v, b, i, i->ops[0], (rc_type)i->u.reg->type, "value");
  case RC_OP_BR:
    if (!same_type(v, b, i, i->ops[0], RC_I1, "condition")) return false;
    return check_targets(v, b, i);
  case RC_OP_BREXECZ: return check_targets(v, b, i);
  case RC_OP_SWITCH:
    if (!rc_type_is_int((rc_type)i->ops[0]->type)) return fail(v, b, i, "switch needs an integer value");
    return check_targets(v, b, i);
  case RC_OP_JMP: return check_targets(v, b, i);
  case RC_OP_RET: {
    rc_type rt = k->is_function ? k->ret_type : RC_VOID;
    if (rt == RC_VOID) return i->nops == 0 || fail(v, b, i, "ret takes no value here");
    if (i->nops != 1) return fail(v, b, i, "ret needs a value of type %s", tn(v, rt));
    return same_type(v, b, i, i->ops[0], rt, "returned value");
  }
  case RC_OP_UNREACHABLE: return true;
  default: return fail(v, b, i, "invalid opcode %u", (unsigned)op);
  }
}

/* A value that is the same in every lane of a wave (docs/ir.md, "Scalar and vector values"). */
static bool is_scalar_value(const rc_value *x) {
  if (x->kind != RC_V_INSTR || x->type == RC_MASK) return true;
  const rc_instr *d = (const rc_instr *)x;
  return (d->iflags & RC_IF_SCALAR) || (d->op == RC_OP_RGET && d->u.reg->scalar) ||
         (d->op == RC_OP_ICMP && d->ops[0]->type == RC_MASK);
}

/* rule: Scalar instructions — at wave level a `!scalar` instruction computes once per wave, so its
 * operands are scalar values, and a scalar register takes only scalar values. (On ballot, exec,
 * setexec, rget and rset the annotation is redundant: they are scalar or vector by themselves, and
 * ballot reads a vector condition.) Checked after check_instr, so operands and registers are valid. */
static bool check_scalar(verifier *v, const rc_block *b, const rc_instr *i) {
  rc_opcode op = (rc_opcode)i->op;
  bool own = op == RC_OP_BALLOT || op == RC_OP_EXEC || op == RC_OP_SETEXEC || op == RC_OP_RGET || op == RC_OP_RSET;
  if ((i->iflags & RC_IF_SCALAR) && !own && !rc_opcode_is_terminator(op))
    for (uint32_t o = 0; o < i->nops; o++)
      if (!is_scalar_value(i->ops[o]))
        return fail(v, b, i, "operand %u of a !scalar instruction is a vector value", o + 1);
  if (op == RC_OP_RSET && i->u.reg->scalar && !is_scalar_value(i->ops[0]))
    return fail(v, b, i, "scalar register $%s takes a vector value", i->u.reg->name);
  return true;
}

/* rule: Kernel signature — parameters are numbered by position; registers (wave level only) by
 * position, with value types. */
static bool check_signature(verifier *v) {
  const rc_kernel *k = v->k;
  if (k->nparams > k->nvalues) return fail(v, NULL, NULL, "more parameters than value numbers");
  for (uint32_t p = 0; p < k->nparams; p++) {
    const rc_value *pv = k->params[p];
    if (!pv || pv->kind != RC_V_PARAM || pv->id != p)
      return fail(v, NULL, NULL, "parameter %u is not numbered %u", p, p);
    if (!is_value_type(v, (rc_type)pv->type)) return fail(v, NULL, NULL, "parameter %u has no value type", p);
    if (!check_level_type(v, NULL, NULL, (rc_type)pv->type)) return false;
  }
  if (k->nregs && k->level != RC_LEVEL_WAVE)
    return fail(v, NULL, NULL, "registers are only allowed at wave level");
  for (uint32_t r = 0; r < k->nregs; r++) {
    const rc_reg *reg = k->regs[r];
    if (!reg || reg->id != r) return fail(v, NULL, NULL, "register %u is not numbered %u", r, r);
    if (!is_value_type(v, (rc_type)reg->type))
      return fail(v, NULL, NULL, "register $%s has no value type", reg->name);
  }
  return true;
}

/* rule: Block numbering — blocks[i]->id == i for every block of the kernel, so that the blocks
 * can be told apart from removed blocks and blocks of other kernels. */
static bool check_numbering(verifier *v) {
  const rc_kernel *k = v->k;
  for (uint32_t id = 0; id < k->nblocks; id++) {
    const rc_block *blk = k->blocks[id];
    if (!blk || blk->id != id || blk->parent != k)
      return fail(v, blk && blk->parent == k ? blk : NULL, NULL,
                  "block at position %u is not numbered %u or belongs to another kernel", id, id);
  }
  return true;
}

/* rule: Block structure. */
static bool check_block(verifier *v, uint32_t id) {
  const rc_block *blk = v->k->blocks[id];
  if (!blk->first) return fail(v, blk, NULL, "block is empty (it needs a terminator)");
  bool phis_done = false;
  const rc_instr *prev = NULL;
  uint32_t pos = 0;
  for (const rc_instr *i = blk->first; i; prev = i, i = i->next, pos++) {
    if (i->parent != blk || i->prev != prev) return fail(v, blk, NULL, "instruction list is corrupt");
    bool term = rc_opcode_is_terminator((rc_opcode)i->op);
    if (term && i->next) return fail(v, blk, i, "terminator in the middle of a block");
    if (!term && !i->next) return fail(v, blk, i, "block does not end in a terminator");
    if (i->op == RC_OP_PHI && phis_done) return fail(v, blk, i, "phi after a non-phi instruction");
    if (i->op != RC_OP_PHI) phis_done = true;
    if (!check_instr(v, blk, i, pos)) return false;
    if (v->k->level == RC_LEVEL_WAVE && !check_scalar(v, blk, i)) return false;
  }
  if (blk->last != prev) return fail(v, blk, NULL, "instruction list is corrupt (wrong last)");
  return true;
}

/* rule: Predecessor lists — b->preds holds each edge p -> b once per occurrence of b among the
 * targets of p's terminator. Compared as multisets with a counter per block, using the edges of
 * the CFG snapshot (built from the terminators). count[] is all zero on entry and on return. */
static bool check_preds(verifier *v, const rc_cfg *g, uint32_t *count) {
  const rc_kernel *k = v->k;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    const rc_block *blk = k->blocks[b];
    bool ok = true;
    for (uint32_t p = 0; ok && p < blk->npreds; p++) {
      if (!is_block_of(k, blk->preds[p]))
        ok = fail(v, blk, NULL, "predecessor list names a block that is not in this kernel");
      else
        count[blk->preds[p]->id]++;
    }
    for (uint32_t e = g->pred_start[b]; ok && e < g->pred_start[b + 1]; e++) {
      uint32_t q = g->preds[e];
      if (count[q] == 0)
        ok = fail(v, blk, NULL, "predecessor list is missing the edge from %s", k->blocks[q]->name);
      else
        count[q]--;
    }
    for (uint32_t p = 0; p < blk->npreds; p++) {
      const rc_block *pb = blk->preds[p];
      if (!is_block_of(k, pb)) continue;
      if (ok && count[pb->id])
        ok = fail(v, blk, NULL, "predecessor list names %s, which does not branch here that often",
                  pb->name);
      count[pb->id] = 0;
    }
    if (!ok) return false;
  }
  return true;
}

/* rule: Phis — a phi has exactly one entry for each distinct predecessor and none for other
 * blocks. pred_mark[p] == b + 1 marks the predecessors of block b; entry_mark[p] == stamp marks
 * the blocks a phi has an entry for (both arrays are per block id, zero on entry). */
static bool check_phis(verifier *v, uint32_t *pred_mark, uint32_t *entry_mark) {
  const rc_kernel *k = v->k;
  uint32_t stamp = 0;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    const rc_block *blk = k->blocks[b];
    if (!blk->first || blk->first->op != RC_OP_PHI) continue;
    uint32_t ndistinct = 0;
    for (uint32_t p = 0; p < blk->npreds; p++)
      if (pred_mark[blk->preds[p]->id] != b + 1) {
        pred_mark[blk->preds[p]->id] = b + 1;
        ndistinct++;
      }
    for (const rc_instr *i = blk->first; i && i->op == RC_OP_PHI; i = i->next) {
      stamp++;
      for (uint32_t o = 0; o < i->nops; o++) {
        const rc_block *from = i->targets[o];
        if (!is_block_of(k, from)) return fail(v, blk, i, "incoming block %u is not a block of this kernel", o);
        if (pred_mark[from->id] != b + 1)
          return fail(v, blk, i, "%s is not a predecessor of %s", from->name, blk->name);
        if (entry_mark[from->id] == stamp) return fail(v, blk, i, "two incoming values for %s", from->name);
        entry_mark[from->id] = stamp;
      }
      if (i->nops != ndistinct)
        for (uint32_t p = 0; p < blk->npreds; p++)
          if (entry_mark[blk->preds[p]->id] != stamp)
            return fail(v, blk, i, "no incoming value for predecessor %s", blk->preds[p]->name);
    }
  }
  return true;
}

/* Is the result of instruction i a vector value at wave level (one element per lane)? */
static bool is_vector_value(const rc_instr *i) {
  if (i->v.type == RC_MASK || (i->iflags & RC_IF_SCALAR)) return false;
  if (i->op == RC_OP_RGET) return !i->u.reg->scalar;
  return true;
}

/* rule: SSA dominance — a definition dominates each use: an earlier instruction of the same block
 * or a dominating block; a phi's value for predecessor P must be available at the end of P.
 * Uses in blocks not reachable from the entry are not checked (no path executes them).
 * At wave level a vector value is a per-lane register whose elements persist while their lanes are
 * inactive, so what must hold is that each lane computed it before reading it, which is not a
 * property of the wave's CFG: the sweep lowerings (blockip, full-linearize) run a block for the
 * lanes that want it, and a value defined in B1 is read in B2 by the lanes that ran B1 (B1 dominates
 * B2 at thread level), though the wave can reach B2 around B1. For vector values of another block
 * the check is that the definition is in a reachable block; the trace comparison checks the rest. */
static bool check_ssa(verifier *v, const rc_cfg *g) {
  const rc_kernel *k = v->k;
  const uint32_t *def_block = v->def_block, *def_pos = v->def_pos;
  rc_domtree dom;
  rc_domtree_build(&dom, g, false);
  bool ok = true;
  for (uint32_t b = 0; ok && b < k->nblocks; b++) {
    const rc_block *blk = k->blocks[b];
    if (!rc_domtree_contains(&dom, b)) continue;
    uint32_t pos = 0;
    for (const rc_instr *i = blk->first; ok && i; i = i->next, pos++) {
      for (uint32_t o = 0; ok && o < i->nops; o++) {
        const rc_value *op = i->ops[o];
        if (op->kind != RC_V_INSTR) continue;
        uint32_t db = def_block[op->id]; /* operands are instructions placed in this kernel */
        if (i->op == RC_OP_PHI) {
          uint32_t from = i->targets[o]->id;
          if (rc_domtree_contains(&dom, from) && !rc_dominates(&dom, db, from))
            ok = fail(v, blk, i, "incoming value from %s is not defined on every path to the end of %s",
                      i->targets[o]->name, i->targets[o]->name);
        } else if (db == b) {
          if (def_pos[op->id] >= pos) ok = fail(v, blk, i, "operand is used before its definition");
        } else if (k->level == RC_LEVEL_WAVE && is_vector_value(rc_value_instr((rc_value *)op))) {
          if (!rc_domtree_contains(&dom, db))
            ok = fail(v, blk, i, "operand defined in %s, a block the wave never reaches", k->blocks[db]->name);
        } else if (!rc_dominates(&dom, db, b)) {
          ok = fail(v, blk, i, "operand defined in %s does not dominate this use", k->blocks[db]->name);
        }
      }
    }
  }
  rc_domtree_free(&dom);
  return ok;
}

/* The checks that need the CFG: predecessor lists, phis, the entry, dominance. */
static void check_cfg(verifier *v) {
  const rc_kernel *k = v->k;
  rc_cfg g;
  rc_cfg_build(&g, k);
  uint32_t *mark_a = rc_xcalloc(k->nblocks, sizeof *mark_a);
  uint32_t *mark_b = rc_xcalloc(k->nblocks, sizeof *mark_b);
  if (check_preds(v, &g, mark_a) && check_phis(v, mark_a, mark_b)) {
    /* rule: Kernel — the entry block has no predecessors */
    if (k->blocks[0]->npreds) fail(v, k->blocks[0], NULL, "the entry block has predecessors");
    else check_ssa(v, &g);
  }
  free(mark_a);
  free(mark_b);
  rc_cfg_free(&g);
}

static void silent(void *user, const rc_diag *d) {
  (void)user;
  (void)d;
}

bool rc_instr_types_ok(const rc_kernel *k, const rc_instr *i) {
  rc_ctx quiet;
  rc_ctx_init(&quiet);
  quiet.diag = silent;
  verifier v = {&quiet, k, false, NULL, NULL};
  return check_instr(&v, i->parent, i, 0) && !v.failed;
}

int rc_verify_kernel(rc_ctx *ctx, const rc_kernel *k) {
  verifier v = {ctx, k, false, NULL, NULL};
  /* rule: Kernel */
  if (k->nblocks == 0) {
    fail(&v, NULL, NULL, "kernel has no blocks");
    return -1;
  }
  if (!check_signature(&v) || !check_numbering(&v)) return -1;
  uint32_t nv = k->nvalues ? k->nvalues : 1;
  v.def_block = rc_xmalloc(nv * sizeof *v.def_block);
  v.def_pos = rc_xmalloc(nv * sizeof *v.def_pos);
  for (uint32_t i = 0; i < nv; i++) v.def_block[i] = RC_NONE;
  for (uint32_t b = 0; b < k->nblocks && !v.failed; b++) check_block(&v, b);
  if (!v.failed) check_cfg(&v);
  free(v.def_block);
  free(v.def_pos);
  return v.failed ? -1 : 0;
}

int rc_verify_module(rc_ctx *ctx, const rc_module *m) {
  int r = 0;
  for (uint32_t i = 0; i < m->nkernels; i++)
    if (rc_verify_kernel(ctx, m->kernels[i])) r = -1;
  return r;
}
