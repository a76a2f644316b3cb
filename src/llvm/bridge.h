/* Internal interface of the LLVM bridge (the files of src/llvm). Not installed.
 *
 *   bridge.c        shared helpers: pointer maps, names, kernel detection, the builtin table
 *   clang.c         compiling OpenCL C with clang
 *   source.c        reading .ll/.bc/.cl into an LLVM module, running LLVM passes
 *   runspec.c       the `reconv-run(kernel): ...` comment convention
 *   import.c        LLVM module -> reconv module: kernels, parameters, blocks, diagnostics
 *   import_value.c  operands: the value map, constants, globals, constant expressions, GEPs
 *   import_instr.c  LLVM instructions -> reconv instructions
 *   import_call.c   calls: work-item queries, barriers, math, atomics, amdgcn intrinsics
 *   export.c        reconv module -> LLVM module: signatures, metadata, writing
 *   export_instr.c  reconv instructions -> LLVM instructions
 *   export_inplace.c  editing the origin module in place; export_profile.c its branch weights
 */
#ifndef RECONV_LLVM_BRIDGE_H
#define RECONV_LLVM_BRIDGE_H

#include "reconv/llvm.h"

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include <sys/types.h>

/* ---- pointer-keyed hash map (LLVM objects -> our objects) ------------------------------------- */

/* A key and its value side by side: a lookup in a map of a big function's values reads one cache
 * line, not one in an array of keys and another in an array of values. */
typedef struct ptrmap_slot {
  const void *key;
  void *val;
} ptrmap_slot;

typedef struct ptrmap {
  ptrmap_slot *slots;
  uint32_t cap, len;
} ptrmap;
void ptrmap_init(ptrmap *m);
void ptrmap_free(ptrmap *m);
void *ptrmap_get(const ptrmap *m, const void *key);
void ptrmap_put(ptrmap *m, const void *key, void *val);
void ptrmap_reserve(ptrmap *m, uint32_t n); /* room for n entries without growing */

/* ---- names -------------------------------------------------------------------------------------- */

/* Map an LLVM name onto the .rir name alphabet [A-Za-z0-9_.]: other bytes become '_', and a name
 * that would start with a digit gets `prefix` in front. Empty input gives an empty string. */
void bridge_sanitize(const char *s, size_t n, const char *prefix, rc_strbuf *out);
/* Give v the name `base`, or base_1, base_2 ... when taken (value names are unique). */
void bridge_name_value(rc_kernel *k, rc_value *v, const char *base);
/* The LLVM value as text, one line, without debug-location attachments; malloc'ed. */
char *bridge_value_text(LLVMValueRef v);

/* ---- kernels ------------------------------------------------------------------------------------ */

/* Is F a kernel: the amdgpu_kernel or spir_kernel calling convention, OpenCL kernel_arg_*
 * metadata, or listed in !opencl.kernels? Declarations are not kernels. */
bool bridge_is_kernel(LLVMModuleRef m, LLVMValueRef f);
/* The reconv type of an LLVM scalar type (pointers of any address space are ptr); RC_VOID when
 * there is none (vectors, aggregates, half, i128 ...). */
rc_type bridge_scalar_type(LLVMTypeRef t);

/* ---- builtins shared by import and export --------------------------------------------------------- */

typedef struct bridge_math {
  rc_builtin bi;
  const char *intrinsic; /* LLVM intrinsic base name ("llvm.sqrt"), or NULL */
  const char *opencl;    /* OpenCL C name ("sqrt") */
} bridge_math;
/* The math builtins with their LLVM intrinsic and OpenCL names (float and integer math). */
const bridge_math *bridge_math_table(uint32_t *n);

typedef struct bridge_query {
  rc_builtin bi;
  const char *opencl;  /* "get_global_id" */
  const char *mangled; /* "_Z13get_global_idj" */
} bridge_query;
const bridge_query *bridge_query_table(uint32_t *n);

/* ---- sources ------------------------------------------------------------------------------------ */

/* Compile OpenCL C with clang into bitcode (malloc'ed). Returns 0 or -1 after reporting. */
int bridge_compile_cl(rc_ctx *ctx, const char *path, const rc_llvm_import_opts *o, char **bitcode,
                      size_t *len);

