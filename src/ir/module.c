/* The IR object model: modules, kernels, blocks, instructions, edges and names.
 *
 * Invariants the functions here keep (and the verifier checks):
 * - kernel->blocks[i]->id == i;
 * - the edges of the CFG are exactly the targets of attached terminators, and every edge p -> s
 *   appears once in s->preds per occurrence in p's terminator.
 */
#include "reconv/ir.h"
#include "ir_internal.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- modules ---------------------------------------------------------------------------------- */

rc_module *rc_module_new(rc_ctx *ctx, const char *filename) {
  rc_module *m = rc_xcalloc(1, sizeof *m);
  m->ctx = ctx;
  rc_arena_init(&m->arena);
  m->filename = filename ? rc_arena_strdup(&m->arena, filename) : NULL;
  return m;
}

/* The heap memory of a kernel (its name maps); the rest is in the module's arena. */
static void kernel_free_maps(rc_kernel *k) {
  rc_strmap_free(&k->block_names);
  rc_strmap_free(&k->value_names);
  rc_strmap_free(&k->fresh_counters);
  rc_strmap_free(&k->reg_names);
}

void rc_module_free(rc_module *m) {
  if (!m) return;
  for (uint32_t i = 0; i < m->nkernels; i++) kernel_free_maps(m->kernels[i]);
  rc_strmap_free(&m->kernel_names);
  rc_strmap_free(&m->type_index);
  rc_strmap_free(&m->global_names);
  if (m->origin && m->origin_free) m->origin_free(m->origin);
  rc_arena_free(&m->arena);
  free(m);
}

rc_kernel *rc_module_find_kernel(const rc_module *m, const char *name) {
  return rc_strmap_get(&m->kernel_names, name);
}

void rc_module_remove_kernel(rc_module *m, rc_kernel *k) {
  for (uint32_t i = 0; i < m->nkernels; i++)
    if (m->kernels[i] == k) {
      memmove(&m->kernels[i], &m->kernels[i + 1], (m->nkernels - i - 1) * sizeof *m->kernels);
      m->nkernels--;
      if (rc_strmap_get(&m->kernel_names, k->name) == k) rc_strmap_put(&m->kernel_names, k->name, NULL);
      kernel_free_maps(k);
      return;
    }
}

/* ---- kernels ------------------------------------------------------------------------------------ */

rc_kernel *rc_kernel_new(rc_module *m, const char *name) {
  if (rc_module_find_kernel(m, name)) return NULL;
  rc_kernel *k = rc_arena_alloc(&m->arena, sizeof *k);
  k->mod = m;
  k->name = rc_arena_strdup(&m->arena, name);
  k->level = RC_LEVEL_THREAD;
  if (m->nkernels == m->kernelcap) {
    uint32_t ncap = m->kernelcap ? m->kernelcap * 2 : 4;
    m->kernels = rc_arena_grow(&m->arena, m->kernels, m->nkernels, ncap, sizeof *m->kernels);
    m->kernelcap = ncap;
  }
  m->kernels[m->nkernels++] = k;
  rc_strmap_put(&m->kernel_names, k->name, k);
  return k;
}

rc_kernel *rc_function_new(rc_module *m, const char *name, rc_type ret) {
  rc_kernel *k = rc_kernel_new(m, name);
  if (!k) return NULL;
  k->is_function = true;
  k->ret_type = ret;
  return k;
}

rc_global *rc_global_new(rc_module *m, const char *name, rc_type vtype, unsigned addrspace,
                         bool is_const, const void *init) {
  if (rc_module_find_global(m, name)) return NULL;
  rc_type pt = rc_type_ptr(m, addrspace);
  if (pt == RC_VOID) return NULL;
  rc_global *g = rc_arena_alloc(&m->arena, sizeof *g);
  g->v.kind = RC_V_GLOBAL;
  g->v.type = (uint16_t)pt;
  g->v.id = m->nglobals;
  g->v.name = rc_arena_strdup(&m->arena, name);
  g->vtype = vtype;
  g->is_const = is_const;
  uint64_t size = rc_type_alloc_size(m, vtype);
  if (init && size) {
    uint8_t *copy = rc_arena_alloc(&m->arena, size);
    memcpy(copy, init, size);
    g->init = copy;
  }
  if (m->nglobals == m->globalcap) {
    uint32_t ncap = m->globalcap ? m->globalcap * 2 : 4;
    m->globals = rc_arena_grow(&m->arena, m->globals, m->nglobals, ncap, sizeof *m->globals);
    m->globalcap = ncap;
  }
  m->globals[m->nglobals++] = g;
  rc_strmap_put(&m->global_names, g->v.name, g);
  return g;
}

rc_global *rc_module_find_global(const rc_module *m, const char *name) {
  return rc_strmap_get(&m->global_names, name);
}

static bool name_is_number(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return false;
  return true;
}

