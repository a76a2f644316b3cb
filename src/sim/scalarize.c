/* Vectors in the simulators' form of a kernel (sim_scalarize, called by run_form.c on the private
 * copy that runs; the user's kernel and its export keep their vectors). The machines hold one
 * 64-bit value per thread and register, so every value of type <N x T> becomes N values of type T
 * ("lanes"), and every instruction that reads or makes a vector becomes its per-lane form:
 *
 * - element-wise arithmetic, comparisons, casts, select, freeze and phis: one per lane;
 * - loads and stores of vectors: one per lane at the lane's offset;
 * - extractelement, insertelement, shufflevector: lanes chosen (a non-constant index compares
 *   against every lane);
 * - bitcasts between vectors and integers of the same size: the bits cut into pieces and joined
 *   again, lane 0 the least significant (LLVM's layout on little-endian targets);
 * - builtins: element-wise ones per lane (a scalar argument serves every lane; the pointer of
 *   fract/modf/sincos/frexp ... advances by the lane's element); the relational functions' vector
 *   forms give -1 for true (OpenCL C 1.2, section 6.12.6); select, any and all read the most
 *   significant bit; the geometric functions (section 6.12.5) and the vector loads and stores
 *   (section 6.12.7) are expanded into the arithmetic and memory accesses they stand for, for
 *   scalars too.
 *
 * The results of instructions that give a scalar (extractelement, dot ...) replace them through
 * repl, as run_form.c's other rewrites do. What has no per-lane form (vectors of pointers, vector
 * parameters, aggregates) is refused with the instruction named. */
#include "decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the most leaves a value may have (a bigger array value is refused) */
#define MAX_LEAVES 4096u

typedef struct scalarizer {
  rc_ctx *ctx;
  rc_kernel *k;
  rc_module *m;
  const char *name;
  rc_value **repl;     /* per original value id: the scalar that replaces it */
  uint32_t nvalues;    /* values of the kernel before scalarizing (lanes and repl cover these) */
  rc_value ***lanes;   /* per original value id: its lanes, once made */
  uint32_t nregs;      /* registers of the kernel before scalarizing */
  rc_reg ***reg_lanes; /* per original register id: the registers of its lanes, once made */
  rc_builder b;        /* before the instruction being scalarized */
} scalarizer;

/* ---- leaves: the scalars a vector or aggregate value is made of --------------------------------
 * A vector's leaves are its elements; a struct's or array's are its elements' leaves in order, so
 * that extractvalue and insertvalue pick a run of them. */

bool sim_is_split_type(const rc_module *m, rc_type t) {
  return rc_type_is_composite(t) && rc_type_is_value(m, t);
}

uint32_t sim_leaves_of(const rc_module *m, rc_type t) {
  if (!sim_is_split_type(m, t)) return 1;
  if (rc_type_is_vector(m, t)) return rc_type_count(m, t);
  uint64_t n = 0;
  for (uint32_t e = 0; e < rc_type_count(m, t) && n <= MAX_LEAVES; e++) n += sim_leaves_of(m, rc_type_elem(m, t, e));
  return n > MAX_LEAVES ? MAX_LEAVES + 1 : (uint32_t)n;
}

/* The type of leaf j of type t, and its byte offset in t's memory image. */
rc_type sim_leaf_type(const rc_module *m, rc_type t, uint32_t j, uint64_t *offset) {
  uint64_t at = 0;
  while (sim_is_split_type(m, t)) {
    uint32_t e = 0;
    if (rc_type_is_vector(m, t)) e = j, j = 0;
    else
      for (uint32_t n; (n = sim_leaves_of(m, rc_type_elem(m, t, e))) <= j; e++) j -= n;
    at += rc_type_offset(m, t, e);
    t = rc_type_elem(m, t, e);
  }
  if (offset) *offset = at;
  return t;
}

/* The first leaf of the element extractvalue/insertvalue reach by their indices, and its type. */
static uint32_t leaf_index(const rc_module *m, rc_type *t, const int64_t *idx, uint32_t nidx) {
  uint32_t first = 0;
  for (uint32_t k = 0; k < nidx; k++) {
    for (uint32_t e = 0; e < (uint32_t)idx[k]; e++) first += sim_leaves_of(m, rc_type_elem(m, *t, e));
    *t = rc_type_elem(m, *t, (uint32_t)idx[k]);
  }
  return first;
}

static bool is_vec(const scalarizer *s, const rc_value *v) { return sim_is_split_type(s->m, (rc_type)v->type); }

static uint32_t width(const scalarizer *s, const rc_value *v) { return sim_leaves_of(s->m, (rc_type)v->type); }

/* the element type of a vector (the leaves of an aggregate have a type each: sim_leaf_type) */
static rc_type elem_of(const scalarizer *s, const rc_value *v) { return rc_type_scalar_of(s->m, (rc_type)v->type); }

static rc_type leaf(const scalarizer *s, const rc_value *v, uint32_t j) { return sim_leaf_type(s->m, (rc_type)v->type, j, NULL); }

