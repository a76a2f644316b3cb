/* Block orderings for the reconverge transform (thesis 4.3.1).
 *
 * Successors are taken true-branch first, as the thesis's convention says. The post-dominance
 * obeying orderings (DFPD, BFPD) use one rule: a block B is *deferred* while some other discovered
 * but not yet ordered block S is post-dominated by B, so that "any post-dominator of a block is
 * positioned after its predecessors" (ComputeOrdering). Among the blocks that are not deferred,
 * DFPD continues depth-first from the current block (PickBlock falls back to the most recently
 * discovered one), BFPD takes the one closest to the entry. A block that is not deferred always
 * exists, because post-dominance is a partial order. The test "does B post-dominate a pending block"
 * is a range count over B's subtree in the post-dominator tree (a Fenwick tree over its pre-order
 * numbers), so the orderings stay O(n log n).
 *
 * Our ComputeOrdering is a reading of the thesis's pseudo-code, whose inner test compares against
 * the successors of A's predecessors only; deferring against every pending block is the property the
 * text asks for ("any post-dominator of a block should be positioned after its predecessors"). */
#include "reconv/analysis.h"
#include "reconv/transform.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const order_names[RC_ORDER_COUNT] = {"df", "dfpd", "bf", "bfpd", "rpot",
                                                        "domreg", "custom"};

const char *rc_order_name(rc_order_kind k) {
  return k < RC_ORDER_COUNT ? order_names[k] : "?";
}

int rc_order_lookup(const char *name) {
  for (int i = 0; i < RC_ORDER_COUNT; i++)
    if (strcmp(order_names[i], name) == 0) return i;
  return -1;
}

/* ---- the deferral test ---------------------------------------------------------------------------- */

typedef struct deferral {
  const rc_domtree *pdom;
  uint32_t n;          /* nodes of the post-dominator tree */
  uint32_t *size;      /* subtree sizes */
  int32_t *fenwick;    /* pending blocks, indexed by pre-order number + 1 */
  uint8_t *pending;
} deferral;

static void deferral_init(deferral *d, const rc_domtree *pdom) {
  d->pdom = pdom;
  d->n = pdom->nnodes;
  d->size = rc_xcalloc(d->n + 1, sizeof *d->size);
  d->fenwick = rc_xcalloc(d->n + 2, sizeof *d->fenwick);
  d->pending = rc_xcalloc(d->n + 1, 1);
  /* sizes bottom-up: children have larger pre-order numbers than their parents */
  uint32_t *by_pre = rc_xmalloc((d->n + 1) * sizeof *by_pre);
  uint32_t m = 0;
  for (uint32_t b = 0; b < d->n; b++)
    if (pdom->pre[b] != RC_NONE) by_pre[pdom->pre[b]] = b, m++;
  for (uint32_t i = m; i-- > 0;) {
    uint32_t b = by_pre[i];
    d->size[b] += 1;
    if (b != pdom->root) d->size[pdom->idom[b]] += d->size[b];
  }
  free(by_pre);
}

static void deferral_free(deferral *d) {
  free(d->size);
  free(d->fenwick);
  free(d->pending);
}

static void fenwick_add(deferral *d, uint32_t pos, int32_t v) {
  for (uint32_t i = pos + 1; i <= d->n; i += i & (0u - i)) d->fenwick[i] += v;
}

static int32_t fenwick_prefix(const deferral *d, uint32_t count) { /* sum of positions < count */
  int32_t s = 0;
  for (uint32_t i = count; i > 0; i -= i & (0u - i)) s += d->fenwick[i];
  return s;
}

static void set_pending(deferral *d, uint32_t b, bool on) {
  if (d->pending[b] == on || d->pdom->pre[b] == RC_NONE) return;
  d->pending[b] = on;
  fenwick_add(d, d->pdom->pre[b], on ? 1 : -1);
}

/* Does b post-dominate a pending block other than itself? */
static bool deferred(const deferral *d, uint32_t b) {
  uint32_t pre = d->pdom->pre[b];
  if (pre == RC_NONE) return false;
  int32_t in_subtree = fenwick_prefix(d, pre + d->size[b]) - fenwick_prefix(d, pre);
  return in_subtree - d->pending[b] > 0;
}

