/* LLVM values -> reconv values: the map from LLVM values to what they became, names and types,
 * and the operands that are not instructions — constants, constant expressions, global variables
 * — which become instructions in the entry block's prologue when they need computing. Also the
 * getelementptr walk shared by instructions and constant expressions.
 *
 * - __local globals (address space 3) become `localmem` (one block per work-group), read-only
 *   globals with an initialiser (__constant data) a private copy initialised at the kernel's start;
 *   other globals have no place in reconv's memory model.
 * - getelementptr becomes `gep` with byte scales: one per variable index, one for the sum of the
 *   constant parts (struct fields, constant indices). */
#include "bridge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the value map ---------------------------------------------------------------------------------- */

imported *imp_lookup(importer *im, LLVMValueRef v) {
  return ptrmap_get(&im->values, v);
}

imported *imp_record(importer *im, LLVMValueRef v, imp_kind kind) {
  imported *r = rc_arena_alloc(&im->tmp, sizeof *r);
  r->kind = kind;
  ptrmap_put(&im->values, v, r);
  return r;
}

void imp_set_value(importer *im, LLVMValueRef v, rc_value *rv) {
  imp_record(im, v, IMP_VALUE)->v = rv;
}

void imp_name(importer *im, rc_value *rv, LLVMValueRef from) {
  if (!rv || rv->kind != RC_V_INSTR || rv->name) return;
  size_t n;
  const char *name = LLVMGetValueName2(from, &n);
  if (!n) return;
  rc_strbuf sb;
  rc_sb_init(&sb);
  bridge_sanitize(name, n, "v", &sb);
  bridge_name_value(im->k, rv, sb.data);
  rc_sb_free(&sb);
}

rc_type imp_type(importer *im, LLVMTypeRef t, LLVMValueRef at) {
  rc_type r = bridge_scalar_type(t);
  if (r == RC_VOID) {
    char *s = LLVMPrintTypeToString(t);
    imp_error(im, at, "type %s is not supported", s);
    LLVMDisposeMessage(s);
  }
  return r;
}

/* ---- the entry prologue: local memory, constant data, constant expressions ----------------------------- */

void imp_prologue_begin(importer *im, rc_builder *saved) {
  *saved = im->b;
  rc_instr *pos = im->prologue_last ? im->prologue_last->next : im->entry->first;
  if (pos) rc_builder_before(&im->b, pos); else rc_builder_at_end(&im->b, im->entry);
}

void imp_prologue_end(importer *im, const rc_builder *saved) {
  im->prologue_last = im->b.before ? im->b.before->prev : im->entry->last;
  im->b = *saved;
}

rc_value *imp_offset(importer *im, rc_value *base, int64_t offset, int64_t elem, const char *name) {
  if (offset == 0) return base;
  if (elem <= 0 || offset % elem) elem = 1;
  return rc_build_gep(&im->b, base, rc_const_int(im->k, RC_I64, offset / elem), elem, name);
}

