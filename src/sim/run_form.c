/* The form a kernel runs in. The LLVM import gives kernels LLVM's view (docs/llvm.md): pointers
 * into address spaces, freeze and addrspacecast, pointer-to-pointer bitcasts of typed pointers,
 * multi-index geps with struct offsets, module globals, amdgcn's per-dimension queries. The
 * machines run reconv's basic forms; sim_run_form rewrites a private copy of the kernel into them
 * before a run, the user's kernel untouched (so export still finds every instruction again):
 *
 * - every pointer type becomes `ptr`: the machines have one flat address map, so an address-space
 *   cast or a pointer bitcast is the same address (their uses take the operand);
 * - freeze is its operand: reconv's values are never poison;
 * - `gep p, i0, s0, i1, s1 ..., offset c` becomes one single-index gep per index and one for the
 *   offset (the machines' form, docs/ir.md "gep");
 * - a global in address space 3 is the group's local memory (`localmem`); any other global is a
 *   region of the module space (include/reconv/sim.h), one for the launch, holding its initial
 *   bytes, and its uses take its address as a constant;
 * - fence and nop do nothing on machines with one sequentially consistent memory; identity is its
 *   operand; amdgcn's workitem.id.x style queries are the dimension queries; the global offset is 0.
 *
 * Before these rewrites, calls of device functions are inlined (src/ir/inline_call.c) and vectors
 * scalarized (scalarize.c, which expands the geometric functions and vector loads and stores).
 * What the machines cannot run (aggregates, integers wider than 64 bits, the other builtins
 * without RC_BF_LEGAL) is refused before the run with the instruction and its block, never run
 * with a made-up value. An opaque instruction faults when a thread executes it (the machines'
 * decoders keep it). The copy keeps the kernel's blocks and their numbers (inlined blocks come
 * after them), so traces compare with the original's. */
#include "decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Builtins the machines run as they are: the hot classes inline (interp.c call, lanes.c), the long
 * tail through builtins.c; builtins without RC_BF_LEGAL are expanded (scalarize.c) or refused. */
static bool machine_builtin(rc_builtin f) {
  const rc_builtin_info *b = rc_builtin_get(f);
  if (!b || !(b->flags & RC_BF_LEGAL)) return false;
  return b->sig != RC_SIG_OTHER || sim_builtin_other_runs(f);
}

/* Builtins sim_run_form rewrites into what the machines run. */
static bool rewritten_builtin(rc_builtin f) {
  switch (f) {
  case RC_BI_FENCE: case RC_BI_NOP: case RC_BI_IDENTITY: case RC_BI_GLOBAL_OFFSET:
  case RC_BI_LOCAL_ID_X: case RC_BI_LOCAL_ID_Y: case RC_BI_LOCAL_ID_Z:
  case RC_BI_GROUP_ID_X: case RC_BI_GROUP_ID_Y: case RC_BI_GROUP_ID_Z:
    return true;
  default: return false;
  }
}

/* Builtins scalarize.c expands into what the machines run (the geometric functions, the vector
 * loads and stores), and those whose vector forms it expands. */
static bool expanded_builtin(rc_builtin f) {
  switch (f) {
  case RC_BI_DOT: case RC_BI_LENGTH: case RC_BI_DISTANCE: case RC_BI_NORMALIZE: case RC_BI_CROSS:
  case RC_BI_VLOAD: case RC_BI_VSTORE: case RC_BI_VLOAD_HALF: case RC_BI_VSTORE_HALF: case RC_BI_VLOADA_HALF:
  case RC_BI_VSTOREA_HALF: case RC_BI_SADD_WITH_OVERFLOW: case RC_BI_UADD_WITH_OVERFLOW:
  case RC_BI_SSUB_WITH_OVERFLOW: case RC_BI_USUB_WITH_OVERFLOW: case RC_BI_SMUL_WITH_OVERFLOW:
  case RC_BI_UMUL_WITH_OVERFLOW: case RC_BI_SHUFFLE: case RC_BI_SHUFFLE2: case RC_BI_REDUCE_ADD:
  case RC_BI_REDUCE_MUL: case RC_BI_REDUCE_AND: case RC_BI_REDUCE_OR: case RC_BI_REDUCE_XOR:
  case RC_BI_REDUCE_SMIN: case RC_BI_REDUCE_SMAX: case RC_BI_REDUCE_UMIN: case RC_BI_REDUCE_UMAX:
  case RC_BI_REDUCE_FMIN: case RC_BI_REDUCE_FMAX: case RC_BI_REDUCE_FADD: case RC_BI_REDUCE_FMUL:
    return true;
  default: return false;
  }
}

