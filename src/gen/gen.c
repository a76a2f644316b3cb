/* reconv gen: a generated shape (shape.c) becomes a kernel. Entry point: rc_gen_kernel.
 *
 * The kernel is  kernel @gen(ptr %out, i32 %budget, i32 %trips, i32 %u0 .. %u3)  and every
 * non-exit block does, after its phis:
 *     %c.n = sub %c, 1                     ; the step counter (a phi where paths join)
 *     out[tid] = out[tid] * 31 + NUMBER    ; load, mul, add, store: memory reflects the path
 *     <condition>                          ; see below
 *     <terminator>
 * Conditions. Uniform: `icmp slt %uJ, K`, or for a switch `urem (xor %uJ, K), n+1`: kernel
 * parameters only. Uniform latch: `%i.n = add %i, 1; icmp slt %i.n, %trips` with %i a phi of
 * the loop header ([0, preheader], [%i.n, latch]). Divergent: a hash of the thread id mixed with
 * the step counter, `icmp ult (xor (mul %c.n, K), %th), T` (for a switch `urem ..., n+1`), where
 * %th = (tid xor seed) * 0x9E3779B1 is computed once in the entry. A divergent latch also needs
 * `%c.n > 0` to take the back edge, which bounds every run (see shape.c).
 * With `similar` (rc_gen_opts), every non-exit block also runs a varied copy of a per-kernel
 * template after the mix (similar_code): each template operation is dropped, gets another
 * constant or another opcode now and then, so the two sides of a divergent branch hold
 * duplicated, slightly different code, as DARM's melding wants. The template and its variations use
 * a random stream of their own, so the rest of the kernel is the one generated without `similar`.
 */
#include "reconv/gen.h"

#include "reconv/sim.h" /* the run specification's limits */
#include "shape.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rc_gen_opts_init(rc_gen_opts *o) {
  memset(o, 0, sizeof *o);
  o->seed = 1;
  o->blocks = 16;
  o->exits = 1;
  o->loops = 2;
  o->nesting = 3;
  o->divergent = 0.5;
  o->far = 0.15;
  o->threads = 64;
  o->name = "gen";
}

typedef struct emitter {
  rc_kernel *k;
  const rc_gen_opts *o;
  gen_rng *r;
  const gen_shape *s;
  rc_gen_info *info;
  rc_block **blk;      /* per node */
  uint32_t *node_of;   /* per block id */
  rc_value **cnext;    /* per node: the step counter after the block */
  rc_instr **cphi;     /* per node: the step counter's phi, or NULL */
  uint32_t *heads;     /* per spine position: the loop it is the header of, or RC_NONE */
  rc_instr **iphi;     /* per loop: the uniform loop's counter phi */
  rc_value *budget, *trips, *u[4];
  rc_value *o_addr, *th, *zero, *one, *c31;
  int64_t *cases;
  rc_block **case_targets;
  gen_rng sim_rng;     /* similar: the template and its variations */
  uint8_t *tmpl_op;    /* similar: the template's operations (sim_op) */
  int64_t *tmpl_k;     /* ... and their constants */
  uint32_t ntmpl;
} emitter;

/* The operations of the `similar` template. */
enum sim_op { SIM_ADD, SIM_SUB, SIM_MUL, SIM_XOR, SIM_SHL, SIM_LSHR, SIM_UDIV, SIM_UREM, SIM_SELECT,
              SIM_LOAD, SIM_STORE, SIM_NOPS };

static bool valid_name(const char *s) {
  if (!s || !*s) return false;
  for (const char *c = s; *c; c++) {
    bool letter = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' || *c == '.';
    if (!letter && !(c > s && *c >= '0' && *c <= '9')) return false;
  }
  return true;
}

