/* The launch of a wave-level machine (waves.h): work-groups one after another, each split into waves
 * of W lanes; without barriers the waves of a group run one after another in one frame, with
 * barriers every wave of the group has a frame and the waves are scheduled cooperatively like the
 * interpreter's threads: each runs until it reaches a barrier or returns; then all must wait at the
 * same barrier (all resume) or all have returned, else the run faults (barrier divergence). A
 * barrier reached while some lanes of the wave are inactive is a fault too (divergent control
 * flow around a barrier).
 *
 * Also here: what happens when a wave enters a block (traces, the per-lane step budget, per-block
 * metrics, duplicate counting), issue counting, the timeline, and fault messages. */
#include "waves.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- faults ------------------------------------------------------------------------------------------ */

static int fault_msg(sim_run *r, uint32_t pc, const char *who, const char *msg) {
  const rc_instr *i = r->code.src[pc];
  rc_strbuf text;
  rc_sb_init(&text);
  rc_print_instr(i, &text);
  r->fault->happened = true;
  sim_fault_where(r->fault, i);
  snprintf(r->fault->message, sizeof r->fault->message, "kernel @%s, block %s, instruction `%s`, %s: %s",
           r->name, i->parent->name, text.data ? text.data : "", who, msg);
  rc_sb_free(&text);
  return STEP_FAULT;
}