/* Start the LLVM tool `tool` ("clang", "opt") as a child with argv[1..] (argv[0] is set to the
 * candidate tried), standard input from /dev/null, standard output and error into errfd: $env_var
 * when set (the only candidate then), else the tool in reconv's LLVM's bindir, else tool-N (N
 * reconv's LLVM major version) or tool on PATH. `tried` receives the candidates tried. Returns 0
 * or the errno of the last attempt. */
int bridge_spawn_tool(const char *tool, const char *env_var, char **argv, int errfd, pid_t *pid,
                      char *tried, size_t triedlen);
/* A new empty file for `tool` to write ($TMPDIR, else /tmp): its path in buf. Returns 0, or -1
 * after reporting. The caller removes it. */
int bridge_temp_file(rc_ctx *ctx, const char *path, const char *tool, char *buf, size_t len);
/* All of fd until its end, malloc'ed, without trailing newlines. */
char *bridge_read_all(int fd, size_t *len);

/* Diagnostics LLVM reports through its context while reading bitcode. */
typedef struct bridge_diags {
  rc_strbuf text;
} bridge_diags;
void bridge_diags_install(LLVMContextRef c, bridge_diags *d);

/* Read path (.ll, .bc, .cl) into an LLVM module of context c, run the pass pipeline o->passes (in a
 * child process, so that a crash of LLVM's passes is an error, not a crash of reconv; the blocks it
 * inserted come back marked with reconv.flow / reconv.virtual metadata), and
 * verify the result. *source receives the text of .ll/.cl files (for the run-spec comments and for
 * locating definitions), malloc'ed, or NULL for bitcode; the caller frees it also after a failure. */
int bridge_load(rc_ctx *ctx, const char *path, const rc_llvm_import_opts *o, LLVMContextRef c,
                bridge_diags *diags, LLVMModuleRef *out, char **source, size_t *source_len);
/* Run a new-pass-manager pipeline on m with a target machine for its triple when LLVM has that
 * target. Returns 0 or -1 after reporting (invalid pipeline, invalid result). */
int bridge_run_passes(rc_ctx *ctx, const char *path, LLVMModuleRef m, const char *pipeline);
/* bridge_run_passes, and also on LLVM < 20 a top-level structurizecfg<skip-uniform-regions> (LLVM
 * 20's spelling), which runs as opt's legacy pass (skip_uniform.c): *m may be replaced by a new
 * module of its context, and `before` (block -> its malloc'ed name, for the blocks that were there
 * before the pipeline) is then rebuilt for it. */
int bridge_run_pipeline(rc_ctx *ctx, const char *path, LLVMModuleRef *m, const char *pipeline, ptrmap *before);
/* clang -O0's optnone off every function of m, so that the passes asked for run on them. */
void bridge_drop_optnone(LLVMModuleRef m);

/* Run LLVM's divergence analysis (print<divergence>, with the target machine) on m in a child
 * process and collect its verdicts: per function (key), a malloc'ed array of one byte per block in
 * the function's order, 1 when the block's terminator is divergent. Returns 0 or -1 after
 * reporting. */
int bridge_llvm_divergence(rc_ctx *ctx, const char *path, LLVMModuleRef m, ptrmap *verdicts);

/* ---- run-spec comments ---------------------------------------------------------------------------- */

typedef struct bridge_run_comment {
  char *kernel; /* NULL: applies to every kernel without its own */
  char *spec;
  uint32_t line, col;
} bridge_run_comment;
typedef RC_VEC(bridge_run_comment) bridge_run_comments;
/* Collect `reconv-run(NAME): SPEC` and `reconv-run: SPEC` comments; several lines for one kernel
 * are joined with a space. Returns 0, or -1 after reporting a malformed comment. */
int bridge_scan_run_comments(rc_ctx *ctx, const char *path, const char *text, size_t len,
                             bridge_run_comments *out);
void bridge_run_comments_free(bridge_run_comments *c);

/* The module an import read, kept alive as the reconv module's origin (rc_module.origin). */
typedef struct bridge_origin {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  bool borrowed; /* rc_llvm_import_module: the module and its context are the caller's */
} bridge_origin;
void bridge_origin_free(void *origin);

