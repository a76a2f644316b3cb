/* The SIMD wave backend's runtime (include/reconv/native_wave.h): what a compiled wave kernel needs
 * around it, in the JIT's child process and in a C program that links a written module alike.
 *
 * A launch runs its work-groups one after another (x fastest), or spread over worker threads that
 * take the next group as they finish one. A group of n work-items is ceil(n / W) waves; lane l of
 * wave i is the work-item with local linear id i * W + l (docs/ir.md, "Wave level"). Without
 * barriers the waves of a group run one after another in one context; with barriers each wave is a
 * coroutine with a stack of its own, which a barrier switches back to the scheduler: the group goes
 * on when every wave waits at the same barrier, and a wave that returns (or waits elsewhere) while
 * others wait is barrier divergence, as in the wave simulator (src/sim/waverun.c).
 *
 * Faults the code finds (a division by zero, `unreachable`, ...) come to rc_wave_rt_fault, which
 * writes the message and goes back to the launch (longjmp, or from a coroutine to the scheduler);
 * the launch then ends with -1. Math and the long tail of builtins are the interpreter's own
 * functions (src/sim/scalar.h, builtins.c), so results are bit-identical. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "reconv/native_wave.h"

#include "../sim/decode.h"
#include "host_child.h"
#include "host_fiber.h"

#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The generated code reads rc_wave_ctx by field numbers (wave_codegen.h): every field 8 bytes. */
_Static_assert(offsetof(rc_wave_ctx, group_id) == 8 * 8, "rc_wave_ctx layout");
_Static_assert(offsetof(rc_wave_ctx, global_id) == 8 * 8 + 4 * 3 * 8, "rc_wave_ctx layout");
_Static_assert(offsetof(rc_wave_ctx, linear_id) == 8 * 8 + 4 * 3 * 8 + 6 * RC_WAVE_MAX_LANES * 4, "rc_wave_ctx layout");
_Static_assert(offsetof(rc_wave_ctx, rt) == 8 * 8 + 4 * 3 * 8 + 6 * RC_WAVE_MAX_LANES * 4 + RC_WAVE_MAX_LANES * 8,
               "rc_wave_ctx layout");

#define STACK_BYTES ((size_t)1 << 20) /* per wave of a kernel with barriers */

enum { WAVE_NEW, WAVE_RUNNING, WAVE_WAITING, WAVE_DONE };

typedef struct wave_launch_state {
  const rc_wave_kernel *k;
  rc_wave_launch *l;
  uint32_t local[3], ngroups[3];
  uint64_t ngroups_total, waves_per_group;
  uint64_t local_total;     /* the kernel's local memory and the local arguments' */
  uint64_t *local_arg_off;  /* per parameter: offset of its local memory, or UINT64_MAX */
  uint64_t next_group;      /* atomically taken by the workers */
  int failed;               /* atomically set by the first worker that faults */
  pthread_mutex_t lock;     /* the error message */
  bool threaded;
} wave_launch_state;

typedef struct wave_worker {
  wave_launch_state *ls;
  uint32_t W, nframes;
  rc_wave_ctx *ctx;         /* nframes contexts */
  uint64_t *args;           /* the launch's arguments, local ones pointing into this worker's */
  uint8_t *local;
  uint8_t *priv;            /* nframes * W lanes of private memory */
  uint64_t private_stride;
  uint32_t group[3], gsize[3], nwaves;
  uint64_t wave_counter;    /* waves started (single-threaded: the launch order) */
  /* coroutines */
  host_fiber sched, *fibers; /* the scheduler's, and one per wave (host_fiber.h) */
  uint32_t current;         /* the wave whose fiber runs */
  uint8_t *state;
  uint32_t *site;
  uint8_t *stacks;
  size_t stack_stride, stacks_len;
  bool in_coroutine;
  jmp_buf fault_jmp;
  bool failed;
  uint64_t math_ulps;       /* rc_wave_rt_check_math's largest distance */
  char error[512];
} wave_worker;

/* ---- faults -------------------------------------------------------------------------------------- */