/* ---- the orderings ------------------------------------------------------------------------------------ */

static void order_df(const rc_cfg *g, rc_u32vec *out) {
  uint8_t *seen = rc_xcalloc(g->nblocks, 1);
  uint32_t *stack = rc_xmalloc(g->nblocks * sizeof *stack);
  uint32_t *edge = rc_xmalloc(g->nblocks * sizeof *edge);
  uint32_t sp = 0;
  stack[sp] = g->entry;
  edge[sp++] = g->succ_start[g->entry];
  seen[g->entry] = 1;
  rc_vec_push(out, g->entry);
  while (sp) {
    uint32_t b = stack[sp - 1];
    if (edge[sp - 1] < g->succ_start[b + 1]) {
      uint32_t s = g->succs[edge[sp - 1]++];
      if (!seen[s]) {
        seen[s] = 1;
        rc_vec_push(out, s);
        stack[sp] = s;
        edge[sp++] = g->succ_start[s];
      }
    } else {
      sp--;
    }
  }
  free(seen);
  free(stack);
  free(edge);
}

static void order_bf(const rc_cfg *g, rc_u32vec *out) {
  uint8_t *seen = rc_xcalloc(g->nblocks, 1);
  uint32_t head = out->len;
  rc_vec_push(out, g->entry);
  seen[g->entry] = 1;
  while (head < out->len) {
    uint32_t b = out->data[head++];
    for (uint32_t e = g->succ_start[b]; e < g->succ_start[b + 1]; e++)
      if (!seen[g->succs[e]]) {
        seen[g->succs[e]] = 1;
        rc_vec_push(out, g->succs[e]);
      }
  }
  free(seen);
}

static void order_rpot(const rc_cfg *g, rc_u32vec *out) {
  uint32_t *rpo = rc_xmalloc(g->nblocks * sizeof *rpo);
  uint32_t n = rc_cfg_rpo(g, rpo, NULL);
  for (uint32_t i = 0; i < n; i++) rc_vec_push(out, rpo[i]);
  free(rpo);
}

/* DFPD: depth-first; a successor of the current block is taken unless deferred; otherwise PickBlock
 * takes the most recently discovered pending block that is not deferred. */
static void order_dfpd(const rc_cfg *g, const rc_domtree *pdom, rc_u32vec *out) {
  deferral d;
  deferral_init(&d, pdom);
  uint8_t *state = rc_xcalloc(g->nblocks, 1); /* 0 new, 1 discovered, 2 ordered */
  rc_u32vec stack = {0};                       /* discovered blocks, most recent on top */
  uint32_t a = g->entry;
  for (;;) {
    rc_vec_push(out, a);
    state[a] = 2;
    set_pending(&d, a, false);
    for (uint32_t e = g->succ_start[a]; e < g->succ_start[a + 1]; e++) {
      uint32_t s = g->succs[e];
      if (state[s] == 0) {
        state[s] = 1;
        set_pending(&d, s, true);
        rc_vec_push(&stack, s);
      }
    }
    uint32_t next = RC_NONE;
    for (uint32_t e = g->succ_start[a]; e < g->succ_start[a + 1] && next == RC_NONE; e++) {
      uint32_t s = g->succs[e];
      if (state[s] == 1 && !deferred(&d, s)) next = s;
    }
    if (next == RC_NONE) { /* PickBlock */
      while (stack.len && state[stack.data[stack.len - 1]] == 2) stack.len--;
      for (uint32_t i = stack.len; i-- > 0 && next == RC_NONE;)
        if (state[stack.data[i]] == 1 && !deferred(&d, stack.data[i])) next = stack.data[i];
      if (next == RC_NONE && stack.len) next = stack.data[stack.len - 1]; /* cannot happen */
    }
    if (next == RC_NONE) break;
    a = next;
  }
  rc_vec_free(&stack);
  free(state);
  deferral_free(&d);
}

/* BFPD: the pending block closest to the entry (breadth-first distance, then discovery order) that is
 * not deferred. Pending blocks live in one bucket per distance. */
