/* reconv simulation: run specifications, simulated memory, traces, the thread-level interpreter,
 * and the wave-level machines (the wave simulator for lowered code and the IPDOM-stack model).
 *
 * Memory is flat and byte-addressed with 64-bit addresses; the top byte of an address names the
 * space (docs/cli.md): global buffers, per-work-group local memory, per-thread private memory.
 */
#ifndef RECONV_SIM_H
#define RECONV_SIM_H

#include "reconv/cost.h" /* rc_wave_static_cost, once declared here */
#include "reconv/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- run specification (docs/cli.md) ---------------------------------------------------------------- */

typedef enum rc_init_kind {
  RC_INIT_ZEROS,
  RC_INIT_SEQ,    /* start, step */
  RC_INIT_RAND,   /* seed, lo, hi (integers: [lo, hi]; floats: [lo, hi)) */
  RC_INIT_FILL,   /* value */
  RC_INIT_FILE    /* raw little-endian bytes from a file */
} rc_init_kind;

typedef struct rc_arg_spec {
  const char *param;   /* parameter name (without '%') */
  bool is_buffer;
  rc_type elem;        /* buffer element type, or the scalar's type */
  uint64_t count;      /* buffer elements */
  rc_init_kind init;
  double a, b;         /* seq: start, step; rand: lo, hi; fill: value */
  int64_t ia, ib;      /* integer forms of a and b (exact for 64-bit integers) */
  uint64_t seed;
  const char *path;    /* file */
  int64_t scalar_i;    /* scalar value (integers and pointers) */
  double scalar_f;
  /* Extensions (docs/cli.md): */
  bool is_local;       /* `NAME=local:TYPE[COUNT]`: per-work-group local memory for a ptr
                          parameter, zeroed at the start of every work-group */
  bool uses_n;         /* COUNT (buffers) or the scalar was written with N, the number of
                          work-items of the launch: value = N * n_mul + n_add */
  uint64_t n_mul;
  int64_t n_add;
  bool scalar_is_float;/* the scalar was written as a floating-point number (1.5, inf, nan) */
  const char *text;    /* the word as written ("out=i32[64]:seq"), for messages */
  /* `NAME={V,V,...}`: the value of a vector or by-value struct or array parameter, one number per scalar
     element in order (nested aggregates flattened: its "leaves"), typed by the parameter in
     rc_run_spec_check. The simulators hold it as a read-only buffer named after the parameter. */
  bool is_aggregate;
  uint32_t nleaves;
  struct rc_arg_leaf {
    int64_t i;         /* integer leaves (and a float leaf written as an integer) */
    double f;
    bool is_float;     /* written as a floating-point number */
  } *leaves;
} rc_arg_spec;

typedef struct rc_run_spec {
  uint32_t global[3];  /* global size per dimension (1 when unused) */
  uint32_t local[3];   /* work-group size per dimension */
  uint32_t dims;
  uint32_t wave;       /* wave size W for lane_id/wave_size and wave-level machines, 1..64 */
  uint64_t step_budget;/* instructions per thread before "step budget exceeded"; 0 = default */
#define RC_DEFAULT_STEP_BUDGET 1000000u
#define RC_MAX_STEP_BUDGET (UINT64_MAX / 2)  /* the largest --steps */
#define RC_MAX_THREADS ((uint64_t)1 << 24)   /* work-items per launch */
  rc_arg_spec *args;
  uint32_t nargs;
  uint64_t seed_offset;/* added to every rand seed (--seed; equiv runs several seeded inputs) */
  bool effect_traces;  /* the machines record effect traces instead of block traces (rc_traces,
                          "effects"): the criterion for transforms that change which blocks a
                          thread runs, such as meld (docs/meld.md) */
} rc_run_spec;

void rc_run_spec_init(rc_run_spec *s);
void rc_run_spec_free(rc_run_spec *s);
/* dst becomes an independent copy of src (dst need not be initialised). */
void rc_run_spec_copy(rc_run_spec *dst, const rc_run_spec *src);
/* Parse command-line style words ("--global", "256", "--arg", "out=i32[256]", ...) into s; words
 * that are not run-spec options are left alone: *consumed[i] is set for each one taken. Reports
 * errors through ctx and returns -1. */
int rc_run_spec_parse(rc_ctx *ctx, rc_run_spec *s, int argc, char **argv, bool *consumed);
/* How many words the run-spec option starting at `word` takes: 0 when it is not one, 1 for the
 * form "--global=64", 2 for "--global 64". */
