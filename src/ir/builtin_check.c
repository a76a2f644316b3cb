/* The type rules of builtin calls: each builtin's spec (include/reconv/builtins.def) read letter by
 * letter against the call's result and operand types. The verifier reports the first mismatch; the
 * LLVM importer asks the same question (rc_instr_types_ok) before it trusts a name's meaning. */
#include "ir_internal.h"

#include <stdarg.h>
#include <stdio.h>

typedef struct shape {
  const rc_module *m;
  rc_type t;     /* the gentype T (RC_VOID when the spec has none) */
  rc_type elem;  /* its element type */
  bool vec;
  uint32_t n;    /* elements (1 for a scalar) */
} shape;

static bool why_(char *why, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static bool why_(char *why, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, len, fmt, ap);
  va_end(ap);
  return false;
}

static bool is_gentype_letter(char c) {
  return c == 'F' || c == 'I' || c == 'G' || c == 'Y';
}

static bool int_not_i1(rc_type t) {
  return rc_type_is_int(t) && t != RC_I1;
}

/* Does t have the shape of T (a vector of as many elements, or a scalar) with elements for
 * which ok(elem) holds? */
static bool shaped(const shape *s, rc_type t, bool (*ok)(rc_type elem, const shape *s)) {
  const rc_module *m = s->m;
  bool vec = rc_type_is_vector(m, t);
  if (vec != s->vec || (vec && rc_type_count(m, t) != s->n)) return false;
  return ok(rc_type_scalar_of(m, t), s);
}

static bool el_i32(rc_type e, const shape *s) { (void)s; return e == RC_I32; }
static bool el_same_width_int(rc_type e, const shape *s) { return int_not_i1(e) && rc_type_bits(e) == rc_type_bits(s->elem); }
static bool el_double_width_int(rc_type e, const shape *s) { return rc_type_is_int(e) && rc_type_bits(e) == 2 * rc_type_bits(s->elem); }
static bool el_int(rc_type e, const shape *s) { (void)s; return int_not_i1(e); }
static bool el_i1(rc_type e, const shape *s) { (void)s; return e == RC_I1; }
static bool el_int_or_float(rc_type e, const shape *s) { (void)s; return int_not_i1(e) || rc_type_is_float(e); }

/* Is t the class of gentype letter c? */
static bool gentype_ok(const rc_module *m, char c, rc_type t) {
  rc_type e = rc_type_scalar_of(m, t);
  bool scalar_or_vector = rc_type_is_scalar(t) || rc_type_is_vector(m, t);
  if (!scalar_or_vector || e == RC_MASK) return false;
  switch (c) {
  case 'F': return rc_type_is_float(e);
  case 'I': return int_not_i1(e);
  case 'G': return rc_type_is_float(e) || int_not_i1(e);
  default: return true; /* Y */
  }
}

/* Check type t (of operand v, which may be NULL for the result) against letter c. */
static bool letter_ok(const shape *s, char c, rc_type t, const rc_value *v) {
  const rc_module *m = s->m;
  switch (c) {
  case 'F': case 'I': case 'G': case 'Y': return t == s->t;
  case 'S': return t == s->t || t == s->elem;
  case 'E': return t == s->elem;
  case 'J': return shaped(s, t, el_i32);
  case 'j': return shaped(s, t, el_i32) || t == RC_I32;
  case 'M': return shaped(s, t, el_same_width_int);
  case 'R': return s->vec ? shaped(s, t, el_same_width_int) : t == RC_I32;
  case 'W': return shaped(s, t, el_double_width_int);
  case 'H': return shaped(s, t, el_int);
  case 'b': return shaped(s, t, el_i1);
  case 'X': return shaped(s, t, el_int_or_float);
  case 'O': {
    const rc_typeinfo *ti = rc_type_info(m, t);
    return ti && ti->kind == RC_TK_STRUCT && ti->count == 2 && ti->fields[0] == s->t &&
           shaped(s, ti->fields[1], el_i1);
  }
  case 'N': case 'Q': return int_not_i1(t);
  case 'i': return t == RC_I32;
  case 'K': return t == RC_I32 && v && v->kind == RC_V_CONST && rc_const_ival(v) >= 0 && rc_const_ival(v) <= 2;
  case 'P': return rc_type_is_ptr(t);
  case 'D': return rc_type_is_vector(m, t) && rc_type_scalar_of(m, t) == s->elem;
  case 'B': return t == RC_I8;
  case 'C': return t == RC_I1;
  case 'V': return t == RC_VOID;
  default: return false;
  }
}

static const char *letter_words(char c) {
  switch (c) {
  case 'F': return "a float type";
  case 'I': return "an integer type";
  case 'G': return "an integer or float type";
  case 'Y': return "a scalar or vector type";
  case 'S': return "the call's type or its element type";
  case 'E': return "the element type";
  case 'J': return "i32, one per element";
  case 'j': return "i32 (one per element, or one for all)";
  case 'M': return "an integer as wide as the elements, one per element";
  case 'R': return "i32 for scalars, an integer as wide as the elements per element for vectors";
  case 'W': return "an integer twice as wide as the elements, one per element";
  case 'H': return "an integer per element";
  case 'b': return "i1, one per element";
  case 'X': return "an integer or float, one per element";
  case 'O': return "{T, i1}";
  case 'N': case 'Q': return "an integer (not i1)";
  case 'i': return "i32";
  case 'K': return "a constant i32 0, 1 or 2";
  case 'P': return "a pointer";
  case 'D': return "a vector of the element type";
  case 'B': return "i8";
  case 'C': return "i1";
  default: return "void";
  }
}

