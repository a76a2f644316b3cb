/* Export by editing the LLVM module in place (docs/llvm.md, "The module stays the source of
 * truth"). The view of a function records where each block and instruction came from; export
 * finds them again in a fresh copy of the origin module and changes only what the transforms
 * changed:
 * - blocks reconv added are new LLVM blocks; the blocks are put in the view's order;
 * - instructions reconv added (phis of flow blocks and SSA repair, the compares of lowerswitch, the
 *   branches of flow blocks, a unified exit's ret) are built; every other instruction stays the
 *   one the user's compiler wrote, with its type, flags, attributes, metadata and debug location;
 * - an original instruction whose operand the view changed (a use SSA repair routed through a
 *   new phi) gets that operand set; a phi whose incoming blocks or values changed is rebuilt under
 *   its name; a terminator whose targets changed is retargeted in place when it keeps its kind,
 *   else replaced; branch weights stay with the slots of a branch whose condition stays, and flow
 *   blocks get theirs from the branch they stand in for (export_profile.c);
 * - what the view dropped (blocks the transforms removed, phis they simplified away) is erased.
 * A function the transforms did not change comes out identical. */
#include "bridge.h"

#include <stdlib.h>
#include <string.h>

enum { DROP, KEPT, ERASED };

typedef struct inplace {
  exporter *ex;
  const rc_kernel *k;
  LLVMValueRef fn;
  LLVMValueRef *linst;        /* the function's instructions by origin - 1 */
  uint32_t ninst;
  LLVMBasicBlockRef *lblock;  /* its blocks by origin - 1 */
  uint32_t nlblock;
  uint8_t *state;             /* per instruction: DROP (erase at the end), KEPT, or ERASED already */
  const rc_instr **claimer;   /* per instruction: the view instruction that stands for it */
  bool *kept_block;
  uint32_t *block_end;        /* per original block: index + 1 of its last instruction */
  LLVMValueRef *val;          /* rc value id -> the LLVM value standing for it now */
  LLVMTypeRef *newtype;       /* rc value id -> type of a new value, once known */
  LLVMBasicBlockRef *blk;     /* rc block id -> LLVM block */
  LLVMValueRef *phi_pos;      /* rc block id -> where new phis go (NULL: at the end) ... */
  uint8_t *phi_pos_known;     /* ... once known */
  unsigned md_dbg, md_prof, md_loop;
} inplace;

/* The original LLVM instruction a new view instruction copies (remat_addresses.c: an address
 * computed again where it is used), or NULL. */
static LLVMValueRef copy_of(const inplace *ip, const rc_instr *i) {
  if (!i->origin || (i->iflags & RC_IF_VIEW) || i->origin > ip->ninst || ip->claimer[i->origin - 1] == i) return NULL;
  return ip->linst[i->origin - 1];
}

/* ---- types of what reconv adds ------------------------------------------------------------------ */

/* The LLVM type for a reconv type when nothing better is known: scalars as themselves, pointers
 * to i8 in their address space, composites from their parts. */
static LLVMTypeRef structural_type(inplace *ip, rc_type t, unsigned depth) {
  LLVMContextRef c = ip->ex->lctx;
  const rc_module *m = ip->k->mod;
  if (rc_type_is_int(t)) return LLVMIntTypeInContext(c, rc_type_bits(t));
  switch (t) {
  case RC_F16: return LLVMHalfTypeInContext(c);
  case RC_F32: return LLVMFloatTypeInContext(c);
  case RC_F64: return LLVMDoubleTypeInContext(c);
  case RC_VOID: return LLVMVoidTypeInContext(c);
  default: break;
  }
  if (rc_type_is_ptr(t)) return LLVMPointerType(LLVMInt8TypeInContext(c), rc_type_addrspace(t));
  const rc_typeinfo *ti = rc_type_info(m, t);
  if (!ti || depth > 32) return LLVMInt8TypeInContext(c);
  switch (ti->kind) {
  case RC_TK_VECTOR: return LLVMVectorType(structural_type(ip, ti->elem, depth + 1), ti->count);
  case RC_TK_ARRAY: return LLVMArrayType(structural_type(ip, ti->elem, depth + 1), ti->count);
  default: {
    LLVMTypeRef *f = rc_xcalloc(ti->count ? ti->count : 1, sizeof *f);
    for (uint32_t i = 0; i < ti->count; i++) f[i] = structural_type(ip, ti->fields[i], depth + 1);
    LLVMTypeRef r = LLVMStructTypeInContext(c, f, ti->count, ti->packed);
    free(f);
    return r;
  }
  }
}

static bool is_view(const rc_value *v) {
  return v->kind == RC_V_INSTR && (((const rc_instr *)v)->iflags & RC_IF_VIEW);
}

/* The original LLVM instruction view instruction i stands for, or NULL when i is new. */
static LLVMValueRef original(const inplace *ip, const rc_instr *i) {
  if (!i->origin || (i->iflags & RC_IF_VIEW) || i->origin > ip->ninst || ip->claimer[i->origin - 1] != i) return NULL;
  return ip->linst[i->origin - 1];
}