static int check_opts(rc_ctx *ctx, const rc_gen_opts *o) {
  if (o->blocks < 1) return rc_error(ctx, "a kernel needs at least 1 block");
  if (o->exits < 1) return rc_error(ctx, "a kernel needs at least 1 exit");
  if (o->exits > 1 && (uint64_t)o->blocks < 2ull * o->exits - 1)
    return rc_error(ctx, "%u exits need at least %llu blocks (each exit but one hangs off its own "
                         "block)", o->exits, 2ull * o->exits - 1);
  if (o->loops > 0 && o->nesting < 1) return rc_error(ctx, "loops need a nesting depth of at least 1");
  if (!(o->divergent >= 0.0 && o->divergent <= 1.0))
    return rc_error(ctx, "the divergent share must be between 0 and 1");
  if (!(o->far >= 0.0 && o->far <= 1.0))
    return rc_error(ctx, "the share of far branch targets must be between 0 and 1");
  if (o->irreducible && o->loops < 1)
    return rc_error(ctx, "an irreducible kernel needs at least one loop");
  if (o->threads < 1) return rc_error(ctx, "the run specification needs at least 1 thread");
  if (o->threads > RC_MAX_THREADS)
    return rc_error(ctx, "%u threads: a launch has at most %llu", o->threads,
                    (unsigned long long)RC_MAX_THREADS);
  if (!valid_name(o->name ? o->name : "gen"))
    return rc_error(ctx, "'%s' is not a valid kernel name ([A-Za-z_.][A-Za-z0-9_.]*)", o->name);
  return 0;
}

/* ---- pieces of a block ------------------------------------------------------------------------ */

static rc_value *cint(emitter *e, int64_t v) {
  return rc_const_int(e->k, RC_I32, v);
}

/* out[tid] = out[tid] * 31 + number */
static void mix(emitter *e, rc_builder *b, rc_block *blk) {
  rc_value *v = rc_build_load(b, RC_I32, e->o_addr, NULL);
  rc_value *m = rc_build_binop(b, RC_OP_MUL, v, e->c31, NULL);
  rc_value *x = rc_build_binop(b, RC_OP_ADD, m, cint(e, (int64_t)blk->id + 1), NULL);
  rc_build_store(b, x, e->o_addr);
}

/* a per-thread, per-step pseudo-random 32-bit value */
static rc_value *thread_hash(emitter *e, rc_builder *b, rc_value *c) {
  rc_value *x = rc_build_binop(b, RC_OP_MUL, c, cint(e, (int64_t)(gen_rng_next(e->r) | 1)), NULL);
  return rc_build_binop(b, RC_OP_XOR, x, e->th, NULL);
}

static rc_value *uniform_param(emitter *e) {
  return e->u[gen_rng_below(e->r, 4)];
}

static rc_value *branch_condition(emitter *e, rc_builder *b, uint32_t p, rc_value *c) {
  const gen_shape *s = e->s;
  switch (s->cond[p]) {
  case GEN_UNIFORM:
    /* %uJ is 0..7 by default: the extra (true) target is taken with probability 1/8 .. 3/8, so
     * that uniform branches, which send every thread the same way, rarely skip much */
    return rc_build_cmp(b, RC_CMP_SLT, uniform_param(e), cint(e, 1 + gen_rng_below(e->r, 3)), NULL);
  case GEN_UNIFORM_LATCH: {
    rc_instr *phi = e->iphi[s->latch_of[p]];
    rc_value *next = rc_build_binop(b, RC_OP_ADD, &phi->v, e->one, NULL);
    rc_phi_add_incoming(phi, next, e->blk[p]);
    return rc_build_cmp(b, RC_CMP_SLT, next, e->trips, NULL);
  }
  case GEN_DIVERGENT:
  case GEN_DIVERGENT_LATCH: {
    int64_t threshold = (int64_t)(0x40000000u + gen_rng_below(e->r, 0x80000000u));
    rc_value *z = rc_build_cmp(b, RC_CMP_ULT, thread_hash(e, b, c), cint(e, threshold), NULL);
    if (s->cond[p] == GEN_DIVERGENT) return z;
    rc_value *go = rc_build_cmp(b, RC_CMP_SGT, c, e->zero, NULL);
    return rc_build_binop(b, RC_OP_AND, z, go, NULL);
  }
  default:
    return NULL;
  }
}

