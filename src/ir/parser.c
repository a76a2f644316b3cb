/* The .rir parser (grammar in docs/ir.md). It stops at the first error and reports it as
 * file:line:col with what was expected. Blocks and values may be used before their definition;
 * such uses are resolved (and type-checked) at the end of the kernel. Nothing here recurses, so
 * any input size is safe. */
#include "lexer.h"
#include "parse_names.h"
#include "reconv/ir.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixup {
  rc_instr *instr;
  uint32_t idx;
  const char *name; /* arena */
  rc_type expected;
  uint32_t line, col;
} fixup;

typedef struct block_info {
  bool defined;
  uint32_t order; /* definition order */
  uint32_t line, col; /* first use, or definition */
} block_info;

/* An operand as parsed: a value, or a forward reference to resolve later. */
typedef struct opnd {
  rc_value *v;
  const char *fwd; /* name of a value not defined yet (arena) */
  rc_type expected;
  uint32_t line, col;
} opnd;

typedef struct parser {
  rc_ctx *ctx;
  lexer lx;
  rc_module *m;
  rc_kernel *k;
  parse_names names; /* blocks, values and constants of the kernel being parsed */
  RC_VEC(fixup) fixups;
  RC_VEC(block_info) binfo; /* by block id at creation */
  uint32_t ndefined;
  rc_block *cur;
  bool cur_terminated;
  bool failed;
  char name[LEX_MAX_NAME + 1]; /* scratch copy of the current token's name, for look-ups */
  uint32_t op_line, op_col;    /* position of the opcode word of the current instruction */
} parser;

#define TOK (&p->lx.tok)