static rc_value *cint(scalarizer *s, rc_type t, int64_t v) { return rc_const_int(s->k, t, v); }

/* Leaf j of constant c of type t (elements NULL: all zero). */
static rc_value *const_leaf(scalarizer *s, rc_value *c, rc_type t, uint32_t j) {
  while (sim_is_split_type(s->m, t)) {
    uint32_t e = 0;
    if (rc_type_is_vector(s->m, t)) e = j, j = 0;
    else
      for (uint32_t n; (n = sim_leaves_of(s->m, rc_type_elem(s->m, t, e))) <= j; e++) j -= n;
    t = rc_type_elem(s->m, t, e);
    c = c ? rc_const_elem(c, e) : NULL;
  }
  return c ? c : rc_const_zero(s->k, t);
}

/* Lane (leaf) j of v (a vector or aggregate, or a scalar standing for every lane), or NULL when
 * not made yet. */
static rc_value *lane(scalarizer *s, rc_value *v, uint32_t j) {
  if (!is_vec(s, v)) return v;
  rc_type e = leaf(s, v, j);
  switch (v->kind) {
  case RC_V_CONST: return const_leaf(s, v, (rc_type)v->type, j);
  case RC_V_UNDEF: return rc_undef(s->k, e);
  case RC_V_INSTR: return v->id < s->nvalues && s->lanes[v->id] ? s->lanes[v->id][j] : NULL;
  default: return NULL;
  }
}

static bool ready(scalarizer *s, const rc_instr *i) {
  for (uint32_t o = 0; o < i->nops; o++)
    if (is_vec(s, i->ops[o]) && !lane(s, i->ops[o], 0)) return false;
  return true;
}

static rc_value **new_lanes(scalarizer *s, rc_instr *i) {
  return s->lanes[i->v.id] = rc_arena_alloc(&s->m->arena, width(s, &i->v) * sizeof(rc_value *));
}

static rc_value *gep_bytes(scalarizer *s, rc_value *p, int64_t bytes) {
  return bytes ? rc_build_gep(&s->b, p, cint(s, RC_I64, bytes), 1, NULL) : p;
}

/* A new register of type t named "<base>.<j>", or "<base>.<j>.<u>" when that name is taken. */
static rc_reg *new_reg(scalarizer *s, const rc_reg *base, uint32_t j, rc_type t) {
  rc_reg *r = NULL;
  for (unsigned u = 0; !r; u++) {
    rc_strbuf name = {0};
    if (u) rc_sb_printf(&name, "%s.%u.%u", base->name, j, u - 1);
    else rc_sb_printf(&name, "%s.%u", base->name, j);
    if (!rc_kernel_find_reg(s->k, name.data)) r = rc_kernel_add_reg(s->k, t, base->scalar, name.data);
    rc_sb_free(&name);
  }
  return r;
}

/* Register r's lane j (wave-level code: a phi of vectors became a register of vectors). */
static rc_reg *reg_lane(scalarizer *s, const rc_reg *r, uint32_t j) {
  if (!s->reg_lanes[r->id]) {
    uint32_t n = rc_type_count(s->m, (rc_type)r->type);
    s->reg_lanes[r->id] = rc_arena_alloc(&s->m->arena, n * sizeof(rc_reg *));
    for (uint32_t l = 0; l < n; l++) s->reg_lanes[r->id][l] = new_reg(s, r, l, rc_type_scalar_of(s->m, (rc_type)r->type));
  }
  return s->reg_lanes[r->id][j];
}

/* The same operation on every lane: operands' lanes, result of the element type. */
static void per_lane(scalarizer *s, rc_instr *i) {
  rc_value **out = new_lanes(s, i);
  for (uint32_t j = 0; j < width(s, &i->v); j++) {
    rc_instr *n = rc_instr_new(s->k, (rc_opcode)i->op, leaf(s, &i->v, j), i->nops, 0);
    n->pred = i->pred;
    n->imm = i->imm;
    n->iflags = i->iflags;
    n->line = i->line, n->col = i->col;
    for (uint32_t o = 0; o < i->nops; o++) n->ops[o] = lane(s, i->ops[o], j);
    out[j] = &rc_build(&s->b, n)->v;
  }
}

/* ---- bitcasts ---------------------------------------------------------------------------------- */

/* v (a lane or a scalar) as an integer of its width */
static rc_value *as_int(scalarizer *s, rc_value *v) {
  rc_type t = (rc_type)v->type;
  return rc_type_is_float(t) ? rc_build_cast(&s->b, RC_OP_BITCAST, v, rc_type_int(s->m, rc_type_bits(t)), NULL) : v;
}

