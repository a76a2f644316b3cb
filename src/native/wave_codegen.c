/* The SIMD wave backend's code generator, the driver (wave_codegen.h): one LLVM function per wave
 * kernel, `void run(rc_wave_ctx *)`, that runs one wave from the entry until it returns.
 *
 * Each block of the kernel is a block of the function. exec, the registers and the merged values'
 * previous lanes live in allocas that LLVM's mem2reg turns into SSA values (registers start as
 * zeros, as docs/ir.md says; so do merged values, as in the wave simulator). The instructions of a
 * block are generated in order by the three instruction files; a vector result that a later read
 * can see in lanes inactive now (wave_merge.c) is merged under exec: select(exec, new, previous),
 * which AVX-512 does with merge-masking. Terminators: a scalar branch on a vector value takes the
 * first active lane's value after checking that every active lane agrees (else the run faults, as
 * in the wave simulator); `brexecz` is a compare of exec with 0. */
#include "wave_codegen.h"

#include "reconv/analysis.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the machines' classification ---------------------------------------------------------------- */

bool wave_instr_is_scalar(const rc_instr *i) {
  switch ((rc_opcode)i->op) {
  case RC_OP_BALLOT: case RC_OP_EXEC: case RC_OP_SETEXEC: return true;
  case RC_OP_RGET: case RC_OP_RSET: return i->u.reg->scalar;
  default: break;
  }
  if (i->v.type == RC_MASK || (i->op == RC_OP_ICMP && i->ops[0]->type == RC_MASK)) return true;
  return (i->iflags & RC_IF_SCALAR) != 0;
}

bool wave_value_is_scalar(const rc_value *v) {
  return v->kind != RC_V_INSTR || wave_instr_is_scalar((const rc_instr *)v);
}

/* ---- types and constants --------------------------------------------------------------------------- */

LLVMTypeRef wcg_type(wcg *g, rc_type t) {
  switch (t) {
  case RC_I1: return g->i1;
  case RC_I8: return g->i8;
  case RC_I16: return g->i16;
  case RC_I32: return g->i32;
  case RC_I64: return g->i64;
  case RC_F16: return g->f16;
  case RC_F32: return g->f32;
  case RC_F64: return g->f64;
  case RC_MASK: return g->mask_t;
  case RC_VOID: return g->void_t;
  default:
    if (rc_type_is_ptr(t)) return g->ptr;
    if (rc_type_is_int(t)) return LLVMIntTypeInContext(g->lc, rc_type_bits(t));
    return NULL; /* composites never reach here: the machines' form has scalars only */
  }
}

LLVMTypeRef wcg_vtype(wcg *g, rc_type t) {
  return LLVMVectorType(wcg_type(g, t), g->W);
}

LLVMValueRef wcg_const_i64(wcg *g, uint64_t v) { return LLVMConstInt(g->i64, v, 0); }
LLVMValueRef wcg_const_i32(wcg *g, uint32_t v) { return LLVMConstInt(g->i32, v, 0); }

LLVMValueRef wcg_iota(wcg *g) {
  LLVMValueRef e[RC_WAVE_MAX_LANES];
  for (uint32_t l = 0; l < g->W; l++) e[l] = wcg_const_i64(g, l);
  return LLVMConstVector(e, g->W);
}

/* A module global outside local memory (run_form.c gave its uses its address in the simulators'
 * module space): an array of bytes of this module, holding its initial bytes. One copy serves the
 * whole launch, as in the simulators. */
static LLVMValueRef module_global(wcg *g, uint32_t index) {
  const rc_module *m = g->k->mod;
  if (index >= m->nglobals) return NULL;
  if (g->globals[index]) return g->globals[index];
  const rc_global *rg = m->globals[index];
  uint64_t size = rc_type_alloc_size(m, rg->vtype);
  LLVMTypeRef at = LLVMArrayType(g->i8, (unsigned)(size ? size : 1));
  LLVMValueRef init = rg->init && size ? LLVMConstStringInContext(g->lc, (const char *)rg->init, (unsigned)size, 1)
                                       : LLVMConstNull(at);
  rc_strbuf name;
  rc_sb_init(&name);
  rc_sb_printf(&name, "rc_global.%s", rg->v.name ? rg->v.name : "");
  LLVMValueRef gv = LLVMAddGlobal(g->mod, at, name.data);
  rc_sb_free(&name);
  LLVMSetInitializer(gv, init);
  LLVMSetLinkage(gv, LLVMPrivateLinkage);
  LLVMSetAlignment(gv, 16);
  if (rg->is_const) LLVMSetGlobalConstant(gv, 1);
  g->globals[index] = gv;
  return gv;
}

