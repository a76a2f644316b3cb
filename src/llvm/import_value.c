/* LLVM types and operands in reconv's view: types map one to one (iN, half, float, double,
 * pointers by address space, vectors, arrays, structs; the rest — label, token, metadata, x86_fp80,
 * opaque structs — become types reconv only carries); operands that are not instructions become
 * constants, globals, or view instructions that compute constant expressions in the entry block.
 *
 * reconv's memory has its own layout (docs/ir.md, "Types"): natural alignment and 8-byte pointers
 * in every address space. It agrees with LLVM's data layout for spir64 and for amdgcn's 64-bit
 * address spaces; where amdgcn's pointers are 32 bits (local, private), structs holding them are
 * laid out differently in reconv's memory, consistently so: getelementptr offsets, allocas, loads
 * and stores all follow reconv's layout. */
#include "bridge.h"
#include "llvm_compat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32 /* type and constant nesting reconv follows (as the .rir parser) */

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

/* ---- types ------------------------------------------------------------------------------------------ */

static rc_type carried(importer *im, LLVMTypeRef t) {
  char *s = LLVMPrintTypeToString(t);
  rc_type r = rc_type_other(im->m, s);
  LLVMDisposeMessage(s);
  return r;
}

static rc_type type_at(importer *im, LLVMTypeRef t, unsigned depth) {
  uintptr_t cached = (uintptr_t)ptrmap_get(&im->types, t);
  if (cached) return (rc_type)(cached - 1);
  rc_type r = RC_VOID;
  if (depth > MAX_DEPTH) return carried(im, t);
  switch (LLVMGetTypeKind(t)) {
  case LLVMVoidTypeKind: r = RC_VOID; break;
  case LLVMHalfTypeKind: r = RC_F16; break;
  case LLVMFloatTypeKind: r = RC_F32; break;
  case LLVMDoubleTypeKind: r = RC_F64; break;
  case LLVMIntegerTypeKind: r = rc_type_int(im->m, LLVMGetIntTypeWidth(t)); break;
  case LLVMPointerTypeKind: r = rc_type_ptr(im->m, LLVMGetPointerAddressSpace(t)); break;
  case LLVMVectorTypeKind:
    r = rc_type_vector(im->m, type_at(im, LLVMGetElementType(t), depth + 1), LLVMGetVectorSize(t));
    break;
  case LLVMArrayTypeKind:
    r = rc_type_array(im->m, type_at(im, LLVMGetElementType(t), depth + 1), LLVMGetArrayLength(t));
    break;
  case LLVMStructTypeKind: {
    if (LLVMIsOpaqueStruct(t)) break;
    unsigned n = LLVMCountStructElementTypes(t);
    LLVMTypeRef *ft = rc_xcalloc(n ? n : 1, sizeof *ft);
    rc_type *f = rc_xcalloc(n ? n : 1, sizeof *f);
    LLVMGetStructElementTypes(t, ft);
    bool ok = true;
    for (unsigned i = 0; i < n && ok; i++) ok = rc_type_is_value(im->m, f[i] = type_at(im, ft[i], depth + 1));
    if (ok) r = rc_type_struct(im->m, f, n, LLVMIsPackedStruct(t));
    free(ft);
    free(f);
    break;
  }
  default: break;
  }
  if (r == RC_VOID && LLVMGetTypeKind(t) != LLVMVoidTypeKind) r = carried(im, t);
  ptrmap_put(&im->types, t, (void *)(uintptr_t)(r + 1));
  return r;
}

rc_type imp_type(importer *im, LLVMTypeRef t) {
  return type_at(im, t, 0);
}

/* ---- which operands reconv represents ------------------------------------------------------------------ */

/* An integer constant wider than 64 bits whose value fits in 64 (sign-extended): its value. LLVM's C
 * API reads wider constants only as text. */
static bool wide_int_value(LLVMValueRef c, int64_t *out) {
  char *s = LLVMPrintValueToString(c); /* "i128 12345" */
  const char *p = strchr(s, ' ');
  bool ok = false;
  if (p && strcmp(p + 1, "true") != 0 && strcmp(p + 1, "false") != 0) {
    char *end;
    errno = 0;
    long long v = strtoll(p + 1, &end, 10);
    ok = errno == 0 && *end == 0;
    *out = v;
  }
  LLVMDisposeMessage(s);
  return ok;
}