int rc_run_spec_option_arity(const char *word);
/* Split a kernel's `!run "..."` string into words and parse it. */
int rc_run_spec_parse_string(rc_ctx *ctx, rc_run_spec *s, const char *text);
/* Parse kernel k's `!run` string (if any) into s. Errors are reported at the kernel's position;
 * relative file(PATH) names are taken relative to the directory of the kernel's file. */
int rc_run_spec_parse_kernel(rc_ctx *ctx, rc_run_spec *s, const rc_kernel *k);
/* Check the spec against a kernel's parameters: every parameter given exactly once, buffers only
 * for ptr parameters, sizes sane. */
int rc_run_spec_check(rc_ctx *ctx, const rc_run_spec *s, const rc_kernel *k);

/* The launch a spec describes: N (work-items in all dimensions), the effective work-group size
 * (--local, or min(global, 64) in dimension 0; never larger than the launch), and the number of
 * work-groups per dimension (the last group of a dimension may be smaller, as in OpenCL 2.0). */
uint64_t rc_run_spec_threads(const rc_run_spec *s);
void rc_run_spec_local(const rc_run_spec *s, uint32_t local[3]);
const rc_arg_spec *rc_run_spec_find_arg(const rc_run_spec *s, const char *param);
/* A buffer's element count and a scalar's integer value, with N resolved for this launch. */
uint64_t rc_arg_count(const rc_arg_spec *a, const rc_run_spec *s);
int64_t rc_arg_scalar_int(const rc_arg_spec *a, const rc_run_spec *s);
/* Re-launch the spec as a one-dimensional launch of n work-items (for `reconv equiv`): the work-
 * group size is clamped to n, counts written with N follow n, and a literal buffer COUNT that is a
 * multiple k of the old launch's N is read as N*k but never shrinks (docs/cli.md). */
void rc_run_spec_resize(rc_run_spec *s, uint32_t n);
/* The same launch k times as large, for timing (`--scale K`): the global size of the last dimension
 * times k, counts and scalars written with N following, a literal buffer COUNT that is a multiple of
 * the old N scaled as for rc_run_spec_resize. -1 when the launch would exceed RC_MAX_THREADS. */
int rc_run_spec_scale(rc_run_spec *s, uint32_t k);
/* Does any buffer use rand(...)? (Otherwise the input does not depend on seed_offset.) */
bool rc_run_spec_uses_seed(const rc_run_spec *s);

/* ---- memory ---------------------------------------------------------------------------------------------- */

/* Address layout (docs/cli.md, "Memory"): bits 63..56 name the space, bits 55..32 a region of
 * that space, bits 31..0 the byte offset in the region. Each region has its own 4 GiB window, so an
 * access just past a region's end (or before its start) falls into no region and faults; so does
 * every address of space 0, which includes the null pointer.
 *   global  (1): region i = the i-th buffer of the run spec (in parameter order)
 *   local   (2): region r = the r-th `localmem` instruction in block order, then the spec's local
 *                buffers in parameter order; one copy per work-group, zeroed when it starts
 *   private (3): region r = the r-th `alloca` in block order; one copy per thread, zeroed when it
 *                starts. An alloca executed again yields the same address.
 *   module  (4): region g = the module's global g (rc_global, v.id) outside address space 3: one
 *                copy shared by every thread of a launch, holding the global's initial bytes (or
 *                zeros) when the launch starts. Globals of address space 3 are local regions. */
enum { RC_SPACE_NONE = 0, RC_SPACE_GLOBAL = 1, RC_SPACE_LOCAL = 2, RC_SPACE_PRIVATE = 3,
       RC_SPACE_MODULE = 4, RC_SPACE_COUNT = 5 };
#define RC_ADDR_SPACE_SHIFT 56
#define RC_ADDR_REGION_SHIFT 32
#define RC_ADDR_REGION_MASK 0xffffffu
#define RC_REGION_MAX_BYTES ((uint64_t)1 << 30) /* largest buffer or region: 1 GiB */

static inline uint64_t rc_addr_make(unsigned space, uint32_t region, uint32_t offset) {
  return (uint64_t)space << RC_ADDR_SPACE_SHIFT | (uint64_t)region << RC_ADDR_REGION_SHIFT | offset;
}

/* A region's host storage. */
typedef struct rc_segment {
  uint8_t *data;
  uint64_t size;
} rc_segment;

