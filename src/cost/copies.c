/* Which copies a register allocator keeps: the part of the wave machines' cost model (docs/cost.md,
 * "Copies") that decides whether a copy into a phi (IPDOM model: on the CFG edge that reaches it)
 * or into a register (wave simulator: an rset) costs a move.
 *
 * A GPU reads a register as an operand for free, and a coalescing register allocator (LLVM's
 * RegisterCoalescer; Budimlic et al., PLDI 2002, for SSA) gives a copy's source and destination
 * one register whenever their live ranges do not overlap; the copy then disappears: the source's
 * definition writes the destination directly. The test is the SSA interference test, kept local so
 * that it is linear in what it looks at. A copy dst <- v at the end of (IPDOM) or inside (rset)
 * block B is coalesced when
 *   1. v is the result of an instruction of B, before the copy (not a constant, a parameter, or a
 *      register read: merging two registers needs the global test below);
 *   2. v dies at the copy: every other use of v is in B before it;
 *   3. dst's old value is dead where v is defined: no value read from dst (the phi itself; the
 *      results of `rget dst`) is used in B after v's definition or live at B's end, and no
 *      `rget dst` sits between v's definition and the copy.
 * Everything else is a move. Both machines use these rules, so the comparison charges the same copy
 * the same way whichever program it is in. Liveness: a value is live at the end of B when a
 * successor of B is on a path from B to a use that does not pass its definition (the backward walk
 * of Appel's "Modern Compiler Implementation", 19.6); walks longer than COPY_WALK_MAX blocks
 * answer "live" (the copy is charged), and so does every walk once COPY_WORK_MAX blocks have been
 * visited in all, so the analysis stays near-linear on huge kernels.
 *
 * Registers (the wave simulator) are not SSA: the lowering's phi registers are written in several
 * places. A copy from one register to another is removed when the two can be one register: no
 * write of either lands where a value read from the other is still needed (register classes are
 * merged greedily, in program order, and the test covers every register of both classes). A write
 * of a register's own value read in the same block, with no write between, is no instruction. A
 * write of the value a register holds clobbers nothing (the value-based test), and a value whose
 * copies all go to one class that nothing else clobbers while it is needed lives in that class
 * (lives_in_class: rules 1-3 without their locality). */
#include "cost_internal.h"

#include "reconv/analysis.h"

#include <stdlib.h>

enum { COPY_WALK_MAX = 4096, COPY_WORK_MAX = 1u << 24 };

typedef struct use_site {
  const rc_instr *user;
  uint32_t block, pos; /* where the user is (pos: index in its block, phis included) */
  uint32_t from;       /* a phi's use: the incoming block (the use is at its end); else RC_NONE */
} use_site;

typedef struct copy_analysis {
  const rc_kernel *k;
  rc_cfg g;
  uint32_t *def_block, *def_pos; /* per value id; RC_NONE for parameters */
  uint32_t *use_start;           /* per value id: its uses are uses[use_start[v] .. use_start[v+1]) */
  use_site *uses;
  uint32_t *stamp, serial;       /* per block: == serial when live on entry in the current walk */
  rc_u32vec work;
  uint64_t spent;                /* blocks visited by all walks; past COPY_WORK_MAX every answer is
                                    "live" (budget_spent), so huge kernels stay linear */
  bool budget_spent;
} copy_analysis;

static bool is_value(const copy_analysis *a, const rc_value *v) {
  return (v->kind == RC_V_INSTR || v->kind == RC_V_PARAM) && v->id < a->k->nvalues;
}