static void terminator(emitter *e, rc_builder *b, uint32_t p, rc_value *c) {
  const gen_shape *s = e->s;
  const uint32_t *succ = s->succ + s->succ_start[p];
  uint32_t n = s->succ_start[p + 1] - s->succ_start[p];
  rc_instr *t = NULL;
  bool divergent = s->cond[p] == GEN_DIVERGENT || s->cond[p] == GEN_DIVERGENT_LATCH;
  switch (s->term[p]) {
  case GEN_RET:
    rc_build_ret(b);
    return;
  case GEN_JMP:
    rc_build_jmp(b, e->blk[succ[0]]);
    return;
  case GEN_BR:
    t = rc_build_br(b, branch_condition(e, b, p, c), e->blk[succ[0]], e->blk[succ[1]]);
    break;
  case GEN_SWITCH: {
    rc_value *x = divergent ? thread_hash(e, b, c)
                            : rc_build_binop(b, RC_OP_XOR, uniform_param(e),
                                             cint(e, gen_rng_below(e->r, 8)), NULL);
    rc_value *sel = rc_build_binop(b, RC_OP_UREM, x, cint(e, n), NULL); /* 0 .. n-1; n-1: default */
    for (uint32_t i = 0; i + 1 < n; i++) {
      e->cases[i] = i;
      e->case_targets[i] = e->blk[succ[i + 1]];
    }
    t = rc_build_switch(b, sel, e->blk[succ[0]], e->cases, e->case_targets, n - 1);
    e->info->switches++;
    break;
  }
  }
  if (divergent) e->info->divergent_branches++;
  else e->info->uniform_branches++;
  if (e->o->annotate) t->iflags |= divergent ? RC_IF_DIVERGENT : RC_IF_UNIFORM;
}

/* ---- blocks ------------------------------------------------------------------------------------- */

static void create_blocks(emitter *e) {
  const gen_shape *s = e->s;
  uint32_t *side_head = rc_xmalloc((size_t)s->spine * sizeof *side_head);
  uint32_t *side_next = rc_xmalloc(((size_t)s->nside + 1) * sizeof *side_next);
  for (uint32_t p = 0; p < s->spine; p++) side_head[p] = RC_NONE;
  for (uint32_t j = s->nside; j-- > 0;) {
    side_next[j] = side_head[s->side_src[j]];
    side_head[s->side_src[j]] = j;
  }
  char name[32];
  for (uint32_t p = 0; p < s->spine; p++) {
    if (p == 0) snprintf(name, sizeof name, "entry");
    else if (p == s->spine - 1) snprintf(name, sizeof name, "exit0");
    else snprintf(name, sizeof name, "b%" PRIu32, p);
    e->blk[p] = rc_block_new(e->k, name);
    for (uint32_t j = side_head[p]; j != RC_NONE; j = side_next[j]) {
      snprintf(name, sizeof name, "exit%" PRIu32, j + 1);
      e->blk[s->spine + j] = rc_block_new(e->k, name);
    }
  }
  for (uint32_t n = 0; n < s->nnodes; n++) e->node_of[e->blk[n]->id] = n;
  free(side_head);
  free(side_next);
}

/* similar: a varied copy of the template on x = c xor th (section comment at the top). */
static void similar_code(emitter *e, rc_builder *b, rc_value *c) {
  gen_rng *r = &e->sim_rng;
  rc_value *x = rc_build_binop(b, RC_OP_XOR, c, e->th, NULL);
  for (uint32_t i = 0; i < e->ntmpl; i++) {
    if (gen_rng_chance(r, 0.1)) continue; /* dropped here */
    uint32_t op = e->tmpl_op[i];
    int64_t k = e->tmpl_k[i];
    if (gen_rng_chance(r, 0.25)) k = 1 + gen_rng_below(r, 1000);   /* another constant */
    if (gen_rng_chance(r, 0.08)) op = gen_rng_below(r, SIM_NOPS);  /* another operation */
    rc_value *kv = cint(e, op == SIM_SHL || op == SIM_LSHR ? k % 13 : k);
    switch (op) {
    case SIM_ADD: x = rc_build_binop(b, RC_OP_ADD, x, kv, NULL); break;
    case SIM_SUB: x = rc_build_binop(b, RC_OP_SUB, x, kv, NULL); break;
    case SIM_MUL: x = rc_build_binop(b, RC_OP_MUL, x, kv, NULL); break;
    case SIM_XOR: x = rc_build_binop(b, RC_OP_XOR, x, kv, NULL); break;
    case SIM_SHL: x = rc_build_binop(b, RC_OP_SHL, x, kv, NULL); break;
    case SIM_LSHR: x = rc_build_binop(b, RC_OP_LSHR, x, kv, NULL); break;
    case SIM_UDIV: x = rc_build_binop(b, RC_OP_UDIV, x, kv, NULL); break; /* k >= 1: never faults */
    case SIM_UREM: x = rc_build_binop(b, RC_OP_UREM, x, kv, NULL); break;
    case SIM_SELECT: {
      rc_value *z = rc_build_cmp(b, RC_CMP_ULT, x, kv, NULL);
      x = rc_build_select(b, z, x, rc_build_binop(b, RC_OP_ADD, x, e->one, NULL), NULL);
      break;
    }
    case SIM_LOAD: x = rc_build_binop(b, RC_OP_ADD, x, rc_build_load(b, RC_I32, e->o_addr, NULL), NULL); break;
    default: { /* out[tid] += x */
      rc_value *v = rc_build_load(b, RC_I32, e->o_addr, NULL);
      rc_build_store(b, rc_build_binop(b, RC_OP_ADD, v, x, NULL), e->o_addr);
      break;
    }
    }
  }
  rc_value *v = rc_build_load(b, RC_I32, e->o_addr, NULL);
  rc_build_store(b, rc_build_binop(b, RC_OP_XOR, v, x, NULL), e->o_addr);
}