int wave_fault_lane(sim_run *r, const sim_wave *w, uint32_t lane, uint32_t pc, const char *fmt, ...) {
  char msg[300], thread[96], who[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  sim_thread_name(r->s, w->linear[lane], w->gid + lane * 3, thread, sizeof thread);
  snprintf(who, sizeof who, "thread %s (wave %u, lane %u)", thread, w->index, lane);
  return fault_msg(r, pc, who, msg);
}

int wave_fault(sim_run *r, const sim_wave *w, uint32_t pc, const char *fmt, ...) {
  char msg[300], who[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(who, sizeof who, "wave %u (threads %" PRIu64 "..%" PRIu64 ")", w->index, w->linear[0],
           w->linear[w->nlanes - 1]);
  return fault_msg(r, pc, who, msg);
}

/* ---- bookkeeping --------------------------------------------------------------------------------------- */

static void timeline_push(sim_run *r, sim_wave *w, int kind, bool start) {
  rc_timeline *t = r->timeline;
  uint32_t max = t->max_events ? t->max_events : 20000;
  if (t->nevents >= max) {
    t->truncated = true;
    return;
  }
  if (t->nevents == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 256;
    t->events = rc_xrealloc(t->events, t->cap * sizeof *t->events);
  }
  rc_timeline_event e = {w->exec, w->block, (uint8_t)kind, start};
  t->events[t->nevents++] = e;
}

void wave_issue_recorded(sim_run *r, sim_wave *w, int kind) {
  timeline_push(r, w, kind, w->issued == 0);
  w->issued++;
}

/* Lanes in `lanes` start executing the current block: trace, step budget, duplicate counts. */
static int lanes_join_block(sim_run *r, sim_wave *w, uint64_t lanes, uint32_t pc) {
  uint32_t b = w->block, W = r->W;
  uint64_t len = r->step_len[b], most = 0;
  uint32_t *dup = w->dup_lane + (size_t)b * W;
  if (lanes == w->exec) { /* the usual case: every active lane, without a test per lane */
    for (uint32_t l = 0; l < W; l++) {
      uint64_t k = w->keep[l];
      dup[l] += (uint32_t)(k & 1);
      w->steps[l] += len & k;
      most = w->steps[l] > most ? w->steps[l] : most;
    }
  } else {
    for (uint64_t m = lanes; m; m &= m - 1) {
      uint32_t l = (uint32_t)__builtin_ctzll(m);
      dup[l]++;
      w->steps[l] += len;
      most = w->steps[l] > most ? w->steps[l] : most;
    }
  }
  if (most > r->budget)
    for (uint64_t m = lanes; m; m &= m - 1) {
      uint32_t l = (uint32_t)__builtin_ctzll(m);
      if (w->steps[l] > r->budget)
        return wave_fault_lane(r, w, l, pc, "step budget of %" PRIu64 " instructions per thread exceeded "
                                             "(raise it with --steps)", r->budget);
    }
  if (r->want_blocks && b < r->ntraced)
    for (uint64_t m = lanes; m; m &= m - 1) rc_vec_push(&w->trace[__builtin_ctzll(m)], b);
  w->recorded |= lanes;
  return STEP_OK;
}

int wave_enter_block(sim_run *r, sim_wave *w, uint32_t b, uint32_t pc) {
  rc_run_stats *st = r->stats;
  w->block = b;
  w->recorded = 0;
  st->blocks_entered++;
  st->block_entries[b]++;
  if (w->dup_stamp[b] != w->serial) {
    w->dup_stamp[b] = w->serial;
    w->dup_entries[b] = 0;
    memset(w->dup_lane + (size_t)b * r->W, 0, r->W * sizeof *w->dup_lane);
    rc_vec_push(&w->dup_touched, b);
  }
  w->dup_entries[b]++;
  if (w == r->recording) w->issued = 0; /* the next event starts a block */
  /* lanes count only the blocks they are active in; the wave itself must not run on forever
   * either (with no active lane, or in inserted blocks only) */
  if (++w->entries > r->max_entries)
    return wave_fault(r, w, pc, "the wave entered more than %" PRIu64 " blocks (8 x W x the step "
                      "budget; raise it with --steps)", r->max_entries);
  return lanes_join_block(r, w, w->exec, pc);
}

int wave_activate(sim_run *r, sim_wave *w, uint64_t added, uint32_t pc) {
  added &= ~w->recorded;
  return added ? lanes_join_block(r, w, added, pc) : STEP_OK;
}

/* At the end of a wave: its duplicate executions, its traces. */
static void wave_finish(sim_run *r, sim_wave *w) {
  uint32_t W = r->W;
  for (uint32_t i = 0; i < w->dup_touched.len; i++) {
    uint32_t b = w->dup_touched.data[i], most = 0;
    for (uint32_t l = 0; l < W; l++)
      if (w->dup_lane[(size_t)b * W + l] > most) most = w->dup_lane[(size_t)b * W + l];
    uint64_t extra = w->dup_entries[b] - most;
    r->stats->duplicate_blocks += extra;
    r->stats->block_duplicates[b] += extra;
  }
  w->dup_touched.len = 0;
  if (!r->want_traces) return;
  for (uint32_t l = 0; l < w->nlanes; l++) {
    rc_u32vec *t = &w->trace[l];
    r->toff[w->linear[l]] = r->chunk.len;
    r->tlen[w->linear[l]] = t->len;
    rc_vec_reserve(&r->chunk, r->chunk.len + t->len);
    if (t->len) memcpy(r->chunk.data + r->chunk.len, t->data, t->len * sizeof *t->data);
    r->chunk.len += t->len;
    t->len = 0;
  }
}

/* ---- waves and groups ------------------------------------------------------------------------------------ */

/* Set frame w up as wave i of the current group (n work-items) and start it at the entry. */
static int wave_start(sim_run *r, sim_wave *w, uint32_t i, uint32_t n) {
  uint32_t W = r->W;
  const uint32_t *L = r->gsize;
  w->index = r->wave_counter++;
  w->nlanes = n - i * W < W ? n - i * W : W;
  w->exists = w->nlanes == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w->nlanes) - 1);
  wave_set_exec(r, w, w->exists);
  for (uint32_t l = 0; l < w->nlanes; l++) {
    uint32_t id = i * W + l, *lid = w->lid + l * 3, *gid = w->gid + l * 3;
    lid[0] = id % L[0];
    lid[1] = (id / L[0]) % L[1];
    lid[2] = id / (L[0] * L[1]);
    for (int d = 0; d < 3; d++) gid[d] = r->group[d] * r->local[d] + lid[d];
    w->linear[l] = gid[0] + (uint64_t)gid[1] * r->s->global[0] +
                   (uint64_t)gid[2] * r->s->global[0] * r->s->global[1];
  }
  memset(w->steps, 0, W * sizeof *w->steps);
  if (r->layout.private_bytes) memset(w->priv_data, 0, (size_t)r->layout.private_bytes * W);
  if (r->k->nregs) {
    memset(w->vreg, 0, (size_t)r->k->nregs * W * sizeof *w->vreg);
    memset(w->sreg, 0, r->k->nregs * sizeof *w->sreg);
  }
  w->state = W_RUNNING;
  w->counted = false;
  w->stack.len = 0;
  w->entries = 0;
  w->serial++;
  if (r->timeline && !r->timeline->recorded && w->index == r->timeline->wave) {
    rc_timeline *t = r->timeline;
    t->recorded = true;
    t->lanes = W;
    t->exists = w->exists;
    t->first_thread = w->linear[0];
    r->recording = w;
  }
  return r->mach->start(r, w);
}

