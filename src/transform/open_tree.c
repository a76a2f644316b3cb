/* The open tree of the reconverge transform (thesis 4.3: Reconverge, Reroute, AddBasicBlockToOT,
 * path interleaving, Conditions 1 and 2). reconverge.c describes the algorithm and where it departs
 * from the thesis; this file processes one block of the ordering at a time. */
#include "reconverge_internal.h"

#include <stdio.h>

uint32_t reconv_new_node(reconv *r, rc_block *b, bool divergent) {
  otn z;
  memset(&z, 0, sizeof z);
  z.parent = z.first_child = z.last_child = z.next = z.prev = RC_NONE;
  z.visit = z.flow = RC_NONE;
  z.anchor = RC_NONE;
  z.uf = b->id;
  z.divergent = divergent;
  while (r->n.len <= b->id) rc_vec_push(&r->n, z);
  r->n.data[b->id] = z;
  rc_u32vec empty = {0};
  while (r->flow_in.len <= b->id) rc_vec_push(&r->flow_in, empty);
  return b->id;
}

/* ---- the tree ------------------------------------------------------------------------------------ */

static void tree_unlink(reconv *r, uint32_t c) {
  otn *x = N(r, c), *p = N(r, x->parent);
  if (x->prev != RC_NONE) N(r, x->prev)->next = x->next; else p->first_child = x->next;
  if (x->next != RC_NONE) N(r, x->next)->prev = x->prev; else p->last_child = x->prev;
  x->parent = x->next = x->prev = RC_NONE;
}

static void tree_append(reconv *r, uint32_t parent, uint32_t c) {
  otn *p = N(r, parent), *x = N(r, c);
  x->parent = parent;
  x->next = RC_NONE;
  x->prev = p->last_child;
  if (p->last_child != RC_NONE) N(r, p->last_child)->next = c; else p->first_child = c;
  p->last_child = c;
}

/* A closed node leaves the tree; its children take its place under its parent. */
static void tree_remove(reconv *r, uint32_t id) {
  otn *x = N(r, id);
  uint32_t parent = x->parent;
  uint32_t c = x->first_child;
  if (c != RC_NONE) {
    for (uint32_t y = c; y != RC_NONE; y = N(r, y)->next) N(r, y)->parent = parent;
    /* splice the child list in place of x */
    uint32_t last = x->last_child;
    N(r, c)->prev = x->prev;
    N(r, last)->next = x->next;
    if (x->prev != RC_NONE) N(r, x->prev)->next = c; else N(r, parent)->first_child = c;
    if (x->next != RC_NONE) N(r, x->next)->prev = last; else N(r, parent)->last_child = last;
    x->parent = x->next = x->prev = RC_NONE;
  } else {
    tree_unlink(r, id);
  }
  x->first_child = x->last_child = RC_NONE;
  x->in_tree = false;
}

/* The lowest common ancestor of a and b in the open tree. Both climb in turn, each marking the
 * nodes it passes; the first to step onto the other's mark stands on the LCA. That costs the
 * longer of the two distances to the LCA, not the depth of the tree, which a long chain of blocks
 * makes as deep as the kernel is long. */
static uint32_t tree_lca(reconv *r, uint32_t a, uint32_t b) {
  if (a == b) return a;
  uint32_t mark_a = ++r->stamp, mark_b = ++r->stamp;
  N(r, a)->stamp = mark_a;
  N(r, b)->stamp = mark_b;
  for (;;) { /* both paths end at ROOT, so one of them steps onto the other's mark */
    if (a != ROOT) {
      a = N(r, a)->parent;
      if (N(r, a)->stamp == mark_b) return a;
      N(r, a)->stamp = mark_a;
    }
    if (b != ROOT) {
      b = N(r, b)->parent;
      if (N(r, b)->stamp == mark_a) return b;
      N(r, b)->stamp = mark_b;
    }
  }
}