/* The regions visible to one thread: seg[space][region]. */
typedef struct rc_addr_map {
  const rc_segment *seg[RC_SPACE_COUNT];
  uint32_t nseg[RC_SPACE_COUNT];
  const char *const *module_names; /* the globals' names (region g of the module space), or NULL */
} rc_addr_map;

/* Host address of the n bytes at simulated address addr, or NULL when they are not all inside one
 * region (out of bounds, null, or no memory at all). */
static inline uint8_t *rc_addr_resolve(const rc_addr_map *m, uint64_t addr, uint64_t n) {
  unsigned space = (unsigned)(addr >> RC_ADDR_SPACE_SHIFT);
  if (space >= RC_SPACE_COUNT) return NULL;
  uint32_t region = (uint32_t)(addr >> RC_ADDR_REGION_SHIFT) & RC_ADDR_REGION_MASK;
  if (region >= m->nseg[space]) return NULL;
  const rc_segment *s = &m->seg[space][region];
  uint64_t off = addr & 0xffffffffu;
  if (off > s->size || n > s->size - off) return NULL;
  return s->data + off;
}
/* Explain why an access of n bytes at addr failed ("null pointer", "4 bytes past the end of
 * buffer %out (256 bytes)", ...), for fault messages. */
void rc_addr_describe(const rc_addr_map *m, const char *const *global_names, uint64_t addr,
                      uint64_t n, char *buf, size_t len);

typedef struct rc_buffer {
  const char *param;
  rc_type elem;
  uint64_t count;
  uint64_t base;  /* simulated address */
  uint8_t *data;  /* count * size(elem) bytes */
} rc_buffer;

typedef struct rc_memory {
  rc_buffer *bufs;
  uint32_t nbufs;
  rc_segment *segs;   /* the global space: segs[i] is bufs[i]'s storage */
  const char **names; /* names[i] == bufs[i].param, for rc_addr_describe */
} rc_memory;

/* Allocate and initialise the buffers a spec describes for kernel k (the global ones; local
 * buffers live in the frame layout below). The spec must have passed rc_run_spec_check. */
int rc_memory_init(rc_ctx *ctx, rc_memory *mem, const rc_run_spec *s, const rc_kernel *k);
void rc_memory_free(rc_memory *mem);
uint64_t rc_memory_checksum(const rc_memory *mem); /* FNV-1a 64 over every buffer, in order */
uint64_t rc_buffer_checksum(const rc_buffer *b);  /* FNV-1a 64 over one buffer */
rc_buffer *rc_memory_find(const rc_memory *mem, const char *param);
/* Compare buffers; on the first difference writes a description to `why` and returns false. */
bool rc_memory_equal(const rc_memory *a, const rc_memory *b, char *why, size_t whylen);
/* rc_memory_equal, but a float element (f32, f64 buffers) may differ from a's by up to `ulps` units
 * in the last place (NaN matches NaN; infinities and zeros of either sign must match exactly);
 * *max_ulps (may be NULL) receives the largest difference seen. For results of math functions
 * whose precision a standard bounds (OpenCL 1.2 section 7.4) rather than fixes. */
bool rc_memory_equal_ulps(const rc_memory *a, const rc_memory *b, uint64_t ulps, uint64_t *max_ulps, char *why,
                          size_t whylen);
/* The distance of two floats (memory images of an f32 or f64) in units in the last place: 0 for
 * equal values and for two NaNs; UINT64_MAX when they differ and either is a NaN, an infinity or a
 * zero, or their signs differ (which no rounding error explains). */
uint64_t rc_ulp_distance(const void *x, const void *y, rc_type t);
/* Format element i of a buffer ("17", "-2.5") into buf. */
void rc_buffer_format_elem(const rc_buffer *b, uint64_t i, char *buf, size_t len);

/* The local and private regions of kernel k under spec s (see the address layout above). */
typedef struct rc_frame_layout {
  uint32_t nlocal, nprivate;
  uint64_t *local_offset, *local_size;     /* within one work-group's local block */
  uint64_t *private_offset, *private_size; /* within one thread's private block */
  uint64_t local_bytes, private_bytes;
  uint32_t *region; /* per value id: region of an alloca/localmem result or of a local ptr
                       parameter, RC_NONE otherwise */
} rc_frame_layout;
int rc_frame_layout_build(rc_ctx *ctx, rc_frame_layout *l, const rc_kernel *k,
                          const rc_run_spec *s);
