/* The .rir printer (docs/ir.md). Its output parses back to the same module, and printing that
 * again gives the same text. Unnamed values are numbered %0, %1, ... in order of definition
 * (parameters first, then instructions in block order). */
#include "reconv/ir.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct printer {
  rc_strbuf *out;
  const rc_module *m;
  uint32_t *number; /* value id -> number for unnamed values */
  uint32_t nvalues; /* entries in number */
} printer;

static const char *block_name(const rc_block *b) {
  return b ? b->name : "<null>";
}

/* Does the decimal text s read back to f, in type t? (The parser reads the decimal as a double and
 * rounds that to float for f32, so the test does the same.) */
static bool reads_back(const char *s, rc_type t, double f) {
  double back = strtod(s, NULL);
  if (t == RC_F16) return rc_round_f16(back) == f;
  return t == RC_F32 ? (float)back == (float)f : back == f;
}

/* Floats print in the shortest decimal form that reads back exactly, with signed zeros, inf and
 * nan spelled out; the text always shows it is a float (a '.', an exponent, inf or nan). */
static void print_float(rc_strbuf *out, rc_type t, double f) {
  if (isnan(f)) { /* the sign survives the text form; the payload does not (docs/ir.md) */
    rc_sb_puts(out, signbit(f) ? "-nan" : "nan");
    return;
  }
  if (isinf(f)) {
    rc_sb_puts(out, f < 0 ? "-inf" : "inf");
    return;
  }
  /* the shortest %g form that reads back to the same value (as f32 for f32 constants) ... */
  char buf[64];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, f);
    if (reads_back(buf, t, f)) break;
  }
  /* ... but without an exponent where plain digits are short enough: 1500.0, not 1.5e+03 */
  if (strchr(buf, 'e') && fabs(f) >= 1e-4 && fabs(f) < 1e16) {
    char plain[64];
    for (int decimals = 1; decimals <= 24; decimals++) {
      snprintf(plain, sizeof plain, "%.*f", decimals, f);
      if (reads_back(plain, t, f)) {
        memcpy(buf, plain, sizeof buf);
        break;
      }
    }
  }
  rc_sb_puts(out, buf);
  if (!strpbrk(buf, ".eEn")) rc_sb_puts(out, ".0");
}

static const char *tname(const printer *p, rc_type t) {
  return rc_type_str(p->m, t);
}

static void print_ref(const printer *p, const rc_value *v);

/* A composite constant: <...>, [...], {...} or <{...}> around its elements (zeroinitializer when
 * all zero). Nesting follows the type, which the parser and importer bound. */
static void print_composite(const printer *p, const rc_value *v) {
  const rc_typeinfo *ti = rc_type_info(p->m, (rc_type)v->type);
  if (!ti || !((const rc_const *)v)->u.elems) {
    rc_sb_puts(p->out, "zeroinitializer");
    return;
  }
  const char *open = ti->kind == RC_TK_VECTOR ? "<" : ti->kind == RC_TK_ARRAY ? "[" : ti->packed ? "<{" : "{";
  const char *close = ti->kind == RC_TK_VECTOR ? ">" : ti->kind == RC_TK_ARRAY ? "]" : ti->packed ? "}>" : "}";
  rc_sb_puts(p->out, open);
  for (uint32_t i = 0; i < ti->count; i++) {
    if (i) rc_sb_puts(p->out, ", ");
    print_ref(p, rc_const_elem(v, i));
  }
  rc_sb_puts(p->out, close);
}

static void print_ref(const printer *p, const rc_value *v) {
  rc_strbuf *out = p->out;
  if (!v) { /* only in broken IR, which the verifier prints in its messages */
    rc_sb_puts(out, "<null>");
    return;
  }
  switch (v->kind) {
  case RC_V_GLOBAL:
    rc_sb_printf(out, "@%s", v->name ? v->name : "?");
    return;
  case RC_V_CONST:
    if (rc_type_is_composite((rc_type)v->type))
      print_composite(p, v);
    else if (v->type == RC_I1)
      rc_sb_puts(out, rc_const_ival(v) ? "true" : "false");
    else if (rc_type_is_float((rc_type)v->type))
      print_float(out, (rc_type)v->type, rc_const_fval(v));
    else if (v->type == RC_MASK)
      rc_sb_printf(out, "0x%" PRIx64, (uint64_t)rc_const_ival(v));
    else if (rc_type_is_ptr((rc_type)v->type) && rc_const_ival(v) == 0)
      rc_sb_puts(out, "null");
    else
      rc_sb_printf(out, "%" PRId64, rc_const_ival(v));
    return;
  case RC_V_UNDEF:
    rc_sb_puts(out, "undef");
    return;
  default:
    if (v->name)
      rc_sb_printf(out, "%%%s", v->name);
    else if (p->number && v->id < p->nvalues && p->number[v->id] != RC_NONE)
      rc_sb_printf(out, "%%%u", p->number[v->id]);
    else
      rc_sb_puts(out, "%<detached>");
  }
}

