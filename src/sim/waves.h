/* What the two wave-level machines share (wave.c runs lowered wave kernels, ipdom.c runs thread-level
 * kernels on a reconvergence stack): the launch split into work-groups and waves, the per-wave state
 * laid out lane by lane, the lane engine that executes one instruction for the active lanes
 * (lanes.c), block entry bookkeeping (traces, step budget, duplicates, metrics) and faults
 * (waverun.c).
 *
 * Layout: every value slot of the decoded kernel (decode.h: value ids, then the constant pool) has
 * W lanes, stored together (val[slot * W + lane]) as raw 64-bit patterns (a sim_slot's .u), so that
 * an instruction is one loop over lanes that the compiler can vectorise (it does not vectorise
 * accesses of union type). A vector instruction writes only the lanes in exec; the others
 * keep their element, as a GCN VALU does (the lowering relies on it: a lane parked at a primary
 * successor keeps the values it computed before it was parked). A scalar instruction computes once
 * and writes its result to every lane, so vector instructions read scalar operands like any other
 * and parameters and constants are stored broadcast once at setup. */
#ifndef RECONV_SIM_WAVES_H
#define RECONV_SIM_WAVES_H

#include "../cost/cost_internal.h"
#include "decode.h"

/* A lane's value as a sim_slot (in a register; scalar.h works on those) and back. */
static inline sim_slot lane_slot(uint64_t u) {
  sim_slot s;
  s.u = u;
  return s;
}

enum { W_RUNNING, W_BARRIER, W_DONE };
enum { STEP_OK = 0, STEP_BARRIER = 1, STEP_FAULT = -1 };


typedef struct sim_stack_entry { /* IPDOM model: (next block, reconvergence block, lanes) */
  uint32_t pc, rpc;
  uint64_t mask;
} sim_stack_entry;

typedef struct sim_wave {
  uint32_t index;       /* in launch order */
  uint32_t nlanes;      /* lanes that have a thread */
  uint64_t exists;      /* (1 << nlanes) - 1 */
  uint64_t exec;        /* change it with wave_set_exec, which keeps the two below in step */
  uint64_t *keep;       /* per lane: all ones when the lane is in exec, else 0 (for blends) */
  uint32_t active;      /* lanes in exec */
  uint64_t recorded;    /* lanes that have recorded the current block entry */
  uint32_t block;       /* current block */
  uint32_t pc;          /* where run resumes */
  int state;
  uint32_t barrier_pc;
  bool counted;         /* its issue counts are in the run's totals */
  uint64_t *val;        /* nslots * W */
  uint64_t *vreg;       /* nregs * W: vector registers */
  uint64_t *sreg;       /* nregs: scalar registers */
  uint8_t *priv_data;   /* W private blocks */
  rc_segment *priv;     /* W * nprivate segments */
  uint64_t *steps;      /* per lane */
  uint64_t *linear;     /* per lane: linear global id */
  uint32_t *gid, *lid;  /* per lane, 3 each */
  uint64_t issued;      /* timeline: instructions issued in the current block entry */
  uint64_t entries;     /* blocks entered by this wave (a guard against endless loops) */
  rc_u32vec *trace;     /* per lane */
  RC_VEC(sim_stack_entry) stack; /* IPDOM model */
  /* duplicates: per block, the entries of this wave and each lane's entries */
  uint32_t *dup_stamp;  /* per block: wave serial + 1 when touched by the current wave */
  uint32_t *dup_entries;
  uint32_t *dup_lane;   /* nblocks * W */
  rc_u32vec dup_touched;
  uint32_t serial;      /* distinct per wave run in this frame */
} sim_wave;

typedef struct sim_run sim_run;

/* A machine: how a wave starts at the entry block and how it runs until it returns, reaches a
 * barrier or faults (STEP_OK with w->state W_DONE, STEP_BARRIER, STEP_FAULT). */
typedef struct sim_machine {
  const char *what;              /* "wave simulator", "IPDOM model", for messages */
  rc_level level;                /* the kind of kernel it runs */
  void (*prepare)(sim_run *r);   /* after decoding: fill issue[], scalar_slot[], bcast[], step_len[] */
  int (*start)(sim_run *r, sim_wave *w);
  int (*run)(sim_run *r, sim_wave *w);
} sim_machine;

