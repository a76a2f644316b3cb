/* The cycle nesting forest (loop-nesting forest with irreducible cycles), as LLVM's CycleInfo
 * defines and computes it (GenericCycleInfo, after Havlak and Ramalingam).
 *
 * Definition: the outermost cycles are the non-trivial strongly connected components of the CFG
 * (a single block is a cycle when it has a self loop); the children of a cycle C are the cycles of
 * the subgraph C minus the header of C. The header of a cycle is its entry that comes first in
 * the DFS pre-order from the entry; entries are the blocks of C with a predecessor outside C
 * (unreachable predecessors do not count); a cycle is reducible when it has exactly one entry.
 *
 * Algorithm (LLVM's): number the blocks in DFS pre-order and remember where each DFS subtree ends.
 * Visit the blocks in reverse pre-order. A block H with a predecessor P that is a DFS descendant of
 * H (a back edge P -> H) heads a new cycle; walking predecessors backwards from those P, staying
 * among the descendants of H, collects the cycle's blocks. A block that already belongs to a cycle
 * found earlier (which has a higher pre-order header, hence is nested) makes that cycle's
 * outermost ancestor a child of the new one, and the walk continues from that child's entries. A
 * predecessor outside H's DFS subtree makes its block an entry. Every block and every child is
 * absorbed once, so the work is proportional to the edges scanned, times the nesting depth for
 * the entries of nested cycles; the top-level lookup uses path compression.
 *
 * Output layout: cycles are numbered in pre-order of the forest (parents before children,
 * siblings by header pre-order), so the cycles nested in c are c+1 .. nested_end-1 and a cycle's
 * blocks are one contiguous slice of a shared array (header first, then the blocks whose innermost
 * cycle it is, then the nested cycles' blocks). */
#include "reconv/analysis.h"

#include <stdlib.h>
#include <string.h>

typedef struct dfs_numbers {
  uint32_t *pre; /* pre-order number, RC_NONE when unreachable */
  uint32_t *end; /* pre-order numbers of b's DFS subtree are pre[b] .. end[b]-1 */
  uint32_t *order; /* blocks by pre-order number */
  uint32_t nreach;
} dfs_numbers;

static void dfs_number(const rc_cfg *g, dfs_numbers *d) {
  uint32_t n = g->nblocks;
  d->pre = rc_xmalloc((n ? n : 1) * sizeof *d->pre);
  d->end = rc_xmalloc((n ? n : 1) * sizeof *d->end);
  d->order = rc_xmalloc((n ? n : 1) * sizeof *d->order);
  for (uint32_t b = 0; b < n; b++) d->pre[b] = d->end[b] = RC_NONE;
  d->nreach = 0;
  if (!n) return;
  uint32_t *stack = rc_xmalloc(n * sizeof *stack), *edge = rc_xmalloc(n * sizeof *edge);
  uint32_t sp = 0, counter = 0;
  stack[sp] = g->entry;
  edge[sp++] = g->succ_start[g->entry];
  d->order[counter] = g->entry;
  d->pre[g->entry] = counter++;
  while (sp) {
    uint32_t b = stack[sp - 1];
    if (edge[sp - 1] < g->succ_start[b + 1]) {
      uint32_t s = g->succs[edge[sp - 1]++];
      if (d->pre[s] == RC_NONE) {
        d->order[counter] = s;
        d->pre[s] = counter++;
        stack[sp] = s;
        edge[sp++] = g->succ_start[s];
      }
    } else {
      d->end[b] = counter;
      sp--;
    }
  }
  d->nreach = counter;
  free(stack);
  free(edge);
}

static bool is_ancestor(const dfs_numbers *d, uint32_t a, uint32_t b) { /* reflexive */
  return d->pre[b] != RC_NONE && d->pre[a] <= d->pre[b] && d->pre[b] < d->end[a];
}