/* similar: one side of a diamond: a single block, an if-then or an if-then-else (kind 0, 1, 2), each
 * block with the mix and a varied copy of the template; it ends jumping to join. Returns its entry. */
static rc_block *similar_side(emitter *e, rc_block *from, rc_block *join, rc_value *c, int kind, char side) {
  char name[64];
  rc_block *blk[4] = {NULL, NULL, NULL, NULL};
  int n = kind == 0 ? 1 : kind == 1 ? 3 : 4;
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "%s.%c%d", from->name, side, i);
    blk[i] = rc_block_new(e->k, name);
  }
  rc_builder b;
  for (int i = 0; i < n; i++) {
    rc_builder_at_end(&b, blk[i]);
    mix(e, &b, blk[i]);
    similar_code(e, &b, c);
  }
  rc_builder_at_end(&b, blk[0]);
  if (kind == 0) {
    rc_build_jmp(&b, join);
    return blk[0];
  }
  /* a divergent inner condition: a hash of the thread and the step counter */
  rc_value *x = rc_build_binop(&b, RC_OP_MUL, c, cint(e, (int64_t)(gen_rng_next(&e->sim_rng) | 1)), NULL);
  x = rc_build_binop(&b, RC_OP_XOR, x, e->th, NULL);
  rc_value *z = rc_build_cmp(&b, RC_CMP_ULT, x, cint(e, (int64_t)(0x40000000u + gen_rng_below(&e->sim_rng, 0x80000000u))), NULL);
  rc_build_br(&b, z, blk[1], blk[2]);
  rc_builder_at_end(&b, blk[1]);
  rc_build_jmp(&b, kind == 1 ? blk[2] : blk[3]);
  rc_builder_at_end(&b, blk[2]);
  rc_build_jmp(&b, kind == 1 ? join : blk[3]);
  if (kind == 2) {
    rc_builder_at_end(&b, blk[3]);
    rc_build_jmp(&b, join);
  }
  return blk[0];
}

/* similar: the divergent branch `br z, T, F` of node p becomes a diamond `br z, P.t0, P.f0` whose two
 * sides (similar_side, mostly of the same shape) join in P.join, which branches `br z, T, F` as p did. */
static void similar_diamond(emitter *e, uint32_t p) {
  rc_block *blk = e->blk[p];
  rc_instr *t = rc_block_term(blk);
  rc_block *tt = t->targets[0], *ff = t->targets[1];
  char name[64];
  snprintf(name, sizeof name, "%s.join", blk->name);
  rc_block *join = rc_block_new(e->k, name);
  rc_instr_detach(t);
  rc_block_set_term(join, t);
  for (int s = 0; s < 2; s++)
    for (rc_instr *i = (s ? ff : tt)->first; i && i->op == RC_OP_PHI; i = i->next) {
      int at = rc_phi_index_of(i, blk);
      if (at >= 0) i->targets[at] = join;
    }
  int kt = (int)gen_rng_below(&e->sim_rng, 3);
  int kf = gen_rng_chance(&e->sim_rng, 0.75) ? kt : (int)gen_rng_below(&e->sim_rng, 3);
  rc_block *st = similar_side(e, blk, join, e->cnext[p], kt, 't');
  rc_block *sf = similar_side(e, blk, join, e->cnext[p], kf, 'f');
  rc_builder b;
  rc_builder_at_end(&b, blk);
  rc_instr *br = rc_build_br(&b, t->ops[0], st, sf);
  br->iflags = t->iflags;
}