/* ---- open edges -------------------------------------------------------------------------------------- */

/* Open outgoing targets of a visited node, distinct, appended to out. */
static void open_targets(reconv *r, uint32_t id, rc_u32vec *out) {
  otn *x = N(r, id);
  if (x->flow != RC_NONE) {
    flow_node *f = &r->flows.data[x->flow];
    for (uint32_t i = 0; i < f->open.len; i++) rc_vec_push(out, f->open.data[i]);
    return;
  }
  rc_instr *t = rc_block_term(r->k->blocks[id]);
  for (uint32_t i = 0; t && i < t->ntargets; i++) {
    uint32_t s = t->targets[i]->id;
    if (visited(r, s)) continue;
    bool dup = false;
    for (uint32_t j = 0; j < i; j++) dup |= t->targets[j]->id == s;
    if (!dup) rc_vec_push(out, s);
  }
}

static bool has_open_out(reconv *r, uint32_t id) {
  otn *x = N(r, id);
  if (x->flow != RC_NONE) return r->flows.data[x->flow].open.len > 0;
  rc_instr *t = rc_block_term(r->k->blocks[id]);
  for (uint32_t i = 0; t && i < t->ntargets; i++)
    if (!visited(r, t->targets[i]->id)) return true;
  return false;
}

/* thesis Def. 17: divergent, with one outgoing edge closed and one still open */
static bool armed(reconv *r, uint32_t id) {
  otn *x = N(r, id);
  if (!x->divergent) return false;
  if (x->flow != RC_NONE) {
    flow_node *f = &r->flows.data[x->flow];
    return f->closed.len > 0 && f->open.len > 0;
  }
  rc_instr *t = rc_block_term(r->k->blocks[id]);
  if (!t || t->op != RC_OP_BR || t->targets[0] == t->targets[1]) return false;
  bool v0 = visited(r, t->targets[0]->id), v1 = visited(r, t->targets[1]->id);
  return v0 != v1;
}

static void maybe_close(reconv *r, uint32_t id) {
  otn *x = N(r, id);
  if (x->in_tree && x->open_in == 0 && !has_open_out(r, id)) tree_remove(r, id);
}

/* ---- subtrees ---------------------------------------------------------------------------------------- */

/* Reduce `roots` to those that are not inside another one's subtree; collect every node of their
 * subtrees into r->tmp_nodes. Returns the number of roots left. */
static uint32_t collect_subtrees(reconv *r, rc_u32vec *roots) {
  r->stamp++;
  for (uint32_t i = 0; i < roots->len; i++) N(r, roots->data[i])->stamp = r->stamp;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < roots->len; i++) {
    uint32_t x = roots->data[i];
    bool inside = false;
    for (uint32_t y = N(r, x)->parent; y != RC_NONE && y != ROOT && !inside; y = N(r, y)->parent)
      inside = N(r, y)->stamp == r->stamp;
    bool dup = false;
    for (uint32_t j = 0; j < kept; j++) dup |= roots->data[j] == x;
    if (!inside && !dup) roots->data[kept++] = x;
  }
  roots->len = kept;
  r->tmp_nodes.len = 0;
  r->tmp_starts.len = 0;
  for (uint32_t i = 0; i < kept; i++) {
    uint32_t start = r->tmp_nodes.len;
    rc_vec_push(&r->tmp_starts, start);
    rc_vec_push(&r->tmp_nodes, roots->data[i]);
    for (uint32_t j = start; j < r->tmp_nodes.len; j++)
      for (uint32_t c = N(r, r->tmp_nodes.data[j])->first_child; c != RC_NONE; c = N(r, c)->next)
        rc_vec_push(&r->tmp_nodes, c);
  }
  return kept;
}

/* The closed successors of a visited node: its terminator's visited targets, or for a flow node its
 * closed targets and its remainder. */
