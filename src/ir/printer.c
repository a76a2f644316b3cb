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

static void print_ref(const printer *p, const rc_value *v) {
  rc_strbuf *out = p->out;
  if (!v) { /* only in broken IR, which the verifier prints in its messages */
    rc_sb_puts(out, "<null>");
    return;
  }
  switch (v->kind) {
  case RC_V_CONST:
    if (v->type == RC_I1)
      rc_sb_puts(out, rc_const_ival(v) ? "true" : "false");
    else if (rc_type_is_float((rc_type)v->type))
      print_float(out, (rc_type)v->type, rc_const_fval(v));
    else if (v->type == RC_MASK)
      rc_sb_printf(out, "0x%" PRIx64, (uint64_t)rc_const_ival(v));
    else if (v->type == RC_PTR && rc_const_ival(v) == 0)
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
  rc_sb_printf(p->out, "%s ", v ? rc_type_name((rc_type)v->type) : "?");
  print_ref(p, v);
}

static void print_flags(const printer *p, const rc_instr *i) {
  if (i->iflags & RC_IF_UNIFORM) rc_sb_puts(p->out, " !uniform");
  if (i->iflags & RC_IF_DIVERGENT) rc_sb_puts(p->out, " !divergent");
  if (i->iflags & RC_IF_SCALAR) rc_sb_puts(p->out, " !scalar");
}

/* Target idx of a terminator, NULL when it has fewer (broken IR shown in a verifier message). */
static const rc_block *target(const rc_instr *i, uint32_t idx) {
  return idx < i->ntargets ? i->targets[idx] : NULL;
}

static void print_instr(const printer *p, const rc_instr *i) {
  rc_strbuf *out = p->out;
  rc_opcode op = (rc_opcode)i->op;
  const char *tn = rc_type_name((rc_type)i->v.type);
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
                   i->ops[0] ? rc_type_name((rc_type)i->ops[0]->type) : "?");
      print_ref(p, i->ops[0]);
      rc_sb_puts(out, ", ");
      print_ref(p, i->ops[1]);
      break;
    case RC_OP_SELECT:
      rc_sb_printf(out, " %s ", tn);
      print_ref(p, i->ops[0]);
      rc_sb_puts(out, ", ");
      print_ref(p, i->ops[1]);
      rc_sb_puts(out, ", ");
      print_ref(p, i->ops[2]);
      break;
    case RC_OP_LOAD:
      rc_sb_printf(out, " %s, ", tn);
      print_ref(p, i->ops[0]);
      break;
    case RC_OP_STORE:
      rc_sb_putc(out, ' ');
      print_typed(p, i->ops[0]);
      rc_sb_puts(out, ", ");
      print_ref(p, i->ops[1]);
      break;
    case RC_OP_GEP:
      rc_sb_putc(out, ' ');
      print_ref(p, i->ops[0]);
      rc_sb_puts(out, ", ");
      print_typed(p, i->ops[1]);
      rc_sb_printf(out, ", %" PRId64, i->imm);
      break;
    case RC_OP_ALLOCA:
    case RC_OP_LOCALMEM:
      rc_sb_printf(out, " %" PRId64, i->imm);
      break;
    case RC_OP_CALL: {
      const rc_builtin_info *bi = rc_builtin_get((rc_builtin)i->pred);
      rc_sb_printf(out, " %s @%s(", tn, bi ? bi->name : "?");
      for (uint32_t o = 0; o < i->nops; o++) {
        if (o) rc_sb_puts(out, ", ");
        print_typed(p, i->ops[o]);
      }
      rc_sb_putc(out, ')');
      break;
    }
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
      rc_sb_printf(out, " $%s", i->reg ? i->reg->name : "?");
      break;
    case RC_OP_RSET:
      rc_sb_printf(out, " $%s, ", i->reg ? i->reg->name : "?");
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
    default: /* exec, ret, unreachable: nothing more */
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
  printer p = {out, NULL, 0};
  number_values(&p, k);
  if (k->level == RC_LEVEL_WAVE) rc_sb_puts(out, "wave ");
  rc_sb_printf(out, "kernel @%s(", k->name);
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
                 rc_type_name((rc_type)k->regs[r]->type), k->regs[r]->name);
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

void rc_print_module(const rc_module *m, rc_strbuf *out) {
  for (uint32_t i = 0; i < m->nkernels; i++) {
    if (i) rc_sb_putc(out, '\n');
    rc_print_kernel(m->kernels[i], out);
  }
}

void rc_print_instr(const rc_instr *i, rc_strbuf *out) {
  const rc_kernel *k = i->parent ? i->parent->parent : NULL;
  printer p = {out, NULL, 0};
  if (k) number_values(&p, k);
  print_instr(&p, i);
  free(p.number);
}

void rc_print_value_ref(const rc_value *v, rc_strbuf *out) {
  printer p = {out, NULL, 0};
  print_ref(&p, v);
}