/* Lane l's global id in dimension d and its linear id (a consecutive wave fills lane 0's only). */
static uint32_t lane_gid(const rc_wave_ctx *c, int d, uint32_t l) {
  if (!(c->flags & RC_WAVE_CONSECUTIVE_X)) return c->global_id[d][l];
  return c->global_id[d][0] + (d == 0 ? l : 0);
}

static uint64_t lane_linear(const rc_wave_ctx *c, uint32_t l) {
  return c->flags & RC_WAVE_CONSECUTIVE_X ? c->linear_id[0] + l : c->linear_id[l];
}

static void thread_name(const rc_wave_ctx *c, uint32_t lane, char *buf, size_t len) {
  if (c->work_dim > 1)
    snprintf(buf, len, "%" PRIu64 " (global id %u,%u,%u)", lane_linear(c, lane), lane_gid(c, 0, lane),
             lane_gid(c, 1, lane), lane_gid(c, 2, lane));
  else
    snprintf(buf, len, "%" PRIu64, lane_linear(c, lane));
}

/* Record the fault and leave the wave for the launch. */
static void fail_wave(wave_worker *w)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;
static void fail_wave(wave_worker *w) {
  w->failed = true;
  if (w->in_coroutine) host_fiber_leave(&w->fibers[w->current], &w->sched);
  longjmp(w->fault_jmp, 1);
}

static void fault_text(rc_wave_ctx *c, uint32_t site, int lane, const char *msg) {
  wave_worker *w = c->rt;
  const rc_wave_kernel *k = w->ls->k;
  const char *where = site < k->nsites ? k->sites[site] : "an unknown instruction";
  if (lane >= 0) {
    char who[96];
    thread_name(c, (uint32_t)lane, who, sizeof who);
    snprintf(w->error, sizeof w->error, "@%s, %s, thread %s (wave %" PRIu64 ", lane %d): %s", k->name, where, who,
             c->wave_index, lane, msg);
  } else {
    uint32_t n = (uint32_t)__builtin_popcountll(c->exists);
    snprintf(w->error, sizeof w->error, "@%s, %s, wave %" PRIu64 " (threads %" PRIu64 "..%" PRIu64 "): %s", k->name,
             where, c->wave_index, lane_linear(c, 0), lane_linear(c, n ? n - 1 : 0), msg);
  }
}

/* The block of a site ("block B, instruction `...`"), for a message that names another barrier. */
static void site_block(const char *site, char *buf, size_t len) {
  const char *comma = strchr(site, ',');
  snprintf(buf, len, "%.*s", comma ? (int)(comma - site) : (int)strlen(site), site);
}

/* The messages are the wave simulator's (src/sim/wave.c, lanes.c, waverun.c), word for word. */
void rc_wave_rt_fault(rc_wave_ctx *c, uint32_t site, uint32_t kind, uint32_t lane, int64_t a, int64_t b) {
  wave_worker *w = c->rt;
  char msg[300];
  int at = (int)lane;
  switch (kind) {
  case RC_WAVE_FAULT_DIV_ZERO: snprintf(msg, sizeof msg, "division by zero"); break;
  case RC_WAVE_FAULT_DIV_OVERFLOW: snprintf(msg, sizeof msg, "signed division overflow (%" PRId64 " / -1)", a); break;
  case RC_WAVE_FAULT_UNREACHABLE: snprintf(msg, sizeof msg, "unreachable executed"), at = -1; break;
  case RC_WAVE_FAULT_BRANCH_EMPTY:
    snprintf(msg, sizeof msg, "scalar branch on a vector value with no active lane (its value is undefined; keep "
                              "the empty-exec skip on)");
    at = -1;
    break;
  case RC_WAVE_FAULT_BRANCH_DISAGREE: /* lane: the first active lane, and (bits 8-15) the first that differs */
    snprintf(msg, sizeof msg, "the active lanes disagree on the condition of this scalar branch (lane %u: %" PRId64
             ", lane %u: %" PRId64 "): the branch is not uniform", lane & 0xff, a, (lane >> 8) & 0xff, b);
    at = -1;
    break;
  case RC_WAVE_FAULT_BARRIER_DIVERGENT:
    snprintf(msg, sizeof msg, "barrier in divergent control flow: only lanes 0x%" PRIx64 " of 0x%" PRIx64 " are active",
             (uint64_t)a, c->exists);
    at = -1;
    break;
  default: snprintf(msg, sizeof msg, "%s", sim_opaque_text); break;
  }
  fault_text(c, site, at, msg);
  fail_wave(w);
}

