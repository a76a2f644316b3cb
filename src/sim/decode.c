/* Decoding a thread-level kernel into the interpreter's array form (decode.h). Two passes: the first
 * places every block's first instruction, the second fills instructions, edges and phi copies.
 * Linear in the kernel's size; nothing recurses. */
#include "decode.h"

#include <stdlib.h>

typedef struct decoder {
  sim_code *c;
  const rc_frame_layout *layout;
  RC_VEC(sim_inst) inst;
  RC_VEC(const rc_instr *) src;
  RC_VEC(sim_edge) edges;
  RC_VEC(sim_copy) copies;
  RC_VEC(sim_case) cases;
  RC_VEC(sim_slot) consts;
  uint32_t nvalues;
  uint32_t *stamp; /* per value slot: last edge whose copy writes it, + 1 */
} decoder;

/* The slot of an operand: its value id, or a new constant-pool slot. */
static uint32_t slot_of(decoder *d, const rc_value *v) {
  if (v->kind == RC_V_PARAM || v->kind == RC_V_INSTR) return v->id;
  sim_slot s;
  s.u = 0; /* undef reads as zero */
  if (v->kind == RC_V_CONST && rc_type_is_scalar((rc_type)v->type)) {
    if (v->type == RC_F32 || v->type == RC_F16) s.f = (float)rc_const_fval(v);
    else if (v->type == RC_F64) s.d = rc_const_fval(v);
    else s.i = rc_const_ival(v);
  } else if (v->kind == RC_V_GLOBAL) {
    s.u = sim_global_addr((const rc_global *)v); /* the module space (run_form.c maps the rest) */
  }
  rc_vec_push(&d->consts, s);
  return d->nvalues + d->consts.len - 1;
}

/* The edge from block `from` to `to`, with the copies that perform `to`'s phis. */
static uint32_t add_edge(decoder *d, const rc_block *from, const rc_block *to) {
  sim_edge e = {d->c->block_pc[to->id], to->id, d->copies.len, 0, false};
  uint32_t stampv = d->edges.len + 1;
  for (const rc_instr *phi = to->first; phi && phi->op == RC_OP_PHI; phi = phi->next) {
    int idx = rc_phi_index_of(phi, from);
    if (idx < 0) continue; /* the verifier rules this out */
    sim_copy cp = {phi->v.id, slot_of(d, phi->ops[idx])};
    if (cp.dst == cp.src) continue;
    d->stamp[cp.dst] = stampv;
    rc_vec_push(&d->copies, cp);
  }
  e.ncopies = d->copies.len - e.copy;
  /* A phi reading a phi of the same block must see the old value: copy through a temporary. */
  for (uint32_t i = e.copy; i < d->copies.len; i++) {
    uint32_t s = d->copies.data[i].src;
    if (s < d->nvalues && d->stamp[s] == stampv) e.parallel = true;
  }
  if (e.ncopies > d->c->max_copies) d->c->max_copies = e.ncopies;
  rc_vec_push(&d->edges, e);
  return d->edges.len - 1;
}

static unsigned int_bits(rc_type t) {
  return rc_type_is_int(t) ? rc_type_bits(t) : 64;
}