static int bitcast(scalarizer *s, rc_instr *i) {
  rc_value *src = i->ops[0];
  uint32_t ns = is_vec(s, src) ? width(s, src) : 1, nd = is_vec(s, &i->v) ? width(s, &i->v) : 1;
  rc_type es = elem_of(s, src), ed = elem_of(s, &i->v);
  unsigned bs = rc_type_bits(es), bd = rc_type_bits(ed);
  if (rc_type_is_ptr(es) || rc_type_is_ptr(ed) || bs > 64 || bd > 64) return -1;
  unsigned piece = bs < bd ? bs : bd;
  uint32_t npieces = ns * (bs / piece);
  rc_type pt = rc_type_int(s->m, piece);
  rc_value **pieces = rc_xmalloc(npieces * sizeof *pieces);
  for (uint32_t j = 0, p = 0; j < ns; j++) {
    rc_value *x = as_int(s, lane(s, src, j));
    for (unsigned c = 0; c < bs / piece; c++, p++) {
      rc_value *y = c ? rc_build_binop(&s->b, RC_OP_LSHR, x, cint(s, (rc_type)x->type, (int64_t)(c * piece)), NULL) : x;
      pieces[p] = piece < bs ? rc_build_cast(&s->b, RC_OP_TRUNC, y, pt, NULL) : y;
    }
  }
  rc_type it = rc_type_int(s->m, bd);
  rc_value **out = is_vec(s, &i->v) ? new_lanes(s, i) : NULL;
  for (uint32_t j = 0, p = 0; j < nd; j++) {
    rc_value *x = NULL;
    for (unsigned c = 0; c < bd / piece; c++, p++) {
      rc_value *y = piece < bd ? rc_build_cast(&s->b, RC_OP_ZEXT, pieces[p], it, NULL) : pieces[p];
      if (c) y = rc_build_binop(&s->b, RC_OP_SHL, y, cint(s, it, (int64_t)(c * piece)), NULL);
      x = x ? rc_build_binop(&s->b, RC_OP_OR, x, y, NULL) : y;
    }
    if (rc_type_is_float(ed)) x = rc_build_cast(&s->b, RC_OP_BITCAST, x, ed, NULL);
    if (out) out[j] = x;
    else s->repl[i->v.id] = x;
  }
  free(pieces);
  return 0;
}

/* ---- builtins ---------------------------------------------------------------------------------- */

static rc_value *call1(scalarizer *s, rc_builtin f, rc_type t, rc_value *a) {
  return &rc_build_call(&s->b, f, t, &a, 1, NULL)->v;
}

/* sum over lanes of a_j * b_j */
static rc_value *dot(scalarizer *s, rc_value *a, rc_value *b) {
  uint32_t n = is_vec(s, a) ? width(s, a) : 1;
  rc_value *sum = NULL;
  for (uint32_t j = 0; j < n; j++) {
    rc_value *p = rc_build_binop(&s->b, RC_OP_FMUL, lane(s, a, j), lane(s, b, j), NULL);
    sum = sum ? rc_build_binop(&s->b, RC_OP_FADD, sum, p, NULL) : p;
  }
  return sum;
}

static rc_value *length(scalarizer *s, rc_value *a) {
  rc_value *d = dot(s, a, a);
  return call1(s, RC_BI_SQRT, (rc_type)d->type, d);
}

/* llvm.vector.reduce.*: the lanes of the vector combined in lane order, by a binary operation or
 * by the two-argument builtin of the same meaning (fadd and fmul start from their first argument) */
static rc_value *reduce(scalarizer *s, rc_instr *i) {
  rc_builtin f = (rc_builtin)i->pred;
  bool with_start = f == RC_BI_REDUCE_FADD || f == RC_BI_REDUCE_FMUL;
  rc_value *v = i->ops[with_start ? 1 : 0];
  rc_type e = (rc_type)i->v.type;
  rc_opcode op = RC_OP_ADD;
  rc_builtin pair = RC_BI_COUNT;
  switch (f) {
  case RC_BI_REDUCE_ADD: op = RC_OP_ADD; break;
  case RC_BI_REDUCE_MUL: op = RC_OP_MUL; break;
  case RC_BI_REDUCE_AND: op = RC_OP_AND; break;
  case RC_BI_REDUCE_OR: op = RC_OP_OR; break;
  case RC_BI_REDUCE_XOR: op = RC_OP_XOR; break;
  case RC_BI_REDUCE_FADD: op = RC_OP_FADD; break;
  case RC_BI_REDUCE_FMUL: op = RC_OP_FMUL; break;
  case RC_BI_REDUCE_SMIN: pair = RC_BI_SMIN; break;
  case RC_BI_REDUCE_SMAX: pair = RC_BI_SMAX; break;
  case RC_BI_REDUCE_UMIN: pair = RC_BI_UMIN; break;
  case RC_BI_REDUCE_UMAX: pair = RC_BI_UMAX; break;
  case RC_BI_REDUCE_FMIN: pair = RC_BI_FMIN; break;
  default: pair = RC_BI_FMAX; break; /* RC_BI_REDUCE_FMAX */
  }
  rc_value *acc = with_start ? i->ops[0] : NULL;
  for (uint32_t j = 0, n = width(s, v); j < n; j++) {
    rc_value *x = lane(s, v, j);
    if (!acc) acc = x;
    else if (pair == RC_BI_COUNT) acc = rc_build_binop(&s->b, op, acc, x, NULL);
    else {
      rc_value *args[2] = {acc, x};
      acc = &rc_build_call(&s->b, pair, e, args, 2, NULL)->v;
    }
  }
  return acc;
}