LLVMValueRef wcg_reset_function(wcg *g) {
  const rc_module *m = g->k->mod;
  LLVMValueRef f = NULL;
  for (uint32_t i = 0; i < m->nglobals; i++) {
    LLVMValueRef gv = g->globals[i];
    if (!gv || LLVMIsGlobalConstant(gv)) continue;
    if (!f) {
      f = LLVMAddFunction(g->mod, "rc_wave_reset_globals", LLVMFunctionType(g->void_t, NULL, 0, 0));
      LLVMSetLinkage(f, LLVMPrivateLinkage);
      LLVMPositionBuilderAtEnd(g->b, LLVMAppendBasicBlockInContext(g->lc, f, "entry"));
    }
    LLVMValueRef init = LLVMAddGlobal(g->mod, LLVMGlobalGetValueType(gv), "rc_global.initial");
    LLVMSetInitializer(init, LLVMGetInitializer(gv));
    LLVMSetGlobalConstant(init, 1);
    LLVMSetLinkage(init, LLVMPrivateLinkage);
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->mod);
    LLVMBuildMemCpy(g->b, gv, 16, init, 1, wcg_const_i64(g, LLVMABISizeOfType(td, LLVMGlobalGetValueType(gv))));
  }
  if (f) LLVMBuildRetVoid(g->b);
  return f;
}

/* A constant of the machines' form: integers, floats, pointers (a module global's address is its
 * storage in this module), undef as zeros (reconv's machines read it so). */
static LLVMValueRef const_value(wcg *g, const rc_value *v) {
  rc_type t = (rc_type)v->type;
  LLVMTypeRef lt = wcg_type(g, t);
  if (v->kind == RC_V_UNDEF) return LLVMConstNull(lt);
  if (rc_type_is_float(t)) return LLVMConstReal(lt, rc_const_fval(v));
  if (rc_type_is_ptr(t)) {
    uint64_t a = (uint64_t)rc_const_ival(v);
    LLVMValueRef gv = a >> RC_ADDR_SPACE_SHIFT == RC_SPACE_MODULE
                          ? module_global(g, (uint32_t)(a >> RC_ADDR_REGION_SHIFT) & RC_ADDR_REGION_MASK)
                          : NULL;
    if (gv) {
      LLVMValueRef off = wcg_const_i64(g, a & 0xffffffffu);
      return LLVMConstGEP2(g->i8, LLVMConstBitCast(gv, g->ptr), &off, 1);
    }
    return a == 0 ? LLVMConstNull(lt) : LLVMConstIntToPtr(wcg_const_i64(g, a), lt);
  }
  if (t == RC_MASK) { /* lane l: bit l */
    uint64_t m = (uint64_t)rc_const_ival(v);
    LLVMValueRef e[RC_WAVE_MAX_LANES];
    for (uint32_t l = 0; l < g->W; l++) e[l] = LLVMConstInt(g->i1, (m >> l) & 1, 0);
    return LLVMConstVector(e, g->W);
  }
  unsigned bits = rc_type_bits(t);
  int64_t x = rc_const_ival(v);
  if (bits == 1) x &= 1;
  return LLVMConstInt(lt, (unsigned long long)x, bits > 1);
}

LLVMValueRef wcg_splat(wcg *g, LLVMValueRef s) {
  LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(s), g->W);
  if (LLVMIsConstant(s)) {
    LLVMValueRef e[RC_WAVE_MAX_LANES];
    for (uint32_t l = 0; l < g->W; l++) e[l] = s;
    return LLVMConstVector(e, g->W);
  }
  LLVMValueRef one = LLVMBuildInsertElement(g->b, LLVMGetUndef(vt), s, wcg_const_i32(g, 0), "");
  return LLVMBuildShuffleVector(g->b, one, LLVMGetUndef(vt), LLVMConstNull(LLVMVectorType(g->i32, g->W)), "");
}

LLVMValueRef wcg_scalar(wcg *g, const rc_value *v) {
  if (v->kind == RC_V_CONST || v->kind == RC_V_UNDEF) return const_value(g, v);
  if (g->slot_only[v->id]) return LLVMBuildLoad2(g->b, LLVMGetAllocatedType(g->slots[v->id]), g->slots[v->id], "");
  if (g->vals[v->id]) return g->vals[v->id];
  /* only in a block no path reaches (reachable blocks are generated after their dominators) */
  LLVMTypeRef t = wcg_type(g, (rc_type)v->type);
  return LLVMGetUndef(wave_value_is_scalar(v) ? t : LLVMVectorType(t, g->W));
}