/* Note that an original instruction was erased (by a rebuild or a replacement). */
static void erased(inplace *ip, uint32_t origin) {
  if (origin && origin <= ip->ninst) ip->state[origin - 1] = ERASED;
}

/* The LLVM value an existing reconv value stands for (NULL for constants and new values). */
static LLVMValueRef existing(inplace *ip, const rc_value *v) {
  switch (v->kind) {
  case RC_V_PARAM:
  case RC_V_INSTR:
    if (is_view(v)) {
      const rc_instr *i = (const rc_instr *)v;
      if (v->id < ip->k->nvalues && ip->val[v->id]) return ip->val[v->id]; /* find_view_constants */
      return i->origin && i->origin <= ip->ninst ? LLVMGetOperand(ip->linst[i->origin - 1], i->origin_op) : NULL;
    }
    return v->id < ip->k->nvalues ? ip->val[v->id] : NULL;
  case RC_V_GLOBAL: {
    const rc_global *g = (const rc_global *)v;
    return g->origin && g->origin <= ip->ex->nglobals ? ip->ex->globals[g->origin - 1] : NULL;
  }
  default: return NULL;
  }
}

/* The constant expression each view instruction stands for, read off the module before anything
 * changes: an original instruction's operand gives the view instruction it uses (view_constants_of,
 * for reconv instruction i that stands for original l), and a constant expression's operand the
 * view instructions nested in it (find_view_constants). One view instruction can stand for a
 * constant used at several places, also nested in another one (`bitcast (gep ...)` here, the bare
 * `gep` there), so its own origin, the first use, does not always name it. */
static void view_constants_of(inplace *ip, const rc_instr *i, LLVMValueRef l) {
  if (i->op == RC_OP_PHI) return;
  for (uint32_t o = 0; o < i->nops; o++) {
    const rc_value *v = i->ops[o];
    if (is_view(v) && v->id < ip->k->nvalues && !ip->val[v->id])
      ip->val[v->id] = LLVMGetOperand(l, (unsigned)imp_operand_number(i, o));
  }
}

/* After view_constants_of has seen every original instruction (ex_inplace's walk that claims them),
 * the nested ones. */
static void find_view_constants(inplace *ip) {
  const rc_kernel *k = ip->k;
  /* nested ones: view instructions come before their users in the entry block, so the users are
   * known first when walking backwards */
  if (!k->nblocks) return;
  for (const rc_instr *i = k->blocks[0]->last; i; i = i->prev) {
    if (!(i->iflags & RC_IF_VIEW) || i->v.id >= k->nvalues || !ip->val[i->v.id]) continue;
    LLVMValueRef c = ip->val[i->v.id];
    for (uint32_t o = 0; o < i->nops; o++) {
      const rc_value *v = i->ops[o];
      unsigned j = (unsigned)imp_operand_number(i, o);
      if (is_view(v) && v->id < k->nvalues && !ip->val[v->id] && j < (unsigned)LLVMGetNumOperands(c))
        ip->val[v->id] = LLVMGetOperand(c, j);
    }
  }
}

/* The LLVM type of reconv value v, as far as it is known yet (NULL: not yet). */
static LLVMTypeRef known_type(inplace *ip, const rc_value *v) {
  LLVMValueRef l = existing(ip, v);
  if (l) return LLVMTypeOf(l);
  if ((v->kind == RC_V_INSTR || v->kind == RC_V_PARAM) && v->id < ip->k->nvalues) return ip->newtype[v->id];
  return NULL;
}

/* Types of the values reconv added: a new phi has the type of what flows into it, a new compare
 * i1, anything else what its operands say; what stays unknown (phis of only new phis and undef)
 * takes the type its users expect, else the structural one. A fixpoint over the new values. */
/* The type new instruction i gets from its operands, or NULL while they are unknown. */
static LLVMTypeRef type_from_operands(inplace *ip, const rc_instr *i) {
  LLVMTypeRef t = NULL;
  if (copy_of(ip, i)) {
    t = LLVMTypeOf(copy_of(ip, i));
  } else if (i->op == RC_OP_ICMP || i->op == RC_OP_FCMP) {
    LLVMTypeRef ot = known_type(ip, i->ops[0]);
    if (!ot) ot = known_type(ip, i->ops[1]);
    if (ot) t = LLVMGetTypeKind(ot) == LLVMVectorTypeKind ? LLVMVectorType(LLVMInt1TypeInContext(ip->ex->lctx), LLVMGetVectorSize(ot))
                                                        : LLVMInt1TypeInContext(ip->ex->lctx);
  } else if (i->op == RC_OP_PHI || i->op == RC_OP_SELECT || i->op == RC_OP_FREEZE ||
             rc_opcode_is_int_binop((rc_opcode)i->op) || rc_opcode_is_float_binop((rc_opcode)i->op)) {
    for (uint32_t o = i->op == RC_OP_SELECT ? 1 : 0; o < i->nops && !t; o++) t = known_type(ip, i->ops[o]);
  }
  return t;
}

/* Is i's type one LLVM has exactly one type for (an integer of its width, half, float, double)? */
static bool one_llvm_type(const rc_instr *i) {
  return rc_type_is_int((rc_type)i->v.type) || rc_type_is_float((rc_type)i->v.type);
}