static void decode_instr(decoder *d, const rc_instr *i) {
  const rc_block *b = i->parent;
  sim_inst x = {0};
  x.op = i->op;
  x.type = i->v.type;
  x.dst = i->v.id == RC_NONE ? 0 : i->v.id;
  x.otype = i->nops ? i->ops[0]->type : RC_VOID;
  x.bits = (uint8_t)int_bits((rc_type)i->v.type);
  uint32_t ops[3] = {0, 0, 0};
  for (uint32_t o = 0; o < i->nops && o < 3; o++) ops[o] = slot_of(d, i->ops[o]);
  x.a = ops[0];
  x.b = ops[1];
  x.c = ops[2];
  switch ((rc_opcode)i->op) {
  case RC_OP_ICMP:
  case RC_OP_FCMP:
    x.aux = i->pred;
    x.bits = (uint8_t)int_bits((rc_type)x.otype);
    break;
  case RC_OP_GEP: /* one index and no offset: the machines' form (run_form.c) */
    x.bits = (uint8_t)int_bits((rc_type)i->ops[1]->type);
    x.imm = i->cases[0];
    break;
  case RC_OP_LOAD: x.imm = rc_type_size((rc_type)i->v.type); break;
  case RC_OP_STORE:
    x.type = i->ops[0]->type;
    x.imm = rc_type_size((rc_type)i->ops[0]->type);
    break;
  case RC_OP_ALLOCA:
  case RC_OP_LOCALMEM:
    x.imm = (int64_t)rc_addr_make(i->op == RC_OP_ALLOCA ? RC_SPACE_PRIVATE : RC_SPACE_LOCAL,
                                  d->layout->region[i->v.id], 0);
    break;
  case RC_OP_CALL:
    x.aux = i->pred;
    if (i->nops > 3) x.d = slot_of(d, i->ops[3]);
    if (rc_builtin_get((rc_builtin)i->pred)->sig == RC_SIG_QUERY_DIM)
      x.imm = rc_const_ival(i->ops[0]);
    if (i->pred == RC_BI_MEMCPY || i->pred == RC_BI_MEMSET)
      x.bits = (uint8_t)int_bits((rc_type)i->ops[2]->type); /* the size operand */
    break;
  case RC_OP_BR:
    x.b = add_edge(d, b, i->targets[0]);
    x.c = add_edge(d, b, i->targets[1]);
    break;
  case RC_OP_JMP: x.b = add_edge(d, b, i->targets[0]); break;
  case RC_OP_BREXECZ: /* wave level: b = the edge taken when exec is empty, c = the other */
    x.b = add_edge(d, b, i->targets[0]);
    x.c = add_edge(d, b, i->targets[1]);
    break;
  case RC_OP_RGET:
  case RC_OP_RSET: x.imm = i->u.reg->id; break; /* wave level: the register */
  case RC_OP_SWITCH:
    x.bits = (uint8_t)int_bits((rc_type)x.otype);
    x.imm = add_edge(d, b, i->targets[0]);
    x.b = d->cases.len;
    x.c = i->ntargets - 1;
    for (uint32_t t = 1; t < i->ntargets; t++) {
      sim_case cs = {i->cases[t - 1], add_edge(d, b, i->targets[t])};
      rc_vec_push(&d->cases, cs);
    }
    break;
  default: break;
  }
  rc_vec_push(&d->inst, x);
  rc_vec_push(&d->src, i);
}

void sim_decode(sim_code *c, const rc_kernel *k, const rc_frame_layout *layout) {
  memset(c, 0, sizeof *c);
  c->k = k;
  c->nblocks = k->nblocks;
  c->block_pc = rc_xcalloc(k->nblocks ? k->nblocks : 1, sizeof *c->block_pc);
  c->block_len = rc_xcalloc(k->nblocks ? k->nblocks : 1, sizeof *c->block_len);
  uint32_t pc = 0;
  /* The step budget charges the instructions a thread of the original kernel would execute: the
   * non-phi instructions of the blocks traces record. Blocks a transform inserted (!flow, !guard,
   * !virtual) cost nothing, so a budget chosen for a kernel holds for every transform of it; a
   * separate cap on block entries (interp.c) still stops a loop of inserted blocks. */
  c->budget_len = rc_xcalloc(k->nblocks ? k->nblocks : 1, sizeof *c->budget_len);
  for (uint32_t b = 0; b < k->nblocks; b++) {
    c->block_pc[b] = pc;
    bool charged = !(k->blocks[b]->bflags & RC_BLOCK_SYNTHETIC);
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) {
      c->block_len[b]++;
      if (i->op != RC_OP_PHI) {
        pc++;
        if (charged) c->budget_len[b]++;
      }
    }
  }
  decoder d = {0};
  d.c = c;
  d.layout = layout;
  d.nvalues = k->nvalues;
  d.stamp = rc_xcalloc(k->nvalues ? k->nvalues : 1, sizeof *d.stamp);
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next)
      if (i->op != RC_OP_PHI) decode_instr(&d, i);
  free(d.stamp);
  c->inst = d.inst.data;
  c->ninst = d.inst.len;
  c->src = d.src.data;
  c->edges = d.edges.data;
  c->nedges = d.edges.len;
  c->copies = d.copies.data;
  c->ncopies = d.copies.len;
  c->cases = d.cases.data;
  c->ncases = d.cases.len;
  c->nslots = d.nvalues + d.consts.len;
  c->frame0 = rc_xcalloc(c->nslots ? c->nslots : 1, sizeof *c->frame0);
  if (d.consts.len) memcpy(c->frame0 + d.nvalues, d.consts.data, d.consts.len * sizeof *d.consts.data);
  rc_vec_free(&d.consts);
}

void sim_code_free(sim_code *c) {
  free(c->inst);
  free((void *)c->src);
  free(c->block_pc);
  free(c->block_len);
  free(c->budget_len);
  free(c->edges);
  free(c->copies);
  free(c->cases);
  free(c->frame0);
  memset(c, 0, sizeof *c);
}