/* a - b as lanes in a fresh array (n entries) */
static rc_value *difference_lane(scalarizer *s, rc_value *a, rc_value *b, uint32_t j) {
  return rc_build_binop(&s->b, RC_OP_FSUB, lane(s, a, j), lane(s, b, j), NULL);
}

/* A builtin's result: its lanes for a vector, repl for a scalar. */
static void give(scalarizer *s, rc_instr *i, uint32_t j, rc_value *v) {
  if (is_vec(s, &i->v)) s->lanes[i->v.id][j] = v;
  else s->repl[i->v.id] = v;
}

/* Bytes a MATH_MEM builtin writes per lane through its pointer: T, or the i32 of frexp's
 * exponent, lgamma_r's sign and remquo's quotient. */
static uint64_t written_per_lane(scalarizer *s, rc_builtin f, rc_type e) {
  return f == RC_BI_FREXP || f == RC_BI_LGAMMA_R || f == RC_BI_REMQUO ? 4 : rc_type_store_size(s->m, e);
}

static int builtin(scalarizer *s, rc_instr *i) {
  rc_builtin f = (rc_builtin)i->pred;
  const rc_builtin_info *bi = rc_builtin_get(f);
  bool vec_result = is_vec(s, &i->v);
  uint32_t n = vec_result ? width(s, &i->v) : 1;
  rc_type e = vec_result ? elem_of(s, &i->v) : (rc_type)i->v.type;
  if (vec_result) new_lanes(s, i);
  switch (f) {
  case RC_BI_DOT: give(s, i, 0, dot(s, i->ops[0], i->ops[1])); return 0;
  case RC_BI_REDUCE_ADD: case RC_BI_REDUCE_MUL: case RC_BI_REDUCE_AND: case RC_BI_REDUCE_OR:
  case RC_BI_REDUCE_XOR: case RC_BI_REDUCE_SMIN: case RC_BI_REDUCE_SMAX: case RC_BI_REDUCE_UMIN:
  case RC_BI_REDUCE_UMAX: case RC_BI_REDUCE_FMIN: case RC_BI_REDUCE_FMAX: case RC_BI_REDUCE_FADD:
  case RC_BI_REDUCE_FMUL:
    give(s, i, 0, reduce(s, i));
    return 0;
  case RC_BI_LENGTH: give(s, i, 0, length(s, i->ops[0])); return 0;
  case RC_BI_DISTANCE: {
    uint32_t na = is_vec(s, i->ops[0]) ? width(s, i->ops[0]) : 1;
    rc_value *sum = NULL;
    for (uint32_t j = 0; j < na; j++) {
      rc_value *d = difference_lane(s, i->ops[0], i->ops[1], j);
      rc_value *p = rc_build_binop(&s->b, RC_OP_FMUL, d, d, NULL);
      sum = sum ? rc_build_binop(&s->b, RC_OP_FADD, sum, p, NULL) : p;
    }
    give(s, i, 0, call1(s, RC_BI_SQRT, e, sum));
    return 0;
  }
  case RC_BI_NORMALIZE: {
    rc_value *len = length(s, i->ops[0]);
    for (uint32_t j = 0; j < n; j++) give(s, i, j, rc_build_binop(&s->b, RC_OP_FDIV, lane(s, i->ops[0], j), len, NULL));
    return 0;
  }
  case RC_BI_CROSS: { /* section 6.12.5: the fourth lane of a 4-vector is 0 */
    if (n < 3) return -1;
    rc_value *a[3], *b[3];
    for (int j = 0; j < 3; j++) a[j] = lane(s, i->ops[0], (uint32_t)j), b[j] = lane(s, i->ops[1], (uint32_t)j);
    for (int j = 0; j < 3; j++) {
      int p = (j + 1) % 3, q = (j + 2) % 3;
      rc_value *x = rc_build_binop(&s->b, RC_OP_FMUL, a[p], b[q], NULL);
      rc_value *y = rc_build_binop(&s->b, RC_OP_FMUL, a[q], b[p], NULL);
      give(s, i, (uint32_t)j, rc_build_binop(&s->b, RC_OP_FSUB, x, y, NULL));
    }
    for (uint32_t j = 3; j < n; j++) give(s, i, j, rc_const_zero(s->k, e));
    return 0;
  }
  case RC_BI_VLOAD: case RC_BI_VLOAD_HALF: case RC_BI_VLOADA_HALF: {
    /* vloadN(offset, p) reads N elements at p + offset * N (vloada_half3: offset * 4) */
    bool half = f != RC_BI_VLOAD;
    rc_type mt = half ? RC_F16 : e;
    uint64_t es = rc_type_store_size(s->m, mt);
    uint32_t stride = f == RC_BI_VLOADA_HALF && n == 3 ? 4 : n;
    rc_value *base = rc_build_gep(&s->b, i->ops[1], i->ops[0], (int64_t)(es * stride), NULL);
    for (uint32_t j = 0; j < n; j++) {
      rc_value *v = rc_build_load(&s->b, mt, gep_bytes(s, base, (int64_t)(j * es)), NULL);
      give(s, i, j, half ? rc_build_cast(&s->b, RC_OP_FPEXT, v, e, NULL) : v);
    }
    return 0;
  }
  case RC_BI_VSTORE: case RC_BI_VSTORE_HALF: case RC_BI_VSTOREA_HALF: {
    /* vstoreN(v, offset, p); the half stores round to nearest even whatever their modifier asks
     * (a rounding other than the default is not modelled) */
    if (f != RC_BI_VSTORE && (i->imm & RC_BM_RND_MASK) > RC_BM_RTE) return -1;
    rc_value *v = i->ops[0];
    uint32_t nv = is_vec(s, v) ? width(s, v) : 1;
    bool half = f != RC_BI_VSTORE;
    rc_type mt = half ? RC_F16 : elem_of(s, v);
    uint64_t es = rc_type_store_size(s->m, mt);
    uint32_t stride = f == RC_BI_VSTOREA_HALF && nv == 3 ? 4 : nv;
    rc_value *base = rc_build_gep(&s->b, i->ops[2], i->ops[1], (int64_t)(es * stride), NULL);
    for (uint32_t j = 0; j < nv; j++) {
      rc_value *x = lane(s, v, j);
      if (half && x->type != RC_F16) x = rc_build_cast(&s->b, RC_OP_FPTRUNC, x, RC_F16, NULL);
      rc_build_store(&s->b, x, gep_bytes(s, base, (int64_t)(j * es)));
    }
    return 0;
  }
  case RC_BI_SADD_WITH_OVERFLOW: case RC_BI_UADD_WITH_OVERFLOW: case RC_BI_SSUB_WITH_OVERFLOW:
  case RC_BI_USUB_WITH_OVERFLOW: case RC_BI_SMUL_WITH_OVERFLOW: case RC_BI_UMUL_WITH_OVERFLOW: {
    /* LLVM's {result, overflow} (of vectors: the results' leaves, then the overflows'): the
     * operation and the *_ov builtin, element by element */
    static const struct { rc_builtin pair; rc_opcode op; rc_builtin ov; } split[] = {
        {RC_BI_SADD_WITH_OVERFLOW, RC_OP_ADD, RC_BI_SADD_OV}, {RC_BI_UADD_WITH_OVERFLOW, RC_OP_ADD, RC_BI_UADD_OV},
        {RC_BI_SSUB_WITH_OVERFLOW, RC_OP_SUB, RC_BI_SSUB_OV}, {RC_BI_USUB_WITH_OVERFLOW, RC_OP_SUB, RC_BI_USUB_OV},
        {RC_BI_SMUL_WITH_OVERFLOW, RC_OP_MUL, RC_BI_SMUL_OV}, {RC_BI_UMUL_WITH_OVERFLOW, RC_OP_MUL, RC_BI_UMUL_OV}};
    uint32_t k = 0;
    while (split[k].pair != f) k++;
    uint32_t ne = is_vec(s, i->ops[0]) ? width(s, i->ops[0]) : 1;
    for (uint32_t j = 0; j < ne; j++) {
      rc_value *ab[2] = {lane(s, i->ops[0], j), lane(s, i->ops[1], j)};
      give(s, i, j, rc_build_binop(&s->b, split[k].op, ab[0], ab[1], NULL));
      give(s, i, ne + j, &rc_build_call(&s->b, split[k].ov, RC_I1, ab, 2, NULL)->v);
    }
    return 0;
  }
  case RC_BI_SHUFFLE: case RC_BI_SHUFFLE2: { /* section 6.12.12: lane j is x|y[mask_j % m] */
    rc_value *mask = i->ops[i->nops - 1];
    uint32_t m = width(s, i->ops[0]), from = f == RC_BI_SHUFFLE2 ? 2 * m : m;
    for (uint32_t j = 0; j < n; j++) {
      rc_value *mj = lane(s, mask, j), *r;
      if (rc_value_is_const(mj)) {
        uint32_t c = (uint32_t)((uint64_t)rc_const_ival(mj) % from);
        r = lane(s, i->ops[c / m], c % m);
      } else {
        rc_value *idx = rc_build_binop(&s->b, RC_OP_UREM, mj, cint(s, (rc_type)mj->type, from), NULL);
        r = lane(s, i->ops[0], 0);
        for (uint32_t c = 1; c < from; c++) {
          rc_value *is = rc_build_cmp(&s->b, RC_CMP_EQ, idx, cint(s, (rc_type)mj->type, c), NULL);
          r = rc_build_select(&s->b, is, lane(s, i->ops[c / m], c % m), r, NULL);
        }
      }
      give(s, i, j, r);
    }
    return 0;
  }
  case RC_BI_SELECT: /* the most significant bit of c chooses b */
    if (!vec_result) break;
    for (uint32_t j = 0; j < n; j++) {
      rc_value *c = lane(s, i->ops[2], j);
      rc_value *neg = rc_build_cmp(&s->b, RC_CMP_SLT, c, rc_const_zero(s->k, (rc_type)c->type), NULL);
      give(s, i, j, rc_build_select(&s->b, neg, lane(s, i->ops[1], j), lane(s, i->ops[0], j), NULL));
    }
    return 0;
  case RC_BI_ANY: case RC_BI_ALL: {
    if (!is_vec(s, i->ops[0])) break;
    rc_value *acc = NULL;
    for (uint32_t j = 0; j < width(s, i->ops[0]); j++) {
      rc_value *x = lane(s, i->ops[0], j);
      rc_value *neg = rc_build_cmp(&s->b, RC_CMP_SLT, x, rc_const_zero(s->k, (rc_type)x->type), NULL);
      acc = acc ? rc_build_binop(&s->b, f == RC_BI_ANY ? RC_OP_OR : RC_OP_AND, acc, neg, NULL) : neg;
    }
    give(s, i, 0, rc_build_cast(&s->b, RC_OP_ZEXT, acc, e, NULL));
    return 0;
  }
  default: break;
  }
  if (!vec_result) {
    /* a scalar call with vector arguments that is none of the above */
    for (uint32_t o = 0; o < i->nops; o++)
      if (is_vec(s, i->ops[o])) return -1;
    return -1;
  }
  if (!(bi->flags & RC_BF_ELEMENTWISE) && !(bi->flags & RC_BF_VECFORM)) return -1;
  bool relational = (bi->flags & RC_BF_VECFORM) != 0;
  for (uint32_t j = 0; j < n; j++) {
    rc_value *args[8];
    if (i->nops > 8) return -1;
    for (uint32_t o = 0; o < i->nops; o++) {
      rc_value *a = i->ops[o];
      args[o] = rc_type_is_ptr((rc_type)a->type) ? gep_bytes(s, a, (int64_t)(j * written_per_lane(s, f, e)))
                                                 : lane(s, a, j);
    }
    /* the relational functions' scalar forms give i32 1 for true, the vector forms -1 in the
     * lane's own integer type */
    rc_type rt = relational ? RC_I32 : e;
    rc_instr *c = rc_build_call(&s->b, f, rt, args, i->nops, NULL);
    c->imm = i->imm;
    rc_value *v = &c->v;
    if (relational) {
      if (e != RC_I32) v = rc_build_cast(&s->b, rc_type_bits(e) > 32 ? RC_OP_ZEXT : RC_OP_TRUNC, v, e, NULL);
      v = rc_build_binop(&s->b, RC_OP_SUB, rc_const_zero(s->k, e), v, NULL);
    }
    give(s, i, j, v);
  }
  return 0;
}

