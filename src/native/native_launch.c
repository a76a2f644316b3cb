/* The native oracle, part 2: running a prepared module (native.c) for every work-item of a launch
 * (docs/native.md), in a child process (host_child.c: shared buffers between guard pages, the
 * report page, the JIT, faults).
 *
 * Work-groups run one after another, x fastest, as in reconv's interpreter. Without barriers the
 * work-items of a group run one after the other on the child's stack. With barriers each work-item
 * is a coroutine (a fiber, host_fiber.h) with a stack of its own: a barrier switches back to the scheduler, which
 * resumes them all when every one waits at the same barrier; a work-item that returns while others
 * wait, or two that wait at different barriers, is barrier divergence. */
#include "host_child.h"
#include "host_fiber.h"
#include "native_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STACK_BYTES ((size_t)512 << 10) /* per work-item with barriers */

enum { WI_NEW, WI_RUNNING, WI_WAITING, WI_DONE };

typedef struct native_group {
  rc_native *n;
  host_report *rep;
  uint64_t *slots;
  void (*entry)(uint64_t *);
  void (*set_self)(void *);
  void (*zero_locals)(void);
  /* the current work-group */
  native_wi *wis;
  uint32_t nwi;
  /* coroutines (kernels with barriers) */
  host_fiber sched, *fibers; /* the scheduler's, and one per work-item (host_fiber.h) */
  uint8_t *state;
  uint64_t *site;
  uint8_t *stacks;
  size_t stack_stride;
} native_group;

/* What the child needs besides the run. */
typedef struct native_child {
  native_group *g;
  const rc_run_spec *s;
  const uint64_t *local_bytes;
  uint32_t repeat;  /* timed runs after the first */
  uint8_t **locals; /* in the child: each local: argument's memory */
} native_child;

/* ---- the child: hooks the runtime library calls --------------------------------------------------------- */

static void hook_barrier(native_wi *wi, uint64_t site) {
  native_group *g = wi->group;
  uint32_t i = (uint32_t)wi->local_linear_id;
  g->state[i] = WI_WAITING;
  g->site[i] = site;
  host_fiber_switch(&g->fibers[i], &g->sched);
}

static void hook_unsupported(native_wi *wi, const char *name) {
  native_group *g = wi->group;
  host_child_fail(g->rep, "calls %s, which the native runtime library does not provide", name);
}

/* ---- the child: work-groups ----------------------------------------------------------------------------- */

/* The work-item's ids in a group of `size` work-items (local[] per dimension) at group[]. */
static void fill_wi(native_wi *w, const rc_run_spec *s, const uint32_t local[3], const uint64_t group[3],
                    const uint64_t size[3], uint64_t lid, native_group *g) {
  uint64_t l[3] = {lid % size[0], lid / size[0] % size[1], lid / (size[0] * size[1])};
  uint64_t lin = 0, mul = 1;
  for (int d = 0; d < 3; d++) {
    uint64_t gs = d < (int)s->dims ? s->global[d] : 1, ls = d < (int)s->dims ? local[d] : 1;
    w->local_id[d] = l[d];
    w->group_id[d] = group[d];
    w->global_size[d] = gs;
    w->local_size[d] = size[d];
    w->enqueued_local_size[d] = ls;
    w->num_groups[d] = (gs + ls - 1) / ls;
    w->global_id[d] = group[d] * ls + l[d];
    lin += w->global_id[d] * mul;
    mul *= gs;
  }
  w->work_dim = s->dims;
  w->local_linear_id = lid;
  w->local_linear_size = size[0] * size[1] * size[2];
  w->global_linear_id = lin;
  w->group = g;
}

static void coroutine_main(void *arg) {
  native_wi *wi = arg;
  native_group *g = wi->group;
  g->entry(g->slots);
  g->state[wi->local_linear_id] = WI_DONE; /* then the fiber goes back to the scheduler */
}

static const char *site_name(const rc_native *n, uint64_t site) {
  return site >= 1 && site <= n->nsites ? n->sites[site - 1] : "an unknown call";
}