/* ---- builtins, one lane at a time -------------------------------------------------------------------- */

uint64_t rc_wave_rt_math(uint32_t builtin, uint32_t type, uint64_t a, uint64_t b, uint64_t c) {
  rc_type t = (rc_type)type;
  sim_slot x, y, z;
  x.u = a, y.u = b, z.u = c;
  return sim_fput(sim_math((rc_builtin)builtin, t, sim_fget(x, t), sim_fget(y, t), sim_fget(z, t)), t).u;
}

uint64_t rc_wave_rt_builtin(rc_wave_ctx *ctx, const rc_wave_call *call, uint32_t site, uint32_t lane,
                            const uint64_t *args) {
  sim_bcall c;
  memset(&c, 0, sizeof c);
  c.f = (rc_builtin)call->builtin;
  c.imm = call->imm;
  c.ty = (rc_type)call->type;
  c.nargs = call->nargs;
  sim_slot a[4];
  /* The interpreter's builtins address memory through an address map; a pointer argument is a
   * region of its own here, starting at the host address it holds (an access beyond a buffer
   * faults natively, at its guard page). */
  rc_segment segs[4];
  static const char *const names[4] = {"arg0", "arg1", "arg2", "arg3"};
  rc_addr_map map;
  memset(&map, 0, sizeof map);
  for (uint32_t o = 0; o < c.nargs; o++) {
    c.atys[o] = (rc_type)call->atypes[o];
    a[o].u = args[o];
    segs[o].data = NULL;
    segs[o].size = 0;
    if (rc_type_is_ptr(c.atys[o])) {
      segs[o].data = (uint8_t *)(uintptr_t)args[o];
      segs[o].size = RC_REGION_MAX_BYTES;
      a[o].u = rc_addr_make(RC_SPACE_GLOBAL, o, 0);
    }
  }
  map.seg[RC_SPACE_GLOBAL] = segs;
  map.nseg[RC_SPACE_GLOBAL] = c.nargs;
  c.args = a;
  c.map = &map;
  c.buffer_names = names;
  c.lane = lane;
  c.dims = (uint32_t)ctx->work_dim;
  sim_slot out;
  char why[300];
  if (sim_builtin_other(&c, &out, why, sizeof why) != 0) {
    fault_text(ctx, site, (int)lane, why);
    fail_wave(ctx->rt);
  }
  return out.u;
}

/* The interpreter's value of a math builtin on one lane's operands (slot encoding). */
static uint64_t reference_math(const rc_wave_call *call, uint64_t a, uint64_t b) {
  const rc_builtin_info *bi = rc_builtin_get((rc_builtin)call->builtin);
  if (bi->sig != RC_SIG_OTHER) return rc_wave_rt_math(call->builtin, call->type, a, b, 0);
  sim_bcall c;
  memset(&c, 0, sizeof c);
  c.f = (rc_builtin)call->builtin;
  c.ty = (rc_type)call->type;
  c.nargs = call->nargs;
  for (uint32_t o = 0; o < c.nargs && o < 4; o++) c.atys[o] = (rc_type)call->atypes[o];
  sim_slot args[2], out;
  args[0].u = a, args[1].u = b;
  c.args = args;
  char why[200];
  return sim_builtin_other(&c, &out, why, sizeof why) == 0 ? out.u : 0;
}

