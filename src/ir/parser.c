/* The .rir parser (grammar in docs/ir.md). It stops at the first error and reports it as
 * file:line:col with what was expected. Blocks and values may be used before their definition;
 * such uses are resolved (and type-checked) at the end of the kernel. Nothing here recurses, so
 * any input size is safe. */
#include "lexer.h"
#include "parse_names.h"
#include "reconv/ir.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
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

/* A call whose callee (a function of the module or a builtin) is settled at the end. */
typedef struct pending_call {
  rc_instr *instr;
  const char *callee; /* arena */
  uint32_t line, col;
} pending_call;

typedef struct parser {
  rc_ctx *ctx;
  lexer lx;
  rc_module *m;
  rc_kernel *k;
  parse_names names; /* blocks, values and constants of the kernel being parsed */
  RC_VEC(fixup) fixups;
  RC_VEC(pending_call) calls; /* of the whole module */
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
                fx->name, rc_type_str(p->m, (rc_type)v->type), rc_type_str(p->m, fx->expected));
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

/* ---- types ------------------------------------------------------------------------------------
 * type = basic | "i"N | "ptr" "addrspace" "(" INT ")" | "<" INT "x" type ">" | "[" INT "x" type "]"
 *      | "{" [ type { "," type } ] "}" | "<{" ... "}>" | "opaque" STRING
 * Types nest at most MAX_TYPE_DEPTH deep, so the recursion below is bounded whatever the input. */

#define MAX_TYPE_DEPTH 32
#define TYPE_LIST "a type (i1, i8, i16, i32, i64, iN, f16, f32, f64, ptr, mask, <N x T>, [N x T], {T, ...})"

/* "i33": an integer width 2..128 spelled as a word, or 0. */
static unsigned int_width_word(const token *t) {
  if (t->kind != TK_IDENT || t->len < 2 || t->len > 4 || t->text[0] != 'i') return 0;
  unsigned n = 0;
  for (size_t i = 1; i < t->len; i++) {
    if (t->text[i] < '0' || t->text[i] > '9') return 0;
    n = n * 10 + (unsigned)(t->text[i] - '0');
  }
  return t->text[1] != '0' && n >= 1 && n <= 128 ? n : 0;
}

/* Can a type start at the current token? */
static bool type_starts(const parser *p) {
  switch (TOK->kind) {
  case TK_LANGLE: case TK_LBRACKET: case TK_LBRACE: return true;
  case TK_IDENT: return rc_type_lookup(TOK->text, TOK->len) >= 0 || int_width_word(TOK) || text_is(TOK, "opaque");
  default: return false;
  }
}

static bool parse_type_at(parser *p, rc_type *out, unsigned depth, bool allow_void);

/* The fields of a struct up to the closing '}' (the '{' is consumed). */
static bool parse_struct_fields(parser *p, rc_type *out, unsigned depth, bool packed) {
  RC_VEC(rc_type) fields = {0};
  bool ok = true;
  if (TOK->kind != TK_RBRACE) {
    do {
      rc_type f = RC_VOID;
      if (!(ok = parse_type_at(p, &f, depth + 1, false))) break;
      rc_vec_push(&fields, f);
    } while (accept(p, TK_COMMA));
  }
  if (ok) ok = expect(p, TK_RBRACE, "'}'");
  if (ok && packed) ok = expect(p, TK_RANGLE, "'>'");
  if (ok) {
    *out = rc_type_struct(p->m, fields.data, fields.len, packed);
    if (*out == RC_VOID) ok = perr(p, "invalid struct field type");
  }
  rc_vec_free(&fields);
  return ok;
}

/* "<" or "[" INT "x" type ">" or "]" (the opening token, at line:col, is consumed). */
static bool parse_sequence_type(parser *p, rc_type *out, unsigned depth, bool vector, uint32_t line,
                                uint32_t col) {
  if (TOK->kind != TK_INT || TOK->negative) return expected(p, vector ? "a vector length" : "an array length");
  uint64_t n = (uint64_t)TOK->ival;
  next(p);
  if (!tok_is(p, "x")) return expected(p, "'x'");
  next(p);
  rc_type elem = RC_VOID;
  if (!parse_type_at(p, &elem, depth + 1, false) || !expect(p, vector ? TK_RANGLE : TK_RBRACKET, vector ? "'>'" : "']'"))
    return false;
  if (vector && (n == 0 || n > 1024)) return perr_at(p, line, col, "a vector has 1 to 1024 elements");
  *out = vector ? rc_type_vector(p->m, elem, (uint32_t)n) : rc_type_array(p->m, elem, n);
  if (*out == RC_VOID)
    return perr_at(p, line, col, vector ? "vector elements must be integers, floats or pointers" : "invalid array element type");
  return true;
}