static void run_coroutines(native_group *g) {
  for (uint32_t i = 0; i < g->nwi; i++) {
    host_fiber_start(&g->fibers[i], g->stacks + (size_t)i * g->stack_stride + host_page_size(),
                     g->stack_stride - host_page_size(), &g->sched, coroutine_main, &g->wis[i]);
    g->state[i] = WI_NEW;
  }
  for (;;) {
    for (uint32_t i = 0; i < g->nwi; i++) {
      if (g->state[i] != WI_NEW && g->state[i] != WI_RUNNING) continue;
      g->state[i] = WI_RUNNING;
      g->rep->wi = g->wis[i].global_linear_id;
      g->set_self(&g->wis[i]);
      host_fiber_switch(&g->sched, &g->fibers[i]);
    }
    uint32_t waiting = RC_NONE, done = RC_NONE;
    for (uint32_t i = 0; i < g->nwi; i++) {
      if (g->state[i] == WI_WAITING && waiting == RC_NONE) waiting = i;
      if (g->state[i] == WI_DONE && done == RC_NONE) done = i;
    }
    if (waiting == RC_NONE) return;
    g->rep->wi = g->wis[waiting].global_linear_id;
    if (done != RC_NONE)
      host_child_fail(g->rep, "barrier divergence: it waits at a barrier but work-item %" PRIu64 " of its "
                 "work-group has returned", g->wis[done].global_linear_id);
    for (uint32_t i = 0; i < g->nwi; i++) {
      if (g->site[i] != g->site[waiting])
        host_child_fail(g->rep, "barrier divergence: it waits at the barrier of %s and work-item %" PRIu64
                   " of its work-group at the barrier of %s", site_name(g->n, g->site[waiting]),
                   g->wis[i].global_linear_id, site_name(g->n, g->site[i]));
      g->state[i] = WI_RUNNING; /* released: resumed by the next pass */
    }
  }
}

/* The child: compile, run every group, report. Never returns. */
/* Every work-group of the launch, one after another (x fastest). */
static void run_groups(void *arg) {
  native_child *c = arg;
  native_group *g = c->g;
  const rc_run_spec *s = c->s;
  rc_native *n = g->n;
  host_report *r = g->rep;
  uint32_t local[3];
  rc_run_spec_local(s, local);
  uint64_t groups[3], gid[3], size[3];
  for (int d = 0; d < 3; d++) {
    uint64_t gs = d < (int)s->dims ? s->global[d] : 1, ls = d < (int)s->dims ? local[d] : 1;
    groups[d] = (gs + ls - 1) / ls;
  }
  for (gid[2] = 0; gid[2] < groups[2]; gid[2]++)
    for (gid[1] = 0; gid[1] < groups[1]; gid[1]++)
      for (gid[0] = 0; gid[0] < groups[0]; gid[0]++) {
        for (int d = 0; d < 3; d++) { /* the last group of a dimension may be smaller */
          uint64_t gs = d < (int)s->dims ? s->global[d] : 1, ls = d < (int)s->dims ? local[d] : 1;
          size[d] = gs - gid[d] * ls < ls ? gs - gid[d] * ls : ls;
        }
        g->nwi = (uint32_t)(size[0] * size[1] * size[2]);
        for (uint32_t i = 0; i < g->nwi; i++) fill_wi(&g->wis[i], s, local, gid, size, i, g);
        g->zero_locals();
        for (uint32_t p = 0; p < n->nparams; p++)
          if (c->locals[p]) memset(c->locals[p], 0, c->local_bytes[p]);
        if (n->has_barrier) {
          run_coroutines(g);
          continue;
        }
        for (uint32_t i = 0; i < g->nwi; i++) {
          r->wi = g->wis[i].global_linear_id;
          g->set_self(&g->wis[i]);
          g->entry(g->slots);
        }
      }
}

static void child_main(host_run *h, void *arg) {
  native_child *c = arg;
  native_group *g = c->g;
  const rc_run_spec *s = c->s;
  const uint64_t *local_bytes = c->local_bytes;
  rc_native *n = g->n;
  host_report *r = h->rep;
  g->rep = r;
  host_child_handlers(r);
  const host_hook hooks[] = {{NATIVE_HOOK_BARRIER, (void *)hook_barrier},
                             {NATIVE_HOOK_UNSUPPORTED, (void *)hook_unsupported}, {NULL, NULL}};
  LLVMExecutionEngineRef ee = host_child_jit(r, n->mod, hooks);
  uint64_t a = host_child_symbol(ee, r, NATIVE_ENTRY, true); /* compiles the whole module */
  memcpy(&g->entry, &a, sizeof a);
  a = host_child_symbol(ee, r, NATIVE_SET_SELF, true);
  memcpy(&g->set_self, &a, sizeof a);
  a = host_child_symbol(ee, r, NATIVE_ZERO_LOCALS, true);
  memcpy(&g->zero_locals, &a, sizeof a);

  /* local: arguments, one block per parameter for the group */
  uint8_t **locals = calloc(n->nparams ? n->nparams : 1, sizeof *locals);
  for (uint32_t p = 0; locals && p < n->nparams; p++)
    if (local_bytes[p]) g->slots[p] = (uint64_t)(uintptr_t)(locals[p] = host_child_alloc(r, local_bytes[p], "local memory"));
  uint32_t local[3];
  rc_run_spec_local(s, local);
  uint64_t max_wi = (uint64_t)local[0] * local[1] * local[2];
  g->wis = calloc(max_wi, sizeof *g->wis);
  if (!g->wis || !locals) host_child_fail(r, "no memory for %" PRIu64 " work-items", max_wi);
  if (n->has_barrier) {
    g->stacks = host_child_stacks(r, max_wi, STACK_BYTES, &g->stack_stride);
    g->fibers = calloc(max_wi, sizeof *g->fibers);
    host_fiber_init_self(&g->sched);
    g->state = calloc(max_wi, 1);
    g->site = calloc(max_wi, sizeof *g->site);
    if (!g->fibers || !g->state || !g->site) host_child_fail(r, "no memory for %" PRIu64 " work-items", max_wi);
  }

  c->locals = locals;
  r->phase = HOST_RUNNING;
  host_child_timed_runs(h, c->repeat, run_groups, c);
  r->phase = HOST_FINISHED;
}

