/* Calls: what clang emits for OpenCL kernels, and the LLVM intrinsics kernels use.
 *
 * - OpenCL C functions, Itanium-mangled (_Z13get_global_idj) or plain (SPIR style): the work-item
 *   queries, barrier, the math and integer functions reconv has builtins for, the OpenCL 1.x
 *   atomics, and a few more that are short sequences of instructions (vloadN/vstoreN, convert_T,
 *   isnan/isinf/isfinite, select, mix, clamp, dot, mad24). Without a device library (-nogpulib)
 *   clang leaves them as calls.
 * - amdgcn intrinsics: workitem.id/workgroup.id, the barrier, and the dispatch-packet and
 *   implicit-argument pointers, whose loads at fixed offsets are the work-group and grid sizes and
 *   the global offset (code object v4 layout, as LLVM 14 uses).
 * - target-independent intrinsics: math, min/max, bit counts, memcpy/memset; markers that say
 *   nothing about what a thread computes (lifetime, debug info, assumptions) are dropped. */
#include "bridge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct callinfo {
  LLVMValueRef inst;
  const char *name; /* callee name without mangling */
  size_t namelen;
  char code;        /* OpenCL: type code of the first parameter (pointee for pointers), 0 if none */
  bool mangled;
} callinfo;

static bool is(const callinfo *c, const char *s) {
  return strlen(s) == c->namelen && memcmp(c->name, s, c->namelen) == 0;
}

/* Demangle just enough of an Itanium name: _Z <len> <name> <first parameter type>. Parameter
 * types are a builtin code (i int, j uint, f float ...), possibly behind a pointer with address
 * space and cv qualifiers (PU3AS1Vi) or a vector (Dv4_f). */
static void demangle(callinfo *c, const char *s, size_t n) {
  c->name = s;
  c->namelen = n;
  c->code = 0;
  c->mangled = false;
  if (n < 3 || s[0] != '_' || s[1] != 'Z' || s[2] < '0' || s[2] > '9') return;
  size_t p = 2, len = 0;
  while (p < n && s[p] >= '0' && s[p] <= '9') len = len * 10 + (size_t)(s[p++] - '0');
  if (p + len > n) return;
  c->name = s + p;
  c->namelen = len;
  c->mangled = true;
  p += len;
  while (p < n) {
    if (s[p] == 'P' || s[p] == 'V' || s[p] == 'K' || s[p] == 'r') {
      p++;
    } else if (s[p] == 'U') { /* vendor qualifier: U <len> <name> */
      size_t q = p + 1, l = 0;
      while (q < n && s[q] >= '0' && s[q] <= '9') l = l * 10 + (size_t)(s[q++] - '0');
      p = q + l;
    } else if (p + 1 < n && s[p] == 'D' && s[p + 1] == 'v') {
      p += 2;
      while (p < n && s[p] != '_') p++;
      p++;
    } else {
      c->code = s[p];
      return;
    }
  }
}

static bool code_unsigned(char c) {
  return c == 'h' || c == 't' || c == 'j' || c == 'm';
}

static bool code_float(char c) {
  return c == 'f' || c == 'd';
}

static rc_value *arg(importer *im, const callinfo *c, unsigned i) {
  return imp_scalar(im, LLVMGetArgOperand(c->inst, i));
}

static int result(importer *im, const callinfo *c, rc_value *r) {
  if (!r) return -1;
  imp_name(im, r, c->inst);
  imp_set_value(im, c->inst, r);
  return 0;
}

static int nothing(importer *im, const callinfo *c) {
  imp_record(im, c->inst, IMP_NOTHING);
  return 0;
}

/* A builtin call on the first nargs arguments; on vectors, element by element. */
static int builtin(importer *im, const callinfo *c, rc_builtin bi, unsigned nargs) {
  LLVMTypeRef t = LLVMTypeOf(c->inst);
  bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
  rc_type rt = RC_VOID;
  if (LLVMGetTypeKind(t) != LLVMVoidTypeKind &&
      (rt = imp_type(im, vec ? LLVMGetElementType(t) : t, c->inst)) == RC_VOID)
    return -1;
  if (LLVMGetNumArgOperands(c->inst) < nargs) return imp_error(im, c->inst, "too few arguments");
  uint32_t n = vec ? LLVMGetVectorSize(t) : 1;
  rc_value **elems[3] = {NULL, NULL, NULL};
  rc_value *args[3];
  for (unsigned i = 0; i < nargs; i++) {
    uint32_t cnt;
    if (vec) {
      if (imp_elems(im, LLVMGetArgOperand(c->inst, i), &elems[i], &cnt)) return -1;
    } else if (!(args[i] = arg(im, c, i))) {
      return -1;
    }
  }
  if (!vec) return result(im, c, &rc_build_call(&im->b, bi, rt, args, nargs, NULL)->v);
  imported *rec = imp_record(im, c->inst, IMP_VECTOR);
  rec->elems = rc_arena_alloc(&im->tmp, n * sizeof *rec->elems);
  rec->n = n;
  for (uint32_t e = 0; e < n; e++) {
    for (unsigned i = 0; i < nargs; i++) args[i] = elems[i][e];
    rec->elems[e] = &rc_build_call(&im->b, bi, rt, args, nargs, NULL)->v;
  }
  return 0;
}