/* Store the constant c at base + offset (initialisers of __constant data). */
static int store_constant(importer *im, LLVMValueRef g, rc_value *base, int64_t offset, LLVMValueRef c,
                          uint64_t *budget) {
  LLVMTypeRef t = LLVMTypeOf(c);
  uint64_t size = LLVMABISizeOfType(im->td, t);
  if (LLVMIsAUndefValue(c)) return 0;
  if (LLVMIsAConstantAggregateZero(c) || (LLVMIsNull(c) && size > 8)) {
    rc_value *args[3] = {imp_offset(im, base, offset, 1, NULL), rc_const_int(im->k, RC_I8, 0),
                         rc_const_int(im->k, RC_I64, (int64_t)size)};
    rc_build_call(&im->b, RC_BI_MEMSET, RC_VOID, args, 3, NULL);
    return 0;
  }
  rc_type st = bridge_scalar_type(t);
  if (st != RC_VOID) {
    if (*budget == 0) return imp_error(im, g, "initialiser of @%s is too large", LLVMGetValueName(g));
    --*budget;
    rc_value *v = imp_scalar(im, c);
    if (!v) return -1;
    rc_build_store(&im->b, v, imp_offset(im, base, offset, rc_type_size(st), NULL));
    return 0;
  }
  unsigned n;
  LLVMTypeKind kind = LLVMGetTypeKind(t);
  if (kind == LLVMArrayTypeKind || kind == LLVMVectorTypeKind) {
    n = kind == LLVMArrayTypeKind ? LLVMGetArrayLength(t) : LLVMGetVectorSize(t);
    int64_t esize = (int64_t)LLVMABISizeOfType(im->td, LLVMGetElementType(t));
    for (unsigned i = 0; i < n; i++) {
      LLVMValueRef e = LLVMIsAConstantDataSequential(c) ? LLVMGetElementAsConstant(c, i)
                                                        : LLVMGetOperand(c, i);
      if (store_constant(im, g, base, offset + (int64_t)i * esize, e, budget)) return -1;
    }
    return 0;
  }
  if (kind == LLVMStructTypeKind) {
    n = LLVMCountStructElementTypes(t);
    for (unsigned i = 0; i < n; i++)
      if (store_constant(im, g, base, offset + (int64_t)LLVMOffsetOfElement(im->td, t, i),
                         LLVMGetOperand(c, i), budget))
        return -1;
    return 0;
  }
  return imp_error(im, g, "the initialiser of @%s has a constant reconv cannot import",
                   LLVMGetValueName(g));
}

/* A global variable: __local data becomes localmem (one block per work-group), read-only data with
 * an initialiser becomes a private copy initialised at the kernel's start. */
static rc_value *import_global(importer *im, LLVMValueRef g) {
  LLVMTypeRef vt = LLVMGlobalGetValueType(g);
  uint64_t size = LLVMABISizeOfType(im->td, vt);
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(g));
  size_t n;
  const char *gname = LLVMGetValueName2(g, &n);
  rc_strbuf name;
  rc_sb_init(&name);
  bridge_sanitize(gname, n, "g", &name);
  rc_value *r = NULL;
  if (size == 0 || size > (1u << 24)) {
    imp_error(im, g, "global @%s has size %llu, outside 1..16777216 bytes", name.data,
              (unsigned long long)size);
  } else if (as == 3) {
    rc_builder saved;
    imp_prologue_begin(im, &saved);
    r = rc_build_localmem(&im->b, (int64_t)size, NULL);
    bridge_name_value(im->k, r, name.data);
    imp_prologue_end(im, &saved);
  } else if (LLVMIsGlobalConstant(g) && LLVMGetInitializer(g)) {
    rc_builder saved;
    imp_prologue_begin(im, &saved);
    r = rc_build_alloca(&im->b, (int64_t)size, NULL);
    bridge_name_value(im->k, r, name.data);
    uint64_t budget = 1u << 16;
    if (store_constant(im, g, r, 0, LLVMGetInitializer(g), &budget)) r = NULL;
    imp_prologue_end(im, &saved);
  } else {
    imp_error(im, im->cur,
              "global variable @%s in address space %u is not supported (kernels take data through "
              "parameters, __local and __constant variables)",
              name.data, as);
  }
  rc_sb_free(&name);
  if (r) imp_set_value(im, g, r);
  return r;
}

/* ---- getelementptr ---------------------------------------------------------------------------------- */

/* Walk the indices of a getelementptr (instruction or constant expression). The first index steps
 * over whole source elements, later ones select struct fields (constant byte offsets) or array and
 * vector elements. Constant parts are summed into *offset; a variable index becomes `gep *cur, idx,
 * scale`, or makes the walk return 1 when cur is NULL. *last_scale is the scale of the innermost
 * index. Returns 0, 1, or -1 after an error. */