static bool parse_type_at(parser *p, rc_type *out, unsigned depth, bool allow_void) {
  if (depth > MAX_TYPE_DEPTH) return perr(p, "type nested more than %d deep", MAX_TYPE_DEPTH);
  uint32_t line = TOK->line, col = TOK->col;
  switch (TOK->kind) {
  case TK_LANGLE:
    next(p);
    if (accept(p, TK_LBRACE)) return parse_struct_fields(p, out, depth, true);
    return parse_sequence_type(p, out, depth, true, line, col);
  case TK_LBRACKET: next(p); return parse_sequence_type(p, out, depth, false, line, col);
  case TK_LBRACE: next(p); return parse_struct_fields(p, out, depth, false);
  case TK_IDENT: break;
  default: return expected(p, TYPE_LIST);
  }
  unsigned w = int_width_word(TOK);
  if (w) {
    *out = rc_type_int(p->m, w);
    return next(p);
  }
  if (tok_is(p, "opaque")) {
    next(p);
    if (TOK->kind != TK_STRING) return expected(p, "the spelling of an opaque type in quotes");
    *out = rc_type_other(p->m, TOK->str);
    return next(p);
  }
  int t = rc_type_lookup(TOK->text, TOK->len);
  if (t < 0 || (t == RC_VOID && !allow_void))
    return expected(p, TYPE_LIST);
  if (t == RC_MASK && p->k && p->k->level != RC_LEVEL_WAVE)
    return perr(p, "the mask type is only allowed in wave kernels");
  *out = (rc_type)t;
  next(p);
  if (t == RC_PTR && tok_is(p, "addrspace")) {
    next(p);
    if (!expect(p, TK_LPAREN, "'('")) return false;
    if (TOK->kind != TK_INT || TOK->negative || TOK->ival > 255) return expected(p, "an address space 0..255");
    *out = rc_type_ptr(p->m, (unsigned)TOK->ival);
    next(p);
    return expect(p, TK_RPAREN, "')'");
  }
  return !p->failed;
}

/* A value type (not void). */
static bool parse_type(parser *p, rc_type *out) {
  return parse_type_at(p, out, 0, false);
}