/* Constant expressions reconv computes with view instructions. */
static bool cexpr_supported(LLVMOpcode op) {
  switch (op) {
  case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMUDiv: case LLVMSDiv: case LLVMURem: case LLVMSRem:
  case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMAnd: case LLVMOr: case LLVMXor:
  case LLVMFAdd: case LLVMFSub: case LLVMFMul: case LLVMFDiv: case LLVMFRem: case LLVMFNeg:
  case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMFPToUI: case LLVMFPToSI: case LLVMUIToFP:
  case LLVMSIToFP: case LLVMFPTrunc: case LLVMFPExt: case LLVMPtrToInt: case LLVMIntToPtr:
  case LLVMBitCast: case LLVMAddrSpaceCast: case LLVMGetElementPtr: case LLVMICmp: case LLVMFCmp:
  case LLVMSelect: case LLVMExtractElement: case LLVMInsertElement: case LLVMExtractValue:
  case LLVMInsertValue:
    return true;
  default: return false;
  }
}

static bool representable_at(importer *im, LLVMValueRef v, unsigned depth) {
  if (depth > MAX_DEPTH || !rc_type_is_value(im->m, imp_type(im, LLVMTypeOf(v)))) return false;
  if (LLVMIsAArgument(v) || LLVMIsAInstruction(v)) return true;
  if (LLVMIsAGlobalVariable(v)) return ptrmap_get(&im->globals, v) != NULL;
  if (LLVMIsAGlobalValue(v) || LLVMIsABlockAddress(v)) return false; /* functions, aliases */
  if (LLVMIsAConstantInt(v)) {
    int64_t x;
    return LLVMGetIntTypeWidth(LLVMTypeOf(v)) <= 64 || wide_int_value(v, &x);
  }
  if (LLVMIsAConstantFP(v) || LLVMIsAConstantPointerNull(v) || LLVMIsAUndefValue(v) ||
      LLVMIsAConstantAggregateZero(v) || LLVMIsAConstantDataSequential(v))
    return true;
  if (LLVMIsAConstantArray(v) || LLVMIsAConstantStruct(v) || LLVMIsAConstantVector(v) ||
      (LLVMIsAConstantExpr(v) && cexpr_supported(LLVMGetConstOpcode(v)))) {
    if (LLVMIsAConstantExpr(v) && LLVMGetConstOpcode(v) == LLVMGetElementPtr)
      for (int i = 0; i < LLVMGetNumOperands(v); i++)
        if (LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(v, (unsigned)i))) == LLVMVectorTypeKind) return false;
    for (int i = 0; i < LLVMGetNumOperands(v); i++)
      if (!representable_at(im, LLVMGetOperand(v, (unsigned)i), depth + 1)) return false;
    return true;
  }
  return false;
}

bool imp_representable(importer *im, LLVMValueRef v) {
  return representable_at(im, v, 0);
}

/* ---- constants ------------------------------------------------------------------------------------------- */

static rc_value *constant_at(importer *im, LLVMValueRef c, unsigned depth);

/* A composite constant from its elements (operands, or elements of a ConstantDataSequential). */
static rc_value *composite(importer *im, LLVMValueRef c, rc_type t, unsigned depth) {
  uint32_t n = rc_type_count(im->m, t);
  rc_value **e = rc_xmalloc((n ? n : 1) * sizeof *e);
  bool data = LLVMIsAConstantDataSequential(c) != NULL;
  rc_value *r = NULL;
  uint32_t i = 0;
  for (; i < n; i++) {
    LLVMValueRef ec = data ? rc_llvm_aggregate_element(c, i) : LLVMGetOperand(c, i);
    if (!(e[i] = constant_at(im, ec, depth + 1))) break;
  }
  if (i == n) r = rc_const_composite(im->k, t, e);
  free(e);
  return r;
}

/* The view instruction computing constant expression c, at the start of the entry block. */
static rc_value *materialize(importer *im, LLVMValueRef c, rc_type t, unsigned depth) {
  rc_instr *ri = imp_shell(im, c, NULL);
  if (!ri) return NULL;
  ri->iflags |= RC_IF_VIEW;
  if (depth == 0) { /* what a real instruction uses: export finds the expression there */
    ri->origin = im->cur_index;
    ri->origin_op = (uint16_t)im->cur_op;
  }
  for (uint32_t o = 0; o < ri->nops; o++) {
    rc_value *v = constant_at(im, LLVMGetOperand(c, (unsigned)imp_operand_number(ri, o)), depth + 1);
    if (!v) return NULL;
    ri->ops[o] = v;
  }
  rc_block *entry = im->k->blocks[0];
  rc_instr *pos = im->prologue_last ? im->prologue_last->next : entry->first;
  if (pos) rc_instr_insert_before(pos, ri); else rc_instr_append(entry, ri);
  im->prologue_last = ri;
  (void)t;
  return &ri->v;
}