/* A work-item query. clang calls them with size_t results and usually truncates right away
 * (int gid = get_global_id(0)); a lone trunc user is folded into the query's result type. */
static int query(importer *im, const callinfo *c, rc_builtin bi, int dim) {
  rc_type t = imp_type(im, LLVMTypeOf(c->inst), c->inst);
  if (t == RC_VOID) return -1;
  LLVMValueRef folded = NULL;
  LLVMUseRef use = LLVMGetFirstUse(c->inst);
  if (use && !LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsATruncInst(user) && bridge_scalar_type(LLVMTypeOf(user)) != RC_I1) {
      folded = user;
      t = imp_type(im, LLVMTypeOf(user), user);
    }
  }
  rc_value *d = rc_const_int(im->k, RC_I32, dim < 0 ? 0 : dim);
  rc_value *r = &rc_build_call(&im->b, bi, t, &d, dim < 0 ? 0 : 1, NULL)->v;
  imp_name(im, r, c->inst);
  if (folded) {
    imp_name(im, r, folded);
    imp_set_value(im, folded, r);
  }
  imp_set_value(im, c->inst, r);
  return 0;
}

static int query_dim(importer *im, const callinfo *c, rc_builtin bi) {
  LLVMValueRef d = LLVMGetNumArgOperands(c->inst) ? LLVMGetArgOperand(c->inst, 0) : NULL;
  if (!d || !LLVMIsAConstantInt(d) || LLVMConstIntGetZExtValue(d) > 2)
    return imp_error(im, c->inst, "work-item queries need a constant dimension 0, 1 or 2");
  return query(im, c, bi, (int)LLVMConstIntGetZExtValue(d));
}

static int barrier(importer *im, const callinfo *c) {
  rc_build_call(&im->b, RC_BI_BARRIER, RC_VOID, NULL, 0, NULL);
  return nothing(im, c);
}

/* ---- LLVM intrinsics ---------------------------------------------------------------------------------- */

static bool has_prefix(const callinfo *c, const char *p) {
  size_t n = strlen(p);
  return c->namelen >= n && memcmp(c->name, p, n) == 0;
}

/* "llvm.sqrt" matches llvm.sqrt and llvm.sqrt.f32, not llvm.sqrtx */
static bool is_family(const callinfo *c, const char *base) {
  size_t n = strlen(base);
  return has_prefix(c, base) && (c->namelen == n || c->name[n] == '.');
}

static unsigned sig_args(rc_builtin bi) {
  switch (rc_builtin_get(bi)->sig) {
  case RC_SIG_F2: case RC_SIG_I2: return 2;
  case RC_SIG_F3: return 3;
  default: return 1;
  }
}