LLVMValueRef wcg_vector(wcg *g, const rc_value *v) {
  LLVMValueRef x = wcg_scalar(g, v);
  return wave_value_is_scalar(v) ? wcg_splat(g, x) : x;
}

LLVMValueRef wcg_operand(wcg *g, const rc_value *v, bool vector) {
  return vector ? wcg_vector(g, v) : wcg_scalar(g, v);
}

/* ---- exec and masks ------------------------------------------------------------------------------------ */

/* exec lives as a <W x i1> (so that LLVM keeps it, and the masks computed from it, in AVX-512's mask
 * registers, where and/or/andn are one-cycle instructions); its bits as an i64 where scalar code
 * needs them (lane loops, the first lane, the empty test). */
LLVMValueRef wcg_exec_lanes(wcg *g) { return LLVMBuildLoad2(g->b, g->vmask_t, g->exec_var, "exec"); }

LLVMValueRef wcg_mask_lanes(wcg *g, LLVMValueRef m) {
  LLVMValueRef bits = g->W == 64 ? m : LLVMBuildTrunc(g->b, m, g->wbits_t, "");
  return LLVMBuildBitCast(g->b, bits, g->vmask_t, "");
}

LLVMValueRef wcg_lanes_mask(wcg *g, LLVMValueRef lanes) {
  LLVMValueRef bits = LLVMBuildBitCast(g->b, lanes, g->wbits_t, "");
  return g->W == 64 ? bits : LLVMBuildZExt(g->b, bits, g->i64, "");
}

LLVMValueRef wcg_exec(wcg *g) { return wcg_lanes_mask(g, wcg_exec_lanes(g)); }

LLVMValueRef wcg_ctx_field(wcg *g, unsigned index) {
  return LLVMBuildStructGEP2(g->b, g->ctx_t, g->ctxp, index, "");
}

/* ---- calls, intrinsics, lane loops ------------------------------------------------------------------ */

LLVMValueRef wcg_call(wcg *g, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned np,
                      LLVMValueRef *args) {
  LLVMTypeRef ft = LLVMFunctionType(ret, params, np, 0);
  LLVMValueRef f = LLVMGetNamedFunction(g->mod, name);
  if (!f) f = LLVMAddFunction(g->mod, name, ft);
  return LLVMBuildCall2(g->b, ft, f, args, np, "");
}

LLVMValueRef wcg_intrinsic(wcg *g, const char *name, LLVMTypeRef *overloads, unsigned no, LLVMValueRef *args,
                           unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(g->mod, id, overloads, no);
  LLVMTypeRef ft = LLVMIntrinsicGetType(g->lc, id, overloads, no);
  return LLVMBuildCall2(g->b, ft, f, args, n, "");
}

/* (An empty mask gives lane 0, as in the simulators: cttz says 64, and 64 mod W is 0 for the widths
 * the backend generates.) */
LLVMValueRef wcg_first_lane(wcg *g, LLVMValueRef mask) {
  LLVMValueRef args[2] = {mask, LLVMConstInt(g->i1, 0, 0)};
  LLVMValueRef tz = wcg_intrinsic(g, "llvm.cttz", &g->i64, 1, args, 2);
  return LLVMBuildTrunc(g->b, LLVMBuildAnd(g->b, tz, wcg_const_i64(g, g->W - 1), ""), g->i32, "lane");
}

LLVMValueRef wcg_lane_loop(wcg *g, LLVMValueRef mask, LLVMValueRef init, wcg_lane_body body, void *state) {
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(g->lc, g->fn, "lanes");
  LLVMBasicBlockRef each = LLVMAppendBasicBlockInContext(g->lc, g->fn, "lane");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->lc, g->fn, "lanes.done");
  LLVMBuildBr(g->b, head);
  LLVMPositionBuilderAtEnd(g->b, head);
  LLVMValueRef m = LLVMBuildPhi(g->b, g->i64, "left");
  LLVMValueRef acc = init ? LLVMBuildPhi(g->b, LLVMTypeOf(init), "acc") : NULL;
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, m, wcg_const_i64(g, 0), ""), each, done);
  LLVMPositionBuilderAtEnd(g->b, each);
  LLVMValueRef next_acc = body(g, wcg_first_lane(g, m), state, acc);
  LLVMValueRef next_m = LLVMBuildAnd(g->b, m, LLVMBuildSub(g->b, m, wcg_const_i64(g, 1), ""), "");
  LLVMBasicBlockRef tail = LLVMGetInsertBlock(g->b);
  LLVMBuildBr(g->b, head);
  LLVMValueRef in_m[2] = {mask, next_m};
  LLVMBasicBlockRef from[2] = {pre, tail};
  LLVMAddIncoming(m, in_m, from, 2);
  if (acc) {
    LLVMValueRef in_a[2] = {init, next_acc};
    LLVMAddIncoming(acc, in_a, from, 2);
  }
  LLVMPositionBuilderAtEnd(g->b, done);
  return acc;
}