static void wave_done(sim_run *r, sim_wave *w) {
  if (w->counted) return;
  w->counted = true;
  r->stats->waves++;
  if (r->recording == w) r->recording = NULL;
  wave_finish(r, w);
}

/* All stopped waves of the group must wait at the same barrier with every lane, or all be done. */
static int barrier_check(sim_run *r, uint32_t nw, bool *all_done) {
  sim_wave *b = NULL;
  for (uint32_t i = 0; i < nw && !b; i++)
    if (r->waves[i].state == W_BARRIER) b = &r->waves[i];
  *all_done = b == NULL;
  if (!b) return STEP_OK;
  for (uint32_t i = 0; i < nw; i++) {
    sim_wave *w = &r->waves[i];
    if (w->state == W_DONE)
      return wave_fault(r, b, b->barrier_pc, "barrier divergence: wave %u waits here but wave %u of its "
                        "work-group has returned", b->index, w->index);
    if (w->barrier_pc != b->barrier_pc)
      return wave_fault(r, b, b->barrier_pc, "barrier divergence: wave %u waits here but wave %u waits "
                        "at another barrier (block %s)", b->index, w->index,
                        r->code.src[w->barrier_pc]->parent->name);
  }
  for (uint32_t i = 0; i < nw; i++) r->waves[i].state = W_RUNNING;
  return STEP_OK;
}

/* Run wave w until it stops; a barrier must find every lane of the wave active. */
static int wave_resume(sim_run *r, sim_wave *w) {
  int rc = r->mach->run(r, w);
  if (rc == STEP_BARRIER) {
    if (w->exec != w->exists)
      return wave_fault(r, w, w->barrier_pc, "barrier in divergent control flow: only lanes 0x%" PRIx64
                        " of 0x%" PRIx64 " are active", w->exec, w->exists);
    w->state = W_BARRIER;
    return STEP_OK;
  }
  if (rc == STEP_OK) wave_done(r, w);
  return rc;
}

static int run_group(sim_run *r) {
  uint32_t n = r->gsize[0] * r->gsize[1] * r->gsize[2];
  uint32_t nw = (n + r->W - 1) / r->W;
  if (r->layout.local_bytes) memset(r->local_store, 0, r->layout.local_bytes);
  if (!r->has_barrier) {
    sim_wave *w = &r->waves[0];
    for (uint32_t i = 0; i < nw; i++) {
      if (wave_start(r, w, i, n) != STEP_OK || wave_resume(r, w) != STEP_OK) return STEP_FAULT;
      if (w->state != W_DONE) return wave_fault(r, w, w->pc, "the wave stopped without returning");
    }
    return STEP_OK;
  }
  for (uint32_t i = 0; i < nw; i++)
    if (wave_start(r, &r->waves[i], i, n) != STEP_OK) return STEP_FAULT;
  for (;;) {
    for (uint32_t i = 0; i < nw; i++)
      if (r->waves[i].state == W_RUNNING && wave_resume(r, &r->waves[i]) != STEP_OK) return STEP_FAULT;
    bool done;
    if (barrier_check(r, nw, &done) != STEP_OK) return STEP_FAULT;
    if (done) return STEP_OK;
  }
}