static void closed_succs(reconv *r, uint32_t id, rc_u32vec *out) {
  out->len = 0;
  otn *x = N(r, id);
  if (x->flow != RC_NONE) {
    flow_node *f = &r->flows.data[x->flow];
    for (uint32_t j = 0; j < f->closed.len; j++) rc_vec_push(out, f->closed.data[j]);
    if (f->remainder != RC_NONE) rc_vec_push(out, f->remainder);
    return;
  }
  rc_instr *t = rc_block_term(r->k->blocks[id]);
  for (uint32_t e = 0; t && e < t->ntargets; e++)
    if (visited(r, t->targets[e]->id)) rc_vec_push(out, t->targets[e]->id);
}

/* Regions that can no longer change (thesis: closed) are merged into the block their flow now has
 * to pass, with a union-find: after the check at block T finds that all flow reachable from T's
 * armed predecessors goes to T, that flow's blocks are quiescent (every edge closed, never to change
 * again) and reach nothing but each other and whatever T reaches; after a reroute, the same holds
 * for the flow block. A later walk that enters such a region jumps to its representative, so each
 * block is walked through only until it is absorbed, which keeps the exact Condition 1 near-linear. */
static uint32_t uf_find(reconv *r, uint32_t x) {
  uint32_t root = x;
  while (r->n.data[root].uf != root) root = r->n.data[root].uf;
  while (r->n.data[x].uf != root) {
    uint32_t next = r->n.data[x].uf;
    r->n.data[x].uf = root;
    x = next;
  }
  return root;
}

/* Merge the regions walked last (r->tmp_nodes, representatives) into `rep`. */
static void uf_absorb(reconv *r, uint32_t rep) {
  for (uint32_t i = 0; i < r->tmp_nodes.len; i++) {
    uint32_t x = uf_find(r, r->tmp_nodes.data[i]);
    if (x != rep && !has_open_out(r, x)) r->n.data[x].uf = rep;
  }
}

/* Extend r->tmp_nodes with every visited block reachable from them along closed edges. The open
 * tree's subtrees are the thesis's picture of where flow from a node can go; paths that leave a
 * subtree through a backward edge (possibly via blocks already closed and removed from the tree)
 * are not in it. Rerouting the closure makes the rerouted flow block post-dominate every armed node
 * that is rerouted, whatever the tree looks like (see reconv_process_block). */
static void reach_closure(reconv *r) {
  r->stamp++;
  uint32_t n = r->tmp_nodes.len;
  r->tmp_seeds.len = 0;
  for (uint32_t i = 0; i < n; i++) rc_vec_push(&r->tmp_seeds, r->tmp_nodes.data[i]);
  r->tmp_nodes.len = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t x = uf_find(r, r->tmp_seeds.data[i]);
    if (N(r, x)->stamp == r->stamp) continue;
    N(r, x)->stamp = r->stamp;
    rc_vec_push(&r->tmp_nodes, x);
  }
  for (uint32_t i = 0; i < r->tmp_nodes.len; i++) {
    closed_succs(r, r->tmp_nodes.data[i], &r->tmp_succs);
    for (uint32_t j = 0; j < r->tmp_succs.len; j++) {
      uint32_t s = uf_find(r, r->tmp_succs.data[j]);
      if (N(r, s)->stamp == r->stamp) continue;
      N(r, s)->stamp = r->stamp;
      rc_vec_push(&r->tmp_nodes, s);
    }
  }
}

/* ---- AddBasicBlockToOT ---------------------------------------------------------------------------------- */