static void print_typed(const printer *p, const rc_value *v) {
  rc_sb_printf(p->out, "%s ", v ? tname(p, (rc_type)v->type) : "?");
  print_ref(p, v);
}

/* An address: just the value for a ptr, typed for other address spaces. */
static void print_address(const printer *p, const rc_value *v) {
  if (v && v->type != RC_PTR) print_typed(p, v); else print_ref(p, v);
}

static void print_typed_list(const printer *p, const rc_instr *i) {
  rc_sb_putc(p->out, '(');
  for (uint32_t o = 0; o < i->nops; o++) {
    if (o) rc_sb_puts(p->out, ", ");
    print_typed(p, i->ops[o]);
  }
  rc_sb_putc(p->out, ')');
}

static void print_string_literal(rc_strbuf *out, const char *s);

static void print_flags(const printer *p, const rc_instr *i) {
  if (i->iflags & RC_IF_UNIFORM) rc_sb_puts(p->out, " !uniform");
  if (i->iflags & RC_IF_DIVERGENT) rc_sb_puts(p->out, " !divergent");
  if (i->iflags & RC_IF_SCALAR) rc_sb_puts(p->out, " !scalar");
  if (i->op == RC_OP_OPAQUE && (i->iflags & RC_IF_EFFECTS)) rc_sb_puts(p->out, " !effects");
  if (i->op == RC_OP_OPAQUE && (i->iflags & RC_IF_VARYING)) rc_sb_puts(p->out, " !varying");
}

/* Target idx of a terminator, NULL when it has fewer (broken IR shown in a verifier message). */
static const rc_block *target(const rc_instr *i, uint32_t idx) {
  return idx < i->ntargets ? i->targets[idx] : NULL;
}