void rc_frame_layout_free(rc_frame_layout *l);
/* Point segs[r] at the regions of one block of storage laid out by (offset, size). */
void rc_frame_segments(rc_segment *segs, uint8_t *storage, const uint64_t *offset,
                       const uint64_t *size, uint32_t n);

/* ---- faults ------------------------------------------------------------------------------------------------- */

typedef struct rc_fault {
  bool happened;
  char message[512]; /* "kernel @k, block B, instruction `...`, thread 17: out-of-bounds load ..." */
  /* where the instruction comes from: the kernel's file (a .cl file's line tables give its source
   * lines), line 0 when unknown */
  char file[256];
  uint32_t line, col;
} rc_fault;

/* ---- traces --------------------------------------------------------------------------------------------------
 * Per thread, the sequence of blocks it executed, as block ids of the kernel that ran. Stored
 * compactly as one array with per-thread offsets. */
typedef struct rc_traces {
  uint32_t nthreads;
  bool effects;      /* effect traces (rc_run_spec.effect_traces): ids holds effect records */
  uint64_t *start;   /* nthreads + 1 offsets into ids */
  uint32_t *ids;
  uint64_t len, cap;
} rc_traces;
void rc_traces_free(rc_traces *t);
/* Thread i's block ids and their number. */
static inline const uint32_t *rc_traces_thread(const rc_traces *t, uint32_t i, uint64_t *len) {
  *len = t->start[i + 1] - t->start[i];
  return t->ids + t->start[i];
}

/* Trace equivalence (DESIGN.md): compare two runs thread by thread, by block name, skipping blocks
 * flagged RC_BLOCK_SYNTHETIC in either kernel (effect traces: rc_effects_equivalent). On a difference, writes "thread T, position P:
 * expected block X, got Y" into why and returns false. */
bool rc_traces_equivalent(const rc_kernel *ka, const rc_traces *ta, const rc_kernel *kb,
                          const rc_traces *tb, char *why, size_t whylen);

/* Effect traces (the criterion of docs/meld.md): per thread, in program order, what it does that
 * other threads or the memory can see: stores (address, size, the value's bits), atomics (builtin,
 * address, operands), memcpy/memset and other builtins with effects (their arguments), and
 * barriers. Each effect is RC_EFFECT_WORDS words of ids: a header (kind << 24 | size or builtin),
 * then three 64-bit fields as low/high word pairs. Loads and the blocks that run are not effects. */
enum { RC_EFFECT_STORE = 1, RC_EFFECT_ATOMIC = 2, RC_EFFECT_CALL = 3, RC_EFFECT_BARRIER = 4 };
#define RC_EFFECT_WORDS 7u
/* Effect equivalence: both traces record effects, and every thread has the same sequence of
 * effects in both. On a difference, writes "thread T, effect P: expected store of 4 bytes 0x.. at
 * 0x.., got ..." into why and returns false. rc_traces_equivalent calls it for effect traces. */
bool rc_effects_equivalent(const rc_traces *ta, const rc_traces *tb, char *why, size_t whylen);

/* ---- statistics ------------------------------------------------------------------------------------------------ */

typedef struct rc_run_stats {
  uint64_t instructions;   /* thread level: instructions executed by all threads */
  uint64_t blocks;         /* thread level: blocks entered by all threads */
  uint64_t threads;
  /* wave level (wave simulator and IPDOM model) */
  uint64_t waves;
  uint64_t vector_instrs;  /* vector instructions issued */
  uint64_t scalar_instrs;  /* scalar instructions issued */
  uint64_t mask_instrs;    /* mask-manipulation instructions issued */
  uint64_t memory_instrs;  /* of the vector instructions: loads, stores, atomics, memory builtins */
  uint64_t barrier_instrs; /* of the vector instructions: work-group barriers */
  uint64_t active_lane_instrs;
  uint64_t blocks_entered;
  uint64_t max_stack_depth;     /* IPDOM model */
  uint64_t duplicate_blocks;    /* IPDOM model: block executions beyond the first per wave pass */
  uint32_t wave_size;
  /* per block (indexed by block id of the kernel that ran), may be NULL */
  uint32_t nblocks;
  uint64_t *block_entries;
  uint64_t *block_vector_instrs;
  uint64_t *block_active_lane_instrs;
  uint64_t *block_scalar_instrs;  /* wave level: scalar and mask instructions issued */
  uint64_t *block_duplicates;     /* wave level: entries beyond what the busiest lane needed */
} rc_run_stats;
void rc_run_stats_free(rc_run_stats *s);
double rc_simd_efficiency(const rc_run_stats *s); /* active / (vector * W) */