/* Bring all predecessors onto one root path (InterleavePaths) and return the deepest one. */
static uint32_t interleave_paths(reconv *r, rc_u32vec *preds) {
  if (preds->len == 0) return ROOT;
  /* sort by visit index: insertion sort, the lists are short */
  for (uint32_t i = 1; i < preds->len; i++) {
    uint32_t x = preds->data[i], j = i;
    while (j > 0 && N(r, preds->data[j - 1])->visit > N(r, x)->visit) {
      preds->data[j] = preds->data[j - 1];
      j--;
    }
    preds->data[j] = x;
  }
  uint32_t tip = preds->data[0];
  for (uint32_t i = 1; i < preds->len; i++) {
    uint32_t q = preds->data[i];
    uint32_t lca = tree_lca(r, tip, q);
    if (lca == q) continue; /* q is on tip's path already */
    if (lca == tip) {
      tip = q;
      continue;
    }
    /* the child of lca(tip, q) on the way to q moves below tip */
    uint32_t c = q;
    while (N(r, c)->parent != lca) c = N(r, c)->parent;
    tree_unlink(r, c);
    tree_append(r, tip, c);
    tip = q;
  }
  return tip;
}

/* Add a block (an ordered block or a new flow block) to the open tree below its predecessors. */
static void add_to_tree(reconv *r, uint32_t b, rc_u32vec *tree_preds) {
  uint32_t parent = interleave_paths(r, tree_preds);
  otn *x = N(r, b);
  x->visit = r->visits++;
  x->in_tree = true;
  tree_append(r, parent, b);
}

/* ---- Reroute ------------------------------------------------------------------------------------------------ */

static rc_block *new_block(reconv *r, const char *base, uint32_t flags, bool divergent) {
  rc_block *b = rc_block_new(r->k, rc_kernel_fresh_name(r->k, base));
  b->bflags |= flags;
  reconv_new_node(r, b, divergent);
  otn *x = N(r, b->id);
  x->is_new = true;
  x->anchor = r->current;
  return b;
}

static void add_flow_target(reconv *r, uint32_t fi, uint32_t t) {
  flow_node *f = &r->flows.data[fi];
  for (uint32_t i = 0; i < f->open.len; i++)
    if (f->open.data[i] == t) return;
  rc_vec_push(&f->open, t);
  rc_vec_push(&r->flow_in.data[t], fi);
}

/* Reroute every open outgoing edge of the nodes in r->tmp_nodes through a new flow block; returns
 * the flow block's id. */