static void analysis_init(copy_analysis *a, const rc_kernel *k) {
  a->k = k;
  rc_cfg_build(&a->g, k);
  uint32_t nv = k->nvalues;
  a->def_block = rc_xmalloc((nv + 1) * sizeof *a->def_block);
  a->def_pos = rc_xmalloc((nv + 1) * sizeof *a->def_pos);
  a->use_start = rc_xcalloc(nv + 2, sizeof *a->use_start);
  for (uint32_t v = 0; v < nv; v++) a->def_block[v] = a->def_pos[v] = RC_NONE;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    uint32_t pos = 0;
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next, pos++) {
      if (i->v.id != RC_NONE && i->v.id < nv) {
        a->def_block[i->v.id] = b;
        a->def_pos[i->v.id] = pos;
      }
      for (uint32_t o = 0; o < i->nops; o++)
        if (is_value(a, i->ops[o])) a->use_start[i->ops[o]->id + 1]++;
    }
  }
  for (uint32_t v = 0; v < nv; v++) a->use_start[v + 1] += a->use_start[v];
  a->uses = rc_xmalloc((a->use_start[nv] + 1) * sizeof *a->uses);
  uint32_t *fill = rc_xmalloc((nv + 1) * sizeof *fill);
  for (uint32_t v = 0; v < nv; v++) fill[v] = a->use_start[v];
  for (uint32_t b = 0; b < k->nblocks; b++) {
    uint32_t pos = 0;
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next, pos++)
      for (uint32_t o = 0; o < i->nops; o++) {
        if (!is_value(a, i->ops[o])) continue;
        bool phi = i->op == RC_OP_PHI && o < i->ntargets;
        a->uses[fill[i->ops[o]->id]++] = (use_site){i, b, pos, phi ? i->targets[o]->id : RC_NONE};
      }
  }
  free(fill);
  a->stamp = rc_xcalloc(k->nblocks + 1, sizeof *a->stamp);
  a->serial = 0;
  a->work = (rc_u32vec){0};
  a->spent = 0;
  a->budget_spent = false;
}

static void analysis_free(copy_analysis *a) {
  rc_cfg_free(&a->g);
  free(a->def_block);
  free(a->def_pos);
  free(a->use_start);
  free(a->uses);
  free(a->stamp);
  rc_vec_free(&a->work);
}

/* Mark block y live on entry (for the value defined in def) and queue it; false past the limit. */
static bool mark_live_in(copy_analysis *a, uint32_t y, uint32_t def, uint32_t *marked) {
  if (y == def || a->stamp[y] == a->serial) return true;
  a->stamp[y] = a->serial;
  rc_vec_push(&a->work, y);
  if (++a->spent > COPY_WORK_MAX) a->budget_spent = true;
  return ++*marked <= COPY_WALK_MAX && !a->budget_spent;
}

/* Is value x live at the end of block b? */
static bool live_at_end(copy_analysis *a, uint32_t x, uint32_t b) {
  uint32_t def = a->def_block[x], marked = 0;
  if (def == RC_NONE || a->budget_spent) return true; /* parameters live everywhere */
  a->serial++;
  a->work.len = 0;
  for (uint32_t u = a->use_start[x]; u < a->use_start[x + 1]; u++) {
    const use_site *s = &a->uses[u];
    if (s->from == b) return true; /* a phi reads it on an edge out of b */
    uint32_t at = s->from != RC_NONE ? s->from : s->block;
    if (s->from == RC_NONE && at == def) continue; /* used after its definition, in its block */
    if (!mark_live_in(a, at, def, &marked)) return true;
  }
  while (a->work.len) {
    uint32_t y = a->work.data[--a->work.len];
    for (uint32_t p = a->g.pred_start[y]; p < a->g.pred_start[y + 1]; p++)
      if (!mark_live_in(a, a->g.preds[p], def, &marked)) return true;
  }
  for (uint32_t s = a->g.succ_start[b]; s < a->g.succ_start[b + 1]; s++)
    if (a->stamp[a->g.succs[s]] == a->serial) return true;
  return false;
}

/* Rule 2: v (defined in block b) has no use but `copy` except in b before position pos. */
static bool dies_at_copy(const copy_analysis *a, uint32_t v, const rc_instr *copy, uint32_t b, uint32_t pos) {
  for (uint32_t u = a->use_start[v]; u < a->use_start[v + 1]; u++) {
    const use_site *s = &a->uses[u];
    if (s->user == copy && (s->from == RC_NONE || s->from == b)) continue;
    if (s->from != RC_NONE || s->block != b || s->pos >= pos) return false;
  }
  return true;
}

/* Rule 3 for one value x read from the destination: is it dead once v (block b, position vpos) is
 * defined? */