/* Cycles while they are being discovered. */
typedef struct building {
  uint32_t ncycles;
  uint32_t *header, *parent, *top; /* top: path-compressed link towards the outermost ancestor */
  rc_u32vec *entries;
  uint32_t *block_cycle; /* per block: innermost cycle, RC_NONE when in none (yet) */
} building;

static uint32_t top_level(building *w, uint32_t c) {
  uint32_t r = c;
  while (w->top[r] != r) r = w->top[r];
  while (w->top[c] != r) {
    uint32_t next = w->top[c];
    w->top[c] = r;
    c = next;
  }
  return r;
}

/* Push b's predecessors inside H's DFS subtree; an outside (reachable) predecessor makes b an entry
 * of the cycle being built. */
static void scan_preds(const rc_cfg *g, const dfs_numbers *d, uint32_t H, uint32_t b,
                       rc_u32vec *work, rc_u32vec *entries) {
  bool is_entry = false;
  for (uint32_t e = g->pred_start[b]; e < g->pred_start[b + 1]; e++) {
    uint32_t p = g->preds[e];
    if (d->pre[p] == RC_NONE) continue; /* unreachable predecessors do not make entries */
    if (is_ancestor(d, H, p)) rc_vec_push(work, p);
    else is_entry = true;
  }
  if (is_entry) rc_vec_push(entries, b);
}

static void discover(const rc_cfg *g, const dfs_numbers *d, building *w) {
  uint32_t n = g->nblocks;
  w->header = rc_xmalloc((n ? n : 1) * sizeof *w->header);
  w->parent = rc_xmalloc((n ? n : 1) * sizeof *w->parent);
  w->top = rc_xmalloc((n ? n : 1) * sizeof *w->top);
  w->entries = rc_xcalloc(n ? n : 1, sizeof *w->entries);
  w->block_cycle = rc_xmalloc((n ? n : 1) * sizeof *w->block_cycle);
  for (uint32_t b = 0; b < n; b++) w->block_cycle[b] = RC_NONE;
  w->ncycles = 0;
  rc_u32vec work = {0};
  for (uint32_t i = d->nreach; i-- > 0;) {
    uint32_t H = d->order[i];
    work.len = 0;
    for (uint32_t e = g->pred_start[H]; e < g->pred_start[H + 1]; e++)
      if (is_ancestor(d, H, g->preds[e])) rc_vec_push(&work, g->preds[e]);
    if (!work.len) continue;
    uint32_t c = w->ncycles++;
    w->header[c] = H;
    w->parent[c] = RC_NONE;
    w->top[c] = c;
    rc_vec_push(&w->entries[c], H);
    w->block_cycle[H] = c;
    while (work.len) {
      uint32_t b = work.data[--work.len];
      if (b == H) continue;
      uint32_t bc = w->block_cycle[b];
      if (bc == RC_NONE) {
        w->block_cycle[b] = c;
        scan_preds(g, d, H, b, &work, &w->entries[c]);
        continue;
      }
      uint32_t t = top_level(w, bc);
      if (t == c) continue; /* already part of this cycle */
      w->parent[t] = c;     /* an earlier cycle becomes a child */
      w->top[t] = c;
      for (uint32_t k = 0; k < w->entries[t].len; k++)
        scan_preds(g, d, H, w->entries[t].data[k], &work, &w->entries[c]);
    }
  }
  rc_vec_free(&work);
}