static rc_value *constant_at(importer *im, LLVMValueRef c, unsigned depth) {
  rc_value *known = ptrmap_get(&im->values, c);
  if (known) return known;
  rc_type t = imp_type(im, LLVMTypeOf(c));
  rc_value *r = NULL;
  if (depth > MAX_DEPTH) {
    imp_error(im, im->cur, "constant nested more than %d deep", MAX_DEPTH);
    return NULL;
  }
  if (LLVMIsAGlobalVariable(c)) {
    rc_global *g = ptrmap_get(&im->globals, c);
    r = g ? &g->v : NULL;
  } else if (LLVMIsAConstantInt(c)) {
    int64_t x = 0;
    if (LLVMGetIntTypeWidth(LLVMTypeOf(c)) <= 64) x = LLVMConstIntGetSExtValue(c);
    else wide_int_value(c, &x);
    r = rc_const_int(im->k, t, x);
  } else if (LLVMIsAConstantFP(c)) {
    LLVMBool loses;
    r = rc_const_float(im->k, t, LLVMConstRealGetDouble(c, &loses));
  } else if (LLVMIsAConstantPointerNull(c)) {
    r = rc_const_int(im->k, t, 0);
  } else if (LLVMIsAUndefValue(c)) {
    r = rc_undef(im->k, t);
  } else if (LLVMIsAConstantAggregateZero(c)) {
    r = rc_const_zero(im->k, t);
  } else if (LLVMIsAConstantDataSequential(c) || LLVMIsAConstantArray(c) || LLVMIsAConstantStruct(c) ||
             LLVMIsAConstantVector(c)) {
    r = composite(im, c, t, depth);
  } else if (LLVMIsAConstantExpr(c)) {
    r = materialize(im, c, t, depth);
  }
  if (!r) {
    if (!im->ctx->nerrors) imp_error(im, im->cur, "internal error: an operand reconv cannot represent");
    return NULL;
  }
  /* constant expressions are cached with the origin of their first use, which export reads */
  ptrmap_put(&im->values, c, r);
  return r;
}

rc_value *imp_operand(importer *im, LLVMValueRef v) {
  uint32_t slot = imp_recent_slot(v);
  if (im->recent[slot].key == v) return im->recent[slot].val;
  rc_value *known = ptrmap_get(&im->values, v);
  if (known) return known;
  if (LLVMIsAArgument(v) || LLVMIsAInstruction(v)) {
    imp_error(im, im->cur, "internal error: an operand defined outside the function");
    return NULL;
  }
  return constant_at(im, v, 0);
}

/* ---- initialisers ------------------------------------------------------------------------------------------ */

static bool bytes_at(importer *im, LLVMValueRef c, rc_type t, uint8_t *out, uint64_t size, unsigned depth) {
  if (depth > MAX_DEPTH) return false;
  if (LLVMIsAUndefValue(c) || LLVMIsAConstantAggregateZero(c) || LLVMIsAConstantPointerNull(c)) return true;
  uint64_t need = rc_type_store_size(im->m, t);
  if (need > size) return false;
  if (LLVMIsAConstantInt(c)) {
    int64_t x = 0;
    if (LLVMGetIntTypeWidth(LLVMTypeOf(c)) <= 64) x = LLVMConstIntGetSExtValue(c);
    else if (!wide_int_value(c, &x)) return false;
    for (uint64_t b = 0; b < need; b++) out[b] = (uint8_t)((uint64_t)(b < 8 ? x >> (8 * b) : (x < 0 ? -1 : 0)));
    return true;
  }
  if (LLVMIsAConstantFP(c)) {
    LLVMBool loses;
    double d = LLVMConstRealGetDouble(c, &loses);
    if (t == RC_F32) {
      float f = (float)d;
      memcpy(out, &f, 4);
    } else if (t == RC_F64) {
      memcpy(out, &d, 8);
    } else if (t == RC_F16) {
      uint16_t h = rc_f16_from_double(d);
      memcpy(out, &h, 2);
    } else {
      return false;
    }
    return true;
  }
  if (LLVMIsAConstantDataSequential(c) || LLVMIsAConstantArray(c) || LLVMIsAConstantStruct(c) ||
      LLVMIsAConstantVector(c)) {
    bool data = LLVMIsAConstantDataSequential(c) != NULL;
    uint32_t n = rc_type_count(im->m, t);
    for (uint32_t i = 0; i < n; i++) {
      LLVMValueRef ec = data ? rc_llvm_aggregate_element(c, i) : LLVMGetOperand(c, i);
      uint64_t off = rc_type_offset(im->m, t, i);
      if (off > size || !bytes_at(im, ec, rc_type_elem(im->m, t, i), out + off, size - off, depth + 1))
        return false;
    }
    return true;
  }
  return false; /* addresses of globals and functions, other expressions */
}

bool imp_constant_bytes(importer *im, LLVMValueRef c, uint8_t *out, uint64_t size) {
  memset(out, 0, size);
  rc_type t = imp_type(im, LLVMTypeOf(c));
  return rc_type_is_value(im->m, t) && bytes_at(im, c, t, out, size, 0);
}