bool rc_value_set_name(rc_kernel *k, rc_value *v, const char *name) {
  if (v->name && rc_strmap_get(&k->value_names, v->name) == v)
    rc_strmap_put(&k->value_names, v->name, NULL);
  if (!name || name_is_number(name)) { /* numbers are how unnamed values print */
    v->name = NULL;
    return true;
  }
  char *copy = rc_arena_strdup(&k->mod->arena, name); /* left to the arena when taken */
  if (rc_strmap_put_new(&k->value_names, copy, v)) {
    v->name = NULL;
    return false;
  }
  v->name = copy;
  return true;
}

rc_value *rc_kernel_add_param(rc_kernel *k, rc_type t, const char *name) {
  assert(k->nvalues == k->nparams && "parameters come before instructions");
  rc_value *v = rc_arena_alloc(&k->mod->arena, sizeof *v);
  v->kind = RC_V_PARAM;
  v->type = (uint16_t)t;
  v->id = k->nvalues++;
  if (name && !rc_value_set_name(k, v, name)) return NULL;
  if (k->nparams == k->paramcap) {
    uint32_t ncap = k->paramcap ? k->paramcap * 2 : 4;
    k->params = rc_arena_grow(&k->mod->arena, k->params, k->nparams, ncap, sizeof *k->params);
    k->paramcap = ncap;
  }
  k->params[k->nparams++] = v;
  return v;
}

rc_reg *rc_kernel_add_reg(rc_kernel *k, rc_type t, bool scalar, const char *name) {
  if (name && rc_kernel_find_reg(k, name)) return NULL;
  rc_reg *r = rc_arena_alloc(&k->mod->arena, sizeof *r);
  r->type = (uint16_t)t;
  r->scalar = scalar;
  r->id = k->nregs;
  if (name) {
    r->name = rc_arena_strdup(&k->mod->arena, name);
  } else {
    char buf[32];
    for (uint32_t n = k->nregs;; n++) {
      snprintf(buf, sizeof buf, "r%u", n);
      if (!rc_kernel_find_reg(k, buf)) break;
    }
    r->name = rc_arena_strdup(&k->mod->arena, buf);
  }
  rc_strmap_put(&k->reg_names, r->name, r);
  if (k->nregs == k->regcap) {
    uint32_t ncap = k->regcap ? k->regcap * 2 : 4;
    k->regs = rc_arena_grow(&k->mod->arena, k->regs, k->nregs, ncap, sizeof *k->regs);
    k->regcap = ncap;
  }
  k->regs[k->nregs++] = r;
  return r;
}

rc_reg *rc_kernel_find_reg(const rc_kernel *k, const char *name) {
  return rc_strmap_get(&k->reg_names, name);
}

void rc_kernel_set_run_spec(rc_kernel *k, const char *spec) {
  k->run_spec = spec ? rc_arena_strdup(&k->mod->arena, spec) : NULL;
}

rc_block *rc_kernel_find_block(const rc_kernel *k, const char *name) {
  return rc_strmap_get(&k->block_names, name);
}

rc_value *rc_kernel_find_value(const rc_kernel *k, const char *name) {
  return rc_strmap_get(&k->value_names, name);
}

const char *rc_kernel_fresh_name(rc_kernel *k, const char *base) {
  /* base0, base1, ... with one counter per base so that naming stays O(1) amortised */
  uintptr_t n = (uintptr_t)rc_strmap_get(&k->fresh_counters, base);
  char buf[256];
  for (;; n++) {
    snprintf(buf, sizeof buf, "%.200s%lu", base, (unsigned long)n);
    if (!rc_strmap_get(&k->block_names, buf)) break;
  }
  const char *key = rc_strmap_get(&k->fresh_counters, base) ? base
                                                            : rc_arena_strdup(&k->mod->arena, base);
  rc_strmap_put(&k->fresh_counters, key, (void *)(n + 1));
  return rc_arena_strdup(&k->mod->arena, buf);
}

/* ---- blocks -------------------------------------------------------------------------------------- */

/* Append a named block to the kernel's list. */
static rc_block *block_append(rc_kernel *k, rc_block *b) {
  if (k->nblocks == k->blockcap) {
    uint32_t ncap = k->blockcap ? k->blockcap * 2 : 8;
    k->blocks = rc_arena_grow(&k->mod->arena, k->blocks, k->nblocks, ncap, sizeof *k->blocks);
    k->blockcap = ncap;
  }
  b->id = k->nblocks;
  k->blocks[k->nblocks++] = b;
  return b;
}

rc_block *rc_block_new(rc_kernel *k, const char *name) {
  rc_block *b = rc_arena_alloc(&k->mod->arena, sizeof *b);
  b->parent = k;
  char *copy = name ? rc_arena_strdup(&k->mod->arena, name) : NULL;
  if (copy && !rc_strmap_put_new(&k->block_names, copy, b)) { /* one probe: free, and now taken */
    b->name = copy;
  } else {
    b->name = rc_kernel_fresh_name(k, name ? name : "bb");
    rc_strmap_put(&k->block_names, b->name, b);
  }
  return block_append(k, b);
}