/* Checks beyond the spec's letters. */
static bool extra_ok(const shape *s, rc_builtin b, rc_type result, rc_value *const *args, int64_t imm,
                     char *why, size_t len) {
  const rc_module *m = s->m;
  const char *name = rc_builtin_get(b)->name;
  switch (b) {
  case RC_BI_CONVERT: {
    /* the kinds the modifiers name must be the kinds of the types */
    rc_type from = rc_type_scalar_of(m, (rc_type)args[0]->type);
    int src = (int)((imm >> RC_BM_SRC_SHIFT) & RC_BM_KIND_MASK), dst = (int)((imm >> RC_BM_DST_SHIFT) & RC_BM_KIND_MASK);
    if ((src == RC_BM_FLOAT) != rc_type_is_float(from))
      return why_(why, len, "@convert: the modifiers say the source is %s, but it has type %s",
                  src == RC_BM_FLOAT ? "a float" : "an integer", rc_type_str(m, (rc_type)args[0]->type));
    if ((dst == RC_BM_FLOAT) != rc_type_is_float(s->elem))
      return why_(why, len, "@convert: the modifiers say the result is %s, but it has type %s",
                  dst == RC_BM_FLOAT ? "a float" : "an integer", rc_type_str(m, result));
    return true;
  }
  case RC_BI_CROSS:
    if (!s->vec || (s->n != 3 && s->n != 4)) return why_(why, len, "@cross takes vectors of 3 or 4 elements");
    return true;
  case RC_BI_VLOAD:
  case RC_BI_VSTORE:
    if (!s->vec) return why_(why, len, "@%s moves a vector", name);
    return true;
  case RC_BI_REDUCE_ADD: case RC_BI_REDUCE_MUL: case RC_BI_REDUCE_AND: case RC_BI_REDUCE_OR:
  case RC_BI_REDUCE_XOR: case RC_BI_REDUCE_SMIN: case RC_BI_REDUCE_SMAX: case RC_BI_REDUCE_UMIN:
  case RC_BI_REDUCE_UMAX:
    if (!s->vec || !rc_type_is_int(s->elem)) return why_(why, len, "@%s reduces a vector of integers", name);
    return true;
  case RC_BI_REDUCE_FMIN: case RC_BI_REDUCE_FMAX: case RC_BI_REDUCE_FADD: case RC_BI_REDUCE_FMUL:
    if (!s->vec || !rc_type_is_float(s->elem)) return why_(why, len, "@%s reduces a vector of floats", name);
    return true;
  default: return true;
  }
}

bool rc_builtin_check(const rc_module *m, rc_builtin b, rc_type result, rc_value *const *args,
                      int64_t imm, char *why, size_t len) {
  const rc_builtin_info *bi = rc_builtin_get(b);
  if (!bi) return why_(why, len, "unknown builtin");
  const char *spec = bi->spec;
  shape s = {m, RC_VOID, RC_VOID, false, 1};
  /* T: the result's type when the result letter is a gentype, else the first such argument's */
  if (is_gentype_letter(spec[0])) {
    s.t = result;
  } else {
    for (uint32_t a = 0; a < bi->nargs; a++)
      if (is_gentype_letter(spec[2 + a])) {
        s.t = (rc_type)args[a]->type;
        break;
      }
  }
  if (s.t != RC_VOID) {
    char c = is_gentype_letter(spec[0]) ? spec[0] : 0;
    for (uint32_t a = 0; !c && a < bi->nargs; a++)
      if (is_gentype_letter(spec[2 + a])) c = spec[2 + a];
    if (!gentype_ok(m, c, s.t))
      return why_(why, len, "@%s works on %s, not on %s", bi->name, letter_words(c), rc_type_str(m, s.t));
    s.vec = rc_type_is_vector(m, s.t);
    s.n = s.vec ? rc_type_count(m, s.t) : 1;
    s.elem = rc_type_scalar_of(m, s.t);
    /* what the machines run must be scalar; what the simulators' form expands may be a vector */
    if (s.vec && (bi->flags & RC_BF_LEGAL) && !(bi->flags & (RC_BF_ELEMENTWISE | RC_BF_VECFORM)))
      return why_(why, len, "@%s takes scalars, not %s", bi->name, rc_type_str(m, s.t));
  }
  if (!letter_ok(&s, spec[0], result, NULL))
    return why_(why, len, "@%s returns %s, not %s", bi->name, letter_words(spec[0]),
                result == RC_VOID ? "void" : rc_type_str(m, result));
  for (uint32_t a = 0; a < bi->nargs; a++) {
    rc_type t = (rc_type)args[a]->type;
    char c = spec[2 + a];
    if (letter_ok(&s, c, t, args[a])) continue;
    if (c == 'F' || c == 'I' || c == 'G' || c == 'Y' || c == 'E')
      return why_(why, len, "@%s: argument %u has type %s, expected %s", bi->name, a + 1, rc_type_str(m, t),
                  rc_type_str(m, c == 'E' ? s.elem : s.t));
    return why_(why, len, "@%s: argument %u has type %s, expected %s", bi->name, a + 1, rc_type_str(m, t),
                letter_words(c));
  }
  if (!rc_builtin_mods_ok(b, imm))
    return why_(why, len, "@%s does not take the modifiers %lld", bi->name, (long long)imm);
  return extra_ok(&s, b, result, args, imm, why, len);
}
