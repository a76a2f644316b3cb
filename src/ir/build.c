/* The builder: create instructions at an insertion point with their result types worked out. */
#include "reconv/ir.h"

#include <assert.h>
#include <string.h>

void rc_builder_at_end(rc_builder *b, rc_block *block) {
  b->k = block->parent;
  b->block = block;
  b->before = NULL;
}

void rc_builder_before(rc_builder *b, rc_instr *pos) {
  b->k = pos->parent->parent;
  b->block = pos->parent;
  b->before = pos;
}

void rc_builder_before_term(rc_builder *b, rc_block *block) {
  rc_instr *t = rc_block_term(block);
  if (t) rc_builder_before(b, t); else rc_builder_at_end(b, block);
}

rc_instr *rc_build(rc_builder *b, rc_instr *i) {
  if (b->before) rc_instr_insert_before(b->before, i); else rc_instr_append(b->block, i);
  return i;
}

static rc_instr *make(rc_builder *b, rc_opcode op, rc_type t, uint32_t nops, uint32_t ntargets,
                      const char *name) {
  rc_instr *i = rc_instr_new(b->k, op, t, nops, ntargets);
  if (name && t != RC_VOID) rc_value_set_name(b->k, &i->v, name);
  return i;
}

rc_value *rc_build_binop(rc_builder *b, rc_opcode op, rc_value *x, rc_value *y, const char *name) {
  rc_instr *i = make(b, op, (rc_type)x->type, 2, 0, name);
  i->ops[0] = x;
  i->ops[1] = y;
  return &rc_build(b, i)->v;
}

rc_value *rc_build_unop(rc_builder *b, rc_opcode op, rc_value *x, const char *name) {
  rc_instr *i = make(b, op, (rc_type)x->type, 1, 0, name);
  i->ops[0] = x;
  return &rc_build(b, i)->v;
}

rc_value *rc_build_cmp(rc_builder *b, rc_cmp c, rc_value *x, rc_value *y, const char *name) {
  rc_type t = rc_type_like(b->k->mod, (rc_type)x->type, RC_I1); /* <N x i1> for vectors */
  rc_instr *i = make(b, rc_cmp_is_float(c) ? RC_OP_FCMP : RC_OP_ICMP, t, 2, 0, name);
  i->pred = (uint16_t)c;
  i->ops[0] = x;
  i->ops[1] = y;
  return &rc_build(b, i)->v;
}

rc_value *rc_build_select(rc_builder *b, rc_value *c, rc_value *x, rc_value *y, const char *name) {
  rc_instr *i = make(b, RC_OP_SELECT, (rc_type)x->type, 3, 0, name);
  i->ops[0] = c;
  i->ops[1] = x;
  i->ops[2] = y;
  return &rc_build(b, i)->v;
}

rc_value *rc_build_cast(rc_builder *b, rc_opcode op, rc_value *x, rc_type to, const char *name) {
  rc_instr *i = make(b, op, to, 1, 0, name);
  i->ops[0] = x;
  return &rc_build(b, i)->v;
}

rc_value *rc_build_load(rc_builder *b, rc_type t, rc_value *ptr, const char *name) {
  rc_instr *i = make(b, RC_OP_LOAD, t, 1, 0, name);
  i->ops[0] = ptr;
  return &rc_build(b, i)->v;
}

rc_instr *rc_build_store(rc_builder *b, rc_value *v, rc_value *ptr) {
  rc_instr *i = make(b, RC_OP_STORE, RC_VOID, 2, 0, NULL);
  i->ops[0] = v;
  i->ops[1] = ptr;
  return rc_build(b, i);
}

rc_value *rc_build_gep(rc_builder *b, rc_value *base, rc_value *index, int64_t scale,
                       const char *name) {
  rc_instr *i = make(b, RC_OP_GEP, (rc_type)base->type, 2, 0, name);
  i->ops[0] = base;
  i->ops[1] = index;
  rc_instr_set_cases(b->k, i, &scale, 1);
  return &rc_build(b, i)->v;
}

rc_value *rc_build_alloca(rc_builder *b, int64_t bytes, const char *name) {
  rc_instr *i = make(b, RC_OP_ALLOCA, RC_PTR, 0, 0, name);
  i->imm = bytes;
  return &rc_build(b, i)->v;
}