static const char *tname(const parser *p, rc_type t) {
  return rc_type_str(p->m, t);
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

static bool parse_constant(parser *p, rc_type t, unsigned depth, rc_value **out);

/* A composite constant after its opening token: one constant per element or field, then `close`.
 * Nesting follows the type, so it is bounded by MAX_TYPE_DEPTH. */
static bool parse_composite(parser *p, rc_type t, unsigned depth, tok_kind close, const char *what,
                            rc_value **out) {
  uint32_t n = rc_type_count(p->m, t);
  rc_value **e = rc_xmalloc((n ? n : 1) * sizeof *e);
  bool ok = true;
  for (uint32_t i = 0; ok && i < n; i++) {
    if (i && !(ok = expect(p, TK_COMMA, "','"))) break;
    ok = parse_constant(p, rc_type_elem(p->m, t, i), depth + 1, &e[i]);
  }
  if (ok && TOK->kind == TK_COMMA) ok = perr(p, "too many elements for %s", tname(p, t));
  if (ok) ok = expect(p, close, what);
  if (ok) *out = rc_const_composite(p->k, t, e);
  free(e);
  return ok;
}

/* A constant of type t: a number, true/false, null, undef, inf/nan, zeroinitializer, a global's
 * address, or a composite <...>, [...], {...}, <{...}>. */
static bool parse_constant(parser *p, rc_type t, unsigned depth, rc_value **out) {
  if (depth > MAX_TYPE_DEPTH) return perr(p, "constant nested more than %d deep", MAX_TYPE_DEPTH);
  rc_kernel *k = p->k;
  const rc_typeinfo *ti = rc_type_info(p->m, t);
  switch (TOK->kind) {
  case TK_INT:
    if (rc_type_is_float(t)) {
      *out = names_float_const(&p->names, t, TOK->fval);
    } else if (rc_type_is_int(t) || rc_type_is_ptr(t) || t == RC_MASK) {
      if (!int_fits(t, TOK)) return perr(p, "constant does not fit in %s", tname(p, t));
      *out = names_int_const(&p->names, t, TOK->ival);
    } else {
      return perr(p, "a number cannot have type %s", tname(p, t));
    }
    return next(p);
  case TK_FLOAT:
    if (!rc_type_is_float(t)) return perr(p, "floating-point constant used as %s", tname(p, t));
    if (t == RC_F32 && isfinite(TOK->fval) && isinf((float)TOK->fval))
      return perr(p, "constant is too large for f32");
    if (t == RC_F16 && isfinite(TOK->fval) && isinf(rc_round_f16(TOK->fval)))
      return perr(p, "constant is too large for f16");
    *out = names_float_const(&p->names, t, TOK->fval);
    return next(p);
  case TK_GLOBAL: {
    rc_global *g = rc_module_find_global(p->m, tok_name(p));
    if (!g) return perr(p, "use of undefined global @%.80s (declare it with `global` before the kernels)", p->name);
    if (g->v.type != t)
      return perr(p, "@%s has type %s but is used as %s", g->v.name, tname(p, (rc_type)g->v.type), tname(p, t));
    *out = &g->v;
    return next(p);
  }
  case TK_LANGLE:
    next(p);
    if (ti && ti->kind == RC_TK_STRUCT && ti->packed) {
      if (!expect(p, TK_LBRACE, "'{'") || !parse_composite(p, t, depth, TK_RBRACE, "'}'", out)) return false;
      return expect(p, TK_RANGLE, "'>'");
    }
    if (!ti || ti->kind != RC_TK_VECTOR) return perr(p, "a vector constant cannot have type %s", tname(p, t));
    return parse_composite(p, t, depth, TK_RANGLE, "'>'", out);
  case TK_LBRACKET:
    next(p);
    if (!ti || ti->kind != RC_TK_ARRAY) return perr(p, "an array constant cannot have type %s", tname(p, t));
    return parse_composite(p, t, depth, TK_RBRACKET, "']'", out);
  case TK_LBRACE:
    next(p);
    if (!ti || ti->kind != RC_TK_STRUCT || ti->packed) return perr(p, "a struct constant cannot have type %s", tname(p, t));
    return parse_composite(p, t, depth, TK_RBRACE, "'}'", out);
  case TK_IDENT:
    if (tok_is(p, "true") || tok_is(p, "false")) {
      if (t != RC_I1) return perr(p, "true and false have type i1, not %s", tname(p, t));
      *out = names_int_const(&p->names, RC_I1, tok_is(p, "true"));
    } else if (tok_is(p, "undef")) {
      *out = rc_undef(k, t);
    } else if (tok_is(p, "zeroinitializer")) {
      *out = rc_const_zero(k, t);
    } else if (tok_is(p, "null")) {
      if (!rc_type_is_ptr(t)) return perr(p, "null is a pointer, not %s", tname(p, t));
      *out = names_int_const(&p->names, t, 0);
    } else if (tok_is(p, "inf") || tok_is(p, "nan")) {
      if (!rc_type_is_float(t)) return perr(p, "floating-point constant used as %s", tname(p, t));
      *out = names_float_const(&p->names, t, tok_is(p, "inf") ? INFINITY : NAN);
    } else {
      return expected(p, "a value (%name, a constant, true, false or undef)");
    }
    return next(p);
  default:
    return expected(p, "a value (%name, a constant, true, false or undef)");
  }
}

static bool parse_operand(parser *p, rc_type t, opnd *o) {
  o->v = NULL;
  o->fwd = NULL;
  o->expected = t;
  o->line = TOK->line;
  o->col = TOK->col;
  if (TOK->kind != TK_LOCAL) return parse_constant(p, t, 0, &o->v);
  const char *name = tok_name(p);
  rc_value *v = names_value(&p->names, name);
  if (v) {
    if (v->type != t)
      return perr(p, "%%%s has type %s but is used as %s", name, tname(p, (rc_type)v->type), tname(p, t));
    o->v = v;
  } else {
    o->fwd = tok_dup(p);
  }
  return next(p);
}

static bool parse_typed_operand(parser *p, opnd *o) {
  rc_type t = RC_VOID; /* set by parse_type on success; initialised for -O3 -Wmaybe-uninitialized */
  return parse_type(p, &t) && parse_operand(p, t, o);
}

/* An address: `%p` (a ptr) or, for other address spaces, `ptr addrspace(N) %p`. */
static bool parse_address(parser *p, opnd *o) {
  if (!type_starts(p)) return parse_operand(p, RC_PTR, o);
  uint32_t line = TOK->line, col = TOK->col;
  rc_type t = RC_VOID;
  if (!parse_type(p, &t)) return false;
  if (!rc_type_is_ptr(t)) return perr_at(p, line, col, "an address is a pointer, not %s", tname(p, t));
  return parse_operand(p, t, o);
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

/* gep ADDRESS { "," T INDEX [ "," SCALE ] } [ "," "offset" INT ] */
static rc_instr *parse_gep(parser *p, uint32_t line, uint32_t col) {
  opnd base;
  if (!parse_address(p, &base)) return NULL;
  RC_VEC(opnd) idx = {0};
  RC_VEC(int64_t) scales = {0};
  int64_t offset = 0;
  bool ok = true;
  while (ok && accept(p, TK_COMMA)) {
    if (tok_is(p, "offset")) {
      next(p);
      if (TOK->kind != TK_INT) { ok = expected(p, "a byte offset"); break; }
      offset = TOK->ival;
      next(p);
      break;
    }
    opnd o;
    if (!(ok = parse_typed_operand(p, &o))) break;
    int64_t scale = 1;
    if (TOK->kind == TK_COMMA) { /* a scale, or the next index */
      const char *q = p->lx.p;
      while (q < p->lx.end && (*q == ' ' || *q == '\t')) q++;
      if (q < p->lx.end && ((*q >= '0' && *q <= '9') || *q == '-' || *q == '+')) {
        next(p);
        if (TOK->kind != TK_INT) { ok = expected(p, "an integer scale"); break; }
        scale = TOK->ival;
        next(p);
      }
    }
    rc_vec_push(&idx, o);
    rc_vec_push(&scales, scale);
  }
  rc_instr *i = NULL;
  if (ok && !p->failed) {
    if (idx.len == 0 && offset == 0) {
      ok = perr(p, "gep needs an index or an offset");
    } else {
      i = new_instr(p, RC_OP_GEP, base.expected, idx.len + 1, 0, line, col);
      place(p, i, 0, &base);
      for (uint32_t n = 0; n < idx.len; n++) place(p, i, n + 1, &idx.data[n]);
      rc_instr_set_cases(p->k, i, scales.data, scales.len);
      i->imm = offset;
    }
  }
  rc_vec_free(&idx);
  rc_vec_free(&scales);
  return i;
}

/* A call names a function of the module or a builtin; which one is settled at the end of the
 * module (functions may be defined after their callers, and shadow builtins). */
static rc_instr *parse_call(parser *p, uint32_t line, uint32_t col) {
  rc_type rt = RC_VOID;
  if (!parse_type_at(p, &rt, 0, true)) return NULL;
  if (TOK->kind != TK_GLOBAL) return expected(p, "a function or builtin name like @global_id"), NULL;
  const char *callee = tok_dup(p);
  uint32_t cline = TOK->line, ccol = TOK->col;
  next(p);
  if (!expect(p, TK_LPAREN, "'('")) return NULL;
  RC_VEC(opnd) args = {0};
  bool ok = true;
  if (TOK->kind != TK_RPAREN) {
    do {
      opnd o;
      if (!(ok = parse_typed_operand(p, &o))) break;
      rc_vec_push(&args, o);
    } while (accept(p, TK_COMMA));
  }
  if (ok) ok = expect(p, TK_RPAREN, "')'");
  rc_instr *i = NULL;
  if (ok) {
    i = new_instr(p, RC_OP_CALL, rt, args.len, 0, line, col);
    int64_t mods = 0;
    int bi = rc_builtin_parse(callee, &mods); /* "convert.fs.sat": the builtin and its modifiers */
    i->pred = (uint16_t)(bi < 0 ? RC_BI_COUNT : bi);
    i->imm = bi < 0 ? 0 : mods;
    for (uint32_t o = 0; o < args.len; o++) place(p, i, o, &args.data[o]);
    pending_call pc = {i, callee, cline, ccol};
    rc_vec_push(&p->calls, pc);
  }
  rc_vec_free(&args);
  return i;
}

/* shufflevector T %a, %b, [M0, M1, ...]: the result has one element per mask entry (-1: undef). */
static rc_instr *parse_shuffle(parser *p, uint32_t line, uint32_t col) {
  rc_type t = RC_VOID;
  opnd a, b;
  if (!parse_type(p, &t)) return NULL;
  if (!rc_type_is_vector(p->m, t)) return perr(p, "shufflevector takes vectors, not %s", tname(p, t)), NULL;
  if (!parse_operand(p, t, &a) || !expect(p, TK_COMMA, "','") || !parse_operand(p, t, &b) ||
      !expect(p, TK_COMMA, "','") || !expect(p, TK_LBRACKET, "'['"))
    return NULL;
  RC_VEC(int64_t) mask = {0};
  bool ok = true;
  do {
    if (TOK->kind != TK_INT) { ok = expected(p, "a mask element (an index, or -1 for undef)"); break; }
    rc_vec_push(&mask, TOK->ival);
    next(p);
  } while (accept(p, TK_COMMA));
  if (ok) ok = expect(p, TK_RBRACKET, "']'");
  rc_instr *i = NULL;
  if (ok) {
    rc_type rt = rc_type_vector(p->m, rc_type_scalar_of(p->m, t), mask.len);
    i = new_instr(p, RC_OP_SHUFFLE, rt, 2, 0, line, col);
    place(p, i, 0, &a);
    place(p, i, 1, &b);
    rc_instr_set_cases(p->k, i, mask.data, mask.len);
  }
  rc_vec_free(&mask);
  return i;
}

/* extractvalue T %agg, I0, I1 ... and insertvalue T %agg, U %v, I0, I1 ... */
static rc_instr *parse_aggregate_op(parser *p, rc_opcode op, uint32_t line, uint32_t col) {
  rc_type t = RC_VOID;
  opnd a, b;
  if (!parse_type(p, &t) || !parse_operand(p, t, &a)) return NULL;
  if (op == RC_OP_INSERTVAL && (!expect(p, TK_COMMA, "','") || !parse_typed_operand(p, &b))) return NULL;
  RC_VEC(int64_t) path = {0};
  rc_type cur = t;
  bool ok = true;
  while (ok && accept(p, TK_COMMA)) {
    const rc_typeinfo *ti = rc_type_info(p->m, cur);
    if (TOK->kind != TK_INT) { ok = expected(p, "an index"); break; }
    if (!ti || (ti->kind != RC_TK_STRUCT && ti->kind != RC_TK_ARRAY) || TOK->ival < 0 ||
        (uint64_t)TOK->ival >= ti->count) {
      ok = perr(p, "index %lld is not an element of %s", (long long)TOK->ival, tname(p, cur));
      break;
    }
    cur = rc_type_elem(p->m, cur, (uint32_t)TOK->ival);
    rc_vec_push(&path, TOK->ival);
    next(p);
  }
  if (ok && path.len == 0) ok = expected(p, "', INDEX'");
  rc_instr *i = NULL;
  if (ok && !p->failed) {
    i = new_instr(p, op, op == RC_OP_EXTRACTVAL ? cur : t, op == RC_OP_EXTRACTVAL ? 1 : 2, 0, line, col);
    place(p, i, 0, &a);
    if (op == RC_OP_INSERTVAL) place(p, i, 1, &b);
    rc_instr_set_cases(p->k, i, path.data, path.len);
  }
  rc_vec_free(&path);
  return i;
}

/* opaque T "what it is" (U %a, V %b, ...) */
static rc_instr *parse_opaque(parser *p, uint32_t line, uint32_t col) {
  rc_type t = RC_VOID;
  if (!parse_type_at(p, &t, 0, true)) return NULL;
  if (TOK->kind != TK_STRING) return expected(p, "what the instruction is, in quotes"), NULL;
  const char *text = rc_arena_strdup(&p->m->arena, TOK->str);
  next(p);
  if (!expect(p, TK_LPAREN, "'('")) return NULL;
  RC_VEC(opnd) args = {0};
  bool ok = true;
  if (TOK->kind != TK_RPAREN) {
    do {
      opnd o;
      if (!(ok = parse_typed_operand(p, &o))) break;
      rc_vec_push(&args, o);
    } while (accept(p, TK_COMMA));
  }
  if (ok) ok = expect(p, TK_RPAREN, "')'");
  rc_instr *i = NULL;
  if (ok) {
    i = new_instr(p, RC_OP_OPAQUE, t, args.len, 0, line, col);
    i->u.text = text;
    int64_t *nums = rc_xmalloc((args.len ? args.len : 1) * sizeof *nums);
    for (uint32_t o = 0; o < args.len; o++) {
      place(p, i, o, &args.data[o]);
      nums[o] = o;
    }
    rc_instr_set_cases(p->k, i, nums, args.len);
    free(nums);
  }
  rc_vec_free(&args);
  return i;
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
    i = new_instr(p, op, rc_type_like(p->m, ot, RC_I1), 2, 0, line, col);
    i->pred = (uint16_t)pred;
    place(p, i, 0, &a);
    place(p, i, 1, &b);
    return i;
  }
  case RC_OP_SELECT:
    /* a composite select writes its condition's type: i1, or a vector of i1 */
    if (!parse_type(p, &t)) return NULL;
    if (!(rc_type_is_composite(t) ? parse_typed_operand(p, &a) : parse_operand(p, RC_I1, &a)) ||
        !expect(p, TK_COMMA, "','") || !parse_operand(p, t, &b) || !expect(p, TK_COMMA, "','") ||
        !parse_operand(p, t, &c))
      return NULL;
    i = new_instr(p, op, t, 3, 0, line, col);
    place(p, i, 0, &a);
    place(p, i, 1, &b);
    place(p, i, 2, &c);
    return i;
  case RC_OP_LOAD:
    if (!parse_type(p, &t) || !expect(p, TK_COMMA, "','") || !parse_address(p, &a)) return NULL;
    i = new_instr(p, op, t, 1, 0, line, col);
    place(p, i, 0, &a);
    return i;
  case RC_OP_STORE:
    if (!parse_typed_operand(p, &a) || !expect(p, TK_COMMA, "','") || !parse_address(p, &b))
      return NULL;
    i = new_instr(p, op, RC_VOID, 2, 0, line, col);
    place(p, i, 0, &a);
    place(p, i, 1, &b);
    return i;
  case RC_OP_GEP: return parse_gep(p, line, col);
  case RC_OP_ALLOCA:
  case RC_OP_LOCALMEM: {
    if (TOK->kind != TK_INT || TOK->negative) return expected(p, "a size in bytes"), NULL;
    int64_t size = TOK->ival;
    next(p);
    rc_type pt = RC_PTR;
    if (op == RC_OP_ALLOCA && accept(p, TK_COMMA)) { /* `, addrspace(N)` */
      if (!tok_is(p, "addrspace")) return expected(p, "'addrspace'"), NULL;
      next(p);
      if (!expect(p, TK_LPAREN, "'('")) return NULL;
      if (TOK->kind != TK_INT || TOK->negative || TOK->ival > 255) return expected(p, "an address space 0..255"), NULL;
      pt = rc_type_ptr(p->m, (unsigned)TOK->ival);
      next(p);
      if (!expect(p, TK_RPAREN, "')'")) return NULL;
    }
    i = new_instr(p, op, pt, 0, 0, line, col);
    i->imm = size;
    return i;
  }
  case RC_OP_CALL: return parse_call(p, line, col);
  case RC_OP_FREEZE:
    if (!parse_type(p, &t) || !parse_operand(p, t, &a)) return NULL;
    i = new_instr(p, op, t, 1, 0, line, col);
    place(p, i, 0, &a);
    return i;
  case RC_OP_EXTRACTELT:
  case RC_OP_INSERTELT: {
    if (!parse_type(p, &t)) return NULL;
    if (!rc_type_is_vector(p->m, t)) return perr(p, "%s takes a vector, not %s", rc_opcode_name(op), tname(p, t)), NULL;
    if (!parse_operand(p, t, &a) || !expect(p, TK_COMMA, "','")) return NULL;
    rc_type et = rc_type_scalar_of(p->m, t);
    if (op == RC_OP_INSERTELT && (!parse_typed_operand(p, &b) || !expect(p, TK_COMMA, "','"))) return NULL;
    if (!parse_typed_operand(p, &c)) return NULL;
    i = new_instr(p, op, op == RC_OP_EXTRACTELT ? et : t, op == RC_OP_EXTRACTELT ? 2 : 3, 0, line, col);
    place(p, i, 0, &a);
    if (op == RC_OP_INSERTELT) place(p, i, 1, &b);
    place(p, i, op == RC_OP_EXTRACTELT ? 1 : 2, &c);
    return i;
  }
  case RC_OP_SHUFFLE: return parse_shuffle(p, line, col);
  case RC_OP_EXTRACTVAL:
  case RC_OP_INSERTVAL: return parse_aggregate_op(p, op, line, col);
  case RC_OP_OPAQUE: return parse_opaque(p, line, col);
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
    i->u.reg = r;
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
          ok = perr(p, "case value does not fit in %s", tname(p, a.expected));
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
    if (p->k->is_function && p->k->ret_type != RC_VOID) { /* ret T %v */
      if (!parse_type(p, &t) || !parse_operand(p, t, &a)) return NULL;
      i = new_instr(p, op, RC_VOID, 1, 0, line, col);
      place(p, i, 0, &a);
      return i;
    }
    return new_instr(p, op, RC_VOID, 0, 0, line, col);
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
    else if (tok_is(p, "effects") && i->op == RC_OP_OPAQUE) i->iflags |= RC_IF_EFFECTS;
    else if (tok_is(p, "varying") && i->op == RC_OP_OPAQUE) i->iflags |= RC_IF_VARYING;
    else return expected(p, i->op == RC_OP_OPAQUE ? "an annotation (!effects or !varying)"
                                                  : "an annotation (!uniform, !divergent or !scalar)");
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
                     tname(p, (rc_type)v->type), tname(p, fx->expected));
    fx->instr->ops[fx->idx] = v;
  }
  order_blocks(p);
  return true;
}