rc_block *rc_block_find_or_new_(rc_kernel *k, const char *name, bool *created) {
  /* one probe of the name map; when the block exists, the new one is left to the arena */
  rc_block *b = rc_arena_alloc(&k->mod->arena, sizeof *b);
  b->parent = k;
  b->name = rc_arena_strdup(&k->mod->arena, name);
  rc_block *old = rc_strmap_put_new(&k->block_names, b->name, b);
  *created = old == NULL;
  return old ? old : block_append(k, b);
}

void rc_block_move(rc_block *b, uint32_t index) {
  rc_kernel *k = b->parent;
  assert(index < k->nblocks);
  uint32_t from = b->id;
  if (from < index)
    memmove(&k->blocks[from], &k->blocks[from + 1], (index - from) * sizeof *k->blocks);
  else if (from > index)
    memmove(&k->blocks[index + 1], &k->blocks[index], (from - index) * sizeof *k->blocks);
  k->blocks[index] = b;
  uint32_t lo = from < index ? from : index, hi = from < index ? index : from;
  for (uint32_t i = lo; i <= hi; i++) k->blocks[i]->id = i;
}

bool rc_block_has_barrier(const rc_block *b) {
  for (const rc_instr *i = b->first; i; i = i->next)
    if (i->op == RC_OP_CALL && i->pred == RC_BI_BARRIER) return true;
  return false;
}

/* dst gets src's body fields (rc_kernel_swap_bodies); the blocks' parent pointers are the caller's. */
static void take_body(rc_kernel *dst, const rc_kernel *src) {
  dst->level = src->level;
  dst->param_divergent = src->param_divergent;
  dst->params = src->params, dst->nparams = src->nparams, dst->paramcap = src->paramcap;
  dst->blocks = src->blocks, dst->nblocks = src->nblocks, dst->blockcap = src->blockcap;
  dst->regs = src->regs, dst->nregs = src->nregs, dst->regcap = src->regcap;
  dst->nvalues = src->nvalues;
  dst->block_names = src->block_names, dst->value_names = src->value_names;
  dst->fresh_counters = src->fresh_counters, dst->reg_names = src->reg_names;
}

void rc_kernel_swap_bodies(rc_kernel *a, rc_kernel *b) {
  assert(a->mod == b->mod);
  rc_kernel t = *a;
  take_body(a, b);
  take_body(b, &t);
  for (uint32_t i = 0; i < a->nblocks; i++) a->blocks[i]->parent = a;
  for (uint32_t i = 0; i < b->nblocks; i++) b->blocks[i]->parent = b;
}

void rc_kernel_set_block_order(rc_kernel *k, rc_block *const *blocks, uint32_t n) {
  assert(n == k->nblocks);
  for (uint32_t i = 0; i < n; i++) {
    assert(blocks[i]->parent == k);
    k->blocks[i] = blocks[i];
    blocks[i]->id = i;
  }
}

/* Record the edge p -> s. Either block may be a removed one (no parent) when a caller edits or
 * branches to it by mistake, which the verifier then reports; the memory comes from the other. */
static void pred_add(rc_block *s, rc_block *p) {
  if (s->npreds == s->predcap) {
    uint32_t ncap = s->predcap ? s->predcap * 2 : 2;
    rc_kernel *k = p->parent ? p->parent : s->parent;
    assert(k && "an edge between two removed blocks");
    s->preds = rc_arena_grow(&k->mod->arena, s->preds, s->npreds, ncap, sizeof *s->preds);
    s->predcap = ncap;
  }
  s->preds[s->npreds++] = p;
}

static void pred_remove(rc_block *s, rc_block *p) {
  for (uint32_t i = 0; i < s->npreds; i++)
    if (s->preds[i] == p) {
      s->preds[i] = s->preds[--s->npreds];
      return;
    }
  assert(!"edge missing from predecessor list");
}

uint32_t rc_block_nsuccs(const rc_block *b) {
  rc_instr *t = rc_block_term(b);
  return t ? t->ntargets : 0;
}

rc_block *rc_block_succ(const rc_block *b, uint32_t i) {
  rc_instr *t = rc_block_term(b);
  return t && i < t->ntargets ? t->targets[i] : NULL;
}

rc_instr *rc_block_first_nonphi(const rc_block *b) {
  rc_instr *i = b->first;
  while (i && i->op == RC_OP_PHI) i = i->next;
  return i;
}

bool rc_block_has_pred(const rc_block *b, const rc_block *p) {
  for (uint32_t i = 0; i < b->npreds; i++)
    if (b->preds[i] == p) return true;
  return false;
}

