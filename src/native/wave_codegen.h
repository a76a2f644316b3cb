/* Internal interface of the SIMD wave backend's code generator (docs/native.md, "Wave kernels on
 * the host's vector unit"), shared by
 *
 *   wave_merge.c         which vector values must merge under exec (a later read sees inactive lanes)
 *   wave_codegen.c       the driver: the module, the wave function, blocks, exec, registers, branches
 *   wave_codegen_ops.c   arithmetic, comparisons, casts, select; division made safe on idle lanes
 *   wave_codegen_mem.c   addresses and their lane strides, loads, stores, atomics, memcpy/memset
 *   wave_codegen_call.c  builtins: work-item queries, math, the long tail, barriers
 *
 * The input is a wave kernel in the machines' form (src/sim/run_form.c): scalars only (i1..i64,
 * other integer widths up to 64 bits, f16, f32, f64, ptr, mask), calls inlined, globals as memory.
 * A value is *scalar* (one per wave: an LLVM scalar) or a *vector* value (one per lane: <W x T>),
 * by docs/ir.md's rules; a mask (exec among them) is a <W x i1>, its bits an i64 (lane l bit l)
 * where scalar code needs them; a pointer an i8* (so that LLVM's alias analysis sees where
 * addresses come from). Not installed. */
#ifndef RECONV_WAVE_CODEGEN_H
#define RECONV_WAVE_CODEGEN_H

#include "reconv/native_wave.h"

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

/* ---- what the machines' rules say about an instruction (wave.c's classification) -------------- */

/* Does i compute one value per wave (docs/ir.md, "Scalar and vector values")? */
bool wave_instr_is_scalar(const rc_instr *i);
/* Is value v one per wave (parameters, constants, undef, masks, scalar instructions' results)? */
bool wave_value_is_scalar(const rc_value *v);

/* ---- wave_merge.c --------------------------------------------------------------------------------- */

/* Which vector instructions must merge their result under exec: those a later instruction can read
 * in a lane that was not active when the instruction last ran, that is where a path from the
 * definition to a use (not passing the definition again) widens exec (a setexec whose mask is not
 * taken from the current exec; lower's restores at primary successors). Values that are the same
 * every time a lane computes them (its ids, its private addresses, arithmetic on those and on
 * uniform constants) never need it. merge[value id] is set for those that do. */
void wave_merge_analysis(const rc_kernel *k, uint8_t *merge);

/* ---- the code generator ----------------------------------------------------------------------------- */

/* A value's lanes as an affine function of the lane number: lane l holds base + l * stride (in the
 * value's own type, modulo its width; pointers in bytes), when `valid` (an i1, or NULL: always)
 * holds at run time. Memory accesses use it: stride = the access's size is a consecutive access
 * (a masked load or store), stride 0 a uniform one (one access). */
typedef struct wave_affine {
  LLVMValueRef base;  /* NULL: not known to be affine */
  int64_t stride;
  LLVMValueRef valid;
} wave_affine;

typedef struct wcg {
  rc_ctx *ctx;
  const rc_kernel *k;     /* the machines' form */
  const char *name;       /* the user's kernel name */
  uint32_t W;
  bool vector_math;
  bool drop_merges;       /* rc_native_wave_opts.drop_merges */
  bool check_math;        /* rc_native_wave_opts.check_math */
  unsigned vector_bits;   /* the host's vector registers: 512 (AVX-512), 256 (AVX2) or 128 */
  uint32_t math_ulps;     /* vector_math: the largest error bound (OpenCL 1.2, 7.4) of the math
                             functions the code computes through the vector math library */
  RC_VEC(char *) math_fns;/* ... and their names there (_ZGVeN16v_sinf), each once */
  LLVMContextRef lc;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMValueRef fn, ctxp;  /* the wave function and its rc_wave_ctx * */
  LLVMTypeRef ctx_t, void_t, i1, i8, i16, i32, i64, f16, f32, f64, ptr, mask_t, vmask_t, wbits_t;
  LLVMBasicBlockRef entry, *bbs;
  LLVMValueRef *vals;     /* per value id */
  uint8_t *merge;         /* per value id: merged under exec (wave_merge_analysis) */
  LLVMValueRef *slots;    /* per value id, merged values: where the previous lanes live (alloca) */
  uint8_t *slot_only;     /* per value id: read from its slot at every use (wave_codegen.c) */
  wave_affine *aff;       /* per value id */
  LLVMValueRef exec_var;  /* alloca <W x i1> */
  LLVMValueRef exists;    /* i64, from the context */
  LLVMValueRef exists_lanes; /* the same as <W x i1> */
  LLVMValueRef *regs;     /* per register: alloca */
  uint64_t *region_offset;/* per value id of an alloca or localmem: its offset */
  uint64_t private_bytes, local_bytes;
  bool has_barrier;
  LLVMValueRef *globals;  /* per module global: its storage (an i8 array), made on first use */
  RC_VEC(char *) sites;   /* fault sites, numbered from 0 */
  uint32_t ncall_descs;
} wcg;