static int gep_walk(importer *im, LLVMValueRef gep, rc_value **cur, int64_t *offset,
                    int64_t *last_scale) {
  unsigned nops = (unsigned)LLVMGetNumOperands(gep);
  LLVMTypeRef t = LLVMGetGEPSourceElementType(gep);
  *offset = 0;
  *last_scale = 1;
  for (unsigned i = 1; i < nops; i++) {
    LLVMValueRef idx = LLVMGetOperand(gep, i);
    if (LLVMGetTypeKind(LLVMTypeOf(idx)) == LLVMVectorTypeKind)
      return imp_error(im, gep, "getelementptr with vector indices is not supported");
    if (i > 1 && LLVMGetTypeKind(t) == LLVMStructTypeKind) {
      unsigned field = (unsigned)LLVMConstIntGetZExtValue(idx);
      *offset += (int64_t)LLVMOffsetOfElement(im->td, t, field);
      t = LLVMStructGetTypeAtIndex(t, field);
      *last_scale = 1;
      continue;
    }
    if (i > 1) t = LLVMGetElementType(t);
    int64_t scale = (int64_t)LLVMABISizeOfType(im->td, t);
    *last_scale = scale;
    if (LLVMIsAConstantInt(idx)) {
      *offset += LLVMConstIntGetSExtValue(idx) * scale;
    } else if (!cur) {
      return 1;
    } else {
      rc_value *iv = imp_scalar(im, idx);
      if (!iv) return -1;
      *cur = rc_build_gep(&im->b, *cur, iv, scale, NULL);
    }
  }
  return 0;
}

rc_value *imp_gep(importer *im, LLVMValueRef gep, const char *name) {
  if (LLVMGetTypeKind(LLVMTypeOf(gep)) == LLVMVectorTypeKind) {
    imp_error(im, gep, "getelementptr on vectors of pointers is not supported");
    return NULL;
  }
  rc_value *base = imp_scalar(im, LLVMGetOperand(gep, 0));
  if (!base) return NULL;
  rc_value *cur = base;
  int64_t offset, last_scale;
  if (gep_walk(im, gep, &cur, &offset, &last_scale)) return NULL;
  cur = imp_offset(im, cur, offset, last_scale, NULL);
  if (cur != base && name) bridge_name_value(im->k, cur, name);
  return cur;
}

int imp_special_gep(importer *im, LLVMValueRef gep, const imported *base) {
  int64_t off, last_scale;
  int r = gep_walk(im, gep, NULL, &off, &last_scale);
  if (r > 0)
    return imp_error(im, gep, "the amdgcn dispatch and implicit-argument pointers are only "
                              "supported with constant offsets");
  if (r < 0) return -1;
  imported *rec = imp_record(im, gep, base->kind);
  rec->offset = base->offset + off;
  return 0;
}

/* ---- operands ----------------------------------------------------------------------------------------- */

static rc_value *import_constexpr(importer *im, LLVMValueRef c) {
  LLVMOpcode op = LLVMGetConstOpcode(c);
  LLVMValueRef src = LLVMGetNumOperands(c) ? LLVMGetOperand(c, 0) : NULL;
  rc_value *r = NULL;
  if ((op == LLVMBitCast || op == LLVMAddrSpaceCast) &&
      bridge_scalar_type(LLVMTypeOf(c)) == bridge_scalar_type(LLVMTypeOf(src))) {
    r = imp_scalar(im, src);
  } else if (op == LLVMIntToPtr && LLVMIsAConstantInt(src)) {
    r = rc_const_int(im->k, RC_PTR, (int64_t)LLVMConstIntGetZExtValue(src));
  } else if (op == LLVMGetElementPtr || op == LLVMPtrToInt || op == LLVMIntToPtr || op == LLVMBitCast) {
    rc_builder saved;
    imp_prologue_begin(im, &saved);
    if (op == LLVMGetElementPtr) {
      r = imp_gep(im, c, NULL);
    } else {
      rc_type to = imp_type(im, LLVMTypeOf(c), im->cur);
      rc_value *x = to == RC_VOID ? NULL : imp_scalar(im, src);
      rc_opcode rop = op == LLVMPtrToInt ? RC_OP_PTRTOINT : op == LLVMIntToPtr ? RC_OP_INTTOPTR
                                                                                 : RC_OP_BITCAST;
      if (x) r = rc_build_cast(&im->b, rop, x, to, NULL);
    }
    imp_prologue_end(im, &saved);
  } else {
    char *text = LLVMPrintValueToString(c);
    imp_error(im, im->cur, "unsupported constant expression %s", text);
    LLVMDisposeMessage(text);
    return NULL;
  }
  if (r) imp_set_value(im, c, r);
  return r;
}

