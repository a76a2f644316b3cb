/* The thread-level interpreter's compact program form. A kernel is decoded once into flat arrays so
 * that the dispatch loop touches only small structs and slot numbers:
 * - every operand is a slot number: value ids first (parameters, instruction results), then one
 *   slot per constant (the constant pool, copied into every thread's frame at its start);
 * - each block's non-phi instructions are consecutive; phis become copy lists on the CFG edges
 *   that reach them (executed as parallel copies when a phi reads another phi of the same block);
 * - a terminator refers to edges; an edge knows its target's first instruction and block id. */
#ifndef RECONV_SIM_DECODE_H
#define RECONV_SIM_DECODE_H

#include "reconv/sim.h"
#include "scalar.h"

typedef struct sim_inst {
  uint16_t op;    /* rc_opcode */
  uint16_t type;  /* result type (store: the stored value's type) */
  uint16_t otype; /* type of the first operand (comparisons, casts) */
  uint16_t aux;   /* rc_cmp of icmp/fcmp, rc_builtin of call */
  uint8_t bits;   /* integer width of the type that the operation works in */
  uint32_t dst;  /* result slot */
  uint32_t a, b, c; /* operand slots; br: a = condition, b/c = true/false edge; jmp: b = edge;
                       brexecz: b/c = the edge when exec is empty / not empty;
                       switch: a = value, b = first case, c = number of cases */
  uint32_t d;    /* call: the fourth operand's slot */
  int64_t imm;   /* gep scale; alloca/localmem address; work-item query dimension;
                    switch: default edge; load/store: access size in bytes; rget/rset: register */
} sim_inst;

typedef struct sim_edge {
  uint32_t pc;      /* first instruction of the target */
  uint32_t block;   /* target block id */
  uint32_t copy;    /* first phi copy */
  uint32_t ncopies;
  bool parallel;    /* some copy reads a slot another copy of this edge writes */
} sim_edge;

typedef struct sim_copy {
  uint32_t dst, src;
} sim_copy;

typedef struct sim_case {
  int64_t value;
  uint32_t edge;
} sim_case;

typedef struct sim_code {
  const rc_kernel *k;
  sim_inst *inst;
  uint32_t ninst;
  const rc_instr **src; /* per pc: the IR instruction, for fault messages */
  uint32_t nblocks;
  uint32_t *block_pc;   /* per block: pc of its first non-phi instruction */
  uint32_t *block_len;  /* per block: number of instructions, phis included */
  uint32_t *budget_len; /* per block: what entering it costs of the step budget (see sim_decode) */
  sim_edge *edges;
  uint32_t nedges;
  sim_copy *copies;
  uint32_t ncopies, max_copies;
  sim_case *cases;
  uint32_t ncases;
  uint32_t nslots;
  sim_slot *frame0;     /* initial frame: zeros, then the constant pool */
} sim_code;

/* Decode a kernel (thread level; wave kernels too, for the wave simulator: brexecz has two edges
 * like br, rget/rset name their register in imm). alloca/localmem results get their region
 * addresses from the layout. */
void sim_decode(sim_code *c, const rc_kernel *k, const rc_frame_layout *layout);
void sim_code_free(sim_code *c);

/* The kernel in the form the machines run (run_form.c): *out is k itself, or a private copy
 * (*owned, to give to sim_run_form_free after the run) with LLVM's view rewritten into reconv's
 * basic forms. Reports what the machines cannot run and returns -1. */
int sim_run_form(rc_ctx *ctx, const rc_kernel *k, const rc_kernel **out, rc_kernel **owned);
/* scalarize.c: does k hold vectors (or builtins expanded for the machines)? Scalarize them in the copy k,
 * the results of instructions that give scalars recorded in repl (by value id); name: the
 * kernel's name for messages. 0, or -1 after reporting what has no per-lane form. */
bool sim_has_vectors(const rc_kernel *k);
/* The scalars ("leaves") a vector, struct or array value is made of: how many (more than 4096 is
 * refused: 4097), and leaf j's type and byte offset in the type's memory image (scalarize.c). */
bool sim_is_split_type(const rc_module *m, rc_type t); /* a vector, struct or array value */
uint32_t sim_leaves_of(const rc_module *m, rc_type t);
rc_type sim_leaf_type(const rc_module *m, rc_type t, uint32_t j, uint64_t *offset);
int sim_scalarize(rc_ctx *ctx, rc_kernel *k, const char *name, rc_value **repl);
void sim_run_form_free(rc_kernel *owned);

/* ---- the long tail of the builtins (builtins.c) ---- */