/* ---- slot encoding ----------------------------------------------------------------------------------- */

LLVMValueRef wcg_to_slot(wcg *g, LLVMValueRef v, rc_type t) {
  switch (t) {
  case RC_F64: return LLVMBuildBitCast(g->b, v, g->i64, "");
  case RC_F16: v = LLVMBuildFPExt(g->b, v, g->f32, ""); /* fall through: the float holding it */
  /* fall through */
  case RC_F32: return LLVMBuildZExt(g->b, LLVMBuildBitCast(g->b, v, g->i32, ""), g->i64, "");
  case RC_MASK: return wcg_lanes_mask(g, v);
  case RC_I64: return v;
  case RC_I1: return LLVMBuildZExt(g->b, v, g->i64, "");
  default:
    if (rc_type_is_ptr(t)) return LLVMBuildPtrToInt(g->b, v, g->i64, "");
    return LLVMBuildSExt(g->b, v, g->i64, "");
  }
}

LLVMValueRef wcg_from_slot(wcg *g, LLVMValueRef s, rc_type t) {
  switch (t) {
  case RC_F64: return LLVMBuildBitCast(g->b, s, g->f64, "");
  case RC_F32: return LLVMBuildBitCast(g->b, LLVMBuildTrunc(g->b, s, g->i32, ""), g->f32, "");
  case RC_F16:
    return LLVMBuildFPTrunc(g->b, LLVMBuildBitCast(g->b, LLVMBuildTrunc(g->b, s, g->i32, ""), g->f32, ""), g->f16, "");
  case RC_MASK: return wcg_mask_lanes(g, s);
  case RC_I64: return s;
  default:
    if (rc_type_is_ptr(t)) return LLVMBuildIntToPtr(g->b, s, g->ptr, "");
    return LLVMBuildTrunc(g->b, s, wcg_type(g, t), "");
  }
}

/* ---- faults ------------------------------------------------------------------------------------------ */

uint32_t wcg_site(wcg *g, const rc_instr *i) {
  rc_strbuf s;
  rc_sb_init(&s);
  rc_sb_printf(&s, "block %s, instruction `", i->parent->name);
  rc_print_instr(i, &s);
  rc_sb_putc(&s, '`');
  rc_vec_push(&g->sites, s.data);
  return g->sites.len - 1;
}

void wcg_fault_if(wcg *g, LLVMValueRef bad, const rc_instr *i, uint32_t kind, LLVMValueRef lane, LLVMValueRef a,
                  LLVMValueRef b) {
  LLVMValueRef expect[2] = {bad, LLVMConstInt(g->i1, 0, 0)};
  bad = wcg_intrinsic(g, "llvm.expect", &g->i1, 1, expect, 2);
  LLVMBasicBlockRef fault = LLVMAppendBasicBlockInContext(g->lc, g->fn, "fault");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(g->lc, g->fn, "ok");
  LLVMBuildCondBr(g->b, bad, fault, ok);
  LLVMPositionBuilderAtEnd(g->b, fault);
  LLVMTypeRef pt[6] = {LLVMPointerType(g->ctx_t, 0), g->i32, g->i32, g->i32, g->i64, g->i64};
  LLVMValueRef args[6] = {g->ctxp, wcg_const_i32(g, wcg_site(g, i)), wcg_const_i32(g, kind),
                          lane ? lane : wcg_const_i32(g, 0), a ? a : wcg_const_i64(g, 0), b ? b : wcg_const_i64(g, 0)};
  wcg_call(g, "rc_wave_rt_fault", g->void_t, pt, 6, args);
  LLVMBuildUnreachable(g->b);
  LLVMPositionBuilderAtEnd(g->b, ok);
}

/* ---- wave instructions -------------------------------------------------------------------------------- */