static bool dead_after(copy_analysis *a, uint32_t x, uint32_t b, uint32_t vpos) {
  for (uint32_t u = a->use_start[x]; u < a->use_start[x + 1]; u++) {
    const use_site *s = &a->uses[u];
    if (s->from == RC_NONE && s->block == b && s->pos > vpos) return false;
  }
  return !live_at_end(a, x, b);
}

/* Rule 1: v is an instruction of block b before position pos, not a register read. */
static bool defined_before(const copy_analysis *a, const rc_value *v, uint32_t b, uint32_t pos) {
  if (v->kind != RC_V_INSTR || v->id >= a->k->nvalues) return false;
  const rc_instr *d = (const rc_instr *)v;
  return d->op != RC_OP_RGET && a->def_block[v->id] == b && a->def_pos[v->id] < pos;
}

/* ---- the wave simulator: rset ---------------------------------------------------------------------- */

/* The lowering's registers, with the values read from them (rget results) and the writes (rsets). */
typedef struct reg_site {
  uint32_t block, pos, pc;
  uint32_t value; /* the id of the value written, RC_NONE for a constant */
} reg_site;

typedef struct reg_index {
  uint32_t *read_start, *reads;   /* value ids read from register r: reads[read_start[r] ..) */
  uint32_t *write_start;          /* rsets of register r: writes[write_start[r] ..) */
  reg_site *writes;
  uint32_t *leader;               /* union-find: registers merged into one */
  uint32_t *ring;                 /* the registers of a class, as a circular list */
} reg_index;

/* A wave kernel's instructions in block order (the simulator's pcs: wave kernels have no phis), and
 * where each block's start. */
typedef struct wave_code {
  const rc_instr **src;
  uint32_t ninst;
  uint32_t *block_pc;
} wave_code;

static void wave_code_init(wave_code *c, const rc_kernel *k) {
  c->ninst = 0;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) c->ninst++;
  c->src = rc_xmalloc((c->ninst + 1) * sizeof *c->src);
  c->block_pc = rc_xmalloc((k->nblocks + 1) * sizeof *c->block_pc);
  uint32_t pc = 0;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    c->block_pc[b] = pc;
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) c->src[pc++] = i;
  }
}

/* Rule 2 for an rset: as dies_at_copy, where rsets found free already (they write a register merged
 * with this one the same value) do not count as uses. */
static bool dies_at_rset(const copy_analysis *a, const wave_code *code, const bool *free_at_pc, uint32_t v,
                         const rc_instr *copy, uint32_t b, uint32_t pos) {
  for (uint32_t u = a->use_start[v]; u < a->use_start[v + 1]; u++) {
    const use_site *s = &a->uses[u];
    if (s->user == copy) continue;
    if (s->user->op == RC_OP_RSET && free_at_pc[code->block_pc[s->block] + s->pos]) continue;
    if (s->block != b || s->pos >= pos) return false;
  }
  return true;
}

static void reg_index_init(reg_index *x, const rc_kernel *k, const wave_code *code) {
  uint32_t nr = k->nregs;
  x->read_start = rc_xcalloc(nr + 2, sizeof *x->read_start);
  x->write_start = rc_xcalloc(nr + 2, sizeof *x->write_start);
  for (uint32_t pc = 0; pc < code->ninst; pc++) {
    const rc_instr *i = code->src[pc];
    if (i->op == RC_OP_RGET) x->read_start[i->u.reg->id + 1]++;
    if (i->op == RC_OP_RSET) x->write_start[i->u.reg->id + 1]++;
  }
  for (uint32_t r = 0; r < nr; r++) {
    x->read_start[r + 1] += x->read_start[r];
    x->write_start[r + 1] += x->write_start[r];
  }
  x->reads = rc_xmalloc((x->read_start[nr] + 1) * sizeof *x->reads);
  x->writes = rc_xmalloc((x->write_start[nr] + 1) * sizeof *x->writes);
  uint32_t *rf = rc_xmalloc((nr + 1) * sizeof *rf), *wf = rc_xmalloc((nr + 1) * sizeof *wf);
  for (uint32_t r = 0; r < nr; r++) {
    rf[r] = x->read_start[r];
    wf[r] = x->write_start[r];
  }
  for (uint32_t pc = 0; pc < code->ninst; pc++) {
    const rc_instr *i = code->src[pc];
    uint32_t b = i->parent->id; /* wave kernels have no phis: a block's pcs are consecutive */
    if (i->op == RC_OP_RGET) x->reads[rf[i->u.reg->id]++] = i->v.id;
    if (i->op == RC_OP_RSET)
      x->writes[wf[i->u.reg->id]++] =
          (reg_site){b, pc - code->block_pc[b], pc, i->ops[0]->kind == RC_V_INSTR ? i->ops[0]->id : RC_NONE};
  }
  free(rf);
  free(wf);
  x->leader = rc_xmalloc((nr + 1) * sizeof *x->leader);
  x->ring = rc_xmalloc((nr + 1) * sizeof *x->ring);
  for (uint32_t r = 0; r < nr; r++) x->leader[r] = x->ring[r] = r;
}