static void resolve_new_types(inplace *ip, rc_instr **fresh, uint32_t n, rc_instr *const *views, uint32_t nviews) {
  /* a worklist: a new instruction is tried again when one of its operands gets its type (chains
   * of flow phis are long: a fixpoint of whole sweeps took a sweep per link) */
  uint32_t nv = ip->k->nvalues;
  uint32_t *start = rc_xcalloc(nv + 2, sizeof *start), *pos = rc_xmalloc((nv + 1) * sizeof *pos);
  for (uint32_t f = 0; f < n; f++)
    for (uint32_t o = 0; o < fresh[f]->nops; o++)
      if (fresh[f]->ops[o]->kind == RC_V_INSTR && fresh[f]->ops[o]->id < nv) start[fresh[f]->ops[o]->id + 1]++;
  for (uint32_t v = 0; v < nv; v++) start[v + 1] += start[v];
  memcpy(pos, start, (nv + 1) * sizeof *pos);
  uint32_t *users = rc_xmalloc((start[nv] ? start[nv] : 1) * sizeof *users);
  for (uint32_t f = 0; f < n; f++)
    for (uint32_t o = 0; o < fresh[f]->nops; o++)
      if (fresh[f]->ops[o]->kind == RC_V_INSTR && fresh[f]->ops[o]->id < nv) users[pos[fresh[f]->ops[o]->id]++] = f;
  rc_u32vec work = {0};
  for (uint32_t f = n; f-- > 0;) rc_vec_push(&work, f);
  while (work.len) {
    rc_instr *i = fresh[work.data[--work.len]];
    if (i->v.type == RC_VOID || ip->newtype[i->v.id]) continue;
    LLVMTypeRef t = type_from_operands(ip, i);
    if (!t) continue;
    ip->newtype[i->v.id] = t;
    for (uint32_t u = start[i->v.id]; u < start[i->v.id + 1]; u++)
      if (!ip->newtype[fresh[users[u]]->v.id]) rc_vec_push(&work, users[u]);
  }
  rc_vec_free(&work);
  free(users);
  free(pos);
  free(start);
  /* Users that are original instructions say what they expect. The values this can still type are
   * the instructions with neither an LLVM value nor a type: new ones the worklist left open (flow
   * conditions: phis of constants), and view instructions no constant was found for (operands are
   * instructions of the kernel, so there are no others). Of those, the ones of an integer or
   * floating-point type need no walk: LLVM has one type for each of these, the structural type they
   * get below, so it is what any user expects. When no other value is open, the walk over the
   * kernel is skipped; else it stops once each has its type. */
  uint32_t open = 0;
  for (uint32_t f = 0; f < n; f++) open += fresh[f]->v.type != RC_VOID && !ip->newtype[fresh[f]->v.id] && !one_llvm_type(fresh[f]);
  for (uint32_t v = 0; v < nviews; v++)
    open += views[v]->v.id < ip->k->nvalues && !ip->val[views[v]->v.id] && !ip->newtype[views[v]->v.id] &&
            !one_llvm_type(views[v]);
  for (uint32_t b = 0; open && b < ip->k->nblocks; b++)
    for (const rc_instr *u = ip->k->blocks[b]->first; open && u; u = u->next) {
      LLVMValueRef l = original(ip, u);
      if (!l || u->op == RC_OP_PHI || rc_opcode_is_terminator((rc_opcode)u->op)) continue;
      for (uint32_t o = 0; o < u->nops; o++) {
        const rc_value *v = u->ops[o];
        if (v->kind != RC_V_INSTR || v->id >= ip->k->nvalues || ip->val[v->id] || ip->newtype[v->id]) continue;
        ip->newtype[v->id] = LLVMTypeOf(LLVMGetOperand(l, (unsigned)imp_operand_number(u, o)));
        open -= !one_llvm_type((const rc_instr *)v);
      }
    }
  for (uint32_t f = 0; f < n; f++) {
    rc_instr *i = fresh[f];
    if (i->v.type != RC_VOID && !ip->newtype[i->v.id]) ip->newtype[i->v.id] = structural_type(ip, (rc_type)i->v.type, 0);
  }
}

/* ---- values --------------------------------------------------------------------------------------------- */

