/* reconv simulation: run specifications, simulated memory, traces, the thread-level interpreter,
 * and the wave-level machines (the wave simulator for lowered code and the IPDOM-stack model).
 *
 * Memory is flat and byte-addressed with 64-bit addresses; the top byte of an address names the
 * space (docs/cli.md): global buffers, per-work-group local memory, per-thread private memory.
 */
#ifndef RECONV_SIM_H
#define RECONV_SIM_H

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
} rc_arg_spec;

typedef struct rc_run_spec {
  uint32_t global[3];  /* global size per dimension (1 when unused) */
  uint32_t local[3];   /* work-group size per dimension */
  uint32_t dims;
  uint32_t wave;       /* wave size W for lane_id/wave_size and wave-level machines, 1..64 */
  uint64_t step_budget;/* instructions per thread before "step budget exceeded"; 0 = default */
  rc_arg_spec *args;
  uint32_t nargs;
  uint64_t seed_offset;/* added to every rand seed (equiv runs several seeded inputs) */
} rc_run_spec;

void rc_run_spec_init(rc_run_spec *s);
void rc_run_spec_free(rc_run_spec *s);
/* Parse command-line style words ("--global", "256", "--arg", "out=i32[256]", ...) into s; words
 * that are not run-spec options are left alone: *consumed[i] is set for each one taken. Reports
 * errors through ctx and returns -1. */
int rc_run_spec_parse(rc_ctx *ctx, rc_run_spec *s, int argc, char **argv, bool *consumed);
/* Split a kernel's `!run "..."` string into words and parse it. */
int rc_run_spec_parse_string(rc_ctx *ctx, rc_run_spec *s, const char *text);
/* Check the spec against a kernel's parameters: every parameter given exactly once, buffers only
 * for ptr parameters, sizes sane. */
int rc_run_spec_check(rc_ctx *ctx, const rc_run_spec *s, const rc_kernel *k);

/* ---- memory ---------------------------------------------------------------------------------------------- */

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
} rc_memory;

/* Allocate and initialise the buffers a spec describes for kernel k. */
int rc_memory_init(rc_ctx *ctx, rc_memory *mem, const rc_run_spec *s, const rc_kernel *k);
void rc_memory_free(rc_memory *mem);
uint64_t rc_memory_checksum(const rc_memory *mem); /* FNV-1a 64 over every buffer, in order */
/* Compare buffers; on the first difference writes a description to `why` and returns false. */
bool rc_memory_equal(const rc_memory *a, const rc_memory *b, char *why, size_t whylen);

/* ---- faults ------------------------------------------------------------------------------------------------- */

typedef struct rc_fault {
  bool happened;
  char message[512]; /* "kernel @k, block B, instruction `...`, thread 17: out-of-bounds load ..." */
} rc_fault;

/* ---- traces --------------------------------------------------------------------------------------------------
 * Per thread, the sequence of blocks it executed, as block ids of the kernel that ran. Stored
 * compactly as one array with per-thread offsets. */
typedef struct rc_traces {
  uint32_t nthreads;
  uint64_t *start;   /* nthreads + 1 offsets into ids */
  uint32_t *ids;
  uint64_t len, cap;
} rc_traces;
void rc_traces_free(rc_traces *t);

/* Trace equivalence (DESIGN.md): compare two runs thread by thread, by block name, skipping blocks
 * flagged RC_BLOCK_SYNTHETIC in either kernel. On a difference, writes "thread T, position P:
 * expected block X, got Y" into why and returns false. */
bool rc_traces_equivalent(const rc_kernel *ka, const rc_traces *ta, const rc_kernel *kb,
                          const rc_traces *tb, char *why, size_t whylen);

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
} rc_run_stats;
void rc_run_stats_free(rc_run_stats *s);
double rc_simd_efficiency(const rc_run_stats *s); /* active / (vector * W) */

/* ---- the thread-level interpreter --------------------------------------------------------------------------------
 * Runs kernel k for every thread of the spec's launch, work-group by work-group; threads of a group
 * meet at barriers. traces may be NULL. Returns 0, or -1 with *fault filled (bad run) or an error
 * reported through ctx (bad input). */
int rc_interp_run(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, rc_memory *mem,
                  rc_traces *traces, rc_run_stats *stats, rc_fault *fault);

#ifdef __cplusplus
}
#endif
#endif