static LLVMValueRef emit_wave_op(wcg *g, const rc_instr *i) {
  switch ((rc_opcode)i->op) {
  case RC_OP_EXEC: return wcg_exec_lanes(g);
  case RC_OP_BALLOT: {
    LLVMValueRef e = wcg_exec_lanes(g);
    if (wave_value_is_scalar(i->ops[0]))
      return LLVMBuildSelect(g->b, wcg_scalar(g, i->ops[0]), e, LLVMConstNull(g->vmask_t), "ballot");
    return LLVMBuildAnd(g->b, wcg_scalar(g, i->ops[0]), e, "ballot");
  }
  case RC_OP_SETEXEC:
    LLVMBuildStore(g->b, LLVMBuildAnd(g->b, wcg_scalar(g, i->ops[0]), g->exists_lanes, ""), g->exec_var);
    return NULL;
  case RC_OP_RGET: {
    const rc_reg *r = i->u.reg;
    LLVMTypeRef t = r->scalar ? wcg_type(g, (rc_type)r->type) : wcg_vtype(g, (rc_type)r->type);
    return LLVMBuildLoad2(g->b, t, g->regs[r->id], "");
  }
  case RC_OP_RSET: {
    const rc_reg *r = i->u.reg;
    if (r->scalar) {
      LLVMBuildStore(g->b, wcg_scalar(g, i->ops[0]), g->regs[r->id]);
      return NULL;
    }
    /* a vector register's element is written only for the lanes in exec */
    LLVMTypeRef t = wcg_vtype(g, (rc_type)r->type);
    LLVMValueRef old = LLVMBuildLoad2(g->b, t, g->regs[r->id], "");
    LLVMValueRef v = wcg_vector(g, i->ops[0]);
    if (!g->drop_merges) v = LLVMBuildSelect(g->b, wcg_exec_lanes(g), v, old, "");
    LLVMBuildStore(g->b, v, g->regs[r->id]);
    return NULL;
  }
  default: return NULL;
  }
}

/* An instruction reconv only carries: the simulators refuse to execute it, and so does the wave's
 * code, when a lane runs it (a scalar one always runs). */
static LLVMValueRef emit_opaque(wcg *g, const rc_instr *i, bool scalar) {
  LLVMValueRef e = wcg_exec(g);
  LLVMValueRef bad = scalar ? LLVMConstInt(g->i1, 1, 0) : LLVMBuildICmp(g->b, LLVMIntNE, e, wcg_const_i64(g, 0), "");
  wcg_fault_if(g, bad, i, RC_WAVE_FAULT_OPAQUE, scalar ? NULL : wcg_first_lane(g, e), NULL, NULL);
  if (i->v.type == RC_VOID) return NULL;
  LLVMTypeRef t = wcg_type(g, (rc_type)i->v.type);
  return scalar ? LLVMConstNull(t) : LLVMConstNull(LLVMVectorType(t, g->W));
}

/* ---- terminators ------------------------------------------------------------------------------------ */

/* The value a scalar branch reads: a scalar's, or the one every active lane holds (checked: the
 * fault names the first lane and the first that differs, with their values, as the simulator's). */
static LLVMValueRef uniform_value(wcg *g, const rc_instr *i) {
  const rc_value *c = i->ops[0];
  if (wave_value_is_scalar(c)) return wcg_scalar(g, c);
  LLVMValueRef v = wcg_scalar(g, c), e = wcg_exec(g);
  wcg_fault_if(g, LLVMBuildICmp(g->b, LLVMIntEQ, e, wcg_const_i64(g, 0), ""), i, RC_WAVE_FAULT_BRANCH_EMPTY,
               NULL, NULL, NULL);
  LLVMValueRef lane = wcg_first_lane(g, e);
  LLVMValueRef first = LLVMBuildExtractElement(g->b, v, lane, "first");
  LLVMValueRef same = wcg_lanes_mask(g, LLVMBuildICmp(g->b, LLVMIntEQ, v, wcg_splat(g, first), ""));
  LLVMValueRef differ = LLVMBuildAnd(g->b, e, LLVMBuildNot(g->b, same, ""), "");
  LLVMValueRef other = wcg_first_lane(g, differ);
  rc_type t = (rc_type)c->type;
  LLVMValueRef lanes = LLVMBuildOr(g->b, lane, LLVMBuildShl(g->b, other, wcg_const_i32(g, 8), ""), "");
  wcg_fault_if(g, LLVMBuildICmp(g->b, LLVMIntNE, differ, wcg_const_i64(g, 0), ""), i, RC_WAVE_FAULT_BRANCH_DISAGREE,
               lanes, wcg_to_slot(g, first, t), wcg_to_slot(g, LLVMBuildExtractElement(g->b, v, other, ""), t));
  return first;
}