/* ---- setup and the entry point ----------------------------------------------------------------------------- */

static int setup(rc_ctx *ctx, sim_run *r) {
  const rc_kernel *k = r->k;
  uint32_t W = r->W;
  if (rc_frame_layout_build(ctx, &r->layout, k, r->s) != 0) return -1;
  sim_decode(&r->code, k, &r->layout);
  uint32_t nslots = r->code.nslots;
  sim_slot *params = rc_xcalloc(k->nparams + 1, sizeof *params);
  if (sim_param_values(ctx, k, r->s, r->mem, &r->layout, params) != 0) {
    free(params);
    return -1;
  }
  r->frame0 = rc_xcalloc((size_t)nslots * W + 1, sizeof *r->frame0);
  for (uint32_t v = 0; v < nslots; v++) {
    uint64_t x = v < k->nparams ? params[v].u : r->code.frame0[v].u;
    for (uint32_t l = 0; l < W; l++) r->frame0[(size_t)v * W + l] = x;
  }
  free(params);
  r->has_barrier = sim_kernel_has_barrier(k);
  rc_run_spec_local(r->s, r->local);
  for (int d = 0; d < 3; d++) r->ngroups[d] = (r->s->global[d] + r->local[d] - 1) / r->local[d];
  uint32_t group = r->local[0] * r->local[1] * r->local[2];
  r->waves_per_group = (group + W - 1) / W;
  r->nframes = r->has_barrier ? r->waves_per_group : 1;
  uint64_t frame_bytes = ((uint64_t)nslots + 2 * k->nregs) * W * sizeof(sim_slot) +
                         (uint64_t)r->layout.private_bytes * W + (uint64_t)k->nblocks * (W + 2) * 4;
  if (frame_bytes * r->nframes > RC_REGION_MAX_BYTES)
    return rc_error(ctx, "kernel @%s: %u waves of %" PRIu64 " bytes each do not fit in the simulator's "
                    "memory; use a smaller --local", k->name, r->nframes, frame_bytes);
  r->waves = rc_xcalloc(r->nframes, sizeof *r->waves);
  for (uint32_t f = 0; f < r->nframes; f++) {
    sim_wave *w = &r->waves[f];
    w->val = rc_xmalloc(((size_t)nslots * W + 1) * sizeof *w->val);
    memcpy(w->val, r->frame0, (size_t)nslots * W * sizeof *w->val);
    w->vreg = rc_xcalloc((size_t)k->nregs * W + 1, sizeof *w->vreg);
    w->sreg = rc_xcalloc(k->nregs + 1, sizeof *w->sreg);
    w->priv_data = rc_xcalloc((size_t)r->layout.private_bytes * W + 1, 1);
    w->priv = rc_xcalloc((size_t)r->layout.nprivate * W + 1, sizeof *w->priv);
    for (uint32_t l = 0; l < W; l++)
      rc_frame_segments(w->priv + (size_t)l * r->layout.nprivate, w->priv_data + (size_t)l * r->layout.private_bytes,
                        r->layout.private_offset, r->layout.private_size, r->layout.nprivate);
    w->steps = rc_xcalloc(W, sizeof *w->steps);
    w->keep = rc_xcalloc(W, sizeof *w->keep);
    w->linear = rc_xcalloc(W, sizeof *w->linear);
    w->gid = rc_xcalloc((size_t)W * 3, sizeof *w->gid);
    w->lid = rc_xcalloc((size_t)W * 3, sizeof *w->lid);
    w->trace = rc_xcalloc(W, sizeof *w->trace);
    w->dup_stamp = rc_xcalloc(k->nblocks + 1, sizeof *w->dup_stamp);
    w->dup_entries = rc_xcalloc(k->nblocks + 1, sizeof *w->dup_entries);
    w->dup_lane = rc_xcalloc((size_t)k->nblocks * W + 1, sizeof *w->dup_lane);
  }
  r->local_store = rc_xcalloc(r->layout.local_bytes + 1, 1);
  r->local_segs = rc_xcalloc(r->layout.nlocal + 1, sizeof *r->local_segs);
  rc_frame_segments(r->local_segs, r->local_store, r->layout.local_offset, r->layout.local_size,
                    r->layout.nlocal);
  r->map.seg[RC_SPACE_GLOBAL] = r->mem->segs;
  r->map.nseg[RC_SPACE_GLOBAL] = r->mem->nbufs;
  r->map.seg[RC_SPACE_LOCAL] = r->local_segs;
  r->map.nseg[RC_SPACE_LOCAL] = r->layout.nlocal;
  r->map.nseg[RC_SPACE_PRIVATE] = r->layout.nprivate;
  if (sim_globals_init(ctx, &r->globals, k) != 0) return -1;
  sim_globals_map(&r->globals, &r->map);
  r->tmp = rc_xcalloc(W, sizeof *r->tmp);
  r->copy_tmp = rc_xcalloc(((size_t)r->code.max_copies + 1) * W, sizeof *r->copy_tmp);
  r->issue = rc_xcalloc(r->code.ninst + 1, 1);
  r->scalar_slot = rc_xcalloc(nslots + 1, 1);
  r->bcast = rc_xcalloc(nslots + 1, 1);
  r->step_len = rc_xcalloc(k->nblocks + 1, sizeof *r->step_len);
  rc_run_stats *st = r->stats;
  st->nblocks = r->ntraced; /* the per-block figures of the kernel's own blocks */
  st->block_entries = rc_xcalloc(k->nblocks + 1, sizeof *st->block_entries);
  st->block_vector_instrs = rc_xcalloc(k->nblocks + 1, sizeof *st->block_vector_instrs);
  st->block_active_lane_instrs = rc_xcalloc(k->nblocks + 1, sizeof *st->block_active_lane_instrs);
  st->block_scalar_instrs = rc_xcalloc(k->nblocks + 1, sizeof *st->block_scalar_instrs);
  st->block_duplicates = rc_xcalloc(k->nblocks + 1, sizeof *st->block_duplicates);
  if (r->want_traces) {
    uint64_t n = rc_run_spec_threads(r->s);
    r->toff = rc_xcalloc(n + 1, sizeof *r->toff);
    r->tlen = rc_xcalloc(n + 1, sizeof *r->tlen);
  }
  return 0;
}