static void order_bfpd(const rc_cfg *g, const rc_domtree *pdom, rc_u32vec *out) {
  uint32_t n = g->nblocks;
  uint32_t *dist = rc_xmalloc(n * sizeof *dist);
  for (uint32_t i = 0; i < n; i++) dist[i] = RC_NONE;
  rc_u32vec bfs = {0};
  rc_vec_push(&bfs, g->entry);
  dist[g->entry] = 0;
  uint32_t maxd = 0;
  for (uint32_t h = 0; h < bfs.len; h++) {
    uint32_t b = bfs.data[h];
    for (uint32_t e = g->succ_start[b]; e < g->succ_start[b + 1]; e++)
      if (dist[g->succs[e]] == RC_NONE) {
        dist[g->succs[e]] = dist[b] + 1;
        if (dist[b] + 1 > maxd) maxd = dist[b] + 1;
        rc_vec_push(&bfs, g->succs[e]);
      }
  }
  rc_vec_free(&bfs);
  rc_u32vec *bucket = rc_xcalloc(maxd + 1, sizeof *bucket);
  uint32_t *bucket_head = rc_xcalloc(maxd + 1, sizeof *bucket_head);
  deferral d;
  deferral_init(&d, pdom);
  uint8_t *state = rc_xcalloc(n, 1);
  uint32_t npending = 0, lowest = 0;
  uint32_t a = g->entry;
  for (;;) {
    rc_vec_push(out, a);
    if (state[a] == 1) npending--;
    state[a] = 2;
    set_pending(&d, a, false);
    for (uint32_t e = g->succ_start[a]; e < g->succ_start[a + 1]; e++) {
      uint32_t s = g->succs[e];
      if (state[s] == 0) {
        state[s] = 1;
        npending++;
        set_pending(&d, s, true);
        rc_vec_push(&bucket[dist[s]], s);
        if (dist[s] < lowest) lowest = dist[s];
      }
    }
    if (!npending) break;
    uint32_t next = RC_NONE, fallback = RC_NONE;
    for (uint32_t dd = lowest; dd <= maxd && next == RC_NONE; dd++) {
      rc_u32vec *bk = &bucket[dd];
      while (bucket_head[dd] < bk->len && state[bk->data[bucket_head[dd]]] == 2) bucket_head[dd]++;
      if (bucket_head[dd] == bk->len && dd == lowest) lowest++;
      for (uint32_t i = bucket_head[dd]; i < bk->len && next == RC_NONE; i++) {
        uint32_t s = bk->data[i];
        if (state[s] != 1) continue;
        if (fallback == RC_NONE) fallback = s;
        if (!deferred(&d, s)) next = s;
      }
    }
    if (next == RC_NONE) next = fallback; /* cannot happen: some pending block is not deferred */
    a = next;
  }
  for (uint32_t i = 0; i <= maxd; i++) rc_vec_free(&bucket[i]);
  free(bucket);
  free(bucket_head);
  free(state);
  free(dist);
  deferral_free(&d);
}

/* DomReg: pre-order of the dominator tree, children in reverse post-order except that the child
 * whose subtree holds the exit comes last ("the lowest branch containing the exit node is traversed
 * last", thesis 4.3.1 after Moll & Hack). */