static int intrinsic(importer *im, const callinfo *c) {
  static const char *const ignored[] = {
      "llvm.lifetime.", "llvm.dbg.", "llvm.assume", "llvm.experimental.noalias.scope.decl",
      "llvm.invariant.", "llvm.donothing", "llvm.sideeffect", "llvm.amdgcn.s.waitcnt",
      "llvm.pseudoprobe"};
  for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
    if (has_prefix(c, ignored[i])) return nothing(im, c);
  static const char *const ids[] = {"llvm.amdgcn.workitem.id.", "llvm.amdgcn.workgroup.id."};
  for (int i = 0; i < 2; i++)
    if (has_prefix(c, ids[i]) && c->namelen == strlen(ids[i]) + 1) {
      int dim = c->name[c->namelen - 1] - 'x';
      if (dim < 0 || dim > 2) break;
      return query(im, c, i == 0 ? RC_BI_LOCAL_ID : RC_BI_GROUP_ID, dim);
    }
  if (is(c, "llvm.amdgcn.dispatch.ptr") || is(c, "llvm.amdgcn.implicitarg.ptr")) {
    imp_record(im, c->inst, is(c, "llvm.amdgcn.dispatch.ptr") ? IMP_DISPATCH_PTR : IMP_IMPLICITARG_PTR);
    return 0;
  }
  if (is(c, "llvm.amdgcn.s.barrier")) return barrier(im, c);
  if (is_family(c, "llvm.amdgcn.rsq")) return builtin(im, c, RC_BI_RSQRT, 1);
  if (is_family(c, "llvm.fmuladd")) return builtin(im, c, RC_BI_FMA, 3);
  if (is_family(c, "llvm.memcpy")) return builtin(im, c, RC_BI_MEMCPY, 3);
  if (is_family(c, "llvm.memset")) return builtin(im, c, RC_BI_MEMSET, 3);
  uint32_t n;
  const bridge_math *mt = bridge_math_table(&n);
  for (uint32_t i = 0; i < n; i++)
    if (mt[i].intrinsic && is_family(c, mt[i].intrinsic)) return builtin(im, c, mt[i].bi, sig_args(mt[i].bi));
  return imp_error(im, c->inst, "unsupported intrinsic %.*s", (int)c->namelen, c->name);
}

/* ---- the dispatch packet and implicit arguments (amdgcn) ------------------------------------------------- */

int imp_special_load(importer *im, LLVMValueRef load, const imported *base) {
  rc_type t = imp_type(im, LLVMTypeOf(load), load);
  if (t == RC_VOID) return -1;
  int64_t off = base->offset;
  rc_value *r = NULL;
  if (base->kind == IMP_DISPATCH_PTR) {
    /* hsa_kernel_dispatch_packet_t: workgroup_size_x/y/z (u16) at 4, 6, 8; grid_size_x/y/z (u32)
     * at 12, 16, 20 */
    rc_builtin bi = RC_BI_COUNT;
    int dim = 0;
    if (t == RC_I16 && off >= 4 && off <= 8 && off % 2 == 0) bi = RC_BI_LOCAL_SIZE, dim = (int)(off - 4) / 2;
    if (t == RC_I32 && off >= 12 && off <= 20 && off % 4 == 0) bi = RC_BI_GLOBAL_SIZE, dim = (int)(off - 12) / 4;
    if (bi != RC_BI_COUNT) {
      rc_value *d = rc_const_int(im->k, RC_I32, dim);
      r = &rc_build_call(&im->b, bi, t, &d, 1, NULL)->v;
    }
  } else if (t == RC_I64 && (off == 0 || off == 8 || off == 16)) {
    r = rc_const_int(im->k, RC_I64, 0); /* the global offset: reconv launches start at 0 */
  }
  if (!r)
    return imp_error(im, load, "unsupported load of the amdgcn %s at offset %lld",
                     base->kind == IMP_DISPATCH_PTR ? "dispatch packet" : "implicit arguments",
                     (long long)off);
  imp_name(im, r, load);
  imp_set_value(im, load, r);
  return 0;
}

/* ---- OpenCL C functions ---------------------------------------------------------------------------------------- */

/* clamp(x, lo, hi) = min(max(x, lo), hi), dot(a, b) = sum a[i] * b[i] */
static int clamp(importer *im, const callinfo *c, rc_builtin maxb, rc_builtin minb) {
  rc_value *x = arg(im, c, 0), *lo = arg(im, c, 1), *hi = arg(im, c, 2);
  if (!x || !lo || !hi) return -1;
  rc_value *a[2] = {x, lo};
  rc_value *m = &rc_build_call(&im->b, maxb, (rc_type)x->type, a, 2, NULL)->v;
  rc_value *b[2] = {m, hi};
  return result(im, c, &rc_build_call(&im->b, minb, (rc_type)x->type, b, 2, NULL)->v);
}

static int dot(importer *im, const callinfo *c) {
  LLVMValueRef a = LLVMGetArgOperand(c->inst, 0), b = LLVMGetArgOperand(c->inst, 1);
  if (LLVMGetTypeKind(LLVMTypeOf(a)) != LLVMVectorTypeKind) {
    rc_value *x = arg(im, c, 0), *y = arg(im, c, 1);
    return x && y ? result(im, c, rc_build_binop(&im->b, RC_OP_FMUL, x, y, NULL)) : -1;
  }
  rc_value **ea, **eb;
  uint32_t na, nb;
  if (imp_elems(im, a, &ea, &na) || imp_elems(im, b, &eb, &nb)) return -1;
  rc_value *sum = NULL;
  for (uint32_t i = 0; i < na && i < nb; i++) {
    rc_value *p = rc_build_binop(&im->b, RC_OP_FMUL, ea[i], eb[i], NULL);
    sum = sum ? rc_build_binop(&im->b, RC_OP_FADD, sum, p, NULL) : p;
  }
  return result(im, c, sum);
}