static void emit_block(emitter *e, uint32_t p) {
  const gen_shape *s = e->s;
  rc_block *blk = e->blk[p];
  rc_builder b;
  rc_builder_at_end(&b, blk);
  rc_value *c = NULL;
  if (s->term[p] != GEN_RET) {
    if (p == 0) {
      c = e->budget;
    } else if (s->npreds[p] > 1) {
      e->cphi[p] = rc_phi_new(blk, RC_I32, NULL);
      c = &e->cphi[p]->v;
    } else {
      c = e->cnext[p - 1]; /* every spine block p > 0 has the edge p-1 -> p */
    }
    uint32_t l = p < s->spine ? e->heads[p] : RC_NONE;
    if (l != RC_NONE && s->loops[l].uniform) {
      e->iphi[l] = rc_phi_new(blk, RC_I32, NULL);
      rc_phi_add_incoming(e->iphi[l], e->zero, e->blk[p - 1]);
    }
  }
  if (p == 0) {
    rc_value *gdim = cint(e, 0);
    rc_value *tid = &rc_build_call(&b, RC_BI_GLOBAL_ID, RC_I32, &gdim, 1, "tid")->v;
    e->o_addr = rc_build_gep(&b, e->k->params[0], tid, 4, "o");
    rc_value *t0 = rc_build_binop(&b, RC_OP_XOR, tid, cint(e, (int64_t)(gen_rng_next(e->r) >> 32)), NULL);
    e->th = rc_build_binop(&b, RC_OP_MUL, t0, cint(e, (int64_t)0x9E3779B1u), "th");
  }
  if (c) e->cnext[p] = rc_build_binop(&b, RC_OP_SUB, c, e->one, NULL);
  mix(e, &b, blk);
  if (e->ntmpl && c) similar_code(e, &b, e->cnext[p]);
  terminator(e, &b, p, e->cnext[p]);
}

static void fill_counter_phis(emitter *e) {
  for (uint32_t p = 1; p < e->s->spine; p++) {
    rc_instr *phi = e->cphi[p];
    if (!phi) continue;
    rc_block *blk = e->blk[p];
    for (uint32_t i = 0; i < blk->npreds; i++) {
      rc_block *pred = blk->preds[i];
      rc_phi_add_incoming(phi, e->cnext[e->node_of[pred->id]], pred);
    }
  }
}

/* Bound on the blocks one thread executes: %budget, then one forward walk that repeats uniform
 * loops %trips times per entry (shape.c). Saturating. */
static uint64_t block_bound(const gen_shape *s, uint32_t budget, uint32_t trips) {
  uint32_t *udepth = rc_xcalloc(s->nloops ? s->nloops : 1, sizeof *udepth);
  for (uint32_t i = 0; i < s->nloops; i++) {
    const gen_loop *l = &s->loops[i];
    udepth[i] = (l->parent == RC_NONE ? 0 : udepth[l->parent]) + (l->uniform ? 1 : 0);
  }
  double total = budget + (double)s->nside + 1;
  for (uint32_t p = 0; p + 1 < s->spine; p++) {
    uint32_t l = s->innermost[p], d = l == RC_NONE ? 0 : udepth[l];
    double w = 1;
    for (uint32_t i = 0; i < d && w < 1e19; i++) w *= trips;
    total += w;
  }
  free(udepth);
  return total >= 1.8e19 ? UINT64_MAX : (uint64_t)total;
}