void rc_wave_rt_check_math(rc_wave_ctx *ctx, const rc_wave_call *call, uint32_t site, uint64_t exec, uint32_t ulps,
                           const uint64_t *a, const uint64_t *b, const uint64_t *got) {
  wave_worker *w = ctx->rt;
  rc_type t = (rc_type)call->type;
  for (uint64_t m = exec; m; m &= m - 1) {
    uint32_t l = (uint32_t)__builtin_ctzll(m);
    uint64_t ref = reference_math(call, a[l], b[l]);
    /* slots hold floats in their low 4 bytes, doubles in all 8 (little-endian) */
    uint64_t d = rc_ulp_distance(&ref, &got[l], t);
    if (d > w->math_ulps && d != UINT64_MAX) w->math_ulps = d;
    if (d <= ulps) continue;
    sim_slot x, y, e;
    x.u = ref, y.u = got[l], e.u = a[l];
    char msg[300];
    snprintf(msg, sizeof msg, "the vector math library's @%s of %.9g gives %.9g, the interpreter's %.9g: %s, more than "
             "OpenCL 1.2's bound of %u ulp (section 7.4)", rc_builtin_get((rc_builtin)call->builtin)->name,
             sim_fget(e, t), sim_fget(y, t), sim_fget(x, t), d == UINT64_MAX ? "not the same kind of value" : "too far",
             ulps);
    fault_text(ctx, site, (int)l, msg);
    fail_wave(w);
  }
}

/* ---- barriers ------------------------------------------------------------------------------------------ */

void rc_wave_rt_barrier(rc_wave_ctx *c, uint32_t site) {
  wave_worker *w = c->rt;
  if (!w->in_coroutine) return; /* the group's only wave */
  uint32_t i = (uint32_t)(c - w->ctx);
  w->state[i] = WAVE_WAITING;
  w->site[i] = site;
  host_fiber_switch(&w->fibers[i], &w->sched);
}

static void coroutine_main(void *arg) {
  rc_wave_ctx *c = arg;
  wave_worker *w = c->rt;
  w->ls->k->run(c);
  w->state[c - w->ctx] = WAVE_DONE; /* then the fiber goes back to the scheduler */
}

static int run_coroutines(wave_worker *w) {
  uint32_t n = w->nwaves;
  size_t page = host_page_size();
  for (uint32_t i = 0; i < n; i++) {
    host_fiber_start(&w->fibers[i], w->stacks + (size_t)i * w->stack_stride + page, w->stack_stride - page,
                     &w->sched, coroutine_main, &w->ctx[i]);
    w->state[i] = WAVE_NEW;
  }
  w->in_coroutine = true;
  for (;;) {
    for (uint32_t i = 0; i < n; i++) {
      if (w->state[i] != WAVE_NEW && w->state[i] != WAVE_RUNNING) continue;
      w->state[i] = WAVE_RUNNING;
      w->current = i;
      host_fiber_switch(&w->sched, &w->fibers[i]);
      if (w->failed) {
        w->in_coroutine = false;
        return -1;
      }
    }
    uint32_t waiting = RC_NONE, done = RC_NONE;
    for (uint32_t i = 0; i < n; i++) {
      if (w->state[i] == WAVE_WAITING && waiting == RC_NONE) waiting = i;
      if (w->state[i] == WAVE_DONE && done == RC_NONE) done = i;
    }
    if (waiting == RC_NONE) break;
    rc_wave_ctx *c = &w->ctx[waiting];
    char msg[300];
    if (done != RC_NONE) {
      snprintf(msg, sizeof msg, "barrier divergence: wave %" PRIu64 " waits here but wave %" PRIu64 " of its "
               "work-group has returned", c->wave_index, w->ctx[done].wave_index);
      fault_text(c, w->site[waiting], -1, msg);
      w->failed = true;
      break;
    }
    for (uint32_t i = 0; i < n && !w->failed; i++)
      if (w->site[i] != w->site[waiting]) {
        char other[160];
        site_block(w->site[i] < w->ls->k->nsites ? w->ls->k->sites[w->site[i]] : "?", other, sizeof other);
        snprintf(msg, sizeof msg, "barrier divergence: wave %" PRIu64 " waits here but wave %" PRIu64 " waits at "
                 "another barrier (%s)", c->wave_index, w->ctx[i].wave_index, other);
        fault_text(c, w->site[waiting], -1, msg);
        w->failed = true;
      }
    if (w->failed) break;
    for (uint32_t i = 0; i < n; i++) w->state[i] = WAVE_RUNNING; /* released */
  }
  w->in_coroutine = false;
  return w->failed ? -1 : 0;
}

/* ---- waves and groups ------------------------------------------------------------------------------------ */

