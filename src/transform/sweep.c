/* The sweep lowering: a thread kernel becomes a wave kernel that runs its blocks in one fixed
 * layout, each for the lanes that want it — the scheme of the Beignet note ("Linearizing the control
 * flow graph") and of textbook full linearization. It takes any CFG, irreducible and with several
 * exits, and changes none of its edges: only where each lane goes next is recorded, and the wave
 * visits the blocks in layout order.
 *
 * The state of a lane: where it goes next. With `lane_labels` (blockip) that is a vector register
 * $ip holding the layout position of its next block (Beignet's per-lane "blockIP"); a lane that
 * returned holds DONE, larger than every position. Otherwise (full-linearize) every block B has a
 * scalar mask register $e.B with the lanes that wait for B (the block's predicate).
 *
 * Every block L[i] of the layout gets a dispatch block in front of it (RC_BLOCK_GUARD, skipped by
 * the traces), which sets exec to the lanes that want L[i]:
 *   labels:  setexec <all lanes>; exec := ballot ($ip <= i)      (the note: "The lane is going to
 *            be activated if its blockIP is smaller than the ID of the block")
 *   masks:   exec := $e.B; $e.B := 0
 * and, with `skip_empty`, jumps to the next dispatch block when exec is empty (the JOIN point on top
 * of each block: "We simply jump if none of the lane is activated"); without it the block runs with
 * an empty exec (its vector instructions do nothing), as predicated straight-line code does — except
 * a block with a barrier, which the wave must pass with all its lanes or not at all.
 *
 * The terminator of L[i] is replaced: each lane records its successor (labels: $ip := position;
 * masks: $e.S |= the lanes of the edge), the phis of the successor are written for the lanes of
 * their edge (out of SSA as in lower.c: one vector register per phi, read at the block's top), and
 * the wave goes on to the next dispatch block in the layout, unless lanes chose a block at or before
 * L[i]: then it jumps back to the earliest such block ("backward branches are always taken if any
 * of lanes in the predicate is true").
 *
 * Why this is right, for any layout: at the top of dispatch block i every lane that has not returned
 * waits for a block at position >= i. It holds at the start (every lane wants the entry, position 0).
 * Block i runs its lanes and sends them to their successors; those at positions > i keep it for
 * i + 1, and if some chose positions <= i, the wave jumps to the smallest such position j, where it
 * holds again. So no lane is ever passed over, every lane runs its blocks in its own order, and
 * after the last block every lane has returned. The layout only decides the cost: it is a
 * topological order of the forward edges that keeps each cycle's blocks together (the order of
 * WebAssembly's CFGSort), so that a loop's iterations do not sweep blocks outside the loop.
 *
 * What lanes compute is kept per lane as the wave semantics says: an inactive lane keeps its element
 * of every value, so a value defined in a block the lane ran earlier is still there where it is
 * used (the definition dominates the use at thread level). Every instruction stays a vector
 * instruction: lanes run a block at different times, so a value the uniformity analysis calls
 * uniform may be computed for different lanes in different iterations. */
#include "sweep.h"

#include "phi_registers.h"
#include "reconv/analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DONE_LABEL (-1) /* as i32: 0xffffffff, above every position (compared unsigned) */

/* ---- the layout -------------------------------------------------------------------------------------- */

typedef struct min_heap {
  uint32_t *a;
  uint32_t n;
} min_heap;