uint32_t rc_block_count_pred(const rc_block *b, const rc_block *p) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < b->npreds; i++) n += b->preds[i] == p;
  return n;
}

/* Drop the phi entries for predecessor p in s (when the last edge p -> s goes away). */
static void drop_phi_entries(rc_block *s, rc_block *p) {
  for (rc_instr *i = s->first; i && i->op == RC_OP_PHI; i = i->next) {
    int idx = rc_phi_index_of(i, p);
    if (idx >= 0) rc_phi_remove_incoming(i, (uint32_t)idx);
  }
}

/* Remove b's terminator and with it every edge b -> s. All edges from b to s come from that one
 * terminator, so every successor loses its phi entries for b, even one reached by two edges
 * (`br %c, S, S`); dropping again for the second edge finds nothing left. */
static void block_unlink_outgoing(rc_block *b) {
  rc_instr *t = rc_block_term(b);
  if (!t) return;
  for (uint32_t i = 0; i < t->ntargets; i++)
    if (t->targets[i]) drop_phi_entries(t->targets[i], b);
  rc_instr_detach(t);
}

void rc_block_remove(rc_block *b) {
  rc_kernel *k = b->parent;
  assert(b->npreds == 0 && "removing a block that still has predecessors");
  block_unlink_outgoing(b);
  uint32_t id = b->id;
  memmove(&k->blocks[id], &k->blocks[id + 1], (k->nblocks - id - 1) * sizeof *k->blocks);
  k->nblocks--;
  for (uint32_t i = id; i < k->nblocks; i++) k->blocks[i]->id = i;
  if (rc_strmap_get(&k->block_names, b->name) == b) rc_strmap_put(&k->block_names, b->name, NULL);
  b->parent = NULL;
  b->id = RC_NONE;
}

void rc_kernel_remove_blocks(rc_kernel *k, const bool *dead) {
  for (uint32_t i = 0; i < k->nblocks; i++)
    if (dead[i]) block_unlink_outgoing(k->blocks[i]);
  uint32_t n = 0;
  for (uint32_t i = 0; i < k->nblocks; i++) {
    rc_block *b = k->blocks[i];
    if (dead[i]) {
      assert(b->npreds == 0 && "removing a block that still has predecessors");
      if (rc_strmap_get(&k->block_names, b->name) == b)
        rc_strmap_put(&k->block_names, b->name, NULL);
      b->parent = NULL;
      b->id = RC_NONE;
    } else {
      b->id = n;
      k->blocks[n++] = b;
    }
  }
  k->nblocks = n;
}

/* ---- instructions ----------------------------------------------------------------------------------- */

rc_instr *rc_instr_new(rc_kernel *k, rc_opcode op, rc_type type, uint32_t nops, uint32_t ntargets) {
  rc_arena *a = &k->mod->arena;
  rc_instr *i = rc_arena_alloc(a, sizeof *i);
  i->v.kind = RC_V_INSTR;
  i->v.type = (uint16_t)type;
  i->v.id = type != RC_VOID ? k->nvalues++ : RC_NONE;
  i->op = (uint16_t)op;
  i->nops = nops;
  i->opcap = nops ? nops : (op == RC_OP_PHI ? 2 : 0);
  if (i->opcap) i->ops = rc_arena_alloc(a, i->opcap * sizeof *i->ops);
  if (op == RC_OP_PHI) {
    i->ntargets = nops;
    i->targets = rc_arena_alloc(a, i->opcap * sizeof *i->targets);
  } else {
    i->ntargets = ntargets;
    if (ntargets) i->targets = rc_arena_alloc(a, ntargets * sizeof *i->targets);
    if (op == RC_OP_SWITCH && ntargets > 1)
      i->cases = rc_arena_alloc(a, (ntargets - 1) * sizeof *i->cases);
  }
  return i;
}

static void attach_edges(rc_instr *i) {
  if (!rc_opcode_is_terminator((rc_opcode)i->op)) return;
  for (uint32_t t = 0; t < i->ntargets; t++)
    if (i->targets[t]) pred_add(i->targets[t], i->parent);
}

static void link_between(rc_block *b, rc_instr *prev, rc_instr *next, rc_instr *i) {
  assert(!i->parent && "instruction already in a block");
  i->parent = b;
  i->prev = prev;
  i->next = next;
  if (prev) prev->next = i; else b->first = i;
  if (next) next->prev = i; else b->last = i;
  attach_edges(i);
}

void rc_instr_append(rc_block *b, rc_instr *i) {
  link_between(b, b->last, NULL, i);
}

void rc_instr_prepend(rc_block *b, rc_instr *i) {
  link_between(b, NULL, b->first, i);
}

void rc_instr_insert_before(rc_instr *pos, rc_instr *i) {
  link_between(pos->parent, pos->prev, pos, i);
}