static int atomic(importer *im, const callinfo *c, const char *op) {
  static const struct { const char *name; rc_builtin bi; } ops[] = {
      {"add", RC_BI_ATOMIC_ADD}, {"sub", RC_BI_ATOMIC_SUB}, {"xchg", RC_BI_ATOMIC_XCHG},
      {"and", RC_BI_ATOMIC_AND}, {"or", RC_BI_ATOMIC_OR},   {"xor", RC_BI_ATOMIC_XOR},
      {"min", RC_BI_ATOMIC_SMIN}, {"max", RC_BI_ATOMIC_SMAX}, {"inc", RC_BI_ATOMIC_ADD},
      {"dec", RC_BI_ATOMIC_SUB}, {"cmpxchg", RC_BI_ATOMIC_CMPXCHG}};
  if (code_float(c->code)) return imp_error(im, c->inst, "atomics on floats are not supported");
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    if (strcmp(ops[i].name, op) != 0) continue;
    rc_builtin bi = ops[i].bi;
    if (code_unsigned(c->code) && bi == RC_BI_ATOMIC_SMIN) bi = RC_BI_ATOMIC_UMIN;
    if (code_unsigned(c->code) && bi == RC_BI_ATOMIC_SMAX) bi = RC_BI_ATOMIC_UMAX;
    rc_type t = imp_type(im, LLVMTypeOf(c->inst), c->inst);
    if (t == RC_VOID) return -1;
    rc_value *args[3] = {arg(im, c, 0), NULL, NULL};
    unsigned n = bi == RC_BI_ATOMIC_CMPXCHG ? 3 : 2;
    if (strcmp(op, "inc") == 0 || strcmp(op, "dec") == 0) args[1] = rc_const_int(im->k, t, 1);
    else args[1] = arg(im, c, 1);
    if (n == 3) args[2] = arg(im, c, 2);
    for (unsigned a = 0; a < n; a++)
      if (!args[a]) return -1;
    return result(im, c, &rc_build_call(&im->b, bi, t, args, n, NULL)->v);
  }
  return imp_error(im, c->inst, "unsupported atomic function %.*s", (int)c->namelen, c->name);
}

/* vloadN(offset, p) and vstoreN(data, offset, p): N elements at p + offset * N */
static int vload_vstore(importer *im, const callinfo *c, bool load, unsigned n) {
  unsigned pi = load ? 1 : 2, oi = load ? 0 : 1;
  LLVMTypeRef vt = LLVMTypeOf(load ? c->inst : LLVMGetArgOperand(c->inst, 0));
  if (LLVMGetTypeKind(vt) != LLVMVectorTypeKind || LLVMGetVectorSize(vt) != n)
    return imp_error(im, c->inst, "unexpected vload/vstore signature");
  rc_type et = imp_type(im, LLVMGetElementType(vt), c->inst);
  rc_value *p = arg(im, c, pi), *off = arg(im, c, oi);
  if (et == RC_VOID || !p || !off) return -1;
  int64_t esize = (int64_t)LLVMABISizeOfType(im->td, LLVMGetElementType(vt));
  rc_value *base = rc_build_gep(&im->b, p, off, (int64_t)n * esize, NULL);
  rc_value **data = NULL;
  uint32_t nd = 0;
  if (!load && imp_elems(im, LLVMGetArgOperand(c->inst, 0), &data, &nd)) return -1;
  imported *rec = load ? imp_record(im, c->inst, IMP_VECTOR) : imp_record(im, c->inst, IMP_NOTHING);
  if (load) {
    rec->elems = rc_arena_alloc(&im->tmp, n * sizeof *rec->elems);
    rec->n = n;
  }
  for (unsigned i = 0; i < n; i++) {
    rc_value *at = imp_offset(im, base, (int64_t)i * esize, esize, NULL);
    if (load) rec->elems[i] = rc_build_load(&im->b, et, at, NULL);
    else rc_build_store(&im->b, data[i], at);
  }
  return 0;
}