rc_kernel *rc_gen_kernel(rc_module *m, const rc_gen_opts *o, rc_gen_info *info) {
  rc_ctx *ctx = m->ctx;
  if (check_opts(ctx, o) != 0) return NULL;
  const char *name = o->name ? o->name : "gen";
  if (rc_module_find_kernel(m, name)) {
    rc_error(ctx, "the module already has a kernel @%s", name);
    return NULL;
  }
  gen_rng r = {o->seed};
  gen_shape s;
  if (gen_shape_build(ctx, o, &r, &s) != 0) return NULL;

  rc_gen_info local;
  if (!info) info = &local;
  memset(info, 0, sizeof *info);
  rc_kernel *k = rc_kernel_new(m, name);
  emitter e = {0};
  e.k = k;
  e.o = o;
  e.r = &r;
  e.s = &s;
  e.info = info;
  rc_kernel_add_param(k, RC_PTR, "out");
  e.budget = rc_kernel_add_param(k, RC_I32, "budget");
  e.trips = rc_kernel_add_param(k, RC_I32, "trips");
  for (int i = 0; i < 4; i++) {
    char pn[8];
    snprintf(pn, sizeof pn, "u%d", i);
    e.u[i] = rc_kernel_add_param(k, RC_I32, pn);
  }
  e.zero = cint(&e, 0);
  e.one = cint(&e, 1);
  e.c31 = cint(&e, 31);

  size_t n = s.nnodes;
  e.blk = rc_xmalloc(n * sizeof *e.blk);
  e.node_of = rc_xmalloc(n * sizeof *e.node_of);
  e.cnext = rc_xcalloc(n, sizeof *e.cnext);
  e.cphi = rc_xcalloc(n, sizeof *e.cphi);
  e.heads = rc_xmalloc(n * sizeof *e.heads);
  for (size_t i = 0; i < n; i++) e.heads[i] = RC_NONE;
  for (uint32_t i = 0; i < s.nloops; i++) e.heads[s.loops[i].head] = i;
  e.iphi = rc_xcalloc(s.nloops ? s.nloops : 1, sizeof *e.iphi);
  e.cases = rc_xmalloc(n * sizeof *e.cases);
  e.case_targets = rc_xmalloc(n * sizeof *e.case_targets);

  if (o->similar) { /* the template: 3 to 10 operations, most of them arithmetic */
    e.sim_rng.state = o->seed * 0x9E3779B97F4A7C15ull + 0x5151;
    e.ntmpl = 3 + gen_rng_below(&e.sim_rng, 8);
    e.tmpl_op = rc_xmalloc(e.ntmpl);
    e.tmpl_k = rc_xmalloc(e.ntmpl * sizeof *e.tmpl_k);
    for (uint32_t i = 0; i < e.ntmpl; i++) {
      e.tmpl_op[i] = (uint8_t)gen_rng_below(&e.sim_rng, SIM_NOPS);
      e.tmpl_k[i] = 1 + gen_rng_below(&e.sim_rng, 1000);
    }
    info->similar_ops = e.ntmpl;
  }
  create_blocks(&e);
  emit_block(&e, 0); /* first: it defines %tid, %o and %th */
  for (uint32_t p = 1; p < s.nnodes; p++) emit_block(&e, p);
  fill_counter_phis(&e);
  if (o->similar) /* diamonds with similar sides at some divergent branches */
    for (uint32_t p = 0; p < s.nnodes; p++)
      if (s.term[p] == GEN_BR && s.cond[p] == GEN_DIVERGENT && gen_rng_chance(&e.sim_rng, 0.6)) similar_diamond(&e, p);

  info->blocks = k->nblocks;
  info->exits = o->exits;
  info->loops = s.nloops;
  for (uint32_t i = 0; i < s.nloops; i++) {
    info->uniform_loops += s.loops[i].uniform;
    info->irreducible_loops += s.loops[i].irreducible;
    if (s.loops[i].depth > info->max_depth) info->max_depth = s.loops[i].depth;
  }
  uint64_t budget = 2ull * o->blocks + 16;
  info->budget = budget > (1u << 30) ? (1u << 30) : (uint32_t)budget;
  info->trips = 2;
  info->max_blocks_per_thread = block_bound(&s, info->budget, info->trips);
  if (o->similar) /* a diamond adds at most 4 blocks after its branch block (and a join) */
    info->max_blocks_per_thread = info->max_blocks_per_thread > UINT64_MAX / 6 ? UINT64_MAX
                                                                                : 6 * info->max_blocks_per_thread;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    uint32_t count = 0;
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) count++;
    if (count > info->max_instrs_per_block) info->max_instrs_per_block = count;
  }
  /* saturated at the largest budget a run specification accepts, so the kernel always runs */
  uint64_t per_block = info->max_instrs_per_block ? info->max_instrs_per_block : 1;
  uint64_t steps = info->max_blocks_per_thread > RC_MAX_STEP_BUDGET / per_block
                       ? RC_MAX_STEP_BUDGET
                       : info->max_blocks_per_thread * per_block;
  char spec[512];
  snprintf(spec, sizeof spec,
           "--global %u --arg out=i32[N] --arg budget=%u --arg trips=%u --arg u0=%u --arg u1=%u "
           "--arg u2=%u --arg u3=%u --steps %" PRIu64,
           o->threads, info->budget, info->trips, gen_rng_below(&r, 8),
           gen_rng_below(&r, 8), gen_rng_below(&r, 8), gen_rng_below(&r, 8), steps);
  rc_kernel_set_run_spec(k, spec);

  free(e.blk);
  free(e.node_of);
  free(e.cnext);
  free(e.cphi);
  free(e.heads);
  free(e.iphi);
  free(e.cases);
  free(e.case_targets);
  free(e.tmpl_op);
  free(e.tmpl_k);
  gen_shape_free(&s);
  return k;
}