/* Operands: the LLVM value of v as a scalar (v must be scalar) or as a vector (scalars splat). */
LLVMValueRef wcg_scalar(wcg *g, const rc_value *v);
LLVMValueRef wcg_vector(wcg *g, const rc_value *v);
LLVMValueRef wcg_operand(wcg *g, const rc_value *v, bool vector);
LLVMValueRef wcg_splat(wcg *g, LLVMValueRef s);
LLVMTypeRef wcg_type(wcg *g, rc_type t);  /* the scalar LLVM type */
LLVMTypeRef wcg_vtype(wcg *g, rc_type t); /* <W x T> */
/* exec now: its bits as an i64, and as <W x i1> */
LLVMValueRef wcg_exec(wcg *g);
LLVMValueRef wcg_exec_lanes(wcg *g);
/* <W x i1> of an i64 mask, and the i64 of a <W x i1> */
LLVMValueRef wcg_mask_lanes(wcg *g, LLVMValueRef m);
LLVMValueRef wcg_lanes_mask(wcg *g, LLVMValueRef lanes);
LLVMValueRef wcg_const_i64(wcg *g, uint64_t v);
LLVMValueRef wcg_const_i32(wcg *g, uint32_t v);
/* <0, 1, ..., W-1> as <W x i64> */
LLVMValueRef wcg_iota(wcg *g);
/* A field of the wave context: a pointer to field `index` (rc_wave_ctx order) */
LLVMValueRef wcg_ctx_field(wcg *g, unsigned index);
enum { CTX_EXISTS, CTX_FLAGS, CTX_ARGS, CTX_LOCAL, CTX_PRIVATE, CTX_PRIVATE_STRIDE, CTX_WAVE_INDEX,
       CTX_WORK_DIM, CTX_GROUP_ID, CTX_GLOBAL_SIZE, CTX_LOCAL_SIZE, CTX_NUM_GROUPS, CTX_GLOBAL_ID,
       CTX_LOCAL_ID, CTX_LINEAR_ID, CTX_RT, CTX_NFIELDS };

/* A fault site: "block B, instruction `...`" of instruction i; its number. */
uint32_t wcg_site(wcg *g, const rc_instr *i);
/* Call the fault hook when `bad` (i1) holds: lane (i32) and the details a, b (i64; NULL: 0) go with
 * it (rc_wave_rt_fault). The builder continues in the block where bad is false. */
void wcg_fault_if(wcg *g, LLVMValueRef bad, const rc_instr *i, uint32_t kind, LLVMValueRef lane, LLVMValueRef a,
                  LLVMValueRef b);
/* The lowest set lane of an i64 mask, as i32 */
LLVMValueRef wcg_first_lane(wcg *g, LLVMValueRef mask);
/* Declare (once) and call a function. */
LLVMValueRef wcg_call(wcg *g, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned np,
                      LLVMValueRef *args);
/* Call intrinsic `name` ("llvm.smin") overloaded on the types of `overloads` (LLVM names them). */
LLVMValueRef wcg_intrinsic(wcg *g, const char *name, LLVMTypeRef *overloads, unsigned no, LLVMValueRef *args,
                           unsigned n);

/* OpenCL's integer functions of the long tail as vector instructions (wave_codegen_int.c); NULL
 * when i is not one it computes so. */
LLVMValueRef wcg_integer_builtin(wcg *g, const rc_instr *i, bool vec);
/* ... and @convert (its modifiers in imm) where a vector instruction rounds as the interpreter. */
LLVMValueRef wcg_convert_builtin(wcg *g, const rc_instr *i, bool vec);

/* A loop over the lanes of `mask` (i64), in lane order: per lane, body(g, lane (i32), state, acc)
 * returns the next acc; the loop's result is the last acc (init when no lane is set). */
typedef LLVMValueRef (*wcg_lane_body)(wcg *g, LLVMValueRef lane, void *state, LLVMValueRef acc);
LLVMValueRef wcg_lane_loop(wcg *g, LLVMValueRef mask, LLVMValueRef init, wcg_lane_body body, void *state);

/* Value conversions to and from the simulators' slot encoding (an i64: integers sign-extended, i1
 * 0/1, f32 and f16 as the bits of the float holding the value, f64 as its bits, pointers as their
 * address). */
LLVMValueRef wcg_to_slot(wcg *g, LLVMValueRef v, rc_type t);
LLVMValueRef wcg_from_slot(wcg *g, LLVMValueRef s, rc_type t);

/* Generate the wave function `fname` of g->k into g->mod (g's context, module, W and options set).
 * 0, or -1 after reporting. wcg_free releases what it allocated (not the module). */
int wcg_generate(wcg *g, const char *fname);
void wcg_free(wcg *g);
/* After wcg_generate: a function that gives the writable module globals the kernel uses their
 * initial bytes (every launch starts so), or NULL when there are none. */
LLVMValueRef wcg_reset_function(wcg *g);

/* ---- the instructions: each returns the value computed for every lane (inactive lanes may hold
 * anything; the driver merges where it must), or NULL for none ---- */

LLVMValueRef wcg_emit_op(wcg *g, const rc_instr *i, bool scalar);   /* wave_codegen_ops.c */
LLVMValueRef wcg_emit_mem(wcg *g, const rc_instr *i, bool scalar);  /* wave_codegen_mem.c */
LLVMValueRef wcg_emit_call(wcg *g, const rc_instr *i, bool scalar); /* wave_codegen_call.c */
/* The affine form of a result (wave_codegen_mem.c), after its value is known. */
void wcg_affine_of(wcg *g, const rc_instr *i, bool scalar);
/* The constant rc_wave_call that describes call instruction i (wave_codegen_call.c). */
LLVMValueRef wcg_call_desc(wcg *g, const rc_instr *i);
/* Atomic read-modify-writes per active lane in lane order (wave_codegen_mem.c); op: the builtin. */
LLVMValueRef wcg_emit_atomic(wcg *g, const rc_instr *i, rc_builtin op, const rc_value *ptr,
                             const rc_value *val, const rc_value *val2, bool scalar);

#endif