/* convert_T(x) with the default rounding (toward zero to integers, to nearest to floats) */
static int convert(importer *im, const callinfo *c) {
  rc_type to = imp_type(im, LLVMTypeOf(c->inst), c->inst);
  rc_value *x = arg(im, c, 0);
  if (to == RC_VOID || !x) return -1;
  rc_type from = (rc_type)x->type;
  bool to_unsigned = c->name[8] == 'u'; /* convert_uint, convert_uchar ... */
  bool from_unsigned = code_unsigned(c->code);
  rc_opcode op;
  if (rc_type_is_float(from) && rc_type_is_float(to))
    op = from == to ? RC_OP_NONE : to == RC_F64 ? RC_OP_FPEXT : RC_OP_FPTRUNC;
  else if (rc_type_is_float(from))
    op = to_unsigned ? RC_OP_FPTOUI : RC_OP_FPTOSI;
  else if (rc_type_is_float(to))
    op = from_unsigned ? RC_OP_UITOFP : RC_OP_SITOFP;
  else if (rc_type_bits(to) == rc_type_bits(from))
    op = RC_OP_NONE;
  else
    op = rc_type_bits(to) < rc_type_bits(from) ? RC_OP_TRUNC : from_unsigned ? RC_OP_ZEXT : RC_OP_SEXT;
  return result(im, c, op == RC_OP_NONE ? x : rc_build_cast(&im->b, op, x, to, NULL));
}

/* isnan, isinf, isfinite (1 or 0 for scalars), select(a, b, c) = c ? b : a, mix(x, y, a) */
static int float_test(importer *im, const callinfo *c) {
  rc_type t = imp_type(im, LLVMTypeOf(c->inst), c->inst);
  rc_value *x = arg(im, c, 0);
  if (t == RC_VOID || !x) return -1;
  rc_value *cond;
  if (is(c, "isnan")) {
    cond = rc_build_cmp(&im->b, RC_CMP_UNO, x, x, NULL);
  } else {
    rc_value *ax = &rc_build_call(&im->b, RC_BI_FABS, (rc_type)x->type, &x, 1, NULL)->v;
    rc_value *inf = rc_const_float(im->k, (rc_type)x->type, INFINITY);
    cond = rc_build_cmp(&im->b, is(c, "isinf") ? RC_CMP_OEQ : RC_CMP_OLT, ax, inf, NULL);
  }
  return result(im, c, rc_build_cast(&im->b, RC_OP_ZEXT, cond, t, NULL));
}