/* Context c as wave i of the current group (n work-items): the lanes' ids are counted up from lane 0's
 * (one division per wave, not three per lane: a wave of a small kernel runs for a few hundred
 * cycles). Lanes past the group's end get the last lane's ids, so that vector code computing with
 * them (inactive) sees ordinary values. */
static void start_wave(wave_worker *w, rc_wave_ctx *c, uint32_t i, uint32_t n, uint64_t group_linear) {
  wave_launch_state *ls = w->ls;
  const rc_wave_launch *l = ls->l;
  uint32_t W = w->W, nl = n - i * W < W ? n - i * W : W;
  const uint32_t *L = w->gsize;
  c->exists = nl == 64 ? ~(uint64_t)0 : ((uint64_t)1 << nl) - 1;
  c->wave_index = ls->threaded ? group_linear * ls->waves_per_group + i : w->wave_counter;
  w->wave_counter++;
  uint32_t first = i * W, row = L[0], plane = L[0] * L[1];
  /* within the first row (every wave of a one-dimensional group) no division is needed */
  uint32_t lid[3] = {first, 0, 0}, base[3];
  if (first >= row) lid[0] = first % row, lid[1] = first / row % L[1], lid[2] = first / plane;
  uint64_t G0 = c->global_size[0], G01 = G0 * c->global_size[1];
  for (int d = 0; d < 3; d++) base[d] = w->group[d] * ls->local[d];
  /* lanes that stay within one row of the group have consecutive x and one y and z: lane 0 says
   * it all (the code adds the lane number itself) */
  c->flags = 0;
  if (lid[0] + nl <= row) c->flags |= RC_WAVE_CONSECUTIVE_X | RC_WAVE_UNIFORM_Y | RC_WAVE_UNIFORM_Z;
  else if (first % plane + nl <= plane) c->flags |= RC_WAVE_UNIFORM_Z;
  uint32_t fill = c->flags & RC_WAVE_CONSECUTIVE_X ? 1 : W;
  for (uint32_t lane = 0; lane < fill; lane++) {
    for (int d = 0; d < 3; d++) {
      c->local_id[d][lane] = lid[d];
      c->global_id[d][lane] = base[d] + lid[d];
    }
    c->linear_id[lane] = c->global_id[0][lane] + c->global_id[1][lane] * G0 + (uint64_t)c->global_id[2][lane] * G01;
    if (lane + 1 < nl && ++lid[0] == row) {
      lid[0] = 0;
      if (++lid[1] == L[1]) lid[1] = 0, lid[2]++;
    }
  }
  if (ls->k->private_bytes) memset(c->private_mem, 0, (size_t)w->private_stride * W);
  if (l->observe) l->observe(l->user, c);
}

static void set_group(wave_worker *w, uint64_t g) {
  wave_launch_state *ls = w->ls;
  const rc_wave_launch *l = ls->l;
  if (ls->ngroups[1] == 1 && ls->ngroups[2] == 1) { /* one dimension of groups: no division */
    w->group[0] = (uint32_t)g, w->group[1] = w->group[2] = 0;
  } else {
    w->group[0] = (uint32_t)(g % ls->ngroups[0]);
    w->group[1] = (uint32_t)(g / ls->ngroups[0] % ls->ngroups[1]);
    w->group[2] = (uint32_t)(g / ((uint64_t)ls->ngroups[0] * ls->ngroups[1]));
  }
  for (int d = 0; d < 3; d++) {
    uint32_t gs = d < (int)l->dims ? l->global[d] : 1, left = gs - w->group[d] * ls->local[d];
    w->gsize[d] = left < ls->local[d] ? left : ls->local[d];
  }
  for (uint32_t f = 0; f < w->nframes; f++) {
    rc_wave_ctx *c = &w->ctx[f];
    for (int d = 0; d < 3; d++) {
      c->group_id[d] = w->group[d];
      c->local_size[d] = w->gsize[d];
    }
  }
  if (ls->local_total) memset(w->local, 0, ls->local_total);
}