static uint32_t reroute(reconv *r) {
  rc_block *xb = new_block(r, "FLOW", RC_BLOCK_FLOW, true);
  if (r->trace) {
    rc_strbuf sb;
    rc_sb_init(&sb);
    rc_sb_printf(&sb, "reroute through %s:", xb->name);
    for (uint32_t i = 0; i < r->tmp_nodes.len; i++) {
      r->tmp_targets.len = 0;
      open_targets(r, r->tmp_nodes.data[i], &r->tmp_targets);
      if (r->tmp_targets.len) rc_sb_printf(&sb, " %s", r->k->blocks[r->tmp_nodes.data[i]]->name);
    }
    rc_report(r->ctx, RC_SEV_NOTE, NULL, 0, 0, "%s", sb.data);
    rc_sb_free(&sb);
  }
  flow_node fz;
  memset(&fz, 0, sizeof fz);
  fz.block = xb;
  fz.remainder = RC_NONE;
  rc_vec_push(&r->flows, fz);
  uint32_t fi = r->flows.len - 1;
  N(r, xb->id)->flow = fi;
  r->flow_blocks++;

  rc_u32vec *tree_preds = &r->tmp_preds;
  tree_preds->len = 0;
  rc_u32vec nodes = {0}; /* copy: helpers below reuse r->tmp_nodes */
  for (uint32_t i = 0; i < r->tmp_nodes.len; i++) rc_vec_push(&nodes, r->tmp_nodes.data[i]);
  for (uint32_t i = 0; i < nodes.len; i++) {
    uint32_t id = nodes.data[i];
    if (id == xb->id) continue;
    r->tmp_targets.len = 0;
    open_targets(r, id, &r->tmp_targets);
    if (!r->tmp_targets.len) continue;
    rc_vec_push(tree_preds, id);
    r->rerouted_edges += r->tmp_targets.len;
    otn *x = N(r, id);
    if (x->flow != RC_NONE) { /* a flow node forwards its open targets; X is its remainder */
      flow_node *f = &r->flows.data[x->flow];
      flow_pred fp = {f->block, NULL, FP_FLOW, RC_NONE, RC_NONE, NULL, x->flow};
      rc_vec_push(&r->flows.data[fi].preds, fp);
      for (uint32_t t = 0; t < f->open.len; t++) add_flow_target(r, fi, f->open.data[t]);
      f = &r->flows.data[x->flow];
      for (uint32_t t = 0; t < f->open.len; t++) rc_vec_push(&f->forwarded, f->open.data[t]);
      qsort(f->forwarded.data, f->forwarded.len, sizeof *f->forwarded.data, rc_cmp_u32);
      f->open.len = 0;
      f->remainder = xb->id;
      continue;
    }
    rc_block *blk = r->k->blocks[id];
    rc_instr *t = rc_block_term(blk);
    if (t->op == RC_OP_BR && t->targets[0] != t->targets[1] && r->tmp_targets.len == 2) {
      uint32_t t1 = t->targets[0]->id, t2 = t->targets[1]->id;
      if (!x->divergent) {
        /* keep the uniform branch: each edge through its own jump into X */
        for (uint32_t e = 0; e < 2; e++) {
          rc_block *sb = new_block(r, "FLOW", RC_BLOCK_FLOW, false);
          N(r, sb->id)->visit = r->visits++; /* part of the closed edge into X; never in the tree */
          r->split_blocks++;
          rc_builder bld;
          rc_builder_at_end(&bld, sb);
          rc_build_jmp(&bld, xb);
          rc_term_set_target(t, e, sb);
          flow_pred fp = {sb, blk, FP_TARGET, e ? t2 : t1, RC_NONE, NULL, RC_NONE};
          rc_vec_push(&r->flows.data[fi].preds, fp);
        }
      } else {
        rc_value *c = t->ops[0];
        rc_instr_detach(t);
        rc_builder bld;
        rc_builder_at_end(&bld, blk);
        rc_build_jmp(&bld, xb);
        flow_pred fp = {blk, blk, FP_COND, t1, t2, c, RC_NONE};
        rc_vec_push(&r->flows.data[fi].preds, fp);
      }
      add_flow_target(r, fi, t1);
      add_flow_target(r, fi, t2);
    } else {
      /* one open edge (jmp T, or br with the other target visited) */
      uint32_t target = r->tmp_targets.data[0];
      for (uint32_t e = 0; e < t->ntargets; e++)
        if (t->targets[e]->id == target) rc_term_set_target(t, e, xb);
      flow_pred fp = {blk, blk, FP_TARGET, target, RC_NONE, NULL, RC_NONE};
      rc_vec_push(&r->flows.data[fi].preds, fp);
      add_flow_target(r, fi, target);
    }
  }
  rc_vec_free(&nodes);
  add_to_tree(r, xb->id, tree_preds);
  for (uint32_t i = 0; i < tree_preds->len; i++) maybe_close(r, tree_preds->data[i]);
  return xb->id;
}

/* ---- processing one block of the ordering ----------------------------------------------------------------- */

/* Visited nodes with an open edge to b: its visited IR predecessors and flow nodes aiming at it. */
static void visited_preds(reconv *r, uint32_t b, rc_u32vec *out) {
  rc_block *blk = r->k->blocks[b];
  r->stamp++;
  for (uint32_t p = 0; p < blk->npreds; p++) {
    uint32_t id = blk->preds[p]->id;
    if (id == b || !visited(r, id) || N(r, id)->stamp == r->stamp) continue;
    N(r, id)->stamp = r->stamp;
    rc_vec_push(out, id);
  }
  rc_u32vec *fin = &r->flow_in.data[b];
  uint32_t kept = 0;
  for (uint32_t i = 0; i < fin->len; i++) {
    flow_node *f = &r->flows.data[fin->data[i]];
    bool aims = false;
    for (uint32_t t = 0; t < f->open.len; t++) aims |= f->open.data[t] == b;
    if (!aims) continue;
    fin->data[kept++] = fin->data[i];
    uint32_t id = f->block->id;
    if (N(r, id)->stamp == r->stamp) continue;
    N(r, id)->stamp = r->stamp;
    rc_vec_push(out, id);
  }
  fin->len = kept;
}