struct sim_run {
  const sim_machine *mach;
  const rc_kernel *k;
  const char *name;       /* the user's kernel's name (k may be its copy, run_form.c) */
  const rc_run_spec *s;
  sim_code code;
  rc_frame_layout layout;
  rc_memory *mem;
  sim_globals globals;    /* the module space */
  rc_addr_map map;
  uint32_t W;
  uint64_t wmask;         /* the W lane bits */
  uint64_t budget;
  uint64_t max_entries;    /* blocks one wave may enter: 8 x W x budget, saturated */
  uint32_t local[3], ngroups[3], group[3], gsize[3];
  uint32_t waves_per_group, nframes;
  bool has_barrier;
  sim_wave *waves;        /* nframes frames */
  uint64_t *frame0;       /* nslots * W: constants and parameters, broadcast */
  uint8_t *issue;         /* per pc: rc_issue_kind, | ISSUE_ONCE when it runs once per wave */
  uint8_t *scalar_slot;   /* per slot: the value is scalar (the same in every lane) */
  uint8_t *bcast;         /* per slot: a scalar result some instruction reads in every lane, so
                             it is written to every lane (else lane 0 is enough) */
  uint32_t *ipdom;        /* IPDOM model: per block, its immediate post-dominator (nblocks: exit) */
  uint32_t *edge_copies;  /* IPDOM model: per edge e, the phi copies that survive coalescing:
                             [3e] vector moves, [3e + 1] copies of i1 values (lane masks),
                             [3e + 2] scalar moves */
  uint32_t *step_len;     /* per block: what entering it adds to an active lane's step count */
  uint8_t *local_store;
  rc_segment *local_segs;
  uint64_t *tmp;          /* W lanes, scratch */
  uint64_t *copy_tmp;     /* parallel phi copies: max_copies * W */
  uint32_t wave_counter;  /* waves started so far (launch order) */
  /* metrics */
  rc_run_stats *stats;    /* the caller's, never NULL here */
  uint64_t max_stack;
  /* outputs */
  bool want_traces;
  bool want_blocks, want_effects; /* what the traces record (rc_run_spec.effect_traces) */
  uint32_t ntraced;    /* blocks below this id are the kernel's own (run_form.c appends the blocks
                          of inlined calls: not traced, not in the per-block figures) */
  rc_fault *fault;
  rc_timeline *timeline;
  sim_wave *recording;    /* the wave the timeline records, while it runs */
  rc_u32vec chunk;        /* traces: lane sequences appended when a wave ends */
  uint64_t *toff;
  uint32_t *tlen;
};

/* ---- lanes.c: the lane engine ------------------------------------------------------------------- */

/* Execute the non-terminator instruction at pc: once per wave when scalar, else for the lanes in
 * w->exec. STEP_OK, STEP_BARRIER (a barrier call: the caller stops the wave) or STEP_FAULT. */
int lanes_exec(sim_run *r, sim_wave *w, uint32_t pc, bool scalar);
/* Perform the phi copies of an edge for the lanes in mask (thread-level kernels). */
void lanes_edge_copies(sim_run *r, sim_wave *w, const sim_edge *e, uint64_t mask);

#define sim_falls_through cost_falls_through

/* ---- waverun.c: launch, bookkeeping, faults ------------------------------------------------------- */

int waverun(rc_ctx *ctx, const sim_machine *mach, const rc_kernel *k, const rc_run_spec *s,
            rc_memory *mem, rc_traces *traces, rc_run_stats *stats, rc_fault *fault,
            rc_timeline *timeline);
/* The wave enters block b with w->exec: traces, steps (may fault: returns STEP_FAULT), metrics. */
int wave_enter_block(sim_run *r, sim_wave *w, uint32_t b, uint32_t pc);
/* Lanes newly activated inside the current block (by setexec) record it too. */
int wave_activate(sim_run *r, sim_wave *w, uint64_t added, uint32_t pc);
/* Count one issued instruction of kind k (rc_issue_kind) in the current block. */
void wave_issue_recorded(sim_run *r, sim_wave *w, int kind); /* the timeline's part */
/* One issued instruction of class `issue` (rc_issue_kind, with ISSUE_MEMORY or ISSUE_BARRIER for
 * the vector instructions a CPU prices apart). */
static inline void wave_issue(sim_run *r, sim_wave *w, int issue) {
  rc_run_stats *st = r->stats;
  uint32_t b = w->block;
  int kind = issue & ISSUE_KIND;
  if (kind == ISSUE_VECTOR) {
    st->memory_instrs += (issue & ISSUE_MEMORY) != 0;
    st->barrier_instrs += (issue & ISSUE_BARRIER) != 0;
    st->vector_instrs++;
    st->active_lane_instrs += w->active;
    st->block_vector_instrs[b]++;
    st->block_active_lane_instrs[b] += w->active;
  } else {
    if (kind == ISSUE_MASK) st->mask_instrs++;
    else st->scalar_instrs++;
    st->block_scalar_instrs[b]++;
  }
  if (w == r->recording) wave_issue_recorded(r, w, kind);
}
/* Set exec (and the lane masks and count that follow it). */
static inline void wave_set_exec(sim_run *r, sim_wave *w, uint64_t exec) {
  w->exec = exec;
  w->active = (uint32_t)__builtin_popcountll(exec);
  for (uint32_t l = 0; l < r->W; l++) w->keep[l] = (uint64_t)0 - ((exec >> l) & 1);
}
/* Faults: at a lane (names its thread) or at the wave (names the wave and its threads). */
int wave_fault_lane(sim_run *r, const sim_wave *w, uint32_t lane, uint32_t pc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
int wave_fault(sim_run *r, const sim_wave *w, uint32_t pc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static inline uint64_t *wave_val(const sim_run *r, const sim_wave *w, uint32_t slot) {
  return w->val + (size_t)slot * r->W;
}

#endif