/* Why the machines cannot run type t, or NULL when they can (vectors: once scalarized). */
static const char *type_problem(const rc_module *m, rc_type t) {
  if (t == RC_VOID || rc_type_is_ptr(t) || rc_type_is_float(t) || t == RC_MASK) return NULL;
  if (rc_type_is_int(t))
    return rc_type_bits(t) > 64 ? "integers wider than 64 bits are not simulated (the machines' values are 64 bits)"
                                : NULL;
  if (rc_type_is_vector(m, t))
    return rc_type_is_ptr(rc_type_scalar_of(m, t)) ? "vectors of pointers are not simulated" : NULL;
  if (!rc_type_is_value(m, t)) return "values of a type reconv only carries cannot be simulated";
  for (uint32_t e = 0; e < rc_type_count(m, t); e++) { /* aggregates: their leaves (scalarize.c) */
    const char *why = type_problem(m, rc_type_elem(m, t, e));
    if (why) return why;
  }
  return NULL;
}

static bool is_pointer_copy(const rc_instr *i) {
  if (i->op == RC_OP_FREEZE || i->op == RC_OP_ADDRSPACECAST) return true;
  return i->op == RC_OP_BITCAST && rc_type_is_ptr((rc_type)i->v.type) && rc_type_is_ptr((rc_type)i->ops[0]->type);
}

/* Why the machines cannot run instruction i, or NULL. *rewrite is set when i needs the copy. An
 * opaque instruction is left to fault when it executes (the kernel may never reach it). */
static const char *instr_problem(const rc_kernel *k, const rc_instr *i, bool *rewrite) {
  const rc_module *m = k->mod;
  switch ((rc_opcode)i->op) {
  case RC_OP_CALLFN:
    if (!i->u.callee || i->u.callee->nblocks == 0) return "the called function has no body";
    if (k->level == RC_LEVEL_WAVE)
      return "a call in lowered code has no exec mask to run the callee under; inline the calls "
             "(rc_inline_calls) before lowering, so that each callee is lowered in its caller";
    *rewrite = true; /* inlined into the copy */
    return NULL;
  case RC_OP_OPAQUE:
    for (uint32_t o = 0; o < i->nops; o++)
      if (i->ops[o]->kind == RC_V_GLOBAL || (rc_type_is_ptr((rc_type)i->ops[o]->type) && i->ops[o]->type != RC_PTR))
        *rewrite = true;
    return NULL;
  case RC_OP_EXTRACTELT: case RC_OP_INSERTELT: case RC_OP_SHUFFLE:
    *rewrite = true; /* scalarized in the copy (scalarize.c) */
    return NULL;
  case RC_OP_EXTRACTVAL: case RC_OP_INSERTVAL:
    *rewrite = true; /* leaves picked in the copy (scalarize.c) */
    return NULL;
  case RC_OP_CALL:
    if (rewritten_builtin((rc_builtin)i->pred)) *rewrite = true;
    else if (expanded_builtin((rc_builtin)i->pred)) *rewrite = true;
    else if (!machine_builtin((rc_builtin)i->pred))
      return "this builtin is not simulated";
    break;
  case RC_OP_GEP:
    if (i->nops != 2 || i->imm != 0) *rewrite = true;
    break;
  default:
    if (is_pointer_copy(i)) *rewrite = true;
    break;
  }
  const char *why = type_problem(m, (rc_type)i->v.type);
  if (why) return why;
  if (i->v.type != RC_VOID && rc_type_is_composite((rc_type)i->v.type)) *rewrite = true;
  if (i->v.type != RC_VOID && rc_type_is_ptr((rc_type)i->v.type) && i->v.type != RC_PTR) *rewrite = true;
  for (uint32_t o = 0; o < i->nops; o++) {
    const rc_value *v = i->ops[o];
    if ((why = type_problem(m, (rc_type)v->type)) != NULL) return why;
    if (rc_type_is_composite((rc_type)v->type)) *rewrite = true;
    if (v->kind == RC_V_GLOBAL || (rc_type_is_ptr((rc_type)v->type) && v->type != RC_PTR)) *rewrite = true;
  }
  return NULL;
}