/* The LLVM value of reconv value v where a value of type `want` is expected. */
static LLVMValueRef value_of(inplace *ip, const rc_value *v, LLVMTypeRef want) {
  LLVMValueRef l = existing(ip, v);
  if (l) return l;
  if (!want) want = known_type(ip, v);
  if (!want) want = structural_type(ip, (rc_type)v->type, 0);
  switch (v->kind) {
  case RC_V_UNDEF: return LLVMGetUndef(want);
  case RC_V_CONST: {
    LLVMTypeKind kind = LLVMGetTypeKind(want);
    if (kind == LLVMHalfTypeKind || kind == LLVMFloatTypeKind || kind == LLVMDoubleTypeKind)
      return LLVMConstReal(want, rc_const_fval(v));
    if (kind == LLVMPointerTypeKind)
      return rc_const_ival(v) == 0 ? LLVMConstPointerNull(want)
                                   : LLVMConstIntToPtr(LLVMConstInt(LLVMInt64TypeInContext(ip->ex->lctx),
                                                                    (unsigned long long)rc_const_ival(v), 0), want);
    if (kind == LLVMIntegerTypeKind) return LLVMConstInt(want, (unsigned long long)rc_const_ival(v), 1);
    if (!((const rc_const *)v)->u.elems) return LLVMConstNull(want);
    /* a composite constant from its elements, each of the type the composite's type says */
    uint32_t n = rc_type_count(ip->k->mod, (rc_type)v->type);
    LLVMValueRef *e = rc_xcalloc(n ? n : 1, sizeof *e);
    for (uint32_t i = 0; i < n; i++) {
      LLVMTypeRef et = kind == LLVMStructTypeKind ? LLVMStructGetTypeAtIndex(want, i) : LLVMGetElementType(want);
      e[i] = value_of(ip, rc_const_elem(v, i), et);
    }
    LLVMValueRef r = kind == LLVMStructTypeKind ? LLVMConstNamedStruct(want, e, n)
                     : kind == LLVMArrayTypeKind ? LLVMConstArray(LLVMGetElementType(want), e, n)
                                                 : LLVMConstVector(e, n);
    free(e);
    return r;
  }
  default: return LLVMGetUndef(want); /* a value the transforms left without definition */
  }
}

/* Is LLVM operand l still what the view's operand v says? */
static bool same_operand(inplace *ip, const rc_value *v, LLVMValueRef l) {
  LLVMValueRef e = existing(ip, v);
  if (e) return e == l;
  if (LLVMIsAInstruction(l) || LLVMIsAArgument(l)) return false; /* now a new value or a constant */
  if (v->kind == RC_V_CONST && LLVMIsAConstantInt(l) && LLVMGetIntTypeWidth(LLVMTypeOf(l)) <= 64)
    return LLVMConstIntGetSExtValue(l) == rc_const_ival(v);
  if (v->kind == RC_V_CONST && LLVMIsAConstantFP(l)) {
    LLVMBool loses;
    double d = LLVMConstRealGetDouble(l, &loses);
    return d == rc_const_fval(v) || (d != d && rc_const_fval(v) != rc_const_fval(v));
  }
  return v->kind != RC_V_INSTR && v->kind != RC_V_PARAM; /* constants stay where nothing moved them */
}

/* ---- instructions -------------------------------------------------------------------------------------------- */

static const char *name_of(const rc_instr *i) {
  return i->v.name ? i->v.name : "";
}

/* Where a new non-phi instruction of block b goes: before the next instruction of b that has an
 * LLVM counterpart already, else at the end (new blocks have no terminator yet). */
static void position_for(inplace *ip, const rc_instr *i) {
  LLVMBuilderRef b = ip->ex->b;
  for (const rc_instr *n = i->next; n; n = n->next) {
    LLVMValueRef l = original(ip, n);
    if (l && ip->state[n->origin - 1] == KEPT && LLVMGetInstructionParent(l) == ip->blk[i->parent->id]) {
      LLVMPositionBuilderBefore(b, l);
      LLVMSetCurrentDebugLocation2(b, NULL);
      return;
    }
  }
  LLVMBasicBlockRef bb = ip->blk[i->parent->id];
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  if (term) LLVMPositionBuilderBefore(b, term); else LLVMPositionBuilderAtEnd(b, bb);
  LLVMSetCurrentDebugLocation2(b, NULL);
}

/* A new non-phi, non-terminator instruction. */
static int build_new(inplace *ip, const rc_instr *i) {
  exporter *ex = ip->ex;
  LLVMBuilderRef b = ex->b;
  position_for(ip, i);
  rc_opcode op = (rc_opcode)i->op;
  LLVMTypeRef t = i->v.type != RC_VOID ? ip->newtype[i->v.id] : NULL;
  LLVMValueRef r = NULL, orig = copy_of(ip, i);
  if (orig) { /* LLVM's copy of the original, with its type, flags and metadata; operands the view's */
    r = LLVMInstructionClone(orig);
    LLVMInsertIntoBuilderWithName(b, r, LLVMGetValueName(orig));
    for (uint32_t o = 0; o < i->nops; o++) {
      unsigned j = (unsigned)imp_operand_number(i, o);
      LLVMSetOperand(r, j, value_of(ip, i->ops[o], LLVMTypeOf(LLVMGetOperand(orig, j))));
    }
  } else if (rc_opcode_is_int_binop(op) && op != RC_OP_ANDN) {
    r = LLVMBuildBinOp(b, ex_llvm_opcode(op), value_of(ip, i->ops[0], t), value_of(ip, i->ops[1], t), name_of(i));
  } else if (rc_opcode_is_float_binop(op)) {
    r = LLVMBuildBinOp(b, ex_llvm_opcode(op), value_of(ip, i->ops[0], t), value_of(ip, i->ops[1], t), name_of(i));
  } else if (op == RC_OP_ICMP || op == RC_OP_FCMP) {
    LLVMTypeRef ot = known_type(ip, i->ops[0]);
    if (!ot) ot = known_type(ip, i->ops[1]);
    LLVMValueRef x = value_of(ip, i->ops[0], ot), y = value_of(ip, i->ops[1], ot ? ot : LLVMTypeOf(x));
    r = op == RC_OP_ICMP ? LLVMBuildICmp(b, ex_icmp_pred((rc_cmp)i->pred), x, y, name_of(i))
                         : LLVMBuildFCmp(b, ex_fcmp_pred((rc_cmp)i->pred), x, y, name_of(i));
  } else if (op == RC_OP_SELECT) {
    r = LLVMBuildSelect(b, value_of(ip, i->ops[0], NULL), value_of(ip, i->ops[1], t), value_of(ip, i->ops[2], t), name_of(i));
  } else if (op == RC_OP_FREEZE) {
    r = LLVMBuildFreeze(b, value_of(ip, i->ops[0], t), name_of(i));
  } else if (rc_opcode_is_cast(op)) {
    r = LLVMBuildCast(b, ex_llvm_opcode(op), value_of(ip, i->ops[0], NULL), t, name_of(i));
  } else {
    rc_strbuf text;
    rc_sb_init(&text);
    rc_print_instr(i, &text);
    rc_report(ex->ctx, RC_SEV_ERROR, ip->k->mod->filename, 0, 0,
              "function @%s: cannot write `%s` into the LLVM module: reconv's transforms do not add such "
              "instructions on the LLVM path", ip->k->name, text.data ? text.data : "");
    rc_sb_free(&text);
    return -1;
  }
  if (i->v.type != RC_VOID) ip->val[i->v.id] = r;
  return 0;
}