static void emit_terminator(wcg *g, const rc_instr *i) {
  switch ((rc_opcode)i->op) {
  case RC_OP_JMP: LLVMBuildBr(g->b, g->bbs[i->targets[0]->id]); return;
  case RC_OP_BR:
    LLVMBuildCondBr(g->b, uniform_value(g, i), g->bbs[i->targets[0]->id], g->bbs[i->targets[1]->id]);
    return;
  case RC_OP_BREXECZ:
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, wcg_exec(g), wcg_const_i64(g, 0), "exec.empty"),
                    g->bbs[i->targets[0]->id], g->bbs[i->targets[1]->id]);
    return;
  case RC_OP_SWITCH: {
    LLVMValueRef v = uniform_value(g, i);
    LLVMValueRef sw = LLVMBuildSwitch(g->b, v, g->bbs[i->targets[0]->id], i->ntargets - 1);
    LLVMTypeRef t = LLVMTypeOf(v);
    for (uint32_t c = 1; c < i->ntargets; c++)
      LLVMAddCase(sw, LLVMConstInt(t, (unsigned long long)i->cases[c - 1], 1), g->bbs[i->targets[c]->id]);
    return;
  }
  case RC_OP_RET: LLVMBuildRetVoid(g->b); return;
  case RC_OP_UNREACHABLE:
    wcg_fault_if(g, LLVMConstInt(g->i1, 1, 0), i, RC_WAVE_FAULT_UNREACHABLE, NULL, NULL, NULL);
    LLVMBuildUnreachable(g->b);
    return;
  default: LLVMBuildUnreachable(g->b); return;
  }
}

/* ---- the function ---------------------------------------------------------------------------------------- */

static void make_types(wcg *g) {
  LLVMContextRef c = g->lc;
  g->void_t = LLVMVoidTypeInContext(c);
  g->i1 = LLVMInt1TypeInContext(c);
  g->i8 = LLVMInt8TypeInContext(c);
  g->i16 = LLVMInt16TypeInContext(c);
  g->i32 = LLVMInt32TypeInContext(c);
  g->i64 = LLVMInt64TypeInContext(c);
  g->f16 = LLVMHalfTypeInContext(c);
  g->f32 = LLVMFloatTypeInContext(c);
  g->f64 = LLVMDoubleTypeInContext(c);
  g->ptr = LLVMPointerType(g->i8, 0);
  g->vmask_t = LLVMVectorType(g->i1, g->W);
  g->mask_t = g->vmask_t;
  g->wbits_t = LLVMIntTypeInContext(c, g->W);
  /* rc_wave_ctx, field by field (wave_codegen.h's CTX_* order) */
  LLVMTypeRef a3 = LLVMArrayType(g->i64, 3), lanes = LLVMArrayType(g->i64, RC_WAVE_MAX_LANES);
  LLVMTypeRef ids3 = LLVMArrayType(LLVMArrayType(g->i32, RC_WAVE_MAX_LANES), 3);
  LLVMTypeRef f[CTX_NFIELDS] = {g->i64, g->i64, LLVMPointerType(g->i64, 0), g->ptr, g->ptr, g->i64, g->i64,
                                g->i64, a3, a3, a3, a3, ids3, ids3, lanes, g->ptr};
  g->ctx_t = LLVMStructCreateNamed(c, "rc_wave_ctx");
  LLVMStructSetBody(g->ctx_t, f, CTX_NFIELDS, 0);
}

/* A parameter from its 64-bit slot: integers in the low bits, floats as their bits, pointers whole. */
static LLVMValueRef load_param(wcg *g, LLVMValueRef args, uint32_t p) {
  rc_type t = (rc_type)g->k->params[p]->type;
  LLVMValueRef idx = wcg_const_i64(g, p);
  LLVMValueRef s = LLVMBuildLoad2(g->b, g->i64, LLVMBuildGEP2(g->b, g->i64, args, &idx, 1, ""), "");
  switch (t) {
  case RC_F64: return LLVMBuildBitCast(g->b, s, g->f64, "");
  case RC_F32: return LLVMBuildBitCast(g->b, LLVMBuildTrunc(g->b, s, g->i32, ""), g->f32, "");
  case RC_F16: return LLVMBuildBitCast(g->b, LLVMBuildTrunc(g->b, s, g->i16, ""), g->f16, "");
  case RC_I64: return s;
  case RC_MASK: return wcg_mask_lanes(g, s);
  default:
    if (rc_type_is_ptr(t)) return LLVMBuildIntToPtr(g->b, s, g->ptr, "");
    return LLVMBuildTrunc(g->b, s, wcg_type(g, t), "");
  }
}

static LLVMValueRef zero_alloca(wcg *g, LLVMTypeRef t, const char *name) {
  LLVMValueRef a = LLVMBuildAlloca(g->b, t, name);
  LLVMBuildStore(g->b, LLVMConstNull(t), a);
  return a;
}