static void print_instr(const printer *p, const rc_instr *i) {
  rc_strbuf *out = p->out;
  rc_opcode op = (rc_opcode)i->op;
  const char *tn = tname(p, (rc_type)i->v.type);
  if (i->v.type != RC_VOID) {
    print_ref(p, &i->v);
    rc_sb_puts(out, " = ");
  }
  rc_sb_puts(out, rc_opcode_name(op));
  if (rc_opcode_is_int_binop(op) || rc_opcode_is_float_binop(op)) {
    rc_sb_printf(out, " %s ", tn);
    print_ref(p, i->ops[0]);
    rc_sb_puts(out, ", ");
    print_ref(p, i->ops[1]);
  } else if (rc_opcode_is_cast(op)) {
    rc_sb_putc(out, ' ');
    print_typed(p, i->ops[0]);
    rc_sb_printf(out, " to %s", tn);
  } else {
    switch (op) {
    case RC_OP_FNEG:
      rc_sb_printf(out, " %s ", tn);
      print_ref(p, i->ops[0]);
      break;
    case RC_OP_ICMP:
    case RC_OP_FCMP:
      rc_sb_printf(out, " %s %s ", rc_cmp_name((rc_cmp)i->pred),
                   i->ops[0] ? tname(p, (rc_type)i->ops[0]->type) : "?");
      print_ref(p, i->ops[0]);
      rc_sb_puts(out, ", ");
      print_ref(p, i->ops[1]);
      break;
    case RC_OP_SELECT:
      rc_sb_printf(out, " %s ", tn);
      if (rc_type_is_composite((rc_type)i->v.type)) print_typed(p, i->ops[0]); else print_ref(p, i->ops[0]);
      rc_sb_puts(out, ", ");
      print_ref(p, i->ops[1]);
      rc_sb_puts(out, ", ");
      print_ref(p, i->ops[2]);
      break;
    case RC_OP_LOAD:
      rc_sb_printf(out, " %s, ", tn);
      print_address(p, i->ops[0]);
      break;
    case RC_OP_STORE:
      rc_sb_putc(out, ' ');
      print_typed(p, i->ops[0]);
      rc_sb_puts(out, ", ");
      print_address(p, i->ops[1]);
      break;
    case RC_OP_GEP:
      rc_sb_putc(out, ' ');
      print_address(p, i->nops ? i->ops[0] : NULL);
      for (uint32_t o = 1; o < i->nops; o++) {
        rc_sb_puts(out, ", ");
        print_typed(p, i->ops[o]);
        rc_sb_printf(out, ", %" PRId64, i->cases ? i->cases[o - 1] : 0);
      }
      if (i->imm) rc_sb_printf(out, ", offset %" PRId64, i->imm);
      break;
    case RC_OP_ALLOCA:
    case RC_OP_LOCALMEM:
      rc_sb_printf(out, " %" PRId64, i->imm);
      if (rc_type_addrspace((rc_type)i->v.type)) rc_sb_printf(out, ", addrspace(%u)", rc_type_addrspace((rc_type)i->v.type));
      break;
    case RC_OP_CALL:
    case RC_OP_CALLFN: {
      char spelled[80]; /* a builtin with its modifiers: "convert.fs.sat" */
      if (op == RC_OP_CALL) rc_builtin_spell((rc_builtin)i->pred, i->imm, spelled, sizeof spelled);
      const char *callee = op == RC_OP_CALLFN ? (i->u.callee ? i->u.callee->name : "?") : spelled;
      rc_sb_printf(out, " %s @%s", tn, callee);
      print_typed_list(p, i);
      break;
    }
    case RC_OP_FREEZE:
      rc_sb_putc(out, ' ');
      print_typed(p, i->ops[0]);
      break;
    case RC_OP_EXTRACTELT:
    case RC_OP_INSERTELT:
      rc_sb_putc(out, ' ');
      for (uint32_t o = 0; o < i->nops; o++) {
        if (o) rc_sb_puts(out, ", ");
        print_typed(p, i->ops[o]);
      }
      break;
    case RC_OP_SHUFFLE:
      rc_sb_putc(out, ' ');
      print_typed(p, i->ops[0]);
      rc_sb_puts(out, ", ");
      print_ref(p, i->ops[1]);
      rc_sb_puts(out, ", [");
      for (int64_t c = 0; c < i->imm; c++) rc_sb_printf(out, "%s%" PRId64, c ? ", " : "", i->cases[c]);
      rc_sb_putc(out, ']');
      break;
    case RC_OP_EXTRACTVAL:
    case RC_OP_INSERTVAL:
      rc_sb_putc(out, ' ');
      for (uint32_t o = 0; o < i->nops; o++) {
        if (o) rc_sb_puts(out, ", ");
        print_typed(p, i->ops[o]);
      }
      for (int64_t c = 0; c < i->imm; c++) rc_sb_printf(out, ", %" PRId64, i->cases[c]);
      break;
    case RC_OP_OPAQUE:
      rc_sb_printf(out, " %s ", tn);
      print_string_literal(out, i->u.text ? i->u.text : "");
      rc_sb_putc(out, ' ');
      print_typed_list(p, i);
      break;
    case RC_OP_PHI:
      rc_sb_printf(out, " %s ", tn);
      for (uint32_t o = 0; o < i->nops; o++) {
        if (o) rc_sb_puts(out, ", ");
        rc_sb_putc(out, '[');
        print_ref(p, i->ops[o]);
        rc_sb_printf(out, ", %s]", block_name(i->targets[o]));
      }
      break;
    case RC_OP_BALLOT:
    case RC_OP_SETEXEC:
      rc_sb_putc(out, ' ');
      print_ref(p, i->ops[0]);
      break;
    case RC_OP_RGET:
      rc_sb_printf(out, " $%s", i->u.reg ? i->u.reg->name : "?");
      break;
    case RC_OP_RSET:
      rc_sb_printf(out, " $%s, ", i->u.reg ? i->u.reg->name : "?");
      print_ref(p, i->ops[0]);
      break;
    case RC_OP_BR:
      rc_sb_putc(out, ' ');
      print_ref(p, i->ops[0]);
      rc_sb_printf(out, ", %s, %s", block_name(target(i, 0)), block_name(target(i, 1)));
      break;
    case RC_OP_JMP:
      rc_sb_printf(out, " %s", block_name(target(i, 0)));
      break;
    case RC_OP_BREXECZ:
      rc_sb_printf(out, " %s, %s", block_name(target(i, 0)), block_name(target(i, 1)));
      break;
    case RC_OP_SWITCH:
      rc_sb_putc(out, ' ');
      print_typed(p, i->ops[0]);
      rc_sb_printf(out, ", %s [", block_name(target(i, 0)));
      for (uint32_t c = 1; c < i->ntargets; c++)
        rc_sb_printf(out, "%s%" PRId64 ": %s", c > 1 ? ", " : "", i->cases[c - 1],
                     block_name(i->targets[c]));
      rc_sb_putc(out, ']');
      break;
    case RC_OP_RET:
      if (i->nops) {
        rc_sb_putc(out, ' ');
        print_typed(p, i->ops[0]);
      }
      break;
    default: /* exec, unreachable: nothing more */
      break;
    }
  }
  print_flags(p, i);
}