void rc_instr_insert_after(rc_instr *pos, rc_instr *i) {
  link_between(pos->parent, pos, pos->next, i);
}

void rc_instr_insert_before_term(rc_block *b, rc_instr *i) {
  rc_instr *t = rc_block_term(b);
  if (t) rc_instr_insert_before(t, i); else rc_instr_append(b, i);
}

void rc_instr_insert_after_phis(rc_block *b, rc_instr *i) {
  rc_instr *pos = rc_block_first_nonphi(b);
  if (pos) rc_instr_insert_before(pos, i); else rc_instr_append(b, i);
}

void rc_instr_detach(rc_instr *i) {
  rc_block *b = i->parent;
  if (!b) return;
  if (rc_opcode_is_terminator((rc_opcode)i->op))
    for (uint32_t t = 0; t < i->ntargets; t++)
      if (i->targets[t]) pred_remove(i->targets[t], b);
  if (i->prev) i->prev->next = i->next; else b->first = i->next;
  if (i->next) i->next->prev = i->prev; else b->last = i->prev;
  i->prev = i->next = NULL;
  i->parent = NULL;
}

void rc_instr_set_op(rc_instr *i, uint32_t idx, rc_value *v) {
  assert(idx < i->nops);
  i->ops[idx] = v;
}

void rc_instr_set_cases(rc_kernel *k, rc_instr *i, const int64_t *cases, uint32_t n) {
  i->cases = n ? rc_arena_alloc(&k->mod->arena, n * sizeof *i->cases) : NULL;
  if (n) memcpy(i->cases, cases, n * sizeof *i->cases);
  if (i->op == RC_OP_SHUFFLE || i->op == RC_OP_EXTRACTVAL || i->op == RC_OP_INSERTVAL) i->imm = n;
}

void rc_term_set_target(rc_instr *term, uint32_t i, rc_block *target) {
  assert(i < term->ntargets);
  rc_block *old = term->targets[i];
  if (old == target) return;
  if (term->parent) {
    if (old) pred_remove(old, term->parent);
    if (target) pred_add(target, term->parent);
  }
  term->targets[i] = target;
}

void rc_block_set_term(rc_block *b, rc_instr *term) {
  rc_instr *old = rc_block_term(b);
  if (old) rc_instr_detach(old);
  rc_instr_append(b, term);
}

void rc_kernel_replace_uses(rc_kernel *k, rc_value *from, rc_value *to) {
  for (uint32_t bi = 0; bi < k->nblocks; bi++)
    for (rc_instr *i = k->blocks[bi]->first; i; i = i->next)
      for (uint32_t o = 0; o < i->nops; o++)
        if (i->ops[o] == from) i->ops[o] = to;
}

/* ---- constants ---------------------------------------------------------------------------------------- */

int64_t rc_int_canon(rc_type t, int64_t value) {
  switch (t) {
  case RC_I1: return value & 1;
  case RC_I8: return (int8_t)value;
  case RC_I16: return (int16_t)value;
  case RC_I32: return (int32_t)value;
  default: {
    unsigned bits = rc_type_bits(t);
    if (!rc_type_is_int(t) || bits >= 64) return value;
    unsigned sh = 64 - bits;
    return (int64_t)((uint64_t)value << sh) >> sh;
  }
  }
}

static rc_const *const_new(rc_kernel *k, rc_type t) {
  rc_const *c = rc_arena_alloc(&k->mod->arena, sizeof *c);
  c->v.kind = RC_V_CONST;
  c->v.type = (uint16_t)t;
  c->v.id = RC_NONE;
  return c;
}

rc_value *rc_const_int(rc_kernel *k, rc_type t, int64_t value) {
  rc_const *c = const_new(k, t);
  c->u.i = rc_int_canon(t, value);
  return &c->v;
}

rc_value *rc_const_float(rc_kernel *k, rc_type t, double value) {
  rc_const *c = const_new(k, t);
  c->u.f = t == RC_F32 ? (double)(float)value : t == RC_F16 ? rc_round_f16(value) : value;
  return &c->v;
}

rc_value *rc_const_bool(rc_kernel *k, bool value) {
  return rc_const_int(k, RC_I1, value);
}

rc_value *rc_undef(rc_kernel *k, rc_type t) {
  rc_value *v = rc_arena_alloc(&k->mod->arena, sizeof *v);
  v->kind = RC_V_UNDEF;
  v->type = (uint16_t)t;
  v->id = RC_NONE;
  return v;
}

rc_value *rc_const_composite(rc_kernel *k, rc_type t, rc_value *const *elems) {
  rc_const *c = const_new(k, t);
  uint32_t n = rc_type_count(k->mod, t);
  c->u.elems = rc_arena_alloc(&k->mod->arena, (n ? n : 1) * sizeof *c->u.elems);
  memcpy(c->u.elems, elems, n * sizeof *elems);
  return &c->v;
}