/* A name for the private copy that the module does not have yet. */
static rc_kernel *clone_fresh(const rc_kernel *k) {
  char name[256];
  for (unsigned n = 0;; n++) {
    snprintf(name, sizeof name, "%.200s.run%u", k->name, n);
    if (!rc_module_find_kernel(k->mod, name)) return rc_kernel_clone(k->mod, k, name);
  }
}

typedef struct former {
  rc_kernel *k;
  rc_value **repl;     /* per value id: what its uses take instead, or NULL */
  rc_value **global;   /* per module global: its memory in this kernel, or NULL */
} former;

static rc_value *resolved(former *f, rc_value *v) {
  while (v->kind == RC_V_INSTR && v->id < f->k->nvalues && f->repl[v->id]) v = f->repl[v->id];
  return v;
}

/* The memory a global stands for in this kernel: a global of address space 3 is the group's
 * local memory, a `localmem` at the kernel's start (zeroed when the group starts: OpenCL C 1.2
 * local variables have no initialiser, section 6.5.2); any other global is its region of the
 * module space (sim_globals_init), shared by every thread, its address a constant. */
static rc_value *global_memory(former *f, const rc_global *g) {
  if (f->global[g->v.id]) return f->global[g->v.id];
  const rc_module *m = f->k->mod;
  rc_value *mem;
  if (rc_type_addrspace((rc_type)g->v.type) == 3) {
    uint64_t size = rc_type_alloc_size(m, g->vtype);
    rc_builder entry; /* before the entry block's first instruction as it is now (the rewrites
                         detach instructions, the first ones too) */
    rc_builder_before(&entry, f->k->blocks[0]->first);
    mem = rc_build_localmem(&entry, (int64_t)(size ? size : 1), g->v.name);
    /* one address for the whole work-group: in a wave kernel it runs once per wave, so that the
     * !scalar instructions computing from it (a gep of a __local array) stay scalar */
    if (f->k->level == RC_LEVEL_WAVE) ((rc_instr *)mem)->iflags |= RC_IF_SCALAR;
  } else {
    mem = rc_const_int(f->k, RC_PTR, (int64_t)sim_global_addr(g));
  }
  f->global[g->v.id] = mem;
  return mem;
}

/* An operand as the machines see it: pointer constants as `ptr`, globals as their memory,
 * copies replaced by what they copy. */
static rc_value *operand(former *f, rc_value *v) {
  v = resolved(f, v);
  if (v->kind == RC_V_GLOBAL) return global_memory(f, (const rc_global *)v);
  if (rc_type_is_ptr((rc_type)v->type) && v->type != RC_PTR) {
    if (v->kind == RC_V_CONST) return rc_const_int(f->k, RC_PTR, rc_const_ival(v));
    if (v->kind == RC_V_UNDEF) return rc_undef(f->k, RC_PTR);
    v->type = RC_PTR; /* a parameter or an instruction of the copy */
  }
  return v;
}

/* `gep p, i0, s0, ..., offset c` as a chain of single-index geps. */
static void split_gep(former *f, rc_instr *i) {
  rc_builder b;
  rc_builder_before(&b, i);
  rc_value *p = i->ops[0];
  for (uint32_t o = 1; o < i->nops; o++) {
    p = rc_build_gep(&b, p, i->ops[o], i->cases[o - 1], NULL);
    ((rc_instr *)p)->iflags |= i->iflags & RC_IF_SCALAR; /* a !scalar gep's parts run once per wave too */
  }
  if (i->imm != 0 || i->nops == 1) {
    p = rc_build_gep(&b, p, rc_const_int(f->k, RC_I64, i->imm), 1, NULL);
    ((rc_instr *)p)->iflags |= i->iflags & RC_IF_SCALAR;
  }
  f->repl[i->v.id] = p;
  rc_instr_detach(i);
}