static void order_domreg(const rc_cfg *g, const rc_domtree *dom, rc_u32vec *out) {
  uint32_t n = g->nblocks;
  uint32_t *rpo = rc_xmalloc(n * sizeof *rpo);
  uint32_t *rpo_index = rc_xmalloc(n * sizeof *rpo_index);
  rc_cfg_rpo(g, rpo, rpo_index);
  /* blocks whose dominator subtree holds an exit */
  uint8_t *holds_exit = rc_xcalloc(n, 1);
  for (uint32_t b = 0; b < n; b++)
    if (rc_domtree_contains(dom, b) && g->succ_start[b] == g->succ_start[b + 1])
      for (uint32_t x = b;; x = dom->idom[x]) {
        if (holds_exit[x]) break;
        holds_exit[x] = 1;
        if (x == dom->root) break;
      }
  rc_u32vec stack = {0}, kids = {0};
  rc_vec_push(&stack, dom->root);
  while (stack.len) {
    uint32_t b = stack.data[--stack.len];
    rc_vec_push(out, b);
    kids.len = 0;
    for (uint32_t c = dom->child_start[b]; c < dom->child_start[b + 1]; c++)
      rc_vec_push(&kids, dom->children[c]);
    /* sort children: exit-holding last, then by rpo index (insertion sort; few children) */
    for (uint32_t i = 1; i < kids.len; i++) {
      uint32_t x = kids.data[i], j = i;
      while (j > 0) {
        uint32_t y = kids.data[j - 1];
        bool y_after = holds_exit[y] > holds_exit[x] ||
                       (holds_exit[y] == holds_exit[x] && rpo_index[y] > rpo_index[x]);
        if (!y_after) break;
        kids.data[j] = y;
        j--;
      }
      kids.data[j] = x;
    }
    for (uint32_t i = kids.len; i-- > 0;) rc_vec_push(&stack, kids.data[i]);
  }
  rc_vec_free(&stack);
  rc_vec_free(&kids);
  free(holds_exit);
  free(rpo);
  free(rpo_index);
}

static int order_custom(rc_ctx *ctx, const rc_kernel *k, const rc_cfg *g, const char *list,
                        rc_u32vec *out) {
  if (!list || !*list)
    return rc_error(ctx, "order=custom needs blocks=A:B:C naming every reachable block of @%s", k->name);
  uint32_t *rpo = rc_xmalloc(g->nblocks * sizeof *rpo);
  uint32_t *rpo_index = rc_xmalloc(g->nblocks * sizeof *rpo_index);
  rc_cfg_rpo(g, rpo, rpo_index);
  uint8_t *taken = rc_xcalloc(g->nblocks, 1);
  int rc = 0;
  const char *p = list;
  char name[256];
  while (*p && rc == 0) {
    while (*p && (isspace((unsigned char)*p) || *p == ',' || *p == ':')) p++;
    if (!*p) break;
    size_t len = 0;
    while (p[len] && !isspace((unsigned char)p[len]) && p[len] != ',' && p[len] != ':') len++;
    if (len >= sizeof name) len = sizeof name - 1;
    memcpy(name, p, len);
    name[len] = 0;
    p += len;
    rc_block *b = rc_kernel_find_block(k, name);
    if (!b) rc = rc_error(ctx, "custom order: no block named %s in @%s", name, k->name);
    else if (rpo_index[b->id] == RC_NONE) rc = rc_error(ctx, "custom order: block %s is unreachable", name);
    else if (taken[b->id]) rc = rc_error(ctx, "custom order: block %s is named twice", name);
    else {
      taken[b->id] = 1;
      rc_vec_push(out, b->id);
    }
  }
  for (uint32_t b = 0; b < g->nblocks && rc == 0; b++)
    if (rpo_index[b] != RC_NONE && !taken[b])
      rc = rc_error(ctx, "custom order: block %s is missing", k->blocks[b]->name);
  if (rc == 0 && out->len && out->data[0] != g->entry)
    rc = rc_error(ctx, "custom order: the entry block %s must come first", k->blocks[g->entry]->name);
  free(taken);
  free(rpo);
  free(rpo_index);
  return rc;
}

int rc_compute_ordering(rc_ctx *ctx, const rc_kernel *k, const rc_cfg *g, const rc_domtree *dom,
                        const rc_domtree *pdom, rc_order_kind kind, const char *custom,
                        rc_u32vec *out) {
  out->len = 0;
  if (!g->nblocks) return 0;
  switch (kind) {
  case RC_ORDER_DF: order_df(g, out); return 0;
  case RC_ORDER_DFPD: order_dfpd(g, pdom, out); return 0;
  case RC_ORDER_BF: order_bf(g, out); return 0;
  case RC_ORDER_BFPD: order_bfpd(g, pdom, out); return 0;
  case RC_ORDER_RPOT: order_rpot(g, out); return 0;
  case RC_ORDER_DOMREG: order_domreg(g, dom, out); return 0;
  case RC_ORDER_CUSTOM: return order_custom(ctx, k, g, custom, out);
  default: return rc_error(ctx, "unknown ordering");
  }
}