static int opencl(importer *im, callinfo *c) {
  uint32_t n;
  const bridge_query *q = bridge_query_table(&n);
  for (uint32_t i = 0; i < n; i++)
    if (is(c, q[i].opencl))
      return rc_builtin_get(q[i].bi)->sig == RC_SIG_QUERY ? query(im, c, q[i].bi, -1)
                                                            : query_dim(im, c, q[i].bi);
  if (is(c, "get_enqueued_local_size")) return query_dim(im, c, RC_BI_LOCAL_SIZE);
  if (is(c, "get_global_offset")) {
    rc_type t = imp_type(im, LLVMTypeOf(c->inst), c->inst);
    return t == RC_VOID ? -1 : result(im, c, rc_const_int(im->k, t, 0));
  }
  if (is(c, "barrier") || is(c, "work_group_barrier")) return barrier(im, c);
  if (is(c, "mem_fence") || is(c, "read_mem_fence") || is(c, "write_mem_fence")) return nothing(im, c);
  /* native_ and half_ variants compute the same function with less precision */
  if (has_prefix(c, "native_") || has_prefix(c, "half_")) {
    size_t skip = c->name[0] == 'n' ? 7 : 5;
    c->name += skip;
    c->namelen -= skip;
    if (is(c, "recip") || is(c, "divide")) {
      rc_value *x = arg(im, c, 0);
      if (!x) return -1;
      if (is(c, "divide")) {
        rc_value *y = arg(im, c, 1);
        return y ? result(im, c, rc_build_binop(&im->b, RC_OP_FDIV, x, y, NULL)) : -1;
      }
      return result(im, c, rc_build_binop(&im->b, RC_OP_FDIV, rc_const_float(im->k, (rc_type)x->type, 1.0), x, NULL));
    }
  }
  bool f = code_float(c->code), u = code_unsigned(c->code);
  if (is(c, "mad")) return builtin(im, c, RC_BI_FMA, 3);
  if (is(c, "min")) return builtin(im, c, f ? RC_BI_FMIN : u ? RC_BI_UMIN : RC_BI_SMIN, 2);
  if (is(c, "max")) return builtin(im, c, f ? RC_BI_FMAX : u ? RC_BI_UMAX : RC_BI_SMAX, 2);
  if (is(c, "clamp"))
    return f ? clamp(im, c, RC_BI_FMAX, RC_BI_FMIN) : u ? clamp(im, c, RC_BI_UMAX, RC_BI_UMIN)
                                                      : clamp(im, c, RC_BI_SMAX, RC_BI_SMIN);
  if (is(c, "abs") && u) return result(im, c, arg(im, c, 0)); /* abs of an unsigned value */
  if (is(c, "mul24") || is(c, "mad24")) {
    rc_value *x = arg(im, c, 0), *y = arg(im, c, 1);
    if (!x || !y) return -1;
    rc_value *p = rc_build_binop(&im->b, RC_OP_MUL, x, y, NULL);
    if (is(c, "mul24")) return result(im, c, p);
    rc_value *z = arg(im, c, 2);
    return z ? result(im, c, rc_build_binop(&im->b, RC_OP_ADD, p, z, NULL)) : -1;
  }
  if (is(c, "dot")) return dot(im, c);
  bool vector_result = LLVMGetTypeKind(LLVMTypeOf(c->inst)) == LLVMVectorTypeKind;
  if ((has_prefix(c, "vload") || has_prefix(c, "vstore")) && c->namelen <= 8) {
    size_t skip = c->name[1] == 'l' ? 5 : 6;
    unsigned n = 0;
    for (size_t i = skip; i < c->namelen && c->name[i] >= '0' && c->name[i] <= '9'; i++)
      n = n * 10 + (unsigned)(c->name[i] - '0');
    if (n >= 2) return vload_vstore(im, c, skip == 5, n);
  }
  if (!vector_result && has_prefix(c, "convert_") && !memchr(c->name + 8, '_', c->namelen - 8))
    return convert(im, c);
  if (!vector_result && (is(c, "isnan") || is(c, "isinf") || is(c, "isfinite")))
    return float_test(im, c);
  if (!vector_result && is(c, "select")) {
    rc_value *a = arg(im, c, 0), *b = arg(im, c, 1), *cc = arg(im, c, 2);
    if (!a || !b || !cc) return -1;
    rc_value *nz = rc_build_cmp(&im->b, RC_CMP_NE, cc, rc_const_int(im->k, (rc_type)cc->type, 0), NULL);
    return result(im, c, rc_build_select(&im->b, nz, b, a, NULL));
  }
  if (!vector_result && is(c, "mix")) {
    rc_value *x = arg(im, c, 0), *y = arg(im, c, 1), *a = arg(im, c, 2);
    if (!x || !y || !a) return -1;
    rc_value *d = rc_build_binop(&im->b, RC_OP_FSUB, y, x, NULL);
    rc_value *m = rc_build_binop(&im->b, RC_OP_FMUL, d, a, NULL);
    return result(im, c, rc_build_binop(&im->b, RC_OP_FADD, x, m, NULL));
  }
  if (has_prefix(c, "atomic_") || has_prefix(c, "atom_")) {
    char op[16];
    size_t skip = c->name[4] == '_' ? 5 : 7;
    snprintf(op, sizeof op, "%.*s", (int)(c->namelen - skip), c->name + skip);
    return atomic(im, c, op);
  }
  const bridge_math *mt = bridge_math_table(&n);
  for (uint32_t i = 0; i < n; i++)
    if (mt[i].opencl && is(c, mt[i].opencl)) return builtin(im, c, mt[i].bi, sig_args(mt[i].bi));
  return -2; /* not an OpenCL function reconv knows */
}

int imp_call(importer *im, LLVMValueRef inst) {
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  if (!LLVMIsAFunction(callee))
    return imp_error(im, inst, LLVMIsAInlineAsm(callee) ? "inline assembly is not supported"
                                                         : "indirect calls are not supported");
  size_t n;
  const char *name = LLVMGetValueName2(callee, &n);
  callinfo c = {inst, name, n, 0, false};
  if (has_prefix(&c, "llvm.")) return intrinsic(im, &c);
  demangle(&c, name, n);
  int r = opencl(im, &c);
  if (r != -2) return r;
  if (!LLVMIsDeclaration(callee))
    return imp_error(im, inst, "call of function @%.*s: reconv imports kernels without calls; "
                               "compile with -O1 or higher so that clang inlines it",
                     (int)n, name);
  return imp_error(im, inst, "call of unsupported function @%.*s", (int)n, name);
}