/* Build the new non-phi instructions, each after the new ones it uses (their block order need
 * not be a dominance order). */
static bool operands_ready(inplace *ip, const rc_instr *i) {
  for (uint32_t o = 0; o < i->nops; o++) {
    const rc_value *v = i->ops[o];
    if ((v->kind == RC_V_INSTR || v->kind == RC_V_PARAM) && !is_view(v) && v->id < ip->k->nvalues && !ip->val[v->id])
      return false;
  }
  return true;
}

static int build_all_new(inplace *ip, rc_instr **fresh, uint32_t n) {
  bool *done = rc_xcalloc(n + 1, sizeof *done);
  uint32_t left = 0;
  for (uint32_t f = 0; f < n; f++) left += !(done[f] = fresh[f]->op == RC_OP_PHI);
  int rc = 0;
  while (left && rc == 0) {
    uint32_t before = left;
    for (uint32_t f = 0; f < n && rc == 0; f++)
      if (!done[f] && operands_ready(ip, fresh[f])) {
        rc = build_new(ip, fresh[f]);
        done[f] = true;
        left--;
      }
    if (left == before && rc == 0)
      rc = rc_report(ip->ex->ctx, RC_SEV_ERROR, ip->k->mod->filename, 0, 0,
                     "internal error: function @%s: new instructions that use each other in a cycle", ip->k->name);
  }
  free(done);
  return rc;
}

/* A new phi (incoming values come later, when every value exists). It goes before the block's first
 * non-phi instruction, found once per block: the new phis go before it, so it stays the first
 * (flow blocks carry many phis, and a walk over them per phi was quadratic). */
static void build_new_phi(inplace *ip, const rc_instr *i) {
  uint32_t b = i->parent->id;
  LLVMBasicBlockRef bb = ip->blk[b];
  if (!ip->phi_pos_known[b]) {
    LLVMValueRef first = LLVMGetFirstInstruction(bb);
    while (first && LLVMIsAPHINode(first)) first = LLVMGetNextInstruction(first);
    ip->phi_pos[b] = first;
    ip->phi_pos_known[b] = 1;
  }
  LLVMValueRef first = ip->phi_pos[b];
  if (first) LLVMPositionBuilderBefore(ip->ex->b, first); else LLVMPositionBuilderAtEnd(ip->ex->b, bb);
  LLVMSetCurrentDebugLocation2(ip->ex->b, NULL);
  ip->val[i->v.id] = LLVMBuildPhi(ip->ex->b, ip->newtype[i->v.id], name_of(i));
}

/* One incoming entry per CFG edge, as LLVM wants (a block branching here twice is here twice). */
static void add_incoming(inplace *ip, LLVMValueRef phi, const rc_instr *i) {
  LLVMTypeRef t = LLVMTypeOf(phi);
  for (uint32_t o = 0; o < i->nops; o++) {
    LLVMValueRef v = value_of(ip, i->ops[o], t);
    LLVMBasicBlockRef from = ip->blk[i->targets[o]->id];
    for (uint32_t e = rc_block_count_pred(i->parent, i->targets[o]); e > 0; e--) LLVMAddIncoming(phi, &v, &from, 1);
  }
}

/* Does the original phi l still say what the view's phi i says (the same value per incoming
 * block, one entry per edge)? */