/* ---- the thread-level interpreter --------------------------------------------------------------------------------
 * Runs kernel k for every thread of the spec's launch, work-group by work-group; threads of a group
 * meet at barriers. traces may be NULL. Returns 0, or -1 with *fault filled (bad run) or an error
 * reported through ctx (bad input). k must be a verified thread-level kernel (it is verified again
 * when ctx->verify_each is set); mem must come from rc_memory_init with the same spec. Threads are
 * numbered by linear global id (x + y*X + z*X*Y). Traces are filled only on success; stats also
 * after a fault (counting what ran until then); stats->block_entries is allocated (free it with
 * rc_run_stats_free). */
int rc_interp_run(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, rc_memory *mem,
                  rc_traces *traces, rc_run_stats *stats, rc_fault *fault);

/* ---- the wave-level machines ---------------------------------------------------------------------------------------
 * Both run a launch in waves of W = s->wave lanes (1..64): lane l of wave i of a work-group is the
 * thread with local linear id i*W + l; lanes past the end of the group do not exist and stay
 * inactive. Memory, work-groups, barriers, the step budget and fault messages are the
 * interpreter's (docs/cli.md, "Faults"); a lane's step count grows by the length of every block
 * the wave enters while the lane is active.
 *
 * rc_wave_run runs a wave kernel (the output of `lower`): vector instructions act for the lanes in
 * exec, !scalar instructions once per wave; every scalar `br`/`switch` checks that its active lanes
 * agree (else a fault). rc_ipdom_run runs a thread-level kernel on a SIMT model with a hardware
 * reconvergence stack (Fung et al. 2007, Anantpur 2014 section 2): a divergent branch pushes one
 * entry per target and the threads reconverge at the branch's immediate post-dominator.
 *
 * Metrics (rc_run_stats): every issued instruction is exactly one of vector, scalar or mask (see
 * docs/cli.md, "reconv sim"); active_lane_instrs sums the active lanes of vector instructions;
 * blocks_entered counts block executions by waves; duplicate_blocks, per wave and block, the
 * executions beyond the largest number of times one lane of the wave executed that block (the
 * IPDOM stack's re-executions); max_stack_depth the deepest reconvergence stack (IPDOM).
 * Traces: a lane's trace lists the blocks it was active in (entering a block, or activated in it by
 * setexec), comparable with rc_traces_equivalent. Returns 0, or -1 with *fault filled (bad run) or
 * an error reported through ctx (bad input); stats are filled after a fault too. */

typedef enum rc_issue_kind { RC_ISSUE_VECTOR, RC_ISSUE_SCALAR, RC_ISSUE_MASK } rc_issue_kind;

/* What one wave issued, instruction by instruction, for pictures (reconv sim --timeline). */
typedef struct rc_timeline_event {
  uint64_t exec;     /* the lanes active when it issued */
  uint32_t block;    /* block id */
  uint8_t kind;      /* rc_issue_kind */
  bool block_start;  /* the first instruction of a block entry */
} rc_timeline_event;

typedef struct rc_timeline {
  uint32_t wave;       /* in: the wave to record, in launch order (group by group) */
  uint32_t max_events; /* in: record at most this many instructions (0: 20000) */
  bool recorded;       /* out: that wave ran */
  bool truncated;      /* out: it issued more than max_events */
  uint32_t lanes;      /* out: W */
  uint64_t exists;     /* out: the lanes that have a thread */
  uint64_t first_thread; /* out: linear global id of lane 0 */
  rc_timeline_event *events;
  uint32_t nevents, cap;
} rc_timeline;
void rc_timeline_free(rc_timeline *t);
/* Draw a recorded timeline as SVG: lanes (rows) against issued instructions (columns), active
 * lanes of vector instructions filled, scalar and mask instructions in a row of their own, block
 * names along the time axis (like the thesis's Figure 1.3). */
void rc_timeline_svg(const rc_timeline *t, const rc_kernel *k, const char *title, rc_strbuf *out);

int rc_wave_run(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, rc_memory *mem,
                rc_traces *traces, rc_run_stats *stats, rc_fault *fault, rc_timeline *timeline);
int rc_ipdom_run(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, rc_memory *mem,
                 rc_traces *traces, rc_run_stats *stats, rc_fault *fault, rc_timeline *timeline);

#ifdef __cplusplus
}
#endif
#endif