/* ---- one instruction ------------------------------------------------------------------------- */

/* 0 done (i goes), 1 done (i stays), -1 no per-lane form */
static int scalarize_instr(scalarizer *s, rc_instr *i) {
  rc_builder_before(&s->b, i);
  switch ((rc_opcode)i->op) {
  case RC_OP_LOAD: {
    rc_value **out = new_lanes(s, i);
    for (uint32_t j = 0; j < width(s, &i->v); j++) {
      uint64_t at;
      rc_type e = sim_leaf_type(s->m, (rc_type)i->v.type, j, &at);
      if (e == RC_I1) return -1; /* vectors of i1 are packed bits in memory */
      out[j] = rc_build_load(&s->b, e, gep_bytes(s, i->ops[0], (int64_t)at), NULL);
    }
    return 0;
  }
  case RC_OP_STORE: {
    rc_value *v = i->ops[0];
    for (uint32_t j = 0; j < width(s, v); j++) {
      uint64_t at;
      if (sim_leaf_type(s->m, (rc_type)v->type, j, &at) == RC_I1) return -1;
      rc_build_store(&s->b, lane(s, v, j), gep_bytes(s, i->ops[1], (int64_t)at));
    }
    return 0;
  }
  case RC_OP_EXTRACTVAL: {
    rc_type t = (rc_type)i->ops[0]->type;
    uint32_t first = leaf_index(s->m, &t, i->cases, (uint32_t)i->imm);
    if (!sim_is_split_type(s->m, t)) {
      s->repl[i->v.id] = lane(s, i->ops[0], first);
      return 0;
    }
    rc_value **out = new_lanes(s, i);
    for (uint32_t j = 0; j < width(s, &i->v); j++) out[j] = lane(s, i->ops[0], first + j);
    return 0;
  }
  case RC_OP_INSERTVAL: {
    rc_type t = (rc_type)i->ops[0]->type;
    uint32_t first = leaf_index(s->m, &t, i->cases, (uint32_t)i->imm), n = sim_leaves_of(s->m, t);
    rc_value **out = new_lanes(s, i);
    for (uint32_t j = 0; j < width(s, &i->v); j++)
      out[j] = j >= first && j < first + n ? lane(s, i->ops[1], j - first) : lane(s, i->ops[0], j);
    return 0;
  }
  case RC_OP_OPAQUE: { /* it stays, to fault where a thread reaches it; what it gives is never read */
    rc_value **out = new_lanes(s, i);
    for (uint32_t j = 0; j < width(s, &i->v); j++) out[j] = rc_undef(s->k, leaf(s, &i->v, j));
    return 1;
  }
  case RC_OP_EXTRACTELT: {
    rc_value *v = i->ops[0], *idx = i->ops[1];
    uint32_t n = width(s, v);
    rc_value *r;
    if (rc_value_is_const(idx)) {
      uint64_t c = (uint64_t)rc_const_ival(idx);
      r = c < n ? lane(s, v, (uint32_t)c) : rc_undef(s->k, elem_of(s, v));
    } else {
      r = lane(s, v, 0);
      for (uint32_t j = 1; j < n; j++) {
        rc_value *is = rc_build_cmp(&s->b, RC_CMP_EQ, idx, cint(s, (rc_type)idx->type, j), NULL);
        r = rc_build_select(&s->b, is, lane(s, v, j), r, NULL);
      }
    }
    s->repl[i->v.id] = r;
    return 0;
  }
  case RC_OP_INSERTELT: {
    rc_value *v = i->ops[0], *x = i->ops[1], *idx = i->ops[2];
    rc_value **out = new_lanes(s, i);
    for (uint32_t j = 0; j < width(s, &i->v); j++) {
      if (rc_value_is_const(idx)) {
        out[j] = (uint64_t)rc_const_ival(idx) == j ? x : lane(s, v, j);
      } else {
        rc_value *is = rc_build_cmp(&s->b, RC_CMP_EQ, idx, cint(s, (rc_type)idx->type, j), NULL);
        out[j] = rc_build_select(&s->b, is, x, lane(s, v, j), NULL);
      }
    }
    return 0;
  }
  case RC_OP_SHUFFLE: {
    uint32_t na = width(s, i->ops[0]);
    rc_value **out = new_lanes(s, i);
    for (uint32_t j = 0; j < width(s, &i->v); j++) {
      int64_t c = i->cases[j];
      out[j] = c < 0 ? rc_undef(s->k, elem_of(s, &i->v))
                     : c < na ? lane(s, i->ops[0], (uint32_t)c) : lane(s, i->ops[1], (uint32_t)(c - na));
    }
    return 0;
  }
  case RC_OP_RGET: {
    rc_value **out = new_lanes(s, i);
    for (uint32_t j = 0; j < width(s, &i->v); j++) out[j] = rc_build_rget(&s->b, reg_lane(s, i->u.reg, j), NULL);
    return 0;
  }
  case RC_OP_RSET:
    for (uint32_t j = 0; j < width(s, i->ops[0]); j++) rc_build_rset(&s->b, reg_lane(s, i->u.reg, j), lane(s, i->ops[0], j));
    return 0;
  case RC_OP_BITCAST:
    if (is_vec(s, i->ops[0]) && is_vec(s, &i->v) && width(s, i->ops[0]) == width(s, &i->v)) break;
    return bitcast(s, i);
  case RC_OP_CALL: {
    int r = builtin(s, i);
    return r < 0 ? -1 : 0;
  }
  case RC_OP_GEP: case RC_OP_ALLOCA: case RC_OP_LOCALMEM: case RC_OP_CALLFN: case RC_OP_RET:
    return -1;
  default:
    if (rc_opcode_is_terminator((rc_opcode)i->op)) return -1;
    break;
  }
  if (!is_vec(s, &i->v)) return -1; /* a scalar from vectors other than the above */
  /* leaves that are pointers only move (phis are made elsewhere) */
  if (i->op != RC_OP_SELECT && i->op != RC_OP_FREEZE)
    for (uint32_t j = 0; j < width(s, &i->v); j++)
      if (rc_type_is_ptr(leaf(s, &i->v, j))) return -1;
  per_lane(s, i);
  return 0;
}