rc_value *rc_const_zero(rc_kernel *k, rc_type t) {
  if (rc_type_is_float(t)) return rc_const_float(k, t, 0.0);
  if (rc_type_is_composite(t)) return &const_new(k, t)->v; /* elems NULL: zeroinitializer */
  return rc_const_int(k, t, 0);
}

rc_value *rc_const_elem(const rc_value *v, uint32_t i) {
  const rc_const *c = (const rc_const *)v;
  return c->u.elems ? c->u.elems[i] : NULL;
}

bool rc_value_is_const(const rc_value *v) {
  return v->kind == RC_V_CONST;
}

int64_t rc_const_ival(const rc_value *v) {
  return ((const rc_const *)v)->u.i;
}

double rc_const_fval(const rc_value *v) {
  return ((const rc_const *)v)->u.f;
}

/* ---- phis ----------------------------------------------------------------------------------------------- */

rc_instr *rc_phi_new(rc_block *b, rc_type t, const char *name) {
  rc_kernel *k = b->parent;
  rc_instr *phi = rc_instr_new(k, RC_OP_PHI, t, 0, 0);
  if (name) rc_value_set_name(k, &phi->v, name);
  rc_instr *pos = rc_block_first_nonphi(b);
  if (pos) rc_instr_insert_before(pos, phi); else rc_instr_append(b, phi);
  return phi;
}

void rc_phi_add_incoming(rc_instr *phi, rc_value *v, rc_block *from) {
  assert(phi->op == RC_OP_PHI);
  if (phi->nops == phi->opcap) {
    rc_arena *a = &(phi->parent ? phi->parent->parent : from->parent)->mod->arena;
    uint32_t ncap = phi->opcap ? phi->opcap * 2 : 2;
    phi->ops = rc_arena_grow(a, phi->ops, phi->nops, ncap, sizeof *phi->ops);
    phi->targets = rc_arena_grow(a, phi->targets, phi->nops, ncap, sizeof *phi->targets);
    phi->opcap = ncap;
  }
  phi->ops[phi->nops] = v;
  phi->targets[phi->nops] = from;
  phi->nops++;
  phi->ntargets = phi->nops;
}

void rc_phi_remove_incoming(rc_instr *phi, uint32_t idx) {
  assert(idx < phi->nops);
  /* keep the order of the remaining entries: it is visible in the printed form */
  memmove(&phi->ops[idx], &phi->ops[idx + 1], (phi->nops - idx - 1) * sizeof *phi->ops);
  memmove(&phi->targets[idx], &phi->targets[idx + 1], (phi->nops - idx - 1) * sizeof *phi->targets);
  phi->nops--;
  phi->ntargets = phi->nops;
}

int rc_phi_index_of(const rc_instr *phi, const rc_block *from) {
  for (uint32_t i = 0; i < phi->nops; i++)
    if (phi->targets[i] == from) return (int)i;
  return -1;
}

rc_value *rc_phi_value_for(const rc_instr *phi, const rc_block *from) {
  int i = rc_phi_index_of(phi, from);
  return i < 0 ? NULL : phi->ops[i];
}

/* ---- cloning ------------------------------------------------------------------------------------------------ */

/* Cloning copies invalid IR as it is: a reference to a block, value or register that does not
 * belong to the kernel (a removed block, a detached instruction, another kernel's value) is kept
 * as the same pointer, so that the clone prints like the original and the verifier reports the
 * same problem. Only references into the kernel are mapped to their copies. */
static rc_block *clone_block(const rc_kernel *k, rc_block *const *bmap, rc_block *b) {
  return b && b->parent == k && b->id < k->nblocks && k->blocks[b->id] == b ? bmap[b->id] : b;
}

/* A global of k's module in module `into`: itself, or the one of the same name there (made as a
 * copy when missing). */
static rc_value *clone_global(rc_module *into, const rc_module *from, rc_value *v) {
  if (into == from) return v;
  const rc_global *g = (const rc_global *)v;
  rc_global *ng = rc_module_find_global(into, g->v.name);
  if (!ng) {
    ng = rc_global_new(into, g->v.name, rc_type_translate(into, from, g->vtype),
                       rc_type_addrspace((rc_type)g->v.type), g->is_const, g->init);
    if (!ng) return v;
    ng->origin = g->origin;
  }
  return &ng->v;
}

static rc_value *clone_const(const rc_kernel *k, rc_kernel *nk, rc_value *v) {
  rc_type t = rc_type_translate(nk->mod, k->mod, (rc_type)v->type);
  if (rc_type_is_float((rc_type)v->type)) return rc_const_float(nk, t, rc_const_fval(v));
  if (!rc_type_is_composite((rc_type)v->type)) return rc_const_int(nk, t, rc_const_ival(v));
  if (!((rc_const *)v)->u.elems) return rc_const_zero(nk, t);
  /* composite constants nest as deep as their type, which the parser and importer bound */
  uint32_t n = rc_type_count(k->mod, (rc_type)v->type);
  rc_value **e = rc_xmalloc((n ? n : 1) * sizeof *e);
  for (uint32_t i = 0; i < n; i++) e[i] = clone_const(k, nk, rc_const_elem(v, i));
  rc_value *c = rc_const_composite(nk, t, e);
  free(e);
  return c;
}