/* Private and local memory: each alloca and localmem of the kernel gets its region (16-byte
 * aligned, as in the simulators' layout; programs must not depend on it). */
static void lay_out_regions(wcg *g) {
  const rc_kernel *k = g->k;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->op != RC_OP_ALLOCA && i->op != RC_OP_LOCALMEM) continue;
      uint64_t *total = i->op == RC_OP_ALLOCA ? &g->private_bytes : &g->local_bytes;
      g->region_offset[i->v.id] = *total;
      *total += ((uint64_t)i->imm + 15) & ~(uint64_t)15;
    }
}

static void emit_block(wcg *g, const rc_block *bb) {
  LLVMPositionBuilderAtEnd(g->b, g->bbs[bb->id]);
  for (const rc_instr *i = bb->first; i; i = i->next) {
    if (rc_opcode_is_terminator((rc_opcode)i->op)) {
      emit_terminator(g, i);
      return;
    }
    bool scalar = wave_instr_is_scalar(i);
    LLVMValueRef v;
    switch ((rc_opcode)i->op) {
    case RC_OP_EXEC: case RC_OP_BALLOT: case RC_OP_SETEXEC: case RC_OP_RGET: case RC_OP_RSET:
      v = emit_wave_op(g, i);
      break;
    case RC_OP_LOAD: case RC_OP_STORE: case RC_OP_GEP: case RC_OP_ALLOCA: case RC_OP_LOCALMEM:
      v = wcg_emit_mem(g, i, scalar);
      break;
    case RC_OP_CALL: v = wcg_emit_call(g, i, scalar); break;
    case RC_OP_OPAQUE: v = emit_opaque(g, i, scalar); break;
    default: v = wcg_emit_op(g, i, scalar); break;
    }
    if (i->v.type == RC_VOID || i->v.id == RC_NONE) continue;
    if (!scalar && g->merge[i->v.id]) { /* the lanes not in exec keep what they held */
      LLVMTypeRef t = LLVMTypeOf(v);
      LLVMValueRef old = LLVMBuildLoad2(g->b, t, g->slots[i->v.id], "");
      if (!g->drop_merges) v = LLVMBuildSelect(g->b, wcg_exec_lanes(g), v, old, "");
      LLVMBuildStore(g->b, v, g->slots[i->v.id]);
    }
    g->vals[i->v.id] = v;
    wcg_affine_of(g, i, scalar);
  }
  LLVMBuildUnreachable(g->b); /* a block without a terminator (the verifier forbids it) */
}

/* Values whose lanes live across executions: merged ones, and vector values read where their
 * definition does not dominate (docs/ir.md, "SSA dominance": the sweep lowerings read, in B2, what
 * the lanes computed in B1, though the wave can reach B2 around B1). Those are read from their slot
 * at every use. Slots start as zeros, like the wave simulator's. */
static void find_slots(wcg *g, const rc_cfg *cfg) {
  const rc_kernel *k = g->k;
  rc_domtree dom;
  bool have_dom = rc_domtree_build(&dom, cfg, false) == 0;
  uint32_t *pos = rc_xcalloc(k->nvalues + 1, sizeof *pos);
  for (uint32_t b = 0; b < k->nblocks; b++) {
    uint32_t p = 0;
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next, p++)
      if (i->v.id != RC_NONE && i->v.id < k->nvalues) pos[i->v.id] = p;
  }
  for (uint32_t b = 0; b < k->nblocks; b++) {
    uint32_t p = 0;
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next, p++)
      for (uint32_t o = 0; o < i->nops; o++) {
        const rc_value *v = i->ops[o];
        if (v->kind != RC_V_INSTR || v->id >= k->nvalues || wave_value_is_scalar(v)) continue;
        const rc_instr *d = (const rc_instr *)v;
        bool dominated = d->parent == i->parent ? pos[v->id] < p
                                                : have_dom && rc_dominates(&dom, d->parent->id, i->parent->id);
        if (!dominated) g->slot_only[v->id] = g->merge[v->id] = 1;
      }
  }
  free(pos);
  if (have_dom) rc_domtree_free(&dom);
}

static void make_slots(wcg *g) {
  const rc_kernel *k = g->k;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->v.type == RC_VOID || i->v.id == RC_NONE || !g->merge[i->v.id] || wave_instr_is_scalar(i)) continue;
      LLVMTypeRef t = LLVMVectorType(wcg_type(g, (rc_type)i->v.type), g->W);
      g->slots[i->v.id] = zero_alloca(g, t, "lanes");
    }
}