static bool involves_vectors(const scalarizer *s, const rc_instr *i) {
  /* an opaque instruction faults where it runs, whatever it reads; what it gives needs leaves */
  if (i->op == RC_OP_OPAQUE) return i->v.type != RC_VOID && is_vec(s, &i->v);
  if (i->v.type != RC_VOID && is_vec(s, &i->v)) return true;
  for (uint32_t o = 0; o < i->nops; o++)
    if (is_vec(s, i->ops[o])) return true;
  /* the builtins expanded here, on scalars too */
  if (i->op == RC_OP_CALL) switch ((rc_builtin)i->pred) {
    case RC_BI_DOT: case RC_BI_LENGTH: case RC_BI_DISTANCE: case RC_BI_NORMALIZE: case RC_BI_VLOAD_HALF:
    case RC_BI_VLOADA_HALF: case RC_BI_VSTORE_HALF: case RC_BI_VSTOREA_HALF:
      return true;
    default: break;
    }
  return false;
}

static int refuse(scalarizer *s, const rc_instr *i) {
  rc_strbuf text = {0};
  rc_print_instr(i, &text);
  int rc = rc_report(s->ctx, RC_SEV_ERROR, s->m->filename, i->line, i->col,
                     "kernel @%s, block %s: reconv's simulators cannot run `%s`: no per-lane form of this "
                     "vector operation (docs/llvm.md, \"Out of scope\")",
                     s->name, i->parent ? i->parent->name : "?", text.data ? text.data : "?");
  rc_sb_free(&text);
  return rc;
}