int rc_cycles_build(rc_cycle_info *ci, const rc_cfg *g) {
  uint32_t n = g->nblocks;
  memset(ci, 0, sizeof *ci);
  ci->nblocks = n;
  ci->innermost = rc_xmalloc((n ? n : 1) * sizeof *ci->innermost);
  for (uint32_t b = 0; b < n; b++) ci->innermost[b] = RC_NONE;
  dfs_numbers d;
  dfs_number(g, &d);
  building w;
  discover(g, &d, &w);
  uint32_t m = w.ncycles;

  /* renumber the cycles in pre-order of the forest: children sorted by header pre-order. A child
   * is always discovered before its parent and siblings are discovered in decreasing header
   * pre-order, so walking the discovery order backwards gives each parent's children in
   * increasing header pre-order. */
  uint32_t *child_start = rc_xcalloc(m + 1, sizeof *child_start);
  uint32_t *children = rc_xmalloc((m ? m : 1) * sizeof *children);
  uint32_t *roots = rc_xmalloc((m ? m : 1) * sizeof *roots), nroots = 0;
  for (uint32_t c = 0; c < m; c++)
    if (w.parent[c] != RC_NONE) child_start[w.parent[c] + 1]++;
  for (uint32_t c = 0; c < m; c++) child_start[c + 1] += child_start[c];
  uint32_t *fill = rc_xmalloc((m + 1) * sizeof *fill);
  memcpy(fill, child_start, (m + 1) * sizeof *fill);
  for (uint32_t c = m; c-- > 0;) {
    if (w.parent[c] != RC_NONE) children[fill[w.parent[c]]++] = c;
    else roots[nroots++] = c;
  }
  free(fill);
  uint32_t *newid = rc_xmalloc((m ? m : 1) * sizeof *newid);
  uint32_t *old_of = rc_xmalloc((m ? m : 1) * sizeof *old_of);
  uint32_t *stack = rc_xmalloc((m ? m : 1) * sizeof *stack), next = 0;
  for (uint32_t r = 0; r < nroots; r++) {
    uint32_t sp = 0;
    stack[sp++] = roots[r];
    while (sp) {
      uint32_t c = stack[--sp];
      newid[c] = next;
      old_of[next++] = c;
      for (uint32_t k = child_start[c + 1]; k-- > child_start[c];) stack[sp++] = children[k];
    }
  }
  free(stack);
  free(roots);
  free(children);
  free(child_start);

  ci->ncycles = m;
  ci->cycles = rc_xcalloc(m ? m : 1, sizeof *ci->cycles);
  for (uint32_t c = 0; c < m; c++) {
    rc_cycle *cy = &ci->cycles[c];
    uint32_t o = old_of[c];
    cy->header = w.header[o];
    cy->parent = w.parent[o] == RC_NONE ? RC_NONE : newid[w.parent[o]];
    cy->depth = cy->parent == RC_NONE ? 1 : ci->cycles[cy->parent].depth + 1;
    cy->nested_end = c + 1;
  }
  for (uint32_t c = m; c-- > 0;) { /* children come after their parent */
    uint32_t p = ci->cycles[c].parent;
    if (p != RC_NONE && ci->cycles[c].nested_end > ci->cycles[p].nested_end)
      ci->cycles[p].nested_end = ci->cycles[c].nested_end;
  }
  for (uint32_t b = 0; b < n; b++)
    if (w.block_cycle[b] != RC_NONE) ci->innermost[b] = newid[w.block_cycle[b]];

  /* exits: for every edge u -> v, v is an exit of each cycle that contains u but not v; edges are
   * grouped by v, so a per-cycle marker removes duplicates */
  rc_u32vec *exits = rc_xcalloc(m ? m : 1, sizeof *exits);
  uint32_t *marker = rc_xmalloc((m ? m : 1) * sizeof *marker);
  for (uint32_t c = 0; c < m; c++) marker[c] = RC_NONE;
  for (uint32_t v = 0; v < n; v++) {
    if (d.pre[v] == RC_NONE) continue;
    for (uint32_t e = g->pred_start[v]; e < g->pred_start[v + 1]; e++) {
      uint32_t u = g->preds[e];
      if (d.pre[u] == RC_NONE) continue;
      for (uint32_t c = ci->innermost[u]; c != RC_NONE && !rc_cycle_contains(ci, c, v);
           c = ci->cycles[c].parent) {
        if (marker[c] == v) break; /* this and the enclosing cycles have v already */
        marker[c] = v;
        rc_vec_push(&exits[c], v);
      }
    }
  }
  free(marker);

  /* one shared array: every cycle's blocks (contiguous slices), then entries, then exits */
  size_t nin = 0, nent = 0, nex = 0;
  for (uint32_t b = 0; b < n; b++) nin += ci->innermost[b] != RC_NONE;
  for (uint32_t c = 0; c < m; c++) {
    nent += w.entries[old_of[c]].len;
    nex += exits[c].len;
  }
  ci->storage = rc_xmalloc((nin + nent + nex + 1) * sizeof *ci->storage);
  uint32_t *blocks = ci->storage, *ent = blocks + nin, *ex = ent + nent;
  /* counting sort of the blocks by innermost cycle, each cycle's header first */
  uint32_t *pos = rc_xcalloc(m + 1, sizeof *pos);
  for (uint32_t b = 0; b < n; b++)
    if (ci->innermost[b] != RC_NONE) pos[ci->innermost[b] + 1]++;
  for (uint32_t c = 0; c < m; c++) pos[c + 1] += pos[c];
  for (uint32_t c = 0; c < m; c++) {
    rc_cycle *cy = &ci->cycles[c];
    cy->blocks = blocks + pos[c];
    cy->nblocks = pos[cy->nested_end] - pos[c];
    blocks[pos[c]++] = cy->header;
  }
  for (uint32_t b = 0; b < n; b++) {
    uint32_t c = ci->innermost[b];
    if (c != RC_NONE && b != ci->cycles[c].header) blocks[pos[c]++] = b;
  }
  free(pos);
  for (uint32_t c = 0; c < m; c++) {
    rc_cycle *cy = &ci->cycles[c];
    rc_u32vec *en = &w.entries[old_of[c]];
    /* header first (it is en->data[0]), the other entries by block id */
    if (en->len > 2) qsort(en->data + 1, en->len - 1, sizeof *en->data, rc_cmp_u32);
    cy->entries = ent;
    cy->nentries = en->len;
    memcpy(ent, en->data, en->len * sizeof *ent);
    ent += en->len;
    cy->reducible = cy->nentries == 1;
    cy->exits = ex;
    cy->nexits = exits[c].len;
    if (exits[c].len) memcpy(ex, exits[c].data, exits[c].len * sizeof *ex);
    ex += exits[c].len;
    rc_vec_free(&exits[c]);
  }
  free(exits);

  /* back edges of the DFS: edges to an ancestor (or to the block itself) */
  RC_VEC(uint32_t) bf = {0}, bt = {0};
  for (uint32_t u = 0; u < n; u++) {
    if (d.pre[u] == RC_NONE) continue;
    for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++)
      if (is_ancestor(&d, g->succs[e], u)) {
        rc_vec_push(&bf, u);
        rc_vec_push(&bt, g->succs[e]);
      }
  }
  ci->back_from = bf.data;
  ci->back_to = bt.data;
  ci->nback = bf.len;

  for (uint32_t c = 0; c < m; c++) rc_vec_free(&w.entries[c]);
  free(w.entries);
  free(w.header);
  free(w.parent);
  free(w.top);
  free(w.block_cycle);
  free(newid);
  free(old_of);
  free(d.pre);
  free(d.end);
  free(d.order);
  return 0;
}

void rc_cycles_free(rc_cycle_info *ci) {
  free(ci->cycles);
  free(ci->innermost);
  free(ci->storage);
  free(ci->back_from);
  free(ci->back_to);
  memset(ci, 0, sizeof *ci);
}

bool rc_cycle_contains(const rc_cycle_info *ci, uint32_t c, uint32_t b) {
  if (c >= ci->ncycles || b >= ci->nblocks) return false;
  uint32_t i = ci->innermost[b];
  return i != RC_NONE && i >= c && i < ci->cycles[c].nested_end;
}