/* One scalar call of a builtin of class RC_SIG_OTHER, as every machine makes it. */
typedef struct sim_bcall {
  rc_builtin f;
  int64_t imm;                    /* the call's modifiers (RC_BM_*) */
  rc_type ty;                     /* the result type */
  rc_type atys[4];                /* the argument types */
  uint32_t nargs;
  const sim_slot *args;           /* nargs values */
  const rc_addr_map *map;         /* memory, as the calling thread sees it */
  const char *const *buffer_names;/* for fault messages */
  uint32_t lane;                  /* the thread's lane in its wave (mbcnt) */
  uint32_t dims;                  /* the launch's dimensions (work_dim) */
} sim_bcall;
/* The call's builtin, modifiers and types from its instruction (args, map, lane, dims are the
 * caller's). */
void sim_bcall_init(sim_bcall *c, const rc_instr *i);
/* Compute it into *out; -1 with the fault's text (without the instruction and thread, which the
 * machine adds) in fault. */
int sim_builtin_other(const sim_bcall *c, sim_slot *out, char *fault, size_t len);
/* Does sim_builtin_other (or run_form.c's rewriting) give builtin f of class RC_SIG_OTHER its
 * meaning? (Exactly the builtins flagged RC_BF_LEGAL.) */
bool sim_builtin_other_runs(rc_builtin f);

/* Why an opaque instruction faults when it executes (docs/ir.md, "opaque"). */
#define sim_opaque_text                                                                             \
  "reconv's simulators cannot execute this instruction: reconv only carries it (opaque), with no "  \
  "semantics of its own (docs/llvm.md, \"Out of scope\")"

/* ---- shared by the machines (the interpreter, the wave simulator, the IPDOM model; shared.c) ---- */

/* The value of every parameter of k under spec s (buffers: their addresses in mem; local buffers:
 * their local-space addresses from the layout). Returns -1 after reporting an error. */
int sim_param_values(rc_ctx *ctx, const rc_kernel *k, const rc_run_spec *s, const rc_memory *mem,
                     const rc_frame_layout *layout, sim_slot *out);
bool sim_kernel_has_barrier(const rc_kernel *k);

/* The module space of a launch (include/reconv/sim.h, "module"): one region per global of k's
 * module, holding its initial bytes; globals of address space 3 get an empty region (they are
 * local memory, run_form.c). Returns -1 after reporting a global too large to simulate. */
typedef struct sim_globals {
  uint32_t n;
  rc_segment *segs;
  uint8_t *store;
  const char **names;
} sim_globals;
int sim_globals_init(rc_ctx *ctx, sim_globals *g, const rc_kernel *k);
void sim_globals_map(const sim_globals *g, rc_addr_map *map);
void sim_globals_free(sim_globals *g);
/* The address of global g of k's module (run_form.c puts it where the global is used). */
static inline uint64_t sim_global_addr(const rc_global *g) {
  return rc_addr_make(RC_SPACE_MODULE, g->v.id, 0);
}
/* The text of a fault for a failed access of n bytes at addr ("out-of-bounds load of 4 bytes at
 * ... (...)", "store of 4 bytes through a null pointer (...)"). */
void sim_access_fault_text(const rc_addr_map *m, const char *const *names, const char *what,
                           uint64_t addr, uint64_t n, char *buf, size_t len);
/* The fault's source location: instruction i's line and column in its module's file. */
void sim_fault_where(rc_fault *f, const rc_instr *i);
/* A thread's name in fault messages: "17", or "17 (global id 1,2,0)" in 2- and 3-d launches. */
void sim_thread_name(const rc_run_spec *s, uint64_t linear, const uint32_t gid[3], char *buf,
                     size_t len);
/* Hand traces collected per thread (thread i's blocks at chunk[toff[i]], tlen[i] of them) over in
 * linear thread order; takes the chunk's memory when it is already in order. */
void sim_traces_gather(rc_traces *out, uint64_t nthreads, const uint64_t *toff, const uint32_t *tlen,
                       rc_u32vec *chunk);
/* Append one effect record (sim.h, "Effect traces") to a thread's trace. */
static inline void sim_effect_push(rc_u32vec *v, unsigned kind, unsigned aux, uint64_t a, uint64_t b,
                                   uint64_t c) {
  rc_vec_reserve(v, v->len + RC_EFFECT_WORDS);
  uint32_t *p = v->data + v->len;
  p[0] = (uint32_t)kind << 24 | (aux & 0xffffffu);
  p[1] = (uint32_t)a, p[2] = (uint32_t)(a >> 32);
  p[3] = (uint32_t)b, p[4] = (uint32_t)(b >> 32);
  p[5] = (uint32_t)c, p[6] = (uint32_t)(c >> 32);
  v->len += RC_EFFECT_WORDS;
}

#endif