static void teardown(sim_run *r) {
  for (uint32_t f = 0; r->waves && f < r->nframes; f++) {
    sim_wave *w = &r->waves[f];
    free(w->val);
    free(w->vreg);
    free(w->sreg);
    free(w->priv_data);
    free(w->priv);
    free(w->steps);
    free(w->keep);
    free(w->linear);
    free(w->gid);
    free(w->lid);
    for (uint32_t l = 0; l < r->W; l++) rc_vec_free(&w->trace[l]);
    free(w->trace);
    rc_vec_free(&w->stack);
    free(w->dup_stamp);
    free(w->dup_entries);
    free(w->dup_lane);
    rc_vec_free(&w->dup_touched);
  }
  free(r->waves);
  free(r->frame0);
  sim_globals_free(&r->globals);
  free(r->local_store);
  free(r->local_segs);
  free(r->tmp);
  free(r->copy_tmp);
  free(r->issue);
  free(r->scalar_slot);
  free(r->bcast);
  free(r->ipdom);
  free(r->edge_copies);
  free(r->step_len);
  free(r->toff);
  free(r->tlen);
  rc_vec_free(&r->chunk);
  sim_code_free(&r->code);
  rc_frame_layout_free(&r->layout);
}

int waverun(rc_ctx *ctx, const sim_machine *mach, const rc_kernel *k, const rc_run_spec *s,
            rc_memory *mem, rc_traces *traces, rc_run_stats *stats, rc_fault *fault,
            rc_timeline *timeline) {
  rc_fault scratch_fault;
  rc_run_stats scratch_stats;
  if (!fault) fault = &scratch_fault;
  memset(fault, 0, sizeof *fault);
  if (traces) memset(traces, 0, sizeof *traces);
  if (!stats) stats = &scratch_stats;
  memset(stats, 0, sizeof *stats);
  if (timeline) {
    timeline->nevents = 0;
    timeline->recorded = timeline->truncated = false;
  }
  if (k->level != mach->level)
    return rc_report(ctx, RC_SEV_ERROR, k->line ? k->mod->filename : NULL, k->line, k->col,
                     "kernel @%s is a %s-level kernel; the %s runs %s-level kernels%s", k->name,
                     k->level == RC_LEVEL_WAVE ? "wave" : "thread", mach->what,
                     mach->level == RC_LEVEL_WAVE ? "wave" : "thread",
                     mach->level == RC_LEVEL_WAVE ?  " (lower it first: the pipeline reconverge,lower)" : "");
  if (ctx->verify_each && rc_verify_kernel(ctx, k) != 0) return -1;
  if (rc_run_spec_check(ctx, s, k) != 0) return -1;
  if (s->wave < 1 || s->wave > 64) return rc_error(ctx, "the wave size must be 1 to 64, not %u", s->wave);
  rc_kernel *owned; /* the kernel in the machines' form, when it differs (run_form.c) */
  const char *name = k->name;
  uint32_t ntraced = k->nblocks;
  if (sim_run_form(ctx, k, &k, &owned) != 0) return -1;
  sim_run r0;
  memset(&r0, 0, sizeof r0);
  sim_run *r = &r0;
  r->ntraced = ntraced;
  r->mach = mach;
  r->k = k;
  r->name = name;
  r->s = s;
  r->mem = mem;
  r->W = s->wave;
  r->wmask = r->W == 64 ? ~(uint64_t)0 : (((uint64_t)1 << r->W) - 1);
  r->budget = s->step_budget ? s->step_budget : RC_DEFAULT_STEP_BUDGET;
  r->max_entries = r->budget > UINT64_MAX / 8 / r->W ? UINT64_MAX : 8 * r->budget * r->W;
  r->fault = fault;
  r->stats = stats;
  r->timeline = timeline;
  r->want_traces = traces != NULL;
  r->want_effects = r->want_traces && s->effect_traces;
  r->want_blocks = r->want_traces && !s->effect_traces;
  stats->wave_size = r->W;
  stats->threads = rc_run_spec_threads(s);
  int rc = setup(ctx, r);
  if (rc == 0) mach->prepare(r);
  for (uint32_t gz = 0; rc == 0 && gz < r->ngroups[2]; gz++)
    for (uint32_t gy = 0; rc == 0 && gy < r->ngroups[1]; gy++)
      for (uint32_t gx = 0; rc == 0 && gx < r->ngroups[0]; gx++) {
        uint32_t g[3] = {gx, gy, gz};
        for (int d = 0; d < 3; d++) {
          r->group[d] = g[d];
          uint32_t left = s->global[d] - g[d] * r->local[d];
          r->gsize[d] = left < r->local[d] ? left : r->local[d];
        }
        if (run_group(r) != STEP_OK) rc = -1;
      }
  if (rc == 0 && traces) {
    sim_traces_gather(traces, rc_run_spec_threads(s), r->toff, r->tlen, &r->chunk);
    traces->effects = r->want_effects;
  }
  if (fault->happened) /* count the duplicates of the waves that were running */
    for (uint32_t f = 0; f < r->nframes; f++)
      if (!r->waves[f].counted && r->waves[f].serial) wave_done(r, &r->waves[f]);
  stats->max_stack_depth = r->max_stack;
  teardown(r);
  sim_run_form_free(owned);
  if (stats == &scratch_stats) rc_run_stats_free(stats);
  return rc;
}