static rc_value *clone_value(const rc_kernel *k, rc_kernel *nk, rc_value **map, rc_value *v) {
  if (!v) return NULL;
  switch (v->kind) {
  case RC_V_INSTR: {
    const rc_instr *d = (const rc_instr *)v;
    bool ours = d->parent && d->parent->parent == k && v->id < k->nvalues;
    return ours && map[v->id] ? map[v->id] : v;
  }
  case RC_V_PARAM:
    return v->id < k->nparams && k->params[v->id] == v ? map[v->id] : v;
  case RC_V_CONST: return clone_const(k, nk, v);
  case RC_V_GLOBAL: return clone_global(nk->mod, k->mod, v);
  default: return rc_undef(nk, rc_type_translate(nk->mod, k->mod, (rc_type)v->type));
  }
}

/* The number of entries of cases an instruction has (0 when it has none). */
static uint32_t ncases_of(const rc_instr *i) {
  switch ((rc_opcode)i->op) {
  case RC_OP_SWITCH: return i->ntargets > 1 ? i->ntargets - 1 : 0;
  case RC_OP_GEP: return i->nops > 1 ? i->nops - 1 : 0;
  case RC_OP_SHUFFLE: case RC_OP_EXTRACTVAL: case RC_OP_INSERTVAL: return (uint32_t)i->imm;
  case RC_OP_OPAQUE: return i->nops;
  default: return 0;
  }
}

/* What an instruction's copy keeps besides its operands, targets and cases. */
static void copy_fields(rc_instr *ni, const rc_instr *i) {
  ni->pred = i->pred;
  ni->iflags = i->iflags;
  ni->imm = i->imm;
  ni->line = i->line;
  ni->col = i->col;
  ni->origin = i->origin;
  ni->origin_op = i->origin_op;
}

rc_instr *rc_instr_copy(rc_kernel *k, const rc_instr *i) {
  rc_instr *c = rc_instr_new(k, (rc_opcode)i->op, (rc_type)i->v.type, i->nops, 0);
  copy_fields(c, i);
  for (uint32_t o = 0; o < i->nops; o++) c->ops[o] = i->ops[o];
  c->u = i->u;
  uint32_t nc = ncases_of(i);
  if (nc && i->cases) rc_instr_set_cases(k, c, i->cases, nc);
  return c;
}

/* Copy the instructions of k's blocks into the blocks bmap[b] of kernel nk: k's values are
 * mapped through map (by value id; parameters must be there already), k's blocks through bmap.
 * rc_kernel_clone copies a whole kernel this way, inlining a callee's body (ir_inline_call). */
void ir_copy_body(rc_kernel *nk, const rc_kernel *k, rc_value **map, rc_block *const *bmap) {
  rc_module *into = nk->mod;
  /* first create every instruction (operands may refer forward, e.g. through phis) */
  for (uint32_t b = 0; b < k->nblocks; b++) {
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      rc_instr *ni = rc_instr_new(nk, (rc_opcode)i->op, rc_type_translate(into, k->mod, (rc_type)i->v.type),
                                  i->op == RC_OP_PHI ? 0 : i->nops,
                                  i->op == RC_OP_PHI ? 0 : i->ntargets);
      copy_fields(ni, i);
      if ((i->op == RC_OP_RGET || i->op == RC_OP_RSET) && i->u.reg)
        ni->u.reg = i->u.reg->id < k->nregs && k->regs[i->u.reg->id] == i->u.reg ? nk->regs[i->u.reg->id]
                                                                               : i->u.reg;
      else if (i->op == RC_OP_CALLFN && i->u.callee)
        ni->u.callee = into == k->mod ? i->u.callee : rc_module_find_kernel(into, i->u.callee->name);
      else if (i->op == RC_OP_OPAQUE && i->u.text)
        ni->u.text = rc_arena_strdup(&into->arena, i->u.text);
      if (i->v.name) rc_value_set_name(nk, &ni->v, i->v.name);
      if (i->v.id < k->nvalues) map[i->v.id] = &ni->v;
      uint32_t nc = ncases_of(i);
      if (i->op == RC_OP_SWITCH && nc && i->cases)
        memcpy(ni->cases, i->cases, nc * sizeof *i->cases);
      else if (nc && i->cases)
        rc_instr_set_cases(nk, ni, i->cases, nc);
      /* targets of the kernel before attaching, so that their edges are added once; others
       * (invalid IR) after, so that cloning adds no edges to blocks outside the clone */
      if (i->op != RC_OP_PHI)
        for (uint32_t t = 0; t < i->ntargets; t++) {
          rc_block *own = clone_block(k, bmap, i->targets[t]);
          if (own != i->targets[t]) ni->targets[t] = own;
        }
      rc_instr_append(bmap[b], ni);
      if (i->op != RC_OP_PHI)
        for (uint32_t t = 0; t < i->ntargets; t++)
          if (!ni->targets[t]) ni->targets[t] = i->targets[t];
    }
  }
  for (uint32_t b = 0; b < k->nblocks; b++) {
    rc_instr *ni = bmap[b]->first;
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next, ni = ni->next) {
      if (i->op == RC_OP_PHI) {
        for (uint32_t o = 0; o < i->nops; o++)
          rc_phi_add_incoming(ni, clone_value(k, nk, map, i->ops[o]), clone_block(k, bmap, i->targets[o]));
      } else {
        for (uint32_t o = 0; o < i->nops; o++) ni->ops[o] = clone_value(k, nk, map, i->ops[o]);
      }
    }
  }
}

