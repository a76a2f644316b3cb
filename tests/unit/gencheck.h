/* Independent checks of a generated kernel's shape, shared by test_gen.c and prop_gen.c. They read
 * only the IR (and the dominator tree), not the generator's own bookkeeping, so they can catch the
 * generator building something other than what it reports. */
#ifndef RECONV_TEST_GENCHECK_H
#define RECONV_TEST_GENCHECK_H

#include "reconv/analysis.h"
#include "reconv/ir.h"

#include <stdlib.h>
#include <string.h>

static uint32_t gc_count_ops(const rc_kernel *k, rc_opcode op) {
  uint32_t n = 0;
  for (uint32_t b = 0; b < k->nblocks; b++)
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) n += i->op == op;
  return n;
}

/* Every block stores to memory (the path hash). */
static bool gc_every_block_stores(const rc_kernel *k) {
  for (uint32_t b = 0; b < k->nblocks; b++) {
    bool st = false;
    for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) st |= i->op == RC_OP_STORE;
    if (!st) return false;
  }
  return true;
}

typedef struct gc_cfg_facts {
  bool reducible;        /* every retreating edge of a DFS goes to a dominator of its source */
  uint32_t back_edges;   /* retreating edges */
  uint32_t max_depth;    /* reducible only: deepest nesting of natural loops */
  bool all_reachable;
} gc_cfg_facts;

/* Reducibility by the classic criterion: a CFG is reducible iff every retreating edge of a
 * depth-first search (an edge u -> v with v not after u in reverse post-order) is a back edge
 * (v dominates u). Natural loop bodies are then found by walking predecessors from the latch. */
static gc_cfg_facts gc_cfg_check(const rc_kernel *k) {
  gc_cfg_facts f = {true, 0, 0, true};
  rc_cfg g;
  rc_cfg_build(&g, k);
  rc_domtree dom;
  rc_domtree_build(&dom, &g, false);
  uint32_t n = g.nblocks;
  uint32_t *rpo = malloc(n * sizeof *rpo), *idx = malloc(n * sizeof *idx);
  f.all_reachable = rc_cfg_rpo(&g, rpo, idx) == n;
  uint32_t *depth = calloc(n, sizeof *depth), *mark = calloc(n, sizeof *mark);
  uint32_t *stack = malloc(n * sizeof *stack);
  uint32_t stamp = 0;
  for (uint32_t u = 0; u < n; u++) {
    if (idx[u] == RC_NONE) continue;
    for (uint32_t e = g.succ_start[u]; e < g.succ_start[u + 1]; e++) {
      uint32_t v = g.succs[e];
      if (idx[v] > idx[u]) continue;
      f.back_edges++;
      if (!rc_dominates(&dom, v, u)) {
        f.reducible = false;
        continue;
      }
      /* natural loop of u -> v: v plus everything reaching u without passing v */
      stamp++;
      uint32_t sp = 0;
      mark[v] = stamp;
      depth[v]++;
      if (mark[u] != stamp) {
        mark[u] = stamp;
        depth[u]++;
        stack[sp++] = u;
      }
      while (sp) {
        uint32_t w = stack[--sp];
        for (uint32_t p = g.pred_start[w]; p < g.pred_start[w + 1]; p++) {
          uint32_t x = g.preds[p];
          if (mark[x] == stamp || idx[x] == RC_NONE) continue;
          mark[x] = stamp;
          depth[x]++;
          stack[sp++] = x;
        }
      }
    }
  }
  for (uint32_t b = 0; b < n; b++)
    if (depth[b] > f.max_depth) f.max_depth = depth[b];
  free(rpo);
  free(idx);
  free(depth);
  free(mark);
  free(stack);
  rc_domtree_free(&dom);
  rc_cfg_free(&g);
  return f;
}

/* Which values depend (through operands and phis) on @global_id: a fixed point over the kernel.
 * Returns a malloc'ed array indexed by value id. */