static bool same_phi(inplace *ip, const rc_instr *i, LLVMValueRef l) {
  unsigned n = LLVMCountIncoming(l);
  uint32_t edges = 0;
  for (uint32_t o = 0; o < i->nops; o++) edges += rc_block_count_pred(i->parent, i->targets[o]);
  if (n != edges) return false;
  for (unsigned e = 0; e < n; e++) {
    LLVMBasicBlockRef from = LLVMGetIncomingBlock(l, e);
    int o = -1;
    for (uint32_t k = 0; k < i->nops && o < 0; k++)
      if (ip->blk[i->targets[k]->id] == from) o = (int)k;
    if (o < 0 || !same_operand(ip, i->ops[o], LLVMGetIncomingValue(l, e))) return false;
  }
  return true;
}

/* Rebuild an original phi under its name; every use of the old one moves to the new one. */
static void rebuild_phi(inplace *ip, const rc_instr *i) {
  LLVMValueRef old = ip->val[i->v.id];
  LLVMPositionBuilderBefore(ip->ex->b, old);
  LLVMSetCurrentDebugLocation2(ip->ex->b, NULL);
  size_t n;
  const char *name = LLVMGetValueName2(old, &n);
  char *copy = rc_xmalloc(n + 1);
  memcpy(copy, name, n);
  copy[n] = 0;
  LLVMSetValueName2(old, "", 0);
  LLVMValueRef phi = LLVMBuildPhi(ip->ex->b, LLVMTypeOf(old), copy);
  free(copy);
  LLVMValueRef dbg = LLVMGetMetadata(old, ip->md_dbg);
  if (dbg) LLVMSetMetadata(phi, ip->md_dbg, dbg);
  ip->val[i->v.id] = phi;
  add_incoming(ip, phi, i);
  LLVMReplaceAllUsesWith(old, phi);
  erased(ip, i->origin);
  LLVMInstructionEraseFromParent(old);
}

/* ---- terminators --------------------------------------------------------------------------------------------------- */

static LLVMValueRef build_terminator(inplace *ip, const rc_instr *t) {
  LLVMBuilderRef b = ip->ex->b;
  LLVMBasicBlockRef *bb = ip->blk;
  switch ((rc_opcode)t->op) {
  case RC_OP_BR:
    return LLVMBuildCondBr(b, value_of(ip, t->ops[0], LLVMInt1TypeInContext(ip->ex->lctx)), bb[t->targets[0]->id],
                           bb[t->targets[1]->id]);
  case RC_OP_JMP: return LLVMBuildBr(b, bb[t->targets[0]->id]);
  case RC_OP_RET:
    return t->nops ? LLVMBuildRet(b, value_of(ip, t->ops[0], LLVMGetReturnType(LLVMGlobalGetValueType(ip->fn))))
                   : LLVMBuildRetVoid(b);
  case RC_OP_UNREACHABLE: return LLVMBuildUnreachable(b);
  default: { /* switch */
    LLVMValueRef v = value_of(ip, t->ops[0], NULL);
    LLVMValueRef sw = LLVMBuildSwitch(b, v, bb[t->targets[0]->id], t->ntargets - 1);
    for (uint32_t c = 1; c < t->ntargets; c++)
      LLVMAddCase(sw, LLVMConstInt(LLVMTypeOf(v), (unsigned long long)t->cases[c - 1], 1), bb[t->targets[c]->id]);
    return sw;
  }
  }
}

/* Can the original terminator l be edited into t (the same kind and number of successors)? */
static bool same_kind(const rc_instr *t, LLVMValueRef l) {
  LLVMOpcode op = LLVMGetInstructionOpcode(l);
  switch ((rc_opcode)t->op) {
  case RC_OP_BR: return op == LLVMBr && LLVMIsConditional(l);
  case RC_OP_JMP: return op == LLVMBr && !LLVMIsConditional(l);
  case RC_OP_RET: return op == LLVMRet;
  case RC_OP_UNREACHABLE: return op == LLVMUnreachable;
  case RC_OP_SWITCH: {
    if (op != LLVMSwitch || LLVMGetNumSuccessors(l) != t->ntargets) return false;
    for (uint32_t c = 1; c < t->ntargets; c++)
      if (LLVMConstIntGetSExtValue(LLVMGetOperand(l, 2 * c)) != t->cases[c - 1]) return false;
    return true;
  }
  default: return false;
  }
}

static void terminator(inplace *ip, const rc_block *rb) {
  const rc_instr *t = rc_block_term(rb);
  LLVMBasicBlockRef bb = ip->blk[rb->id];
  LLVMValueRef old = original(ip, t);
  if (old && LLVMGetInstructionParent(old) == bb && same_kind(t, old)) {
    /* a branch's weights stay with its slots (export_profile.c) */
    for (uint32_t s = 0; s < t->ntargets; s++)
      if (LLVMGetSuccessor(old, s) != ip->blk[t->targets[s]->id]) LLVMSetSuccessor(old, s, ip->blk[t->targets[s]->id]);
    if (t->nops && !same_operand(ip, t->ops[0], LLVMGetOperand(old, 0))) {
      LLVMSetOperand(old, 0, value_of(ip, t->ops[0], LLVMTypeOf(LLVMGetOperand(old, 0))));
      if (t->op == RC_OP_SWITCH) LLVMSetMetadata(old, ip->md_prof, NULL); /* for another value */
    }
    return;
  }
  LLVMValueRef prev = LLVMGetBasicBlockTerminator(bb);
  LLVMPositionBuilderAtEnd(ip->ex->b, bb);
  LLVMValueRef nt = build_terminator(ip, t);
  ex_annotate(ip->ex, t, nt);
  if (prev) {
    /* the branch it replaces said where it came from and which loop it closes */
    LLVMValueRef dbg = LLVMGetMetadata(prev, ip->md_dbg), loop = LLVMGetMetadata(prev, ip->md_loop);
    if (dbg) LLVMSetMetadata(nt, ip->md_dbg, dbg);
    if (loop) LLVMSetMetadata(nt, ip->md_loop, loop);
    /* an original block's terminator is its last instruction */
    if (rb->origin && rb->origin <= ip->nlblock && ip->blk[rb->id] == ip->lblock[rb->origin - 1])
      erased(ip, ip->block_end[rb->origin - 1]);
    LLVMInstructionEraseFromParent(prev);
  }
}