/* global @NAME ":" TYPE [ "," "addrspace" "(" N ")" ] [ "," "constant" ] [ "=" STRING ] — the
 * string holds the initial bytes in hexadecimal (absent: all zero). */
static bool parse_global(parser *p) {
  uint32_t line = TOK->line, col = TOK->col;
  next(p); /* global */
  if (TOK->kind != TK_GLOBAL) return expected(p, "a global name like @table");
  const char *name = tok_dup(p);
  if (rc_module_find_global(p->m, name)) return perr(p, "redefinition of global @%s", name);
  if (rc_module_find_kernel(p->m, name)) return perr(p, "redefinition of @%s (a kernel or function)", name);
  next(p);
  rc_type vt = RC_VOID;
  if (!expect(p, TK_COLON, "':'") || !parse_type(p, &vt)) return false;
  unsigned as = 0;
  bool is_const = false;
  while (accept(p, TK_COMMA)) {
    if (tok_is(p, "constant")) {
      is_const = true;
      next(p);
    } else if (tok_is(p, "addrspace")) {
      next(p);
      if (!expect(p, TK_LPAREN, "'('")) return false;
      if (TOK->kind != TK_INT || TOK->negative || TOK->ival > 255) return expected(p, "an address space 0..255");
      as = (unsigned)TOK->ival;
      next(p);
      if (!expect(p, TK_RPAREN, "')'")) return false;
    } else {
      return expected(p, "'addrspace(N)' or 'constant'");
    }
  }
  uint64_t size = rc_type_alloc_size(p->m, vt);
  if (size > ((uint64_t)1 << 30)) return perr_at(p, line, col, "global @%s is larger than 1 GiB", name);
  uint8_t *init = NULL;
  if (accept(p, TK_EQUALS)) {
    if (TOK->kind != TK_STRING) return expected(p, "the initial bytes as a hexadecimal string");
    const char *h = TOK->str;
    if (strlen(h) != 2 * size)
      return perr(p, "@%s holds %llu bytes, so its initialiser has %llu hexadecimal digits", name,
                  (unsigned long long)size, (unsigned long long)(2 * size));
    init = rc_xmalloc(size ? size : 1);
    for (uint64_t b = 0; b < size; b++) {
      int v = 0;
      for (int d = 0; d < 2; d++) {
        char c = h[2 * b + (uint64_t)d];
        int x = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (x < 0) {
          free(init);
          return perr(p, "'%c' is not a hexadecimal digit", c);
        }
        v = v * 16 + x;
      }
      init[b] = (uint8_t)v;
    }
    next(p);
  }
  rc_global *g = rc_global_new(p->m, name, vt, as, is_const, init);
  free(init);
  if (!g) return perr_at(p, line, col, "cannot make global @%s", name);
  g->line = line;
  g->col = col;
  return true;
}