int wcg_generate(wcg *g, const char *fname) {
  const rc_kernel *k = g->k;
  make_types(g);
  LLVMTypeRef ctxp_t = LLVMPointerType(g->ctx_t, 0);
  g->fn = LLVMAddFunction(g->mod, fname, LLVMFunctionType(g->void_t, &ctxp_t, 1, 0));
  g->ctxp = LLVMGetParam(g->fn, 0);
  g->b = LLVMCreateBuilderInContext(g->lc);
  g->vals = rc_xcalloc(k->nvalues + 1, sizeof *g->vals);
  g->slots = rc_xcalloc(k->nvalues + 1, sizeof *g->slots);
  g->aff = rc_xcalloc(k->nvalues + 1, sizeof *g->aff);
  g->merge = rc_xcalloc(k->nvalues + 1, 1);
  g->region_offset = rc_xcalloc(k->nvalues + 1, sizeof *g->region_offset);
  g->regs = rc_xcalloc(k->nregs + 1, sizeof *g->regs);
  g->bbs = rc_xcalloc(k->nblocks + 1, sizeof *g->bbs);
  g->globals = rc_xcalloc(k->mod->nglobals + 1, sizeof *g->globals);
  g->slot_only = rc_xcalloc(k->nvalues + 1, 1);
  wave_merge_analysis(k, g->merge);
  rc_cfg cfg;
  rc_cfg_build(&cfg, k);
  find_slots(g, &cfg);
  lay_out_regions(g);
  g->entry = LLVMAppendBasicBlockInContext(g->lc, g->fn, "entry");
  for (uint32_t b = 0; b < k->nblocks; b++)
    g->bbs[b] = LLVMAppendBasicBlockInContext(g->lc, g->fn, k->blocks[b]->name);
  LLVMPositionBuilderAtEnd(g->b, g->entry);
  g->exec_var = LLVMBuildAlloca(g->b, g->vmask_t, "exec.var");
  for (uint32_t r = 0; r < k->nregs; r++) {
    const rc_reg *reg = k->regs[r];
    if (!rc_type_is_scalar((rc_type)reg->type)) continue; /* split into its lanes' registers (scalarize.c) */
    LLVMTypeRef t = reg->scalar ? wcg_type(g, (rc_type)reg->type) : wcg_vtype(g, (rc_type)reg->type);
    g->regs[r] = zero_alloca(g, t, reg->name);
  }
  make_slots(g);
  g->exists = LLVMBuildLoad2(g->b, g->i64, wcg_ctx_field(g, CTX_EXISTS), "exists");
  g->exists_lanes = wcg_mask_lanes(g, g->exists);
  LLVMBuildStore(g->b, g->exists_lanes, g->exec_var);
  LLVMValueRef args = LLVMBuildLoad2(g->b, LLVMPointerType(g->i64, 0), wcg_ctx_field(g, CTX_ARGS), "args");
  for (uint32_t p = 0; p < k->nparams; p++) g->vals[k->params[p]->id] = load_param(g, args, p);
  LLVMBuildBr(g->b, g->bbs[0]);
  /* in reverse post-order, so that every value is generated before the blocks it dominates read it
   * (the layout need not be in that order); blocks no path reaches only end */
  uint32_t *order = rc_xcalloc(k->nblocks + 1, sizeof *order), n = rc_cfg_rpo(&cfg, order, NULL);
  for (uint32_t o = 0; o < n; o++) emit_block(g, k->blocks[order[o]]);
  bool *done = rc_xcalloc(k->nblocks + 1, sizeof *done);
  for (uint32_t o = 0; o < n; o++) done[order[o]] = true;
  for (uint32_t b = 0; b < k->nblocks; b++)
    if (!done[b]) {
      LLVMPositionBuilderAtEnd(g->b, g->bbs[b]);
      LLVMBuildUnreachable(g->b);
    }
  free(order);
  free(done);
  rc_cfg_free(&cfg);
  return 0;
}

void wcg_free(wcg *g) {
  if (g->b) LLVMDisposeBuilder(g->b);
  free(g->vals);
  free(g->slots);
  free(g->aff);
  free(g->merge);
  free(g->region_offset);
  free(g->regs);
  free(g->bbs);
  free(g->globals);
  free(g->slot_only);
  for (uint32_t s = 0; s < g->sites.len; s++) free(g->sites.data[s]);
  rc_vec_free(&g->sites);
  for (uint32_t s = 0; s < g->math_fns.len; s++) free(g->math_fns.data[s]);
  rc_vec_free(&g->math_fns);
}