static int run_group(wave_worker *w, uint64_t g) {
  set_group(w, g);
  uint32_t n = w->gsize[0] * w->gsize[1] * w->gsize[2];
  w->nwaves = (n + w->W - 1) / w->W;
  if (!w->ls->k->has_barrier || w->nwaves == 1) {
    if (setjmp(w->fault_jmp)) return -1; /* a fault of a wave ends the group */
    for (uint32_t i = 0; i < w->nwaves; i++) {
      start_wave(w, &w->ctx[0], i, n, g);
      w->ls->k->run(&w->ctx[0]);
    }
    return 0;
  }
  for (uint32_t i = 0; i < w->nwaves; i++) start_wave(w, &w->ctx[i], i, n, g);
  return run_coroutines(w);
}

/* ---- workers --------------------------------------------------------------------------------------------- */

static void *map_pages(size_t len) {
  void *p = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* Zeroed memory aligned to a cache line (a launch of a small kernel must not pay for mmap). */
static void *zalloc(size_t len) {
  void *p = NULL;
  if (posix_memalign(&p, 64, len ? len : 1) != 0) return NULL;
  memset(p, 0, len ? len : 1);
  return p;
}

static int worker_init(wave_worker *w, wave_launch_state *ls) {
  const rc_wave_kernel *k = ls->k;
  memset(w, 0, sizeof *w);
  w->ls = ls;
  w->W = k->wave;
  w->nframes = k->has_barrier ? (uint32_t)ls->waves_per_group : 1;
  w->private_stride = (k->private_bytes + 63) & ~(uint64_t)63;
  w->ctx = zalloc(sizeof *w->ctx * w->nframes);
  w->args = calloc(k->nparams + 1, sizeof *w->args);
  w->local = zalloc(ls->local_total);
  w->priv = w->private_stride ? zalloc(w->private_stride * w->W * w->nframes) : NULL;
  if (!w->ctx || !w->args || !w->local || (w->private_stride && !w->priv)) return -1;
  for (uint32_t p = 0; p < k->nparams; p++)
    w->args[p] = ls->local_arg_off[p] != UINT64_MAX ? (uint64_t)(uintptr_t)(w->local + ls->local_arg_off[p])
                                                    : ls->l->args[p];
  for (uint32_t f = 0; f < w->nframes; f++) {
    rc_wave_ctx *c = &w->ctx[f];
    c->args = w->args;
    c->local_mem = w->local + 0;
    c->private_mem = w->priv ? w->priv + (size_t)f * w->private_stride * w->W : NULL;
    c->private_stride = w->private_stride;
    c->work_dim = ls->l->dims;
    c->rt = w;
    for (int d = 0; d < 3; d++) {
      c->global_size[d] = d < (int)ls->l->dims ? ls->l->global[d] : 1;
      c->num_groups[d] = ls->ngroups[d];
    }
  }
  if (k->has_barrier) {
    size_t page = host_page_size();
    w->stack_stride = STACK_BYTES + page;
    w->stacks_len = w->stack_stride * w->nframes;
    w->stacks = map_pages(w->stacks_len);
    w->fibers = calloc(w->nframes, sizeof *w->fibers);
    host_fiber_init_self(&w->sched);
    w->state = calloc(w->nframes, 1);
    w->site = calloc(w->nframes, sizeof *w->site);
    if (!w->stacks || !w->fibers || !w->state || !w->site) return -1;
    for (uint32_t f = 0; f < w->nframes; f++) mprotect(w->stacks + f * w->stack_stride, page, PROT_NONE);
  }
  return 0;
}

static void worker_free(wave_worker *w) {
  free(w->ctx);
  free(w->local);
  free(w->priv);
  if (w->stacks) munmap(w->stacks, w->stacks_len);
  free(w->args);
  free(w->fibers);
  free(w->state);
  free(w->site);
}

static void *worker_main(void *arg) {
  wave_worker *w = arg;
  wave_launch_state *ls = w->ls;
  for (;;) {
    if (__atomic_load_n(&ls->failed, __ATOMIC_ACQUIRE)) break;
    uint64_t g = ls->threaded ? __atomic_fetch_add(&ls->next_group, 1, __ATOMIC_RELAXED) : ls->next_group++;
    if (g >= ls->ngroups_total) break;
    if (run_group(w, g) != 0) {
      pthread_mutex_lock(&ls->lock);
      if (!ls->failed) snprintf(ls->l->error, sizeof ls->l->error, "%s", w->error);
      __atomic_store_n(&ls->failed, 1, __ATOMIC_RELEASE);
      pthread_mutex_unlock(&ls->lock);
      break;
    }
  }
  return NULL;
}

int rc_wave_run_launch(const rc_wave_kernel *k, rc_wave_launch *l) {
  l->error[0] = 0;
  if (!k || k->abi != RC_WAVE_ABI) {
    snprintf(l->error, sizeof l->error, "the kernel was compiled for another version of the wave runtime");
    return -1;
  }
  if (l->dims < 1 || l->dims > 3 || k->wave < 1 || k->wave > RC_WAVE_MAX_LANES) {
    snprintf(l->error, sizeof l->error, "a launch has 1 to 3 dimensions and a wave 1 to 64 lanes");
    return -1;
  }
  wave_launch_state ls;
  memset(&ls, 0, sizeof ls);
  ls.k = k;
  ls.l = l;
  ls.ngroups_total = 1;
  for (int d = 0; d < 3; d++) {
    uint32_t gs = d < (int)l->dims ? l->global[d] : 1;
    uint32_t lsz = d < (int)l->dims ? l->local[d] : 1;
    if (lsz == 0) lsz = d == 0 ? (gs < 64 ? gs : 64) : 1;
    if (gs == 0 || lsz == 0 || lsz > gs) {
      snprintf(l->error, sizeof l->error, "dimension %d: the global size must be at least the local size and 1", d);
      return -1;
    }
    ls.local[d] = lsz;
    ls.ngroups[d] = (gs + lsz - 1) / lsz;
    ls.ngroups_total *= ls.ngroups[d];
  }
  uint64_t group = (uint64_t)ls.local[0] * ls.local[1] * ls.local[2];
  ls.waves_per_group = (group + k->wave - 1) / k->wave;
  ls.local_arg_off = calloc(k->nparams + 1, sizeof *ls.local_arg_off);
  if (!ls.local_arg_off) return -1;
  ls.local_total = (k->local_bytes + 15) & ~(uint64_t)15;
  for (uint32_t p = 0; p < k->nparams; p++) {
    ls.local_arg_off[p] = UINT64_MAX;
    if (!l->local_arg_bytes || !l->local_arg_bytes[p]) continue;
    ls.local_arg_off[p] = ls.local_total;
    ls.local_total += (l->local_arg_bytes[p] + 15) & ~(uint64_t)15;
  }
  if (k->reset) k->reset();
  uint32_t nthreads = l->threads > 1 ? l->threads : 1;
  if (nthreads > ls.ngroups_total) nthreads = (uint32_t)ls.ngroups_total;
  ls.threaded = nthreads > 1;
  pthread_mutex_init(&ls.lock, NULL);
  wave_worker *ws = calloc(nthreads, sizeof *ws);
  int rc = ws ? 0 : -1;
  for (uint32_t t = 0; rc == 0 && t < nthreads; t++)
    if (worker_init(&ws[t], &ls) != 0) rc = -1;
  if (rc != 0) {
    snprintf(l->error, sizeof l->error, "no memory for the launch's waves");
  } else if (nthreads == 1) {
    worker_main(&ws[0]);
  } else {
    pthread_t *th = calloc(nthreads, sizeof *th);
    uint32_t started = 1;
    for (uint32_t t = 1; th && t < nthreads; t++, started++)
      if (pthread_create(&th[t], NULL, worker_main, &ws[t]) != 0) break;
    worker_main(&ws[0]);
    for (uint32_t t = 1; th && t < started; t++) pthread_join(th[t], NULL);
    free(th);
  }
  if (ls.failed) rc = -1;
  l->math_ulps = 0;
  for (uint32_t t = 0; ws && t < nthreads; t++)
    if (ws[t].ls && ws[t].math_ulps > l->math_ulps) l->math_ulps = ws[t].math_ulps;
  for (uint32_t t = 0; ws && t < nthreads; t++)
    if (ws[t].ls) worker_free(&ws[t]);
  free(ws);
  free(ls.local_arg_off);
  pthread_mutex_destroy(&ls.lock);
  return rc;
}