/* ---- import ---------------------------------------------------------------------------------------
 * reconv's IR is a view of the LLVM module (docs/llvm.md, "The module stays the source of truth"):
 * every function with a body becomes a kernel or device function, every block and instruction
 * one block and instruction of the view that records where it came from (rc_block.origin,
 * rc_instr.origin: its index + 1 in the function), with rc operand i standing for LLVM operand i.
 * Constant expressions are computed by view instructions at the start of the entry block
 * (RC_IF_VIEW); instructions reconv does not model are opaque. Export edits the module itself. */

enum { IMP_RECENT = 256 }; /* importer.recent's size, a power of two */

typedef struct importer {
  rc_ctx *ctx;
  const char *path;  /* the input file */
  const char *text;  /* its text (.ll/.cl) or NULL */
  size_t text_len;
  bool text_is_ll;
  LLVMContextRef lctx;
  LLVMModuleRef lmod;
  LLVMTargetDataRef td;
  rc_module *m;
  unsigned md_flow, md_guard, md_virtual, md_uniform, md_divergent, md_run;
  bool amdgcn;       /* the target's divergence rules apply (docs/llvm.md, "Uniformity") */
  ptrmap llvm_divergence; /* --llvm-divergence: function -> LLVM's verdict per block (or empty) */
  ptrmap types;      /* LLVMTypeRef -> rc_type + 1 */
  ptrmap functions;  /* LLVM function -> rc_kernel * (functions with a body that import) */
  ptrmap globals;    /* LLVM global variable -> rc_global * */
  /* per function */
  LLVMValueRef fn;
  rc_kernel *k;
  ptrmap values;     /* LLVM value -> rc_value * (arguments, instructions, constants) */
  /* The instructions whose operands were filled last, by a hash of their LLVM value: most operands
   * are defined a few instructions earlier, and this answers for them from the cache instead of a
   * probe into `values`, which is far bigger than the cache on big functions. */
  struct {
    LLVMValueRef key;
    rc_value *val;
  } recent[IMP_RECENT];
  ptrmap blocks;     /* LLVMBasicBlockRef -> rc_block * */
  rc_instr *prologue_last; /* the last view instruction at the start of the entry block */
  LLVMValueRef cur;  /* the instruction being imported, for diagnostics */
  uint32_t cur_index; /* its origin (index + 1) */
  unsigned cur_op;   /* the operand being imported */
} importer;

/* The value `values` holds for v; for an instruction filled recently, without probing it. */
static inline uint32_t imp_recent_slot(LLVMValueRef v) {
  return (uint32_t)(((uintptr_t)v >> 4) ^ ((uintptr_t)v >> 12)) & (IMP_RECENT - 1);
}

/* Report an error about LLVM instruction/value `at` (may be NULL) with its source position (debug
 * info, or its definition in a .ll file) and text. Returns -1. With RC_SEV_WARNING, a warning. */