static void heap_push(min_heap *h, uint32_t x) {
  uint32_t i = h->n++;
  while (i > 0 && h->a[(i - 1) / 2] > x) {
    h->a[i] = h->a[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->a[i] = x;
}

static uint32_t heap_pop(min_heap *h) {
  uint32_t top = h->a[0], x = h->a[--h->n], i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->a[c + 1] < h->a[c]) c++;
    if (h->a[c] >= x) break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (h->n) h->a[i] = x;
  return top;
}

/* A topological order of the forward edges (DFS back edges left out) in which each cycle's blocks
 * are contiguous where the CFG allows it (always for reducible cycles): Kahn's algorithm taking
 * ready blocks by reverse post-order, and, while a cycle is open, deferring ready blocks outside it
 * until its blocks are all placed. An irreducible cycle whose other entries are not ready yet is
 * closed early. Returns the number of blocks placed (the reachable ones, all of them after
 * remove-dead-blocks). */
static uint32_t cycle_contiguous_layout(const rc_cfg *g, const rc_cycle_info *ci, uint32_t *order) {
  uint32_t nb = g->nblocks;
  uint32_t *rpo = rc_xmalloc((nb + 1) * sizeof *rpo), *rpo_index = rc_xmalloc((nb + 1) * sizeof *rpo_index);
  uint32_t nreach = rc_cfg_rpo(g, rpo, rpo_index);
  uint32_t *indeg = rc_xcalloc(nb + 1, sizeof *indeg);
  uint8_t *back = rc_xcalloc(g->succ_start[nb] + 1, 1); /* per edge slot: a DFS back edge */
  for (uint32_t e = 0; e < ci->nback; e++)
    for (uint32_t s = g->succ_start[ci->back_from[e]]; s < g->succ_start[ci->back_from[e] + 1]; s++)
      if (g->succs[s] == ci->back_to[e]) back[s] = 1;
  for (uint32_t b = 0; b < nb; b++)
    if (rpo_index[b] != RC_NONE)
      for (uint32_t s = g->succ_start[b]; s < g->succ_start[b + 1]; s++)
        if (!back[s]) indeg[g->succs[s]]++;
  uint32_t nc = ci->ncycles;
  uint32_t *remaining = rc_xcalloc(nc + 1, sizeof *remaining), *stack = rc_xmalloc((nc + 1) * sizeof *stack);
  uint8_t *open = rc_xcalloc(nc + 1, 1);
  rc_u32vec *deferred = rc_xcalloc(nc + 1, sizeof *deferred), path = {0};
  uint32_t depth = 0, placed = 0;
  min_heap ready = {rc_xmalloc((nb + 1) * sizeof(uint32_t)), 0};
  if (nreach) heap_push(&ready, 0); /* the entry */
  while (placed < nreach) {
    if (ready.n == 0) { /* an open irreducible cycle waits for an entry that is not ready: close it */
      if (depth == 0) break; /* cannot happen: without the DFS back edges the CFG is acyclic */
      uint32_t c = stack[--depth];
      open[c] = 0;
      for (uint32_t j = 0; j < deferred[c].len; j++) heap_push(&ready, deferred[c].data[j]);
      deferred[c].len = 0;
      continue;
    }
    uint32_t r = heap_pop(&ready), b = rpo[r];
    if (depth && !rc_cycle_contains(ci, stack[depth - 1], b)) {
      rc_vec_push(&deferred[stack[depth - 1]], r);
      continue;
    }
    /* the cycles b enters: those containing b that are not open, outermost first */
    path.len = 0;
    for (uint32_t c = ci->innermost[b]; c != RC_NONE && !open[c]; c = ci->cycles[c].parent) rc_vec_push(&path, c);
    while (path.len) {
      uint32_t c = path.data[--path.len];
      open[c] = 1;
      remaining[c] = ci->cycles[c].nblocks;
      stack[depth++] = c;
    }
    order[placed++] = b;
    for (uint32_t d = 0; d < depth; d++) remaining[stack[d]]--;
    for (uint32_t s = g->succ_start[b]; s < g->succ_start[b + 1]; s++)
      if (!back[s] && --indeg[g->succs[s]] == 0) heap_push(&ready, rpo_index[g->succs[s]]);
    while (depth && remaining[stack[depth - 1]] == 0) {
      uint32_t c = stack[--depth];
      open[c] = 0;
      for (uint32_t j = 0; j < deferred[c].len; j++) heap_push(&ready, deferred[c].data[j]);
      deferred[c].len = 0;
    }
  }
  for (uint32_t c = 0; c < nc; c++) rc_vec_free(&deferred[c]);
  free(deferred);
  rc_vec_free(&path);
  free(ready.a);
  free(open);
  free(stack);
  free(remaining);
  free(back);
  free(indeg);
  free(rpo_index);
  free(rpo);
  return placed;
}

/* ---- building the wave code --------------------------------------------------------------------------- */

typedef struct sweep {
  rc_ctx *ctx;
  rc_kernel *k;
  const sweep_opts *o;
  uint32_t n;          /* blocks of the layout */
  rc_block **layout;   /* L[0 .. n) */
  uint32_t *pos;       /* per block id: its position in the layout */
  rc_block **dispatch; /* per position: its dispatch block */
  rc_block **back;     /* per position: the block testing a second backward target, or NULL */
  rc_block *end;       /* after the last block: ret */
  rc_reg *ip;          /* labels: the lanes' next block */
  rc_reg **waiting;    /* masks: per position, $e.B */
  phi_registers phis;  /* out of SSA, as in lower.c */
  uint32_t nchecks, nbackward;
} sweep;

static rc_block *next_dispatch(const sweep *S, uint32_t i) {
  return i + 1 < S->n ? S->dispatch[i + 1] : S->end;
}

/* The phis become vector registers, read at the top of their block after the dispatch set exec. */
static void phis_to_registers(sweep *S) {
  phi_registers_init(&S->phis, S->k);
  for (uint32_t i = 0; i < S->n; i++) {
    rc_builder bl;
    rc_builder_before(&bl, rc_block_first_nonphi(S->layout[i]));
    phi_registers_of_block(&S->phis, S->k, S->layout[i], &bl, NULL);
  }
  phi_registers_replace_uses(&S->phis, S->k, S->k->nblocks);
}

/* The lanes in `lanes` (all active ones when NULL) go to `to`: their label or to's waiting mask. */
static void emit_choice(sweep *S, rc_builder *bl, rc_value *lanes, rc_block *to) {
  rc_kernel *k = S->k;
  if (S->o->lane_labels) {
    rc_build_rset(bl, S->ip, rc_const_int(k, RC_I32, S->pos[to->id]));
    return;
  }
  rc_reg *w = S->waiting[S->pos[to->id]];
  if (!lanes) lanes = rc_build_exec(bl, NULL);
  rc_build_rset(bl, w, rc_build_binop(bl, RC_OP_OR, rc_build_rget(bl, w, NULL), lanes, NULL));
}

typedef struct edge_out {
  rc_block *to;
  rc_value *lanes; /* the mask of the lanes taking the edge (NULL: every active lane) */
} edge_out;

/* The end of L[i] after the choices: back to the earliest block at or before L[i] some lane chose,
 * else on to the next dispatch block. Without skip_empty a block can run with no lane, so even an
 * unconditional backward jump tests its mask. */
static void emit_continue(sweep *S, rc_builder *bl, rc_block *B, edge_out *out, uint32_t nout) {
  uint32_t i = S->pos[B->id];
  if (nout == 2 && S->pos[out[1].to->id] < S->pos[out[0].to->id]) {
    edge_out t = out[0];
    out[0] = out[1];
    out[1] = t;
  }
  for (uint32_t e = 0; e < nout; e++) {
    uint32_t j = S->pos[out[e].to->id];
    if (j > i) continue;
    S->nbackward++;
    if (!out[e].lanes && S->o->skip_empty) {
      rc_build_jmp(bl, S->dispatch[j]);
      return;
    }
    rc_value *lanes = out[e].lanes ? out[e].lanes : rc_build_exec(bl, NULL);
    rc_value *any = rc_build_cmp(bl, RC_CMP_NE, lanes, rc_const_int(S->k, RC_MASK, 0), NULL);
    bool last = true;
    for (uint32_t f = e + 1; f < nout; f++) last &= S->pos[out[f].to->id] > i;
    rc_block *no = next_dispatch(S, i);
    if (!last) { /* a second backward target: its test in a block of its own */
      char name[1100];
      snprintf(name, sizeof name, "%.1000s.back", B->name);
      no = S->back[i] = rc_block_new(S->k, name);
      no->bflags |= RC_BLOCK_GUARD;
      S->nchecks++;
    }
    rc_build_br(bl, any, S->dispatch[j], no);
    if (last) return;
    rc_builder_at_end(bl, no);
  }
  rc_build_jmp(bl, next_dispatch(S, i));
}

/* Replace the terminator of L[i]. */
static int emit_end(sweep *S, rc_block *B) {
  rc_kernel *k = S->k;
  rc_instr *t = rc_block_term(B);
  if (t->op == RC_OP_UNREACHABLE) return 0;
  rc_builder bl;
  rc_builder_before(&bl, t);
  edge_out out[2];
  uint32_t nout = 0;
  if (t->op == RC_OP_RET) {
    if (t->nops) return rc_error(S->ctx, "%s: @%s returns a value (block %s); inline device functions first",
                                 S->o->pass, k->name, B->name);
    if (S->o->lane_labels) rc_build_rset(&bl, S->ip, rc_const_int(k, RC_I32, DONE_LABEL));
  } else if (t->op == RC_OP_JMP || (t->op == RC_OP_BR && t->targets[0] == t->targets[1])) {
    rc_block *to = t->targets[0];
    phi_registers_copy_edge(&S->phis, &bl, B, to);
    emit_choice(S, &bl, NULL, to);
    out[nout++] = (edge_out){to, NULL};
  } else if (t->op == RC_OP_BR) {
    rc_value *c = t->ops[0];
    rc_block *T = t->targets[0], *F = t->targets[1];
    bool copies = phi_registers_edge_has_copies(&S->phis, B, T) || phi_registers_edge_has_copies(&S->phis, B, F);
    bool backward = S->pos[T->id] <= S->pos[B->id] || S->pos[F->id] <= S->pos[B->id];
    rc_value *toT = NULL, *toF = NULL;
    if (copies || backward || !S->o->lane_labels) {
      toT = rc_build_ballot(&bl, c, NULL);
      toF = rc_build_binop(&bl, RC_OP_ANDN, rc_build_exec(&bl, NULL), toT, NULL);
    }
    if (S->o->lane_labels && !copies) { /* one select per lane: $ip := c ? pos(T) : pos(F) */
      rc_value *l = rc_build_select(&bl, c, rc_const_int(k, RC_I32, S->pos[T->id]),
                                    rc_const_int(k, RC_I32, S->pos[F->id]), NULL);
      rc_build_rset(&bl, S->ip, l);
    } else if (!copies) {
      emit_choice(S, &bl, toT, T);
      emit_choice(S, &bl, toF, F);
    } else {
      rc_build_setexec(&bl, toT);
      phi_registers_copy_edge(&S->phis, &bl, B, T);
      emit_choice(S, &bl, toT, T);
      rc_build_setexec(&bl, toF);
      phi_registers_copy_edge(&S->phis, &bl, B, F);
      emit_choice(S, &bl, toF, F);
    }
    out[nout++] = (edge_out){T, toT};
    out[nout++] = (edge_out){F, toF};
  } else {
    return rc_error(S->ctx, "%s: @%s, block %s: unexpected terminator", S->o->pass, k->name, B->name);
  }
  rc_instr_detach(t);
  rc_builder_at_end(&bl, B);
  emit_continue(S, &bl, B, out, nout);
  return 0;
}

static void emit_dispatch(sweep *S, uint32_t i) {
  rc_kernel *k = S->k;
  rc_block *B = S->layout[i], *D = S->dispatch[i];
  rc_builder bl;
  rc_builder_at_end(&bl, D);
  if (S->o->lane_labels) {
    rc_build_setexec(&bl, rc_const_int(k, RC_MASK, -1));
    rc_value *ip = rc_build_rget(&bl, S->ip, NULL);
    rc_value *wants = rc_build_cmp(&bl, RC_CMP_ULE, ip, rc_const_int(k, RC_I32, i), NULL);
    rc_build_setexec(&bl, rc_build_ballot(&bl, wants, NULL));
  } else {
    rc_value *m = rc_build_rget(&bl, S->waiting[i], NULL);
    rc_build_rset(&bl, S->waiting[i], rc_const_int(k, RC_MASK, 0));
    rc_build_setexec(&bl, m);
  }
  /* a barrier is for the whole wave: a block holding one is skipped when no lane wants it, also
   * without skip_empty (the lanes are all there or none: barriers stand in uniform control flow).
   * So is a block that ends in `unreachable` (clang gives a switch's impossible default one): no
   * thread reaches it, and the wave, which would fault there, must not run it for no lane. */
  rc_instr *t = rc_block_term(B);
  bool ends_unreachable = t && t->op == RC_OP_UNREACHABLE;
  if (S->o->skip_empty || rc_block_has_barrier(B) || ends_unreachable)
    rc_build_brexecz(&bl, next_dispatch(S, i), B);
  else rc_build_jmp(&bl, B);
}

static void free_sweep(sweep *S) {
  free(S->layout);
  free(S->pos);
  free(S->dispatch);
  free(S->back);
  free(S->waiting);
  phi_registers_free(&S->phis);
}

int rc_sweep_lower(rc_ctx *ctx, rc_kernel *k, const sweep_opts *o, rc_stats *stats) {
  if (rc_pass_remove_dead_blocks(ctx, k, NULL, NULL) != 0) return -1;
  for (uint32_t b = 0; b < k->nblocks; b++) {
    rc_instr *t = rc_block_term(k->blocks[b]);
    if (t && t->op == RC_OP_SWITCH) {
      if (rc_pass_lowerswitch(ctx, k, NULL, stats) != 0) return -1;
      break;
    }
  }
  sweep S0;
  memset(&S0, 0, sizeof S0);
  sweep *S = &S0;
  S->ctx = ctx;
  S->k = k;
  S->o = o;
  uint32_t nb = k->nblocks;
  rc_cfg g;
  rc_cfg_build(&g, k);
  rc_cycle_info ci;
  if (rc_cycles_build(&ci, &g) != 0) {
    rc_cfg_free(&g);
    return rc_error(ctx, "%s: the cycles of @%s could not be computed", o->pass, k->name);
  }
  S->layout = rc_xcalloc(nb + 1, sizeof *S->layout);
  S->pos = rc_xcalloc(nb + 1, sizeof *S->pos);
  uint32_t *order = rc_xcalloc(nb + 1, sizeof *order);
  S->n = cycle_contiguous_layout(&g, &ci, order);
  rc_cycles_free(&ci);
  rc_cfg_free(&g);
  if (S->n != nb) {
    free(order);
    free_sweep(S);
    return rc_error(ctx, "%s: the layout of @%s placed %u of its %u blocks (a bug in reconv)", o->pass, k->name,
                    S->n, nb);
  }
  for (uint32_t i = 0; i < S->n; i++) {
    S->layout[i] = k->blocks[order[i]];
    S->pos[order[i]] = i;
  }
  free(order);
  S->dispatch = rc_xcalloc(S->n + 1, sizeof *S->dispatch);
  S->back = rc_xcalloc(S->n + 1, sizeof *S->back);
  S->waiting = rc_xcalloc(S->n + 1, sizeof *S->waiting);
  if (o->lane_labels) S->ip = rc_kernel_add_reg(k, RC_I32, false, "ip");
  if (!S->ip && o->lane_labels) S->ip = rc_kernel_add_reg(k, RC_I32, false, NULL);
  for (uint32_t i = 0; i < S->n && !o->lane_labels; i++) {
    char name[1100];
    snprintf(name, sizeof name, "e.%.1000s", S->layout[i]->name);
    S->waiting[i] = rc_kernel_add_reg(k, RC_MASK, true, name);
    if (!S->waiting[i]) S->waiting[i] = rc_kernel_add_reg(k, RC_MASK, true, NULL);
  }
  phis_to_registers(S);

  for (uint32_t i = 0; i < S->n; i++) {
    char name[1100];
    snprintf(name, sizeof name, "%.1000s.%s", S->layout[i]->name, o->suffix);
    S->dispatch[i] = rc_block_new(k, name);
    S->dispatch[i]->bflags |= RC_BLOCK_GUARD;
  }
  S->end = rc_block_new(k, "sweep.end");
  S->end->bflags |= RC_BLOCK_VIRTUAL;
  rc_builder bl;
  rc_builder_at_end(&bl, S->end);
  rc_build_ret(&bl);
  rc_block *start = NULL;
  if (!o->lane_labels) { /* every lane starts waiting for the entry */
    start = rc_block_new(k, "sweep.start");
    start->bflags |= RC_BLOCK_VIRTUAL;
    rc_builder_at_end(&bl, start);
    rc_build_rset(&bl, S->waiting[0], rc_build_exec(&bl, NULL));
    rc_build_jmp(&bl, S->dispatch[0]);
  }
  int rc = 0;
  for (uint32_t i = 0; i < S->n && rc == 0; i++) rc = emit_end(S, S->layout[i]);
  if (rc != 0) {
    free_sweep(S);
    return -1;
  }
  for (uint32_t i = 0; i < S->n; i++) emit_dispatch(S, i);
  for (uint32_t i = 0; i < S->n; i++) { /* the phis are registers now */
    rc_instr *next;
    for (rc_instr *phi = S->layout[i]->first; phi && phi->op == RC_OP_PHI; phi = next) {
      next = phi->next;
      rc_instr_detach(phi);
    }
  }
  /* the kernel's blocks in sweep order: [start] D0 L0 [L0.back] D1 L1 ... end */
  uint32_t nall = k->nblocks, at = 0;
  rc_block **blocks = rc_xmalloc(nall * sizeof *blocks);
  if (start) blocks[at++] = start;
  for (uint32_t i = 0; i < S->n; i++) {
    blocks[at++] = S->dispatch[i];
    blocks[at++] = S->layout[i];
    if (S->back[i]) blocks[at++] = S->back[i];
  }
  blocks[at++] = S->end;
  rc_kernel_set_block_order(k, blocks, at);
  free(blocks);
  k->level = RC_LEVEL_WAVE;
  if (stats) {
    rc_stats_set(stats, "layout_blocks", S->n);
    rc_stats_set(stats, "dispatch_blocks", S->n);
    rc_stats_set(stats, "backward_edges", S->nbackward);
    rc_stats_set(stats, "second_backward_tests", S->nchecks);
    rc_stats_set(stats, "phi_registers", S->phis.count);
    rc_stats_set(stats, "blocks_after", k->nblocks);
  }
  free_sweep(S);
  return 0;
}