static void close_edges_into(reconv *r, uint32_t b, const rc_u32vec *preds) {
  for (uint32_t i = 0; i < preds->len; i++) {
    otn *x = N(r, preds->data[i]);
    if (x->flow == RC_NONE) continue;
    flow_node *f = &r->flows.data[x->flow];
    for (uint32_t t = 0; t < f->open.len; t++)
      if (f->open.data[t] == b) {
        f->open.data[t] = f->open.data[--f->open.len];
        rc_vec_push(&f->closed, b);
        break;
      }
  }
  for (uint32_t i = 0; i < preds->len; i++) maybe_close(r, preds->data[i]);
}

/* `reconverge[trace]`: the open tree as an indented list, one node per line with its open incoming
 * count, open targets and armed state (the thesis draws the same in Figures 4.7 and 4.9). */
static void trace_tree(reconv *r, const char *what, uint32_t b) {
  rc_strbuf sb;
  rc_sb_init(&sb);
  rc_sb_printf(&sb, "%s %s; open tree:", what, r->k->blocks[b]->name);
  rc_u32vec stack = {0}, depth = {0};
  for (uint32_t c = r->root.last_child; c != RC_NONE; c = N(r, c)->prev) {
    rc_vec_push(&stack, c);
    rc_vec_push(&depth, 1);
  }
  if (!stack.len) rc_sb_puts(&sb, " (empty)");
  while (stack.len) {
    uint32_t id = stack.data[--stack.len], d = depth.data[--depth.len];
    rc_sb_printf(&sb, "\n%*s%s", (int)(2 * d), "", r->k->blocks[id]->name);
    r->tmp_targets.len = 0;
    open_targets(r, id, &r->tmp_targets);
    if (r->tmp_targets.len) {
      rc_sb_puts(&sb, " ->");
      for (uint32_t i = 0; i < r->tmp_targets.len; i++)
        rc_sb_printf(&sb, " %s", r->k->blocks[r->tmp_targets.data[i]]->name);
    }
    if (N(r, id)->open_in) rc_sb_printf(&sb, " (%u open incoming)", N(r, id)->open_in);
    if (armed(r, id)) rc_sb_puts(&sb, " [armed]");
    for (uint32_t c = N(r, id)->last_child; c != RC_NONE; c = N(r, c)->prev) {
      rc_vec_push(&stack, c);
      rc_vec_push(&depth, d + 1);
    }
  }
  rc_report(r->ctx, RC_SEV_NOTE, NULL, 0, 0, "%s", sb.data);
  rc_vec_free(&stack);
  rc_vec_free(&depth);
  rc_sb_free(&sb);
}