static void rewrite_call(former *f, rc_instr *i) {
  rc_builtin b = (rc_builtin)i->pred;
  rc_builtin dim_query = RC_BI_COUNT;
  int dim = 0;
  switch (b) {
  case RC_BI_FENCE: case RC_BI_NOP: rc_instr_detach(i); return;
  case RC_BI_IDENTITY: f->repl[i->v.id] = i->ops[0]; rc_instr_detach(i); return;
  case RC_BI_GLOBAL_OFFSET: f->repl[i->v.id] = rc_const_int(f->k, (rc_type)i->v.type, 0); rc_instr_detach(i); return;
  case RC_BI_LOCAL_ID_X: case RC_BI_LOCAL_ID_Y: case RC_BI_LOCAL_ID_Z:
    dim_query = RC_BI_LOCAL_ID, dim = (int)(b - RC_BI_LOCAL_ID_X); break;
  case RC_BI_GROUP_ID_X: case RC_BI_GROUP_ID_Y: case RC_BI_GROUP_ID_Z:
    dim_query = RC_BI_GROUP_ID, dim = (int)(b - RC_BI_GROUP_ID_X); break;
  default: return;
  }
  rc_builder bl;
  rc_builder_before(&bl, i);
  rc_value *arg = rc_const_int(f->k, RC_I32, dim);
  f->repl[i->v.id] = &rc_build_call(&bl, dim_query, (rc_type)i->v.type, &arg, 1, NULL)->v;
  rc_instr_detach(i);
}

/* Report the first instruction of k the machines cannot run (name: the kernel's name for the
 * user, k may be the copy); *rewrite is set when the copy must change something. */
static int check_instrs(rc_ctx *ctx, const rc_kernel *k, const char *name, bool *rewrite) {
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      const char *why = instr_problem(k, i, rewrite);
      if (!why) continue;
      rc_strbuf text = {0};
      rc_print_instr(i, &text);
      int rc = rc_report(ctx, RC_SEV_ERROR, k->mod->filename, i->line, i->col,
                         "kernel @%s, block %s: reconv's simulators cannot run `%s`: %s (docs/llvm.md, "
                         "\"Out of scope\")",
                         name, k->blocks[b]->name, text.data ? text.data : "?", why);
      rc_sb_free(&text);
      return rc;
    }
  return 0;
}

/* Inline every call of a device function into the copy, callees' calls too (the walk goes on
 * into the blocks it appends). OpenCL C has no recursion (section 6.9); a call graph that has
 * some anyway is refused once the copy grows past any reasonable kernel. */
/* Every call inlined into the copy (src/ir/inline_call.c); a recursion is refused. */
static int inline_calls(rc_ctx *ctx, rc_kernel *k, const char *name, bool *any) {
  const rc_instr *stuck = NULL;
  long n = rc_inline_calls(k, 100000, &stuck);
  if (n < 0)
    return rc_report(ctx, RC_SEV_ERROR, k->mod->filename, stuck->line, stuck->col,
                     "kernel @%s: reconv's simulators cannot run it: its calls of @%s never end "
                     "(recursion, which OpenCL C does not allow)", name, stuck->u.callee->name);
  *any = n > 0;
  return 0;
}

/* A vector or by-value struct or array parameter becomes the address of its image (memory.c makes it from
 * the spec's {V,...}, sim_param_values passes its address), loaded once at the kernel's start:
 * the machines' slots hold one scalar, and the load's leaves are what the scalarizer splits. It is
 * what clang's spir64 form of the same kernel does (a byval pointer). */
static void load_aggregate_params(rc_kernel *k) {
  for (uint32_t p = 0; p < k->nparams; p++) {
    rc_value *param = k->params[p];
    rc_type t = (rc_type)param->type;
    if (!sim_is_split_type(k->mod, t) || k->nblocks == 0) continue;
    param->type = RC_PTR;
    rc_builder b;
    rc_block *entry = k->blocks[0];
    if (entry->first) rc_builder_before(&b, entry->first);
    else rc_builder_at_end(&b, entry);
    rc_value *image = rc_build_load(&b, t, param, NULL);
    rc_kernel_replace_uses(k, param, image);
    rc_instr_set_op(rc_value_instr(image), 0, param);
  }
}