static bool perr_at(parser *p, uint32_t line, uint32_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void report_redefinition(parser *p, const char *name, uint32_t line, uint32_t col) {
  p->failed = true;
  rc_report(p->ctx, RC_SEV_ERROR, p->lx.file, line, col, "redefinition of %%%s", name);
}

/* Enter the kernel's pending value names (src/ir/parse_names.c); when one of them repeats an
 * earlier name, report that redefinition. Returns false after reporting. */
static bool flush_value_names(parser *p) {
  const char *dup;
  uint32_t line, col;
  if (p->failed || names_flush_values(&p->names, &dup, &line, &col)) return true;
  report_redefinition(p, dup, line, col);
  return false;
}

/* Before an error is reported: the checks the parser defers (value names until the flush, and
 * the types of uses resolved late) may have found an earlier one, which is the first error. So
 * report the earlier of the first redefinition and the first mistyped use, if any. Returns true
 * after reporting. */
static bool report_deferred_error(parser *p) {
  if (p->failed) return false;
  const char *dup = NULL;
  uint32_t dline = 0, dcol = 0;
  bool names_ok = names_flush_values(&p->names, &dup, &dline, &dcol);
  for (uint32_t f = 0; f < p->fixups.len; f++) { /* in source order */
    const fixup *fx = &p->fixups.data[f];
    if (!names_ok && (dline < fx->line || (dline == fx->line && dcol < fx->col))) break;
    const rc_value *v = names_value(&p->names, fx->name); /* NULL: a forward reference */
    if (v && v->type != fx->expected) {
      p->failed = true;
      rc_report(p->ctx, RC_SEV_ERROR, p->lx.file, fx->line, fx->col, "%%%s has type %s but is used as %s",
                fx->name, rc_type_name((rc_type)v->type), rc_type_name(fx->expected));
      return true;
    }
  }
  if (names_ok) return false;
  report_redefinition(p, dup, dline, dcol);
  return true;
}

/* The lexer's hook before it reports an error (lexer.before_error). */
static bool lexer_before_error(void *user) {
  return report_deferred_error(user);
}

static bool perr_at(parser *p, uint32_t line, uint32_t col, const char *fmt, ...) {
  if (p->failed || report_deferred_error(p)) return false;
  p->failed = true;
  va_list ap;
  va_start(ap, fmt);
  rc_vreport(p->ctx, RC_SEV_ERROR, p->lx.file, line, col, fmt, ap);
  va_end(ap);
  return false;
}

#define perr(p, ...) perr_at((p), TOK->line, TOK->col, __VA_ARGS__)

static bool next(parser *p) {
  if (p->failed) return false;
  if (lex_next(&p->lx) == TK_ERROR) {
    p->failed = true;
    return false;
  }
  return true;
}

static bool expected(parser *p, const char *what) {
  char d[96];
  lex_describe(TOK, d, sizeof d);
  return perr(p, "expected %s, found %s", what, d);
}

static bool accept(parser *p, tok_kind k) {
  if (TOK->kind != k) return false;
  next(p);
  return true;
}

static bool expect(parser *p, tok_kind k, const char *what) {
  if (TOK->kind != k) return expected(p, what);
  return next(p);
}

/* Is the token's text exactly `word`? No strlen: the parser compares every identifier with the
 * opcode, type and predicate names, so this is on the hot path of big inputs. */
static bool text_is(const token *t, const char *word) {
  return word[0] == t->text[0] && strncmp(word, t->text, t->len) == 0 && word[t->len] == 0;
}

static bool tok_is(const parser *p, const char *word) {
  return TOK->kind == TK_IDENT && text_is(TOK, word);
}

static const char *tok_dup(parser *p) {
  return rc_arena_strndup(&p->m->arena, TOK->text, TOK->len);
}

/* The current token's text as a C string in the parser's scratch buffer (valid until the next
 * call); look-ups use it so that only names that are stored get copied into the arena. */
static const char *tok_name(parser *p) {
  size_t n = TOK->len < LEX_MAX_NAME ? TOK->len : LEX_MAX_NAME;
  memcpy(p->name, TOK->text, n);
  p->name[n] = 0;
  return p->name;
}

/* The block with this name, created (not yet defined, first mentioned at line:col) when there is
 * none. */
static rc_block *block_named(parser *p, const char *name, uint32_t line, uint32_t col) {
  bool created;
  rc_block *b = names_block(&p->names, name, &created);
  if (created) {
    block_info bi = {false, 0, line, col};
    rc_vec_push(&p->binfo, bi);
  }
  return b;
}

/* ---- types ------------------------------------------------------------------------------------ */

static int parse_type_word(parser *p) {
  if (TOK->kind != TK_IDENT) return -1;
  return rc_type_lookup(TOK->text, TOK->len);
}

/* A value type (not void). */
static bool parse_type(parser *p, rc_type *out) {
  int t = parse_type_word(p);
  if (t < 0 || t == RC_VOID) return expected(p, "a type (i1, i8, i16, i32, i64, f32, f64, ptr, mask)");
  if (t == RC_MASK && p->k->level != RC_LEVEL_WAVE)
    return perr(p, "the mask type is only allowed in wave kernels");
  *out = (rc_type)t;
  return next(p);
}

/* ---- blocks ---------------------------------------------------------------------------------------- */

static rc_block *block_ref(parser *p) {
  if (TOK->kind != TK_IDENT) {
    expected(p, "a block label");
    return NULL;
  }
  rc_block *b = block_named(p, tok_name(p), TOK->line, TOK->col);
  next(p);
  return b;
}

/* ---- operands ---------------------------------------------------------------------------------------- */

static bool int_fits(rc_type t, const token *tk) {
  unsigned bits = rc_type_bits(t);
  if (bits >= 64) return true;
  if (t == RC_I1) return tk->ival == 0 || tk->ival == 1;
  if (tk->negative) return tk->ival >= -((int64_t)1 << (bits - 1));
  return (uint64_t)tk->ival <= ((uint64_t)1 << bits) - 1;
}

static bool parse_operand(parser *p, rc_type t, opnd *o) {
  o->v = NULL;
  o->fwd = NULL;
  o->expected = t;
  o->line = TOK->line;
  o->col = TOK->col;
  rc_kernel *k = p->k;
  switch (TOK->kind) {
  case TK_LOCAL: {
    const char *name = tok_name(p);
    rc_value *v = names_value(&p->names, name);
    if (v) {
      if (v->type != t)
        return perr(p, "%%%s has type %s but is used as %s", name, rc_type_name((rc_type)v->type),
                    rc_type_name(t));
      o->v = v;
    } else {
      o->fwd = tok_dup(p);
    }
    return next(p);
  }
  case TK_INT:
    if (rc_type_is_float(t)) {
      o->v = names_float_const(&p->names, t, TOK->fval);
    } else if (rc_type_is_int(t) || t == RC_PTR || t == RC_MASK) {
      if (!int_fits(t, TOK)) return perr(p, "constant does not fit in %s", rc_type_name(t));
      o->v = names_int_const(&p->names, t, TOK->ival);
    } else {
      return perr(p, "a number cannot have type %s", rc_type_name(t));
    }
    return next(p);
  case TK_FLOAT:
    if (!rc_type_is_float(t)) return perr(p, "floating-point constant used as %s", rc_type_name(t));
    if (t == RC_F32 && isfinite(TOK->fval) && isinf((float)TOK->fval))
      return perr(p, "constant is too large for f32");
    o->v = names_float_const(&p->names, t, TOK->fval);
    return next(p);
  case TK_IDENT:
    if (tok_is(p, "true") || tok_is(p, "false")) {
      if (t != RC_I1) return perr(p, "true and false have type i1, not %s", rc_type_name(t));
      o->v = names_int_const(&p->names, RC_I1, tok_is(p, "true"));
    } else if (tok_is(p, "undef")) {
      o->v = rc_undef(k, t);
    } else if (tok_is(p, "null")) {
      if (t != RC_PTR) return perr(p, "null has type ptr, not %s", rc_type_name(t));
      o->v = names_int_const(&p->names, RC_PTR, 0);
    } else if (tok_is(p, "inf") || tok_is(p, "nan")) {
      if (!rc_type_is_float(t)) return perr(p, "floating-point constant used as %s", rc_type_name(t));
      o->v = names_float_const(&p->names, t, tok_is(p, "inf") ? INFINITY : NAN);
    } else {
      return expected(p, "a value (%name, a constant, true, false or undef)");
    }
    return next(p);
  default:
    return expected(p, "a value (%name, a constant, true, false or undef)");
  }
}

static bool parse_typed_operand(parser *p, opnd *o) {
  rc_type t = RC_VOID; /* set by parse_type on success; initialised for -O3 -Wmaybe-uninitialized */
  return parse_type(p, &t) && parse_operand(p, t, o);
}

/* Put a parsed operand into instruction slot idx (recording a fixup for forward references). */
static void place(parser *p, rc_instr *i, uint32_t idx, const opnd *o) {
  if (o->v) {
    i->ops[idx] = o->v;
  } else {
    i->ops[idx] = rc_undef(p->k, o->expected); /* replaced when the name is resolved */
    fixup f = {i, idx, o->fwd, o->expected, o->line, o->col};
    rc_vec_push(&p->fixups, f);
  }
}

/* ---- instructions ---------------------------------------------------------------------------------- */

static int lookup_opcode(parser *p) {
  return rc_opcode_lookup(TOK->text, TOK->len);
}

static int lookup_cmp(parser *p, bool is_float) {
  return TOK->kind == TK_IDENT ? rc_cmp_lookup(TOK->text, TOK->len, is_float) : -1;
}

static rc_instr *new_instr(parser *p, rc_opcode op, rc_type t, uint32_t nops, uint32_t ntargets,
                           uint32_t line, uint32_t col) {
  rc_instr *i = rc_instr_new(p->k, op, t, nops, ntargets);
  i->line = line;
  i->col = col;
  return i;
}

static bool wave_only(parser *p, rc_opcode op) {
  if (p->k->level == RC_LEVEL_WAVE) return true;
  return perr_at(p, p->op_line, p->op_col, "'%s' is only allowed in wave kernels", rc_opcode_name(op));
}

/* Parse the part after the opcode word; returns the new (detached) instruction or NULL. */
static rc_instr *parse_body(parser *p, rc_opcode op, uint32_t line, uint32_t col) {
  rc_type t = RC_VOID;
  opnd a, b, c;
  rc_instr *i = NULL;
  if (rc_opcode_is_int_binop(op) || rc_opcode_is_float_binop(op)) {
    if (!parse_type(p, &t) || !parse_operand(p, t, &a) || !expect(p, TK_COMMA, "','") ||
        !parse_operand(p, t, &b))
      return NULL;
    i = new_instr(p, op, t, 2, 0, line, col);
    place(p, i, 0, &a);
    place(p, i, 1, &b);
    return i;
  }
  if (rc_opcode_is_cast(op)) {
    if (!parse_typed_operand(p, &a)) return NULL;
    if (!tok_is(p, "to")) return expected(p, "'to'"), NULL;
    next(p);
    if (!parse_type(p, &t)) return NULL;
    i = new_instr(p, op, t, 1, 0, line, col);
    place(p, i, 0, &a);
    return i;
  }
  switch (op) {
  case RC_OP_FNEG:
    if (!parse_type(p, &t) || !parse_operand(p, t, &a)) return NULL;
    i = new_instr(p, op, t, 1, 0, line, col);
    place(p, i, 0, &a);
    return i;
  case RC_OP_ICMP:
  case RC_OP_FCMP: {
    int pred = lookup_cmp(p, op == RC_OP_FCMP);
    if (pred < 0) {
      expected(p, op == RC_OP_ICMP ? "an icmp predicate (eq ne slt sle sgt sge ult ule ugt uge)"
                                   : "an fcmp predicate (oeq one olt ole ogt oge ord ueq une ult "
                                     "ule ugt uge uno true false)");
      return NULL;
    }
    next(p);
    rc_type ot;
    if (!parse_type(p, &ot) || !parse_operand(p, ot, &a) || !expect(p, TK_COMMA, "','") ||
        !parse_operand(p, ot, &b))
      return NULL;
    i = new_instr(p, op, RC_I1, 2, 0, line, col);
    i->pred = (uint8_t)pred;
    place(p, i, 0, &a);
    place(p, i, 1, &b);
    return i;
  }
  case RC_OP_SELECT:
    if (!parse_type(p, &t) || !parse_operand(p, RC_I1, &a) || !expect(p, TK_COMMA, "','") ||
        !parse_operand(p, t, &b) || !expect(p, TK_COMMA, "','") || !parse_operand(p, t, &c))
      return NULL;
    i = new_instr(p, op, t, 3, 0, line, col);
    place(p, i, 0, &a);
    place(p, i, 1, &b);
    place(p, i, 2, &c);
    return i;
  case RC_OP_LOAD:
    if (!parse_type(p, &t) || !expect(p, TK_COMMA, "','") || !parse_operand(p, RC_PTR, &a)) return NULL;
    i = new_instr(p, op, t, 1, 0, line, col);
    place(p, i, 0, &a);
    return i;
  case RC_OP_STORE:
    if (!parse_typed_operand(p, &a) || !expect(p, TK_COMMA, "','") || !parse_operand(p, RC_PTR, &b))
      return NULL;
    i = new_instr(p, op, RC_VOID, 2, 0, line, col);
    place(p, i, 0, &a);
    place(p, i, 1, &b);
    return i;
  case RC_OP_GEP: {
    if (!parse_operand(p, RC_PTR, &a) || !expect(p, TK_COMMA, "','") || !parse_typed_operand(p, &b))
      return NULL;
    int64_t scale = 1;
    if (accept(p, TK_COMMA)) {
      if (TOK->kind != TK_INT) return expected(p, "an integer scale"), NULL;
      scale = TOK->ival;
      next(p);
    }
    i = new_instr(p, op, RC_PTR, 2, 0, line, col);
    place(p, i, 0, &a);
    place(p, i, 1, &b);
    i->imm = scale;
    return i;
  }
  case RC_OP_ALLOCA:
  case RC_OP_LOCALMEM:
    if (TOK->kind != TK_INT || TOK->negative) return expected(p, "a size in bytes"), NULL;
    i = new_instr(p, op, RC_PTR, 0, 0, line, col);
    i->imm = TOK->ival;
    next(p);
    return i;
  case RC_OP_CALL: {
    int rt = parse_type_word(p);
    if (rt < 0) return expected(p, "a result type (or void)"), NULL;
    if (rt == RC_MASK && p->k->level != RC_LEVEL_WAVE)
      return perr(p, "the mask type is only allowed in wave kernels"), NULL;
    next(p);
    if (TOK->kind != TK_GLOBAL) return expected(p, "a builtin name like @global_id"), NULL;
    int bi = rc_builtin_lookup(tok_name(p));
    if (bi < 0) return perr(p, "unknown builtin @%.80s", p->name), NULL;
    next(p);
    if (!expect(p, TK_LPAREN, "'('")) return NULL;
    opnd args[8];
    uint32_t n = 0;
    if (TOK->kind != TK_RPAREN) {
      do {
        if (n == 8) return perr(p, "too many arguments"), NULL;
        if (!parse_typed_operand(p, &args[n++])) return NULL;
      } while (accept(p, TK_COMMA));
    }
    if (!expect(p, TK_RPAREN, "')'")) return NULL;
    i = new_instr(p, op, (rc_type)rt, n, 0, line, col);
    i->pred = (uint8_t)bi;
    for (uint32_t o = 0; o < n; o++) place(p, i, o, &args[o]);
    return i;
  }
  case RC_OP_PHI: {
    if (p->k->level == RC_LEVEL_WAVE) return perr_at(p, p->op_line, p->op_col, "wave kernels have no phis"), NULL;
    if (!parse_type(p, &t)) return NULL;
    i = new_instr(p, op, t, 0, 0, line, col);
    do {
      if (!expect(p, TK_LBRACKET, "'['") || !parse_operand(p, t, &a) || !expect(p, TK_COMMA, "','"))
        return NULL;
      rc_block *from = block_ref(p);
      if (!from || !expect(p, TK_RBRACKET, "']'")) return NULL;
      rc_phi_add_incoming(i, rc_undef(p->k, t), from);
      place(p, i, i->nops - 1, &a);
    } while (accept(p, TK_COMMA));
    return i;
  }
  case RC_OP_BALLOT:
    if (!wave_only(p, op) || !parse_operand(p, RC_I1, &a)) return NULL;
    i = new_instr(p, op, RC_MASK, 1, 0, line, col);
    place(p, i, 0, &a);
    return i;
  case RC_OP_EXEC:
    if (!wave_only(p, op)) return NULL;
    return new_instr(p, op, RC_MASK, 0, 0, line, col);
  case RC_OP_SETEXEC:
    if (!wave_only(p, op) || !parse_operand(p, RC_MASK, &a)) return NULL;
    i = new_instr(p, op, RC_VOID, 1, 0, line, col);
    place(p, i, 0, &a);
    return i;
  case RC_OP_RGET:
  case RC_OP_RSET: {
    if (!wave_only(p, op)) return NULL;
    if (TOK->kind != TK_REG) return expected(p, "a register like $m0"), NULL;
    rc_reg *r = rc_kernel_find_reg(p->k, tok_name(p));
    if (!r) return perr(p, "unknown register $%.80s (declare it with `reg`)", p->name), NULL;
    next(p);
    if (op == RC_OP_RGET) {
      i = new_instr(p, op, (rc_type)r->type, 0, 0, line, col);
    } else {
      if (!expect(p, TK_COMMA, "','") || !parse_operand(p, (rc_type)r->type, &a)) return NULL;
      i = new_instr(p, op, RC_VOID, 1, 0, line, col);
      place(p, i, 0, &a);
    }
    i->reg = r;
    return i;
  }
  case RC_OP_BR: {
    if (!parse_operand(p, RC_I1, &a) || !expect(p, TK_COMMA, "','")) return NULL;
    rc_block *tb = block_ref(p);
    if (!tb || !expect(p, TK_COMMA, "','")) return NULL;
    rc_block *fb = block_ref(p);
    if (!fb) return NULL;
    i = new_instr(p, op, RC_VOID, 1, 2, line, col);
    place(p, i, 0, &a);
    i->targets[0] = tb;
    i->targets[1] = fb;
    return i;
  }
  case RC_OP_JMP: {
    rc_block *tb = block_ref(p);
    if (!tb) return NULL;
    i = new_instr(p, op, RC_VOID, 0, 1, line, col);
    i->targets[0] = tb;
    return i;
  }
  case RC_OP_BREXECZ: {
    if (!wave_only(p, op)) return NULL;
    rc_block *tb = block_ref(p);
    if (!tb || !expect(p, TK_COMMA, "','")) return NULL;
    rc_block *fb = block_ref(p);
    if (!fb) return NULL;
    i = new_instr(p, op, RC_VOID, 0, 2, line, col);
    i->targets[0] = tb;
    i->targets[1] = fb;
    return i;
  }
  case RC_OP_SWITCH: {
    if (!parse_typed_operand(p, &a) || !expect(p, TK_COMMA, "','")) return NULL;
    if (!rc_type_is_int(a.expected)) return perr_at(p, a.line, a.col, "switch needs an integer value"), NULL;
    rc_block *dflt = block_ref(p);
    if (!dflt || !expect(p, TK_LBRACKET, "'['")) return NULL;
    RC_VEC(int64_t) cases = {0};
    RC_VEC(rc_block *) targets = {0};
    bool ok = true;
    if (TOK->kind != TK_RBRACKET) {
      do {
        if (TOK->kind != TK_INT) {
          ok = expected(p, "a case value");
          break;
        }
        if (!int_fits(a.expected, TOK)) {
          ok = perr(p, "case value does not fit in %s", rc_type_name(a.expected));
          break;
        }
        rc_vec_push(&cases, rc_int_canon(a.expected, TOK->ival));
        next(p);
        if (!expect(p, TK_COLON, "':'")) {
          ok = false;
          break;
        }
        rc_block *tb = block_ref(p);
        if (!tb) {
          ok = false;
          break;
        }
        rc_vec_push(&targets, tb);
      } while (accept(p, TK_COMMA));
    }
    if (ok) ok = expect(p, TK_RBRACKET, "']'");
    if (ok) {
      i = new_instr(p, op, RC_VOID, 1, targets.len + 1, line, col);
      place(p, i, 0, &a);
      i->targets[0] = dflt;
      for (uint32_t n = 0; n < targets.len; n++) {
        i->targets[n + 1] = targets.data[n];
        i->cases[n] = cases.data[n];
      }
    }
    rc_vec_free(&cases);
    rc_vec_free(&targets);
    return i;
  }
  case RC_OP_RET:
  case RC_OP_UNREACHABLE:
    return new_instr(p, op, RC_VOID, 0, 0, line, col);
  default:
    perr_at(p, line, col, "unknown instruction '%s'", rc_opcode_name(op));
    return NULL;
  }
}

static bool parse_annotations(parser *p, rc_instr *i) {
  while (TOK->kind == TK_BANG) {
    next(p);
    if (tok_is(p, "uniform")) i->iflags |= RC_IF_UNIFORM;
    else if (tok_is(p, "divergent")) i->iflags |= RC_IF_DIVERGENT;
    else if (tok_is(p, "scalar")) i->iflags |= RC_IF_SCALAR;
    else return expected(p, "an annotation (!uniform, !divergent or !scalar)");
    next(p);
  }
  if ((i->iflags & (RC_IF_UNIFORM | RC_IF_DIVERGENT)) &&
      !(i->op == RC_OP_BR || i->op == RC_OP_SWITCH))
    return perr_at(p, i->line, i->col, "!uniform and !divergent annotate br and switch only");
  if ((i->iflags & RC_IF_UNIFORM) && (i->iflags & RC_IF_DIVERGENT))
    return perr_at(p, i->line, i->col, "a branch cannot be both !uniform and !divergent");
  return true;
}

static bool parse_instruction(parser *p) {
  uint32_t line = TOK->line, col = TOK->col;
  char result[LEX_MAX_NAME + 1];
  bool has_result = false;
  uint32_t rline = 0, rcol = 0;
  if (TOK->kind == TK_LOCAL) {
    has_result = true;
    const char *name = tok_name(p);
    memcpy(result, name, strlen(name) + 1);
    rline = TOK->line;
    rcol = TOK->col;
    next(p);
    if (!expect(p, TK_EQUALS, "'='")) return false;
  }
  if (TOK->kind != TK_IDENT) return expected(p, "an instruction");
  int op = lookup_opcode(p);
  if (op < 0) {
    char d[96];
    lex_describe(TOK, d, sizeof d);
    return perr(p, "unknown instruction %s", d);
  }
  if (!p->cur) return perr_at(p, line, col, "instruction before the first block label");
  if (p->cur_terminated)
    return perr_at(p, line, col, "instruction after the terminator of block %s (start a new block with a label)",
                   p->cur->name);
  p->op_line = TOK->line;
  p->op_col = TOK->col;
  next(p);
  rc_instr *i = parse_body(p, (rc_opcode)op, line, col);
  if (!i || !parse_annotations(p, i)) return false;
  if (has_result) {
    if (i->v.type == RC_VOID)
      return perr_at(p, rline, rcol, "'%s' does not produce a value", rc_opcode_name((rc_opcode)op));
    if (!names_define_value(&p->names, result, &i->v, rline, rcol))
      return perr_at(p, rline, rcol, "redefinition of %%%s", result);
  }
  rc_instr_append(p->cur, i);
  if (rc_opcode_is_terminator((rc_opcode)op)) p->cur_terminated = true;
  return true;
}

/* Is the identifier just lexed a label, i.e. followed by ':' on the same line? */
static bool label_follows(const lexer *lx) {
  const char *q = lx->p;
  while (q < lx->end && (*q == ' ' || *q == '\t')) q++;
  return q < lx->end && *q == ':';
}

/* ---- kernels ----------------------------------------------------------------------------------------- */

static bool finish_block(parser *p, uint32_t line, uint32_t col, const char *before) {
  if (p->cur && !p->cur_terminated)
    return perr_at(p, line, col, "block %s does not end with a terminator (br, jmp, switch, ret, ...) before %s",
                   p->cur->name, before);
  return true;
}

static bool parse_label(parser *p) {
  uint32_t line = TOK->line, col = TOK->col;
  if (!finish_block(p, line, col, "this label")) return false;
  const char *name = tok_name(p);
  rc_block *b = block_named(p, name, line, col);
  if (p->binfo.data[b->id].defined) {
    block_info *bi = &p->binfo.data[b->id];
    return perr_at(p, line, col, "redefinition of block %s (first defined at %u:%u)", name, bi->line,
                   bi->col);
  }
  block_info *bi = &p->binfo.data[b->id];
  bi->defined = true;
  bi->order = p->ndefined++;
  bi->line = line;
  bi->col = col;
  b->line = line;
  b->col = col;
  next(p); /* name */
  next(p); /* ':' */
  while (TOK->kind == TK_BANG) {
    next(p);
    if (tok_is(p, "flow")) b->bflags |= RC_BLOCK_FLOW;
    else if (tok_is(p, "guard")) b->bflags |= RC_BLOCK_GUARD;
    else if (tok_is(p, "virtual")) b->bflags |= RC_BLOCK_VIRTUAL;
    else return expected(p, "a block attribute (!flow, !guard or !virtual)");
    next(p);
  }
  p->cur = b;
  p->cur_terminated = false;
  return !p->failed;
}

/* Put the blocks in definition order (forward references created them earlier). */
static void order_blocks(parser *p) {
  rc_kernel *k = p->k;
  rc_block **sorted = rc_xmalloc(k->nblocks * sizeof *sorted);
  for (uint32_t b = 0; b < k->nblocks; b++) sorted[p->binfo.data[b].order] = k->blocks[b];
  for (uint32_t b = 0; b < k->nblocks; b++) {
    k->blocks[b] = sorted[b];
    sorted[b]->id = b;
  }
  free(sorted);
}

static bool end_kernel(parser *p) {
  rc_kernel *k = p->k;
  if (!flush_value_names(p)) return false;
  for (uint32_t b = 0; b < k->nblocks; b++)
    if (!p->binfo.data[b].defined)
      return perr_at(p, p->binfo.data[b].line, p->binfo.data[b].col, "use of undefined block %s",
                     k->blocks[b]->name);
  for (uint32_t f = 0; f < p->fixups.len; f++) {
    fixup *fx = &p->fixups.data[f];
    rc_value *v = names_value(&p->names, fx->name);
    if (!v) return perr_at(p, fx->line, fx->col, "use of undefined value %%%s", fx->name);
    if (v->type != fx->expected)
      return perr_at(p, fx->line, fx->col, "%%%s has type %s but is used as %s", fx->name,
                     rc_type_name((rc_type)v->type), rc_type_name(fx->expected));
    fx->instr->ops[fx->idx] = v;
  }
  order_blocks(p);
  return true;
}

static bool parse_kernel(parser *p) {
  bool wave = false;
  uint32_t line = TOK->line, col = TOK->col;
  if (tok_is(p, "wave")) {
    wave = true;
    next(p);
  }
  if (!tok_is(p, "kernel")) return expected(p, "'kernel'");
  next(p);
  if (TOK->kind != TK_GLOBAL) return expected(p, "a kernel name like @main");
  const char *name = tok_dup(p);
  p->k = rc_kernel_new(p->m, name);
  if (!p->k) return perr(p, "redefinition of kernel @%s", name);
  p->k->level = wave ? RC_LEVEL_WAVE : RC_LEVEL_THREAD;
  p->k->line = line;
  p->k->col = col;
  next(p);
  names_begin_kernel(&p->names, p->k);
  p->fixups.len = 0;
  p->binfo.len = 0;
  p->ndefined = 0;
  p->cur = NULL;
  p->cur_terminated = false;
  if (!expect(p, TK_LPAREN, "'('")) return false;
  if (TOK->kind != TK_RPAREN) {
    do {
      rc_type t = RC_VOID;
      if (!parse_type(p, &t)) return false;
      if (TOK->kind != TK_LOCAL) return expected(p, "a parameter name like %n");
      const char *pname = tok_name(p);
      rc_value *v = rc_kernel_add_param(p->k, t, NULL);
      if (!names_define_value(&p->names, pname, v, TOK->line, TOK->col))
        return perr(p, "redefinition of %%%s", pname);
      next(p);
    } while (accept(p, TK_COMMA));
  }
  if (!expect(p, TK_RPAREN, "')'")) return false;
  while (TOK->kind == TK_BANG) {
    next(p);
    if (!tok_is(p, "run")) return expected(p, "a kernel attribute (!run \"...\")");
    next(p);
    if (TOK->kind != TK_STRING) return expected(p, "a run specification string");
    rc_kernel_set_run_spec(p->k, TOK->str);
    next(p);
  }
  if (!expect(p, TK_LBRACE, "'{'")) return false;
  while (tok_is(p, "reg") && !label_follows(&p->lx)) { /* `reg:` is a block label */
    if (!wave) return perr(p, "registers are only allowed in wave kernels");
    next(p);
    bool scalar;
    if (tok_is(p, "scalar")) scalar = true;
    else if (tok_is(p, "vector")) scalar = false;
    else return expected(p, "'scalar' or 'vector'");
    next(p);
    rc_type t = RC_VOID;
    if (!parse_type(p, &t)) return false;
    if (TOK->kind != TK_REG) return expected(p, "a register name like $m0");
    const char *rname = tok_dup(p);
    if (!rc_kernel_add_reg(p->k, t, scalar, rname)) return perr(p, "redefinition of register $%s", rname);
    next(p);
  }
  while (!p->failed && TOK->kind != TK_RBRACE) {
    if (TOK->kind == TK_EOF)
      return perr(p, "kernel @%s is not closed: expected '}' before the end of the file", name);
    if (TOK->kind == TK_IDENT && label_follows(&p->lx)) {
      if (!parse_label(p)) return false;
      continue;
    }
    if (!parse_instruction(p)) return false;
  }
  if (p->failed) return false;
  if (!p->cur) return perr(p, "kernel @%s has no blocks", name);
  if (!finish_block(p, TOK->line, TOK->col, "the end of the kernel")) return false;
  next(p); /* '}' */
  return end_kernel(p);
}

/* ---- modules ------------------------------------------------------------------------------------------- */

static rc_module *parse(rc_ctx *ctx, const char *filename, const char *text, size_t len, bool verify) {
  parser p0 = {0};
  parser *p = &p0;
  p->ctx = ctx;
  p->m = rc_module_new(ctx, filename);
  lex_init(&p->lx, ctx, p->m->filename, text, len);
  p->lx.before_error = lexer_before_error;
  p->lx.before_error_user = p;
  names_init(&p->names, p->m);
  next(p);
  while (!p->failed && TOK->kind != TK_EOF) parse_kernel(p);
  if (!p->failed && p->m->nkernels == 0) perr_at(p, 1, 1, "no kernel in the input (expected 'kernel @name(...) { ... }')");
  lex_free(&p->lx);
  names_free(&p->names);
  rc_vec_free(&p->fixups);
  rc_vec_free(&p->binfo);
  if (!p->failed && verify && rc_verify_module(ctx, p->m) != 0) p->failed = true;
  if (p->failed) {
    rc_module_free(p->m);
    return NULL;
  }
  return p->m;
}

rc_module *rc_parse_module(rc_ctx *ctx, const char *filename, const char *text, size_t len) {
  return parse(ctx, filename, text, len, true);
}

rc_module *rc_parse_module_unverified(rc_ctx *ctx, const char *filename, const char *text,
                                      size_t len) {
  return parse(ctx, filename, text, len, false);
}