rc_value *rc_build_localmem(rc_builder *b, int64_t bytes, const char *name) {
  rc_instr *i = make(b, RC_OP_LOCALMEM, RC_PTR, 0, 0, name);
  i->imm = bytes;
  return &rc_build(b, i)->v;
}

rc_instr *rc_build_call(rc_builder *b, rc_builtin f, rc_type ret, rc_value **args, uint32_t nargs,
                        const char *name) {
  rc_instr *i = make(b, RC_OP_CALL, ret, nargs, 0, name);
  i->pred = (uint16_t)f;
  if (nargs) memcpy(i->ops, args, nargs * sizeof *args);
  return rc_build(b, i);
}

rc_instr *rc_build_br(rc_builder *b, rc_value *cond, rc_block *t, rc_block *f) {
  rc_instr *i = make(b, RC_OP_BR, RC_VOID, 1, 2, NULL);
  i->ops[0] = cond;
  i->targets[0] = t;
  i->targets[1] = f;
  return rc_build(b, i);
}

rc_instr *rc_build_jmp(rc_builder *b, rc_block *t) {
  rc_instr *i = make(b, RC_OP_JMP, RC_VOID, 0, 1, NULL);
  i->targets[0] = t;
  return rc_build(b, i);
}

rc_instr *rc_build_switch(rc_builder *b, rc_value *v, rc_block *dflt, const int64_t *cases,
                          rc_block *const *targets, uint32_t ncases) {
  rc_instr *i = make(b, RC_OP_SWITCH, RC_VOID, 1, ncases + 1, NULL);
  i->ops[0] = v;
  i->targets[0] = dflt;
  for (uint32_t c = 0; c < ncases; c++) {
    i->cases[c] = rc_int_canon((rc_type)v->type, cases[c]);
    i->targets[c + 1] = targets[c];
  }
  return rc_build(b, i);
}

rc_instr *rc_build_ret_value(rc_builder *b, rc_value *v) {
  rc_instr *i = make(b, RC_OP_RET, RC_VOID, 1, 0, NULL);
  i->ops[0] = v;
  return rc_build(b, i);
}

rc_instr *rc_build_callfn(rc_builder *b, rc_kernel *callee, rc_value **args, uint32_t nargs,
                          const char *name) {
  rc_instr *i = make(b, RC_OP_CALLFN, callee->ret_type, nargs, 0, name);
  i->u.callee = callee;
  if (nargs) memcpy(i->ops, args, nargs * sizeof *args);
  return rc_build(b, i);
}

rc_instr *rc_build_ret(rc_builder *b) {
  return rc_build(b, make(b, RC_OP_RET, RC_VOID, 0, 0, NULL));
}

rc_instr *rc_build_unreachable(rc_builder *b) {
  return rc_build(b, make(b, RC_OP_UNREACHABLE, RC_VOID, 0, 0, NULL));
}

rc_value *rc_build_ballot(rc_builder *b, rc_value *cond, const char *name) {
  rc_instr *i = make(b, RC_OP_BALLOT, RC_MASK, 1, 0, name);
  i->ops[0] = cond;
  return &rc_build(b, i)->v;
}

rc_value *rc_build_exec(rc_builder *b, const char *name) {
  return &rc_build(b, make(b, RC_OP_EXEC, RC_MASK, 0, 0, name))->v;
}

rc_instr *rc_build_setexec(rc_builder *b, rc_value *mask) {
  rc_instr *i = make(b, RC_OP_SETEXEC, RC_VOID, 1, 0, NULL);
  i->ops[0] = mask;
  return rc_build(b, i);
}

rc_value *rc_build_rget(rc_builder *b, rc_reg *r, const char *name) {
  rc_instr *i = make(b, RC_OP_RGET, (rc_type)r->type, 0, 0, name);
  i->u.reg = r;
  return &rc_build(b, i)->v;
}

rc_instr *rc_build_rset(rc_builder *b, rc_reg *r, rc_value *v) {
  rc_instr *i = make(b, RC_OP_RSET, RC_VOID, 1, 0, NULL);
  i->u.reg = r;
  i->ops[0] = v;
  return rc_build(b, i);
}

rc_instr *rc_build_brexecz(rc_builder *b, rc_block *if_empty, rc_block *otherwise) {
  rc_instr *i = make(b, RC_OP_BREXECZ, RC_VOID, 0, 2, NULL);
  i->targets[0] = if_empty;
  i->targets[1] = otherwise;
  return rc_build(b, i);
}