/* Number the unnamed values of k in printing order. Ids out of range (broken IR) stay unnumbered. */
static void number_values(printer *p, const rc_kernel *k) {
  p->nvalues = k->nvalues;
  p->number = rc_xmalloc((k->nvalues ? k->nvalues : 1) * sizeof *p->number);
  for (uint32_t i = 0; i < k->nvalues; i++) p->number[i] = RC_NONE;
  uint32_t n = 0;
  for (uint32_t i = 0; i < k->nparams; i++)
    if (!k->params[i]->name && k->params[i]->id < k->nvalues) p->number[k->params[i]->id] = n++;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next)
      if (i->v.type != RC_VOID && !i->v.name && i->v.id < k->nvalues) p->number[i->v.id] = n++;
}

static void print_string_literal(rc_strbuf *out, const char *s) {
  rc_sb_putc(out, '"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') rc_sb_putc(out, '\\');
    if (*s == '\n') {
      rc_sb_puts(out, "\\n");
      continue;
    }
    rc_sb_putc(out, *s);
  }
  rc_sb_putc(out, '"');
}

void rc_print_kernel(const rc_kernel *k, rc_strbuf *out) {
  printer p = {out, k->mod, NULL, 0};
  number_values(&p, k);
  if (k->level == RC_LEVEL_WAVE) rc_sb_puts(out, "wave ");
  if (k->is_function) rc_sb_printf(out, "function %s @%s(", tname(&p, k->ret_type), k->name);
  else rc_sb_printf(out, "kernel @%s(", k->name);
  for (uint32_t i = 0; i < k->nparams; i++) {
    if (i) rc_sb_puts(out, ", ");
    print_typed(&p, k->params[i]);
  }
  rc_sb_putc(out, ')');
  if (k->run_spec) {
    rc_sb_puts(out, " !run ");
    print_string_literal(out, k->run_spec);
  }
  rc_sb_puts(out, " {\n");
  for (uint32_t r = 0; r < k->nregs; r++)
    rc_sb_printf(out, "  reg %s %s $%s\n", k->regs[r]->scalar ? "scalar" : "vector",
                 tname(&p, (rc_type)k->regs[r]->type), k->regs[r]->name);
  for (uint32_t b = 0; b < k->nblocks; b++) {
    const rc_block *blk = k->blocks[b];
    rc_sb_printf(out, "%s:", blk->name);
    if (blk->bflags & RC_BLOCK_FLOW) rc_sb_puts(out, " !flow");
    if (blk->bflags & RC_BLOCK_GUARD) rc_sb_puts(out, " !guard");
    if (blk->bflags & RC_BLOCK_VIRTUAL) rc_sb_puts(out, " !virtual");
    rc_sb_putc(out, '\n');
    for (const rc_instr *i = blk->first; i; i = i->next) {
      rc_sb_puts(out, "  ");
      print_instr(&p, i);
      rc_sb_putc(out, '\n');
    }
  }
  rc_sb_puts(out, "}\n");
  free(p.number);
}

/* global @name : T[, addrspace(N)][, constant][ = "hex bytes"] */
static void print_global(const rc_module *m, const rc_global *g, rc_strbuf *out) {
  rc_sb_printf(out, "global @%s : %s", g->v.name, rc_type_str(m, g->vtype));
  unsigned as = rc_type_addrspace((rc_type)g->v.type);
  if (as) rc_sb_printf(out, ", addrspace(%u)", as);
  if (g->is_const) rc_sb_puts(out, ", constant");
  if (g->init) {
    uint64_t n = rc_type_alloc_size(m, g->vtype);
    rc_sb_puts(out, " = \"");
    for (uint64_t b = 0; b < n; b++) rc_sb_printf(out, "%02x", g->init[b]);
    rc_sb_putc(out, '"');
  }
  rc_sb_putc(out, '\n');
}

void rc_print_module(const rc_module *m, rc_strbuf *out) {
  for (uint32_t i = 0; i < m->nglobals; i++) print_global(m, m->globals[i], out);
  for (uint32_t i = 0; i < m->nkernels; i++) {
    if (i || m->nglobals) rc_sb_putc(out, '\n');
    rc_print_kernel(m->kernels[i], out);
  }
}

void rc_print_instr(const rc_instr *i, rc_strbuf *out) {
  const rc_kernel *k = i->parent ? i->parent->parent : NULL;
  printer p = {out, k ? k->mod : NULL, NULL, 0};
  if (k) number_values(&p, k);
  print_instr(&p, i);
  free(p.number);
}

void rc_print_value_ref(const rc_value *v, rc_strbuf *out) {
  printer p = {out, NULL, NULL, 0};
  print_ref(&p, v);
}