/* ---- the function ------------------------------------------------------------------------------------------------------ */

static void collect(inplace *ip) {
  RC_VEC(LLVMValueRef) insts = {0};
  RC_VEC(LLVMBasicBlockRef) blocks = {0};
  RC_VEC(uint32_t) ends = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(ip->fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    rc_vec_push(&blocks, bb);
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) rc_vec_push(&insts, i);
    rc_vec_push(&ends, insts.len);
  }
  ip->linst = insts.data;
  ip->ninst = insts.len;
  ip->block_end = ends.data;
  ip->lblock = blocks.data;
  ip->nlblock = blocks.len;
}

/* Put every instruction into the block and at the place the view has it. Most transforms keep
 * instructions where they were, and then nothing moves; meld moves them (melded instructions into
 * the melded blocks, unpredicated runs into blocks of their own, a replicated block's code into the
 * replica), and the LLVM instruction moves along, with its name, flags and metadata. */
static void place_all(inplace *ip) {
  LLVMBuilderRef b = ip->ex->b;
  for (uint32_t n = 0; n < ip->k->nblocks; n++) {
    const rc_block *rb = ip->k->blocks[n];
    LLVMBasicBlockRef bb = ip->blk[rb->id];
    LLVMValueRef prev = NULL;
    for (const rc_instr *i = rb->first; i; i = i->next) {
      if (i->iflags & RC_IF_VIEW) continue;
      LLVMValueRef l;
      if (rc_opcode_is_terminator((rc_opcode)i->op)) l = LLVMGetBasicBlockTerminator(bb);
      else if (i->v.type != RC_VOID) l = i->v.id < ip->k->nvalues ? ip->val[i->v.id] : NULL; /* rebuilt phis too */
      else l = original(ip, i) && ip->state[i->origin - 1] == KEPT ? original(ip, i) : NULL;
      if (!l || !LLVMIsAInstruction(l)) continue; /* a new value LLVM's builder folded to a constant */
      LLVMValueRef want = prev ? LLVMGetNextInstruction(prev) : LLVMGetFirstInstruction(bb);
      if (l != want) {
        size_t len;
        const char *name = LLVMGetValueName2(l, &len);
        char *copy = rc_xmalloc(len + 1);
        memcpy(copy, name, len);
        copy[len] = 0;
        if (want) LLVMPositionBuilderBefore(b, want); else LLVMPositionBuilderAtEnd(b, bb);
        LLVMSetCurrentDebugLocation2(b, NULL); /* the instruction keeps its own location */
        LLVMInstructionRemoveFromParent(l);
        LLVMInsertIntoBuilderWithName(b, l, copy);
        free(copy);
      }
      prev = l;
    }
  }
}

/* Erase what the view no longer has: instructions (their remaining uses are in other erased
 * code, or are phi entries of removed edges) and then blocks. */
static void erase_dropped(inplace *ip) {
  for (uint32_t n = ip->ninst; n-- > 0;) {
    if (ip->state[n] != DROP) continue;
    LLVMValueRef i = ip->linst[n];
    if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind) LLVMReplaceAllUsesWith(i, LLVMGetUndef(LLVMTypeOf(i)));
    LLVMInstructionEraseFromParent(i);
  }
  for (uint32_t n = 0; n < ip->nlblock; n++)
    if (!ip->kept_block[n]) LLVMDeleteBasicBlock(ip->lblock[n]);
}