rc_value *imp_scalar(importer *im, LLVMValueRef v) {
  imported *r = imp_lookup(im, v);
  if (r) {
    if (r->kind == IMP_VALUE) return r->v;
    imp_error(im, im->cur, "operand %s cannot be used here",
              r->kind == IMP_VECTOR ? "vector" : r->kind == IMP_CMPXCHG ? "cmpxchg result"
                                                                        : "amdgcn pointer");
    return NULL;
  }
  LLVMTypeRef t = LLVMTypeOf(v);
  if (LLVMIsAInstruction(v)) {
    if (im->unreachable) {
      rc_type rt = imp_type(im, t, v);
      return rt == RC_VOID ? NULL : rc_undef(im->k, rt);
    }
    imp_error(im, im->cur, "operand used before its definition (bug in the importer)");
    return NULL;
  }
  if (LLVMIsAGlobalVariable(v)) return import_global(im, v);
  if (LLVMIsAConstantExpr(v)) return import_constexpr(im, v);
  if (LLVMIsAFunction(v) || LLVMIsAGlobalAlias(v) || LLVMIsABlockAddress(v)) {
    imp_error(im, im->cur, "addresses of functions and labels are not supported");
    return NULL;
  }
  rc_type rt = imp_type(im, t, im->cur);
  if (rt == RC_VOID) return NULL;
  if (LLVMIsAUndefValue(v)) return rc_undef(im->k, rt);
  if (LLVMIsAConstantInt(v)) return rc_const_int(im->k, rt, LLVMConstIntGetSExtValue(v));
  if (LLVMIsAConstantFP(v)) {
    LLVMBool loses;
    return rc_const_float(im->k, rt, LLVMConstRealGetDouble(v, &loses));
  }
  if (LLVMIsAConstantPointerNull(v)) return rc_const_int(im->k, RC_PTR, 0);
  char *text = LLVMPrintValueToString(v);
  imp_error(im, im->cur, "unsupported operand %s", text);
  LLVMDisposeMessage(text);
  return NULL;
}

int imp_elems(importer *im, LLVMValueRef v, rc_value ***elems, uint32_t *n) {
  imported *r = imp_lookup(im, v);
  if (r) {
    if (r->kind != IMP_VECTOR) return imp_error(im, im->cur, "expected a vector operand");
    *elems = r->elems;
    *n = r->n;
    return 0;
  }
  LLVMTypeRef t = LLVMTypeOf(v);
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) return imp_error(im, im->cur, "expected a vector");
  uint32_t cnt = LLVMGetVectorSize(t);
  rc_value **e = rc_arena_alloc(&im->tmp, cnt * sizeof *e);
  LLVMTypeRef et = LLVMGetElementType(t);
  for (uint32_t i = 0; i < cnt; i++) {
    LLVMValueRef c;
    if (LLVMIsAConstantDataVector(v)) c = LLVMGetElementAsConstant(v, i);
    else if (LLVMIsAConstantVector(v)) c = LLVMGetOperand(v, i);
    else if (LLVMIsAConstantAggregateZero(v)) c = LLVMConstNull(et);
    else if (LLVMIsAUndefValue(v)) c = LLVMGetUndef(et);
    else if (LLVMIsAInstruction(v) && im->unreachable) c = LLVMGetUndef(et);
    else return imp_error(im, im->cur, "unsupported vector operand");
    if (!(e[i] = imp_scalar(im, c))) return -1;
  }
  *elems = e;
  *n = cnt;
  return 0;
}