/* A kernel like k in module `into`, with k's signature, registers and (empty) blocks; *map receives
 * a value map for ir_copy_body with the parameters filled in (the caller frees it). NULL when the
 * name is taken. */
static rc_kernel *clone_shell(rc_module *into, const rc_kernel *k, const char *name, rc_value ***map) {
  rc_kernel *nk = rc_kernel_new(into, name);
  if (!nk) return NULL;
  nk->level = k->level;
  nk->is_function = k->is_function;
  nk->ret_type = rc_type_translate(into, k->mod, k->ret_type);
  nk->origin = k->origin;
  if (k->param_divergent) {
    nk->param_divergent = rc_arena_alloc(&into->arena, k->nparams ? k->nparams : 1);
    memcpy(nk->param_divergent, k->param_divergent, k->nparams);
  }
  if (k->run_spec) rc_kernel_set_run_spec(nk, k->run_spec);
  nk->line = k->line;
  nk->col = k->col;
  *map = rc_xcalloc(k->nvalues ? k->nvalues : 1, sizeof **map);
  for (uint32_t i = 0; i < k->nparams; i++)
    (*map)[k->params[i]->id] = rc_kernel_add_param(nk, rc_type_translate(into, k->mod, (rc_type)k->params[i]->type),
                                                   k->params[i]->name);
  for (uint32_t i = 0; i < k->nregs; i++)
    rc_kernel_add_reg(nk, rc_type_translate(into, k->mod, (rc_type)k->regs[i]->type), k->regs[i]->scalar,
                      k->regs[i]->name);
  for (uint32_t b = 0; b < k->nblocks; b++) {
    rc_block *nb = rc_block_new(nk, k->blocks[b]->name);
    nb->bflags = k->blocks[b]->bflags;
    nb->line = k->blocks[b]->line;
    nb->col = k->blocks[b]->col;
    nb->origin = k->blocks[b]->origin;
  }
  return nk;
}

/* A kernel cloned into another module takes the device functions it calls along, and theirs
 * (as clone_global does for globals): a call finds its callee in `into` by name, and one missing
 * there used to print as `@?` and parse no more. Every missing callee gets its shell first, found
 * by a worklist (iterative: call chains may be long; a recursive call, which OpenCL C forbids but
 * the IR can hold, finds the shell made for it), then every body is copied. A callee whose name
 * `into` already has is called there as it is. */
typedef struct clone_job {
  const rc_kernel *from;
  rc_kernel *to;
  rc_value **map;
} clone_job;

rc_kernel *rc_kernel_clone(rc_module *into, const rc_kernel *k, const char *name) {
  RC_VEC(clone_job) jobs = {0};
  clone_job first = {k, NULL, NULL};
  first.to = clone_shell(into, k, name, &first.map);
  if (!first.to) return NULL;
  rc_vec_push(&jobs, first);
  for (uint32_t j = 0; j < jobs.len && into != k->mod; j++) {
    const rc_kernel *f = jobs.data[j].from;
    for (uint32_t b = 0; b < f->nblocks; b++)
      for (const rc_instr *i = f->blocks[b]->first; i; i = i->next) {
        const rc_kernel *callee = i->u.callee;
        if (i->op != RC_OP_CALLFN || !callee || !callee->name || rc_module_find_kernel(into, callee->name))
          continue;
        clone_job job = {callee, NULL, NULL};
        job.to = clone_shell(into, callee, callee->name, &job.map);
        if (job.to) rc_vec_push(&jobs, job);
      }
  }
  for (uint32_t j = 0; j < jobs.len; j++) {
    ir_copy_body(jobs.data[j].to, jobs.data[j].from, jobs.data[j].map, jobs.data[j].to->blocks);
    free(jobs.data[j].map);
  }
  rc_vec_free(&jobs);
  return first.to;
}