int ex_inplace(exporter *ex, const rc_kernel *k, LLVMValueRef fn) {
  inplace ip0 = {0};
  inplace *ip = &ip0;
  ip->ex = ex;
  ip->k = k;
  ip->fn = fn;
  ip->md_dbg = LLVMGetMDKindIDInContext(ex->lctx, "dbg", 3);
  ip->md_prof = LLVMGetMDKindIDInContext(ex->lctx, "prof", 4);
  ip->md_loop = LLVMGetMDKindIDInContext(ex->lctx, "llvm.loop", 9);
  collect(ip);
  /* positioning the builder at an instruction takes over its location; what reconv adds has none */
  LLVMSetCurrentDebugLocation2(ex->b, NULL);
  ip->state = rc_xcalloc(ip->ninst + 1, sizeof *ip->state);
  ip->claimer = rc_xcalloc(ip->ninst + 1, sizeof *ip->claimer);
  ip->kept_block = rc_xcalloc(ip->nlblock + 1, sizeof *ip->kept_block);
  ip->val = rc_xcalloc(k->nvalues + 1, sizeof *ip->val);
  ip->newtype = rc_xcalloc(k->nvalues + 1, sizeof *ip->newtype);
  ip->blk = rc_xcalloc(k->nblocks + 1, sizeof *ip->blk);
  int rc = 0;
  for (uint32_t p = 0; p < k->nparams; p++) ip->val[p] = LLVMGetParam(fn, p);
  /* blocks: the original ones, and new ones for what reconv added */
  for (uint32_t b = 0; b < k->nblocks; b++) {
    const rc_block *rb = k->blocks[b];
    if (rb->origin && rb->origin <= ip->nlblock && !ip->kept_block[rb->origin - 1]) {
      ip->blk[b] = ip->lblock[rb->origin - 1];
      ip->kept_block[rb->origin - 1] = true;
    } else {
      ip->blk[b] = LLVMAppendBasicBlockInContext(ex->lctx, fn, rb->name);
    }
  }
  /* instructions: the original ones stand for themselves; list the new ones */
  RC_VEC(rc_instr *) fresh = {0};
  RC_VEC(rc_instr *) views = {0}; /* view instructions: constants of the LLVM module */
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      if (i->iflags & RC_IF_VIEW) {
        rc_vec_push(&views, i);
        continue;
      }
      if (i->origin && i->origin <= ip->ninst && !ip->claimer[i->origin - 1]) {
        ip->claimer[i->origin - 1] = i;
        ip->state[i->origin - 1] = KEPT;
        if (i->v.type != RC_VOID) ip->val[i->v.id] = ip->linst[i->origin - 1];
        view_constants_of(ip, i, ip->linst[i->origin - 1]); /* in this walk: one less over the kernel */
      } else if (!rc_opcode_is_terminator((rc_opcode)i->op)) {
        rc_vec_push(&fresh, i); /* new, or a copy of an original that another one claimed */
      }
    }
  find_view_constants(ip);
  resolve_new_types(ip, fresh.data, fresh.len, views.data, views.len);
  ip->phi_pos = rc_xcalloc(k->nblocks + 1, sizeof *ip->phi_pos);
  ip->phi_pos_known = rc_xcalloc(k->nblocks + 1, sizeof *ip->phi_pos_known);
  for (uint32_t f = 0; f < fresh.len; f++)
    if (fresh.data[f]->op == RC_OP_PHI) build_new_phi(ip, fresh.data[f]);
  free(ip->phi_pos);
  free(ip->phi_pos_known);
  rc = build_all_new(ip, fresh.data, fresh.len);
  /* operands the view changed, phis, terminators */
  for (uint32_t b = 0; b < k->nblocks && rc == 0; b++) {
    const rc_block *rb = k->blocks[b];
    for (const rc_instr *i = rb->first; i; i = i->next) {
      if ((i->iflags & RC_IF_VIEW) || rc_opcode_is_terminator((rc_opcode)i->op)) continue;
      LLVMValueRef l = original(ip, i);
      if (!l) {
        if (i->op == RC_OP_PHI) add_incoming(ip, ip->val[i->v.id], i);
        continue;
      }
      if (i->op == RC_OP_PHI) {
        if (!same_phi(ip, i, l)) rebuild_phi(ip, i);
        continue;
      }
      for (uint32_t o = 0; o < i->nops; o++) {
        unsigned j = (unsigned)imp_operand_number(i, o);
        LLVMValueRef cur = LLVMGetOperand(l, j);
        if (!same_operand(ip, i->ops[o], cur)) LLVMSetOperand(l, j, value_of(ip, i->ops[o], LLVMTypeOf(cur)));
      }
    }
  }
  ex_branch_weights *weights = rc_xcalloc(k->nblocks + 1, sizeof *weights);
  for (uint32_t b = 0; b < k->nblocks && rc == 0; b++)
    weights[b] = ex_weights_of(original(ip, rc_block_term(k->blocks[b])), ip->md_prof);
  for (uint32_t b = 0; b < k->nblocks && rc == 0; b++) terminator(ip, k->blocks[b]);
  if (rc == 0) ex_profile_apply(ip->ex, k, ip->blk, weights, ip->md_prof);
  free(weights);
  if (rc == 0) {
    place_all(ip);
    erase_dropped(ip);
    for (uint32_t b = 1; b < k->nblocks; b++)
      if (LLVMGetPreviousBasicBlock(ip->blk[b]) != ip->blk[b - 1]) LLVMMoveBasicBlockAfter(ip->blk[b], ip->blk[b - 1]);
  }
  rc_vec_free(&fresh);
  rc_vec_free(&views);
  free(ip->linst);
  free(ip->lblock);
  free(ip->state);
  free(ip->claimer);
  free(ip->block_end);
  free(ip->kept_block);
  free(ip->val);
  free(ip->newtype);
  free(ip->blk);
  return rc;
}