int imp_report(importer *im, rc_severity sev, LLVMValueRef at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
#define imp_error(im, at, ...) imp_report((im), RC_SEV_ERROR, (at), __VA_ARGS__)

/* Types and constants (import_value.c). */
/* The reconv type of an LLVM type: scalars, vectors, arrays and structs whose layout agrees with
 * reconv's, or RC_TK_OTHER for what reconv only carries. */
rc_type imp_type(importer *im, LLVMTypeRef t);
/* Is v an operand reconv can represent as a value (argument, instruction, constant of a value
 * type, imported global, constant expression of such)? */
bool imp_representable(importer *im, LLVMValueRef v);
/* The reconv value of a representable operand (constant expressions become view instructions in
 * the entry block, recorded as operand im->cur_op of instruction im->cur_index). */
rc_value *imp_operand(importer *im, LLVMValueRef v);
/* The bytes of a constant initialiser of type t (alloc size of t), or false when it holds what
 * reconv cannot write down (addresses). */
bool imp_constant_bytes(importer *im, LLVMValueRef c, uint8_t *out, uint64_t size);
/* Name rv after the LLVM value (when it has a name). */
void imp_name(importer *im, rc_value *rv, LLVMValueRef from);

/* Instructions (import_instr.c): the view instruction of an LLVM instruction, with its operands
 * still to fill (imp_fill_operands), appended to block b; NULL after an error. */
rc_instr *imp_shell(importer *im, LLVMValueRef inst, rc_block *b);
int imp_fill_operands(importer *im, LLVMValueRef inst, rc_instr *ri);
/* Calls (import_call.c): the shell of a call: a builtin, a call of an imported function, or opaque. */
rc_instr *imp_call_shell(importer *im, LLVMValueRef call, rc_type t);
/* An opaque view of inst: every representable operand, flags from what LLVM says about it. */
rc_instr *imp_opaque_shell(importer *im, LLVMValueRef inst, rc_type t);
/* Which operands of an LLVM instruction the view instruction has: operand i of the view is LLVM
 * operand map[i] (opaque instructions: cases; the rest: the first nops). */
static inline int64_t imp_operand_number(const rc_instr *ri, uint32_t i) {
  return ri->op == RC_OP_OPAQUE ? ri->cases[i] : (int64_t)i;
}

/* ---- export ---------------------------------------------------------------------------------------- */

typedef struct exporter {
  rc_ctx *ctx;
  LLVMContextRef lctx;
  LLVMModuleRef lmod;
  LLVMTargetDataRef td;
  LLVMBuilderRef b;
  unsigned flat_as, local_as; /* address spaces of reconv's flat pointers and of local memory */
  LLVMTypeRef ptr;            /* i8 addrspace(flat_as)* */
  unsigned md_flow, md_guard, md_virtual, md_uniform, md_divergent, md_run;
  LLVMValueRef *functions;   /* the origin module's functions and globals by index (origin - 1) */
  uint32_t nfunctions;
  LLVMValueRef *globals;
  uint32_t nglobals;
  /* per kernel */
  const rc_kernel *k;
  LLVMValueRef fn;
  LLVMValueRef *vals;        /* by value id */
  bool *placeholder;         /* vals[id] is a placeholder for a value defined later */
  LLVMBasicBlockRef *blocks; /* by block id */
  LLVMBasicBlockRef scratch; /* holds placeholders while the body is built */
  LLVMBasicBlockRef entry;
  LLVMValueRef first_nonalloca; /* allocas go before this in the entry block */
} exporter;

LLVMTypeRef ex_type(exporter *ex, rc_type t);
LLVMValueRef ex_value(exporter *ex, const rc_value *v);
/* Emit a kernel body into ex->fn (whose parameters are already bound in ex->vals). */
int ex_body(exporter *ex);
/* Edit function fn of the origin module (a fresh copy) so that it is kernel k (export_inplace.c). */
int ex_inplace(exporter *ex, const rc_kernel *k, LLVMValueRef fn);
/* Branch weights across the in-place export (export_profile.c): those of an original two-way
 * branch (its !prof branch_weights and the condition they were for), and, once every terminator is
 * in place, every two-way branch of k (LLVM block blk[b] for rc block b) given its weights: kept
 * where the condition is the same, swapped where negated, summed up for a flow block from the
 * branch that weights every edge into it, else none. */
typedef struct ex_branch_weights {
  LLVMValueRef cond;
  uint64_t w[2];
  bool known;
} ex_branch_weights;
ex_branch_weights ex_weights_of(LLVMValueRef br, unsigned md_prof);
void ex_profile_apply(exporter *ex, const rc_kernel *k, LLVMBasicBlockRef const *blk, const ex_branch_weights *orig,
                      unsigned md_prof);
LLVMOpcode ex_llvm_opcode(rc_opcode op);
LLVMIntPredicate ex_icmp_pred(rc_cmp c);
LLVMRealPredicate ex_fcmp_pred(rc_cmp c);
/* reconv's metadata on a terminator: the block's flags (!reconv.flow ...) and the branch's
 * annotations (!reconv.uniform, !reconv.divergent). */
void ex_annotate(exporter *ex, const rc_instr *i, LLVMValueRef term);
/* Declaration of an OpenCL/intrinsic function in the module. */
LLVMValueRef ex_function(exporter *ex, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                         unsigned nparams, bool readnone, bool convergent);

#endif