int sim_run_form(rc_ctx *ctx, const rc_kernel *k, const rc_kernel **out, rc_kernel **owned) {
  *out = k;
  *owned = NULL;
  bool rewrite = false;
  for (uint32_t p = 0; p < k->nparams; p++) {
    rc_type t = (rc_type)k->params[p]->type;
    const char *why = type_problem(k->mod, t);
    if (why)
      return rc_report(ctx, RC_SEV_ERROR, k->mod->filename, k->line, k->col,
                       "kernel @%s: reconv's simulators cannot run it: parameter %%%s has type %s: %s", k->name,
                       k->params[p]->name ? k->params[p]->name : "?", rc_type_str(k->mod, t), why);
    if ((rc_type_is_ptr(t) && t != RC_PTR) || sim_is_split_type(k->mod, t)) rewrite = true;
  }
  if (check_instrs(ctx, k, k->name, &rewrite) != 0) return -1;
  for (uint32_t r = 0; r < k->nregs; r++)
    if (rc_type_is_ptr((rc_type)k->regs[r]->type) && k->regs[r]->type != RC_PTR) rewrite = true;
  if (!rewrite || k->nblocks == 0) return 0;

  former f = {0};
  f.k = clone_fresh(k);
  if (!f.k) return rc_report(ctx, RC_SEV_ERROR, k->mod->filename, k->line, k->col, "kernel @%s: cannot copy it to run", k->name);
  /* calls first: what the callees hold must be in the machines' form too */
  bool calls = false;
  if (inline_calls(ctx, f.k, k->name, &calls) != 0 || (calls && check_instrs(ctx, f.k, k->name, &rewrite) != 0)) {
    rc_module_remove_kernel(f.k->mod, f.k);
    return -1;
  }
  load_aggregate_params(f.k);
  uint32_t nvalues_copied = f.k->nvalues;
  f.repl = rc_xcalloc(nvalues_copied + 1, sizeof *f.repl);
  f.global = rc_xcalloc(k->mod->nglobals + 1, sizeof *f.global);
  if (sim_has_vectors(f.k) && sim_scalarize(ctx, f.k, k->name, f.repl) != 0) {
    free(f.repl);
    free(f.global);
    rc_module_remove_kernel(f.k->mod, f.k);
    return -1;
  }
  if (f.k->nvalues > nvalues_copied) { /* the scalars made are replaced too, where they copy */
    f.repl = rc_xrealloc(f.repl, (f.k->nvalues + 1) * sizeof *f.repl);
    memset(f.repl + nvalues_copied + 1, 0, (f.k->nvalues - nvalues_copied) * sizeof *f.repl);
  }
  for (uint32_t p = 0; p < f.k->nparams; p++)
    if (rc_type_is_ptr((rc_type)f.k->params[p]->type)) f.k->params[p]->type = RC_PTR;
  for (uint32_t r = 0; r < f.k->nregs; r++)
    if (rc_type_is_ptr((rc_type)f.k->regs[r]->type)) f.k->regs[r]->type = RC_PTR;
  /* first what goes away or splits (the original instructions only: the walk takes the next one
   * before it changes anything), then every operand */
  uint32_t nvalues_before = f.k->nvalues;
  for (uint32_t b = 0; b < f.k->nblocks; b++) {
    rc_instr *next;
    for (rc_instr *i = f.k->blocks[b]->first; i; i = next) {
      next = i->next;
      if (i->v.id >= nvalues_before && i->v.type != RC_VOID) continue;
      if (is_pointer_copy(i)) {
        f.repl[i->v.id] = i->ops[0];
        rc_instr_detach(i);
      } else if (i->op == RC_OP_GEP && (i->nops != 2 || i->imm != 0)) {
        split_gep(&f, i);
      } else if (i->op == RC_OP_CALL && rewritten_builtin((rc_builtin)i->pred)) {
        rewrite_call(&f, i);
      }
    }
  }
  /* values made above may be replaced too: the table grows with the kernel */
  if (f.k->nvalues > nvalues_before) {
    f.repl = rc_xrealloc(f.repl, (f.k->nvalues + 1) * sizeof *f.repl);
    memset(f.repl + nvalues_before + 1, 0, (f.k->nvalues - nvalues_before) * sizeof *f.repl);
  }
  for (uint32_t b = 0; b < f.k->nblocks; b++)
    for (rc_instr *i = f.k->blocks[b]->first; i; i = i->next) {
      if (i->v.type != RC_VOID && rc_type_is_ptr((rc_type)i->v.type)) i->v.type = RC_PTR;
      for (uint32_t o = 0; o < i->nops; o++) {
        rc_value *v = operand(&f, i->ops[o]);
        if (v != i->ops[o]) rc_instr_set_op(i, o, v);
      }
    }
  free(f.repl);
  free(f.global);
  if (rc_verify_kernel(ctx, f.k) != 0) {
    rc_module_remove_kernel(f.k->mod, f.k);
    return rc_report(ctx, RC_SEV_ERROR, k->mod->filename, k->line, k->col,
                     "kernel @%s: internal error: its form for the simulators does not verify", k->name);
  }
  *out = f.k;
  *owned = f.k;
  return 0;
}

void sim_run_form_free(rc_kernel *owned) {
  if (owned) rc_module_remove_kernel(owned->mod, owned);
}