static void reg_index_free(reg_index *x) {
  free(x->read_start);
  free(x->reads);
  free(x->write_start);
  free(x->writes);
  free(x->leader);
  free(x->ring);
}

static uint32_t leader_of(reg_index *x, uint32_t r) {
  while (x->leader[r] != r) r = x->leader[r] = x->leader[x->leader[r]];
  return r;
}

/* Is value x, read from a register, still needed at position pos of block b (so that a write
 * there would clobber it)? A read after pos sees the write and does not count. */
static bool read_live_at(copy_analysis *a, uint32_t x, uint32_t b, uint32_t pos) {
  if (a->use_start[x] == a->use_start[x + 1]) return false;
  if (a->def_block[x] == b && a->def_pos[x] > pos) return false;
  return !dead_after(a, x, b, pos);
}

/* Does a write of register w, other than at skip_pc, land where value v is still needed? A write
 * of v itself does not: the register keeps v (the value-based interference test of Boissinot et
 * al. 2009 -- the lowering copies a value into the primary successor's register at a divergent
 * branch while the lanes that go on still read it). */
static bool write_clobbers(copy_analysis *a, const reg_index *x, uint32_t w, uint32_t v, uint32_t skip_pc) {
  for (uint32_t i = x->write_start[w]; i < x->write_start[w + 1]; i++) {
    const reg_site *s = &x->writes[i];
    if (s->pc != skip_pc && s->value != v && read_live_at(a, v, s->block, s->pos)) return true;
  }
  return false;
}

/* Does some write of register w land where a value read from register r is still needed? Writes
 * at skip_pc (the copy being removed) do not count. */
static bool writes_clobber(copy_analysis *a, const reg_index *x, uint32_t w, uint32_t r, uint32_t skip_pc) {
  for (uint32_t j = x->read_start[r]; j < x->read_start[r + 1]; j++)
    if (write_clobbers(a, x, w, x->reads[j], skip_pc)) return true;
  return false;
}

/* Is `rset R, v`, v read from a register of R's class, a copy of the value the class holds
 * already: no write of the class, other than the copy and writes of v, lands where v is needed
 * (v is needed up to the copy at least)? */
static bool class_holds(copy_analysis *a, const reg_index *x, uint32_t r, uint32_t v, uint32_t pc) {
  uint32_t p = r;
  do {
    if (write_clobbers(a, x, p, v, pc)) return false;
    p = x->ring[p];
  } while (p != r);
  return true;
}

/* Can value v and the class of register r share one register? Every rset of v writes the class,
 * no write of the class other than of v lands where v is needed (class_holds), and no value read
 * from the class is needed where v is defined. */
static bool lives_in_class(copy_analysis *a, reg_index *x, uint32_t r, uint32_t v) {
  for (uint32_t u = a->use_start[v]; u < a->use_start[v + 1]; u++) {
    const rc_instr *user = a->uses[u].user;
    if (user->op == RC_OP_RSET && leader_of(x, user->u.reg->id) != leader_of(x, r)) return false;
  }
  if (!class_holds(a, x, r, v, RC_NONE)) return false;
  uint32_t p = r;
  do {
    for (uint32_t j = x->read_start[p]; j < x->read_start[p + 1]; j++)
      if (read_live_at(a, x->reads[j], a->def_block[v], a->def_pos[v])) return false;
    p = x->ring[p];
  } while (p != r);
  return true;
}