static uint8_t *gc_tid_dependence(const rc_kernel *k) {
  uint8_t *t = calloc(k->nvalues ? k->nvalues : 1, 1);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = 0; b < k->nblocks; b++)
      for (const rc_instr *i = k->blocks[b]->first; i; i = i->next) {
        if (i->v.id == RC_NONE || t[i->v.id]) continue;
        bool dep = i->op == RC_OP_CALL && i->pred == RC_BI_GLOBAL_ID;
        for (uint32_t o = 0; o < i->nops && !dep; o++) {
          const rc_value *x = i->ops[o];
          dep = x->kind == RC_V_INSTR && t[x->id];
        }
        if (dep) {
          t[i->v.id] = 1;
          changed = true;
        }
      }
  }
  return t;
}

/* Does the condition of a br/switch depend on a phi (a loop counter)? */
static bool gc_cond_reads_phi(const rc_instr *term) {
  const rc_value *c = term->ops[0];
  const rc_instr *ci = c->kind == RC_V_INSTR ? (const rc_instr *)c : NULL;
  for (uint32_t o = 0; ci && o < ci->nops; o++) {
    const rc_value *x = ci->ops[o];
    if (x->kind != RC_V_INSTR) continue;
    const rc_instr *xi = (const rc_instr *)x;
    if (xi->op == RC_OP_PHI) return true;
    for (uint32_t q = 0; q < xi->nops; q++)
      if (xi->ops[q]->kind == RC_V_INSTR && ((const rc_instr *)xi->ops[q])->op == RC_OP_PHI) return true;
  }
  return false;
}

/* The invariant that keeps a uniform loop's counter uniform (src/gen/shape.c): for every uniform
 * latch (a br annotated !uniform whose condition reads a counter phi, with a back edge to h):
 * h has exactly two predecessors, the latch and one block outside the loop, and no edge leaves the
 * natural loop body except the latch's other edge. Needs a reducible kernel. Returns the number of
 * uniform latches checked, or -1 on a violation. */
static int gc_check_uniform_loops(const rc_kernel *k) {
  rc_cfg g;
  rc_cfg_build(&g, k);
  rc_domtree dom;
  rc_domtree_build(&dom, &g, false);
  uint32_t n = g.nblocks;
  uint8_t *in = calloc(n, 1);
  uint32_t *stack = malloc(n * sizeof *stack);
  int checked = 0;
  for (uint32_t t = 0; t < n && checked >= 0; t++) {
    const rc_instr *term = rc_block_term(k->blocks[t]);
    if (!term || term->op != RC_OP_BR || !(term->iflags & RC_IF_UNIFORM) || !gc_cond_reads_phi(term))
      continue;
    uint32_t h = term->targets[0]->id;
    if (!rc_dominates(&dom, h, t)) {
      checked = -1;
      break;
    }
    memset(in, 0, n);
    uint32_t sp = 0;
    in[h] = 1;
    if (!in[t]) {
      in[t] = 1;
      stack[sp++] = t;
    }
    while (sp) {
      uint32_t w = stack[--sp];
      for (uint32_t p = g.pred_start[w]; p < g.pred_start[w + 1]; p++)
        if (!in[g.preds[p]]) {
          in[g.preds[p]] = 1;
          stack[sp++] = g.preds[p];
        }
    }
    uint32_t outside_preds = 0;
    for (uint32_t p = g.pred_start[h]; p < g.pred_start[h + 1]; p++) outside_preds += !in[g.preds[p]];
    if (g.pred_start[h + 1] - g.pred_start[h] != 2 || outside_preds != 1) checked = -1;
    for (uint32_t b = 0; b < n && checked >= 0; b++) {
      if (!in[b]) continue;
      for (uint32_t e = g.succ_start[b]; e < g.succ_start[b + 1]; e++)
        if (!in[g.succs[e]] && !(b == t && g.succs[e] == term->targets[1]->id)) checked = -1;
    }
    if (checked >= 0) checked++;
  }
  free(in);
  free(stack);
  rc_domtree_free(&dom);
  rc_cfg_free(&g);
  return checked;
}

#endif