static bool parse_kernel(parser *p) {
  bool wave = false, function = false;
  uint32_t line = TOK->line, col = TOK->col;
  if (tok_is(p, "wave")) {
    wave = true;
    next(p);
  }
  rc_type ret = RC_VOID;
  if (tok_is(p, "function")) { /* [wave] function T @name(...) */
    function = true;
    next(p);
    if (!parse_type_at(p, &ret, 0, true)) return false;
  } else {
    if (!tok_is(p, "kernel")) return expected(p, wave ? "'kernel' or 'function'" : "'kernel', 'function' or 'global'");
    next(p);
  }
  if (TOK->kind != TK_GLOBAL) return expected(p, function ? "a function name like @f" : "a kernel name like @main");
  const char *name = tok_dup(p);
  if (rc_module_find_global(p->m, name)) return perr(p, "redefinition of @%s (a global)", name);
  rc_kernel *old = rc_module_find_kernel(p->m, name);
  if (old) return perr(p, "redefinition of %s @%s", old->is_function ? "function" : "kernel", name);
  p->k = function ? rc_function_new(p->m, name, ret) : rc_kernel_new(p->m, name);
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

/* Settle every call: a function of the module of that name, else a builtin. */
static void resolve_calls(parser *p) {
  for (uint32_t c = 0; c < p->calls.len && !p->failed; c++) {
    pending_call *pc = &p->calls.data[c];
    rc_kernel *f = rc_module_find_kernel(p->m, pc->callee);
    if (f) {
      pc->instr->op = RC_OP_CALLFN;
      pc->instr->pred = 0;
      pc->instr->imm = 0;
      pc->instr->u.callee = f;
    } else if (pc->instr->pred >= RC_BI_COUNT) {
      perr_at(p, pc->line, pc->col, "unknown function or builtin @%.80s", pc->callee);
    }
  }
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
  while (!p->failed && TOK->kind != TK_EOF) {
    if (tok_is(p, "global")) parse_global(p);
    else parse_kernel(p);
  }
  if (!p->failed && p->m->nkernels == 0) perr_at(p, 1, 1, "no kernel in the input (expected 'kernel @name(...) { ... }')");
  if (!p->failed) resolve_calls(p);
  lex_free(&p->lx);
  names_free(&p->names);
  rc_vec_free(&p->fixups);
  rc_vec_free(&p->binfo);
  rc_vec_free(&p->calls);
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

rc_module *rc_parse_file(rc_ctx *ctx, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot read: %s", strerror(errno));
    return NULL;
  }
  rc_strbuf text = {0};
  bool bad = !rc_sb_read_all(&text, f);
  fclose(f);
  rc_module *m = NULL;
  if (bad) rc_report(ctx, RC_SEV_ERROR, path, 0, 0, "cannot read: a read error");
  else m = rc_parse_module(ctx, path, text.data ? text.data : "", text.len);
  rc_sb_free(&text);
  return m;
}