/* Can the registers of the classes of r1 and r2 share one register? Never when any write of one
 * clobbers a live read of the other (the interference test, register by register). */
static bool classes_interfere(copy_analysis *a, const reg_index *x, uint32_t r1, uint32_t r2, uint32_t skip_pc) {
  uint32_t p = r1;
  do {
    uint32_t q = r2;
    do {
      if (writes_clobber(a, x, p, q, skip_pc) || writes_clobber(a, x, q, p, skip_pc)) return true;
      q = x->ring[q];
    } while (q != r2);
    p = x->ring[p];
  } while (p != r1);
  return false;
}

static void merge_classes(reg_index *x, uint32_t r1, uint32_t r2) {
  x->leader[leader_of(x, r1)] = leader_of(x, r2);
  uint32_t t = x->ring[r1]; /* splice the two rings */
  x->ring[r1] = x->ring[r2];
  x->ring[r2] = t;
}

/* `rset R, (rget R)` with no write of R between the read and the write (the read in the same
 * block, before it): the write changes nothing. The scalarized form of a vector register makes
 * these, one per element an insertelement leaves alone. */
static bool rereads_unchanged(const wave_code *code, const rc_instr *read, uint32_t write_pc) {
  if (read->parent != code->src[write_pc]->parent) return false;
  for (uint32_t pc = write_pc; pc-- > code->block_pc[read->parent->id];) {
    const rc_instr *j = code->src[pc];
    if (j == read) return true;
    if (j->op == RC_OP_RSET && j->u.reg == read->u.reg) return false;
  }
  return false;
}

static bool same_register_kind(const rc_reg *r1, const rc_reg *r2) {
  return r1->type == r2->type && r1->scalar == r2->scalar;
}