/* ---- the parent ------------------------------------------------------------------------------------------ */

/* Each parameter's slot: buffers by their shared address, scalars by value, local: arguments by the
 * size the child allocates. */
static int fill_slots(rc_native *n, const rc_run_spec *s, rc_memory *mem, const host_buf *bufs,
                      uint64_t *slots, uint64_t *local_bytes) {
  for (uint32_t p = 0; p < n->nparams; p++) {
    const native_param *np = &n->params[p];
    const rc_arg_spec *a = rc_run_spec_find_arg(s, np->name);
    if (!a) return rc_error(n->ctx, "kernel @%s: parameter %%%s has no value", n->kernel, np->name);
    if (a->is_aggregate) /* clang's spir64 form passes it by a byval pointer: give that a buffer */
      return rc_error(n->ctx, "kernel @%s: --arg %s: {...} values of vector, struct and array parameters are not run natively",
                      n->kernel, a->text);
    if ((a->is_buffer || a->is_local) && np->kind != NP_PTR)
      return rc_error(n->ctx, "kernel @%s: --arg %s: parameter %%%s is not a pointer", n->kernel, a->text,
                      np->name);
    if (a->is_local) {
      local_bytes[p] = rc_arg_count(a, s) * rc_type_size(a->elem);
      if (!local_bytes[p]) local_bytes[p] = 1;
    } else if (a->is_buffer) {
      rc_buffer *b = rc_memory_find(mem, np->name);
      if (!b) return rc_error(n->ctx, "kernel @%s: the memory has no buffer for %%%s", n->kernel, np->name);
      slots[p] = (uint64_t)(uintptr_t)bufs[b - mem->bufs].data;
    } else if (np->kind == NP_FLOAT || np->kind == NP_DOUBLE) {
      double d = a->scalar_is_float ? a->scalar_f : (double)rc_arg_scalar_int(a, s);
      float f = (float)d;
      if (np->kind == NP_FLOAT) memcpy(&slots[p], &f, sizeof f); /* the low bytes: little-endian */
      else memcpy(&slots[p], &d, sizeof d);
    } else {
      uint64_t v = (uint64_t)rc_arg_scalar_int(a, s);
      slots[p] = np->kind == NP_INT && np->bits < 64 ? v & ((UINT64_C(1) << np->bits) - 1) : v;
    }
  }
  return 0;
}

int rc_native_run(rc_native *n, const rc_run_spec *s, rc_memory *mem, rc_fault *fault) {
  return rc_native_run_timed(n, s, mem, NULL, fault);
}

int rc_native_run_timed(rc_native *n, const rc_run_spec *s, rc_memory *mem, rc_native_timing *t, rc_fault *fault) {
  memset(fault, 0, sizeof *fault);
  native_group g;
  memset(&g, 0, sizeof g);
  g.n = n;
  g.slots = rc_xcalloc(n->nparams ? n->nparams : 1, sizeof *g.slots);
  uint64_t *local_bytes = rc_xcalloc(n->nparams ? n->nparams : 1, sizeof *local_bytes);
  host_run h;
  int rc = -1;
  if (host_run_init(&h, n->ctx, mem) == 0 && fill_slots(n, s, mem, h.bufs, g.slots, local_bytes) == 0) {
    native_child c = {&g, s, local_bytes, t ? t->repeat : 0, NULL};
    rc = host_run_fork(&h, child_main, &c, host_run_limit(s) * (1 + c.repeat), n->kernel, s, fault);
    if (rc == 0 && t) {
      t->first_ns = h.rep->first_ns;
      t->best_ns = h.rep->best_ns;
    }
  }
  host_run_free(&h);
  free(g.slots);
  free(local_bytes);
  return rc;
}