bool sim_has_vectors(const rc_kernel *k) {
  scalarizer s = {.k = (rc_kernel *)k, .m = k->mod};
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next)
      if (involves_vectors(&s, i)) return true;
  return false;
}

int sim_scalarize(rc_ctx *ctx, rc_kernel *k, const char *name, rc_value **repl) {
  scalarizer s = {.ctx = ctx, .k = k, .m = k->mod, .name = name, .repl = repl, .nvalues = k->nvalues};
  s.lanes = rc_xcalloc(k->nvalues + 1, sizeof *s.lanes);
  s.nregs = k->nregs;
  s.reg_lanes = rc_xcalloc(k->nregs + 1, sizeof *s.reg_lanes);
  RC_VEC(rc_instr *) pending = {0};
  RC_VEC(rc_instr *) phis = {0};
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (!involves_vectors(&s, i)) continue;
      if (i->op == RC_OP_PHI) rc_vec_push(&phis, i);
      else rc_vec_push(&pending, i);
    }
  int rc = 0;
  /* phis first, so that every lane a loop carries exists; their incoming values at the end */
  for (uint32_t p = 0; p < phis.len && rc == 0; p++) {
    rc_instr *phi = phis.data[p];
    if (width(&s, &phi->v) > MAX_LEAVES) rc = refuse(&s, phi);
    else {
      rc_value **out = new_lanes(&s, phi);
      for (uint32_t j = 0; j < width(&s, &phi->v); j++) out[j] = &rc_phi_new(phi->parent, leaf(&s, &phi->v, j), NULL)->v;
    }
  }
  /* then the rest, in passes: an instruction goes when its operands' lanes exist (blocks need
   * not come in dominance order) */
  uint32_t left = pending.len;
  while (rc == 0 && left) {
    uint32_t before = left;
    for (uint32_t t = 0; t < pending.len && rc == 0; t++) {
      rc_instr *i = pending.data[t];
      if (!i || !ready(&s, i)) continue;
      int done = i->v.type != RC_VOID && width(&s, &i->v) > MAX_LEAVES ? -1 : scalarize_instr(&s, i);
      if (done < 0) rc = refuse(&s, i);
      pending.data[t] = NULL;
      if (done == 0) rc_instr_detach(i);
      left--;
    }
    if (left == before) { /* operands that never get lanes: a cycle in unreachable code */
      for (uint32_t t = 0; t < pending.len; t++)
        if (pending.data[t]) {
          rc = refuse(&s, pending.data[t]);
          break;
        }
    }
  }
  /* An opaque instruction stays whatever it reads (it faults where a thread reaches it), but the
   * vector instructions it reads went: it reads undef instead, so that the form verifies, also
   * where no thread goes (e.g. `call void @use(<2 x i32> %v)`, %v an insertelement). */
  for (uint32_t b = 0; b < k->nblocks && rc == 0; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next)
      if (i->op == RC_OP_OPAQUE)
        for (uint32_t o = 0; o < i->nops; o++)
          if (i->ops[o]->kind == RC_V_INSTR && is_vec(&s, i->ops[o]) && !((rc_instr *)i->ops[o])->parent)
            rc_instr_set_op(i, o, rc_undef(k, (rc_type)i->ops[o]->type));
  for (uint32_t p = 0; p < phis.len && rc == 0; p++) {
    rc_instr *phi = phis.data[p];
    rc_value **out = s.lanes[phi->v.id];
    for (uint32_t j = 0; j < width(&s, &phi->v); j++)
      for (uint32_t o = 0; o < phi->nops; o++) {
        rc_value *l = lane(&s, phi->ops[o], j);
        rc_phi_add_incoming((rc_instr *)out[j], l ? l : rc_undef(k, leaf(&s, &phi->v, j)), phi->targets[o]);
      }
    rc_instr_detach(phi);
  }
  rc_vec_free(&pending);
  rc_vec_free(&phis);
  free(s.lanes);
  free(s.reg_lanes);
  return rc;
}