void cost_free_register_writes(const rc_kernel *k, bool *free_at_pc) {
  copy_analysis a;
  analysis_init(&a, k);
  wave_code wc;
  wave_code_init(&wc, k);
  const wave_code *code = &wc;
  reg_index x;
  reg_index_init(&x, k, code);
  for (uint32_t pc = 0; pc < code->ninst; pc++) free_at_pc[pc] = false;
  /* First the copies from register to register, and the second of two copies of one value into
   * two registers: merge the two registers when they never hold values needed at the same time
   * (what a coalescer does with the lowering's phi registers); the copy is then no move at all. */
  for (uint32_t pc = 0; pc < code->ninst; pc++) {
    const rc_instr *i = code->src[pc];
    if (i->op != RC_OP_RSET || i->ops[0]->kind != RC_V_INSTR) continue;
    const rc_instr *src = (const rc_instr *)i->ops[0];
    uint32_t b = i->parent->id, pos = pc - code->block_pc[b], other = RC_NONE;
    if (src->op == RC_OP_RGET && src->u.reg == i->u.reg && rereads_unchanged(code, src, pc)) {
      free_at_pc[pc] = true; /* the register already holds the value: no instruction at all */
      continue;
    }
    if (src->op == RC_OP_RGET && src->parent == i->parent && same_register_kind(src->u.reg, i->u.reg) &&
        dies_at_copy(&a, src->v.id, i, b, pos))
      other = src->u.reg->id;
    for (uint32_t q = code->block_pc[b]; other == RC_NONE && q < pc; q++) {
      const rc_instr *j = code->src[q];
      if (j->op == RC_OP_RSET && j->ops[0] == i->ops[0] && same_register_kind(j->u.reg, i->u.reg))
        other = j->u.reg->id;
    }
    if (other == RC_NONE) continue;
    uint32_t r = i->u.reg->id;
    if (leader_of(&x, r) == leader_of(&x, other)) {
      free_at_pc[pc] = true;
      continue;
    }
    if (a.budget_spent || classes_interfere(&a, &x, r, other, pc)) continue;
    merge_classes(&x, r, other);
    free_at_pc[pc] = true;
  }
  /* Copies that merging made free after all: of a value read from a register of the same class
   * (class_holds), or of a value that can live in the register it is copied into (the global form
   * of rules 1-3, for a value defined elsewhere, e.g. a loop-invariant value copied into an exit's
   * phi register on every iteration: lives_in_class). The register allocator then gives value
   * and class one register. */
  for (uint32_t pc = 0; pc < code->ninst && !a.budget_spent; pc++) {
    const rc_instr *i = code->src[pc];
    if (i->op != RC_OP_RSET || free_at_pc[pc] || i->ops[0]->kind != RC_V_INSTR) continue;
    const rc_instr *src = (const rc_instr *)i->ops[0];
    uint32_t v = src->v.id, r = i->u.reg->id;
    if (src->op == RC_OP_RGET)
      free_at_pc[pc] = leader_of(&x, src->u.reg->id) == leader_of(&x, r) && class_holds(&a, &x, r, v, pc);
    else
      free_at_pc[pc] = is_value(&a, &src->v) && a.def_block[v] != RC_NONE &&
                       i->u.reg->scalar == ((src->iflags & RC_IF_SCALAR) != 0) && lives_in_class(&a, &x, r, v);
  }
  /* Then the copies of a computed value: computed straight into its register (rules 1-3, the
   * reads of every register merged with it included). */
  for (uint32_t pc = 0; pc < code->ninst; pc++) {
    const rc_instr *i = code->src[pc];
    if (i->op != RC_OP_RSET || free_at_pc[pc]) continue;
    uint32_t b = i->parent->id, pos = pc - code->block_pc[b];
    const rc_value *v = i->ops[0];
    if (!defined_before(&a, v, b, pos) || !dies_at_rset(&a, code, free_at_pc, v->id, i, b, pos)) continue;
    uint32_t vpos = a.def_pos[v->id], first = i->u.reg->id, r = first;
    bool ok = true;
    do {
      for (uint32_t j = x.read_start[r]; ok && j < x.read_start[r + 1]; j++) {
        uint32_t rd = x.reads[j];
        if (a.def_block[rd] == b && a.def_pos[rd] > vpos) {
          /* a read between v's definition and the copy would see v; after the copy it does anyway */
          if (a.def_pos[rd] < pos && a.use_start[rd] != a.use_start[rd + 1]) ok = false;
          continue;
        }
        ok = dead_after(&a, rd, b, vpos);
      }
      r = x.ring[r];
    } while (ok && r != first);
    free_at_pc[pc] = ok;
  }
  reg_index_free(&x);
  free(wc.src);
  free(wc.block_pc);
  analysis_free(&a);
}

/* ---- the IPDOM model: phi copies on edges --------------------------------------------------------- */

struct cost_copies {
  copy_analysis a;
};

cost_copies *cost_copies_open(const rc_kernel *k) {
  cost_copies *c = rc_xcalloc(1, sizeof *c);
  analysis_init(&c->a, k);
  return c;
}

void cost_edge_copies(cost_copies *c, const rc_block *from, const rc_block *to, const uint8_t *scalar,
                      uint32_t kept[3]) {
  copy_analysis *a = &c->a;
  kept[0] = kept[1] = kept[2] = 0;
  uint32_t end = 0; /* the copies sit at the end of the block, after everything in it */
  for (const rc_instr *j = from->first; j; j = j->next) end++;
  for (const rc_instr *phi = to->first; phi && phi->op == RC_OP_PHI; phi = phi->next) {
    int idx = rc_phi_index_of(phi, from);
    if (idx < 0 || phi->ops[idx] == &phi->v) continue;
    const rc_value *v = phi->ops[idx];
    bool coalesced = defined_before(a, v, from->id, end) && dies_at_copy(a, v->id, phi, from->id, end) &&
                     dead_after(a, phi->v.id, from->id, a->def_pos[v->id]);
    if (!coalesced) kept[scalar[phi->v.id] ? 2 : phi->v.type == RC_I1 ? 1 : 0]++;
  }
}

void cost_copies_close(cost_copies *c) {
  if (!c) return;
  analysis_free(&c->a);
  free(c);
}