void reconv_process_block(reconv *r, uint32_t b) {
  r->current = b;
  rc_u32vec preds = {0};
  visited_preds(r, b, &preds);

  /* Condition 1: armed predecessors whose subtrees have open edges to other targets */
  rc_u32vec *roots = &r->tmp_roots;
  roots->len = 0;
  r->closure.len = 0;
  for (uint32_t i = 0; i < preds.len; i++)
    if (armed(r, preds.data[i])) rc_vec_push(roots, preds.data[i]);
  if (roots->len) {
    r->tmp_nodes.len = 0;
    for (uint32_t i = 0; i < roots->len; i++) rc_vec_push(&r->tmp_nodes, roots->data[i]);
    reach_closure(r);
    bool other = false;
    for (uint32_t i = 0; i < r->tmp_nodes.len && !other; i++) {
      r->tmp_targets.len = 0;
      open_targets(r, r->tmp_nodes.data[i], &r->tmp_targets);
      for (uint32_t t = 0; t < r->tmp_targets.len; t++) other |= r->tmp_targets.data[t] != b;
    }
    if (other) {
      uf_absorb(r, reroute(r));
      preds.len = 0;
      visited_preds(r, b, &preds);
    } else {
      /* all of it goes to b: once b is added, absorb it into b (below) */
      r->closure.len = 0;
      for (uint32_t i = 0; i < r->tmp_nodes.len; i++) rc_vec_push(&r->closure, r->tmp_nodes.data[i]);
    }
  }

  /* AddBasicBlockToOT(B); edges from visited predecessors close */
  rc_u32vec tree_preds = {0};
  for (uint32_t i = 0; i < preds.len; i++) rc_vec_push(&tree_preds, preds.data[i]);
  add_to_tree(r, b, &tree_preds);
  rc_vec_free(&tree_preds);
  rc_block *blk = r->k->blocks[b];
  otn *x = N(r, b);
  x->open_in = 0;
  for (uint32_t p = 0; p < blk->npreds; p++)
    if (blk->preds[p]->id == b || !visited(r, blk->preds[p]->id)) x->open_in++;
  close_edges_into(r, b, &preds);
  rc_vec_free(&preds);
  if (r->closure.len) {
    r->tmp_nodes.len = 0;
    for (uint32_t i = 0; i < r->closure.len; i++) rc_vec_push(&r->tmp_nodes, r->closure.data[i]);
    uf_absorb(r, b);
  }

  /* Condition 2: b has unvisited successors and visited successors other than itself */
  rc_instr *t = rc_block_term(blk);
  rc_u32vec back = {0};
  bool has_unvisited = false, has_other_visited = false;
  for (uint32_t e = 0; t && e < t->ntargets; e++) {
    uint32_t s = t->targets[e]->id;
    if (visited(r, s)) {
      rc_vec_push(&back, s);
      has_other_visited |= s != b;
    } else {
      has_unvisited = true;
    }
  }
  if (r->cond2 && has_unvisited && has_other_visited) {
    roots->len = 0;
    rc_vec_push(roots, b);
    for (uint32_t i = 0; i < back.len; i++)
      if (N(r, back.data[i])->in_tree) rc_vec_push(roots, back.data[i]);
    /* roots whose subtrees have open edges, and the distinct targets of those edges */
    uint32_t nroots = collect_subtrees(r, roots), open_roots = 0;
    uint32_t first = RC_NONE;
    bool several = false;
    for (uint32_t ri = 0; ri < nroots; ri++) {
      uint32_t end = ri + 1 < nroots ? r->tmp_starts.data[ri + 1] : r->tmp_nodes.len;
      bool any = false;
      for (uint32_t i = r->tmp_starts.data[ri]; i < end; i++) {
        r->tmp_targets.len = 0;
        open_targets(r, r->tmp_nodes.data[i], &r->tmp_targets);
        any |= r->tmp_targets.len > 0;
        for (uint32_t j = 0; j < r->tmp_targets.len; j++) {
          if (first == RC_NONE) first = r->tmp_targets.data[j];
          else if (r->tmp_targets.data[j] != first) several = true;
        }
      }
      open_roots += any;
    }
    if (open_roots > 1 || several) {
      reach_closure(r);
      uf_absorb(r, reroute(r));
    }
  }
  /* close the backward edges of b */
  for (uint32_t i = 0; i < back.len; i++) {
    otn *s = N(r, back.data[i]);
    if (s->open_in) s->open_in--;
    maybe_close(r, back.data[i]);
  }
  rc_vec_free(&back);
  maybe_close(r, b);
  if (r->trace) trace_tree(r, "after", b);
}
