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
 */
#ifndef RECONV_LLVM_BRIDGE_H
#define RECONV_LLVM_BRIDGE_H

#include "reconv/llvm.h"

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

/* ---- pointer-keyed hash map (LLVM objects -> our objects) ------------------------------------- */

typedef struct ptrmap {
  const void **keys;
  void **vals;
  uint32_t cap, len;
} ptrmap;
void ptrmap_init(ptrmap *m);
void ptrmap_free(ptrmap *m);
void *ptrmap_get(const ptrmap *m, const void *key);
void ptrmap_put(ptrmap *m, const void *key, void *val);

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

/* Diagnostics LLVM reports through its context while reading bitcode. */
typedef struct bridge_diags {
  rc_strbuf text;
} bridge_diags;
void bridge_diags_install(LLVMContextRef c, bridge_diags *d);

/* Read path (.ll, .bc, .cl) into an LLVM module of context c, run the pass pipeline o->passes (in a
 * child process, so that a crash of LLVM's passes is an error, not a crash of reconv; the blocks it
 * inserted come back marked with reconv.flow / reconv.virtual metadata) and the scalarizer, and
 * verify the result. *source receives the text of .ll/.cl files (for the run-spec comments and for
 * locating definitions), malloc'ed, or NULL for bitcode; the caller frees it also after a failure. */
int bridge_load(rc_ctx *ctx, const char *path, const rc_llvm_import_opts *o, LLVMContextRef c,
                bridge_diags *diags, LLVMModuleRef *out, char **source, size_t *source_len);
/* Run a new-pass-manager pipeline on m with a target machine for its triple when LLVM has that
 * target. Returns 0 or -1 after reporting (invalid pipeline, invalid result). */
int bridge_run_passes(rc_ctx *ctx, const char *path, LLVMModuleRef m, const char *pipeline);

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

/* ---- import --------------------------------------------------------------------------------------- */

/* What an LLVM value became. Most are one reconv value; vectors are one value per element;
 * the amdgcn dispatch and implicit-argument pointers are not values at all but bases that loads
 * at constant offsets turn into queries; cmpxchg is the pair (old value, expected value). */
typedef enum imp_kind {
  IMP_VALUE,
  IMP_VECTOR,
  IMP_DISPATCH_PTR,
  IMP_IMPLICITARG_PTR,
  IMP_CMPXCHG,
  IMP_NOTHING, /* an instruction with no result that matters (lifetime markers, fences) */
} imp_kind;

typedef struct imported {
  imp_kind kind;
  rc_value *v;      /* IMP_VALUE; IMP_CMPXCHG: the old value */
  rc_value *aux;    /* IMP_CMPXCHG: the expected value */
  rc_value **elems; /* IMP_VECTOR */
  uint32_t n;
  int64_t offset;   /* IMP_*_PTR: byte offset from the base */
} imported;

/* A phi whose incoming values are filled in once every block is imported. */
typedef struct imp_phi {
  LLVMValueRef llvm;
  rc_instr **phis; /* one per vector element (one for scalars), in im->tmp */
  uint32_t n;
} imp_phi;

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
  /* per kernel */
  LLVMValueRef fn;
  rc_kernel *k;
  rc_arena tmp;      /* imported records, freed after each kernel */
  ptrmap values;     /* LLVMValueRef -> imported* */
  ptrmap blocks;     /* LLVMBasicBlockRef -> rc_block* */
  ptrmap slots;      /* unnamed LLVM values and blocks -> slot number + 1, as LLVM prints them */
  rc_builder b;
  rc_block *entry;
  rc_instr *prologue_last; /* last instruction of the entry prologue (local memory, constants) */
  LLVMValueRef cur;  /* the instruction being imported, for diagnostics */
  RC_VEC(imp_phi) phis;
  uint8_t *reached;  /* per block id: reachable from the entry */
  bool unreachable;  /* importing a block the entry does not reach: operands defined later in
                        dead code read as undef */
} importer;

/* Report an error about LLVM instruction/value `at` (may be NULL) with its source position (debug
 * info, or its definition in a .ll file) and text. Returns -1. */
int imp_error(importer *im, LLVMValueRef at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A reconv value for a scalar LLVM operand (constants, arguments, globals, constant
 * expressions, imported instructions); NULL after an error. */
rc_value *imp_scalar(importer *im, LLVMValueRef v);
/* The elements of a vector operand; returns -1 after an error. */
int imp_elems(importer *im, LLVMValueRef v, rc_value ***elems, uint32_t *n);
imported *imp_lookup(importer *im, LLVMValueRef v);
imported *imp_record(importer *im, LLVMValueRef v, imp_kind kind);
void imp_set_value(importer *im, LLVMValueRef v, rc_value *rv);
/* Name rv after the LLVM value (when it has a name). */
void imp_name(importer *im, rc_value *rv, LLVMValueRef from);
/* The reconv type of a scalar LLVM type, or an error about `at`. */
rc_type imp_type(importer *im, LLVMTypeRef t, LLVMValueRef at);
/* Insert instructions into the entry prologue: run `fn` with im->b positioned there. */
void imp_prologue_begin(importer *im, rc_builder *saved);
void imp_prologue_end(importer *im, const rc_builder *saved);
/* Address `base + offset` for a constant byte offset (no instruction when 0). */
rc_value *imp_offset(importer *im, rc_value *base, int64_t offset, int64_t elem, const char *name);
/* Compute a getelementptr (instruction or constant expression) as gep instructions. */
rc_value *imp_gep(importer *im, LLVMValueRef gep, const char *name);
/* A getelementptr with constant indices on an amdgcn dispatch/implicit-argument pointer. */
int imp_special_gep(importer *im, LLVMValueRef gep, const imported *base);

int imp_instr(importer *im, LLVMValueRef inst);   /* import_instr.c */
int imp_call(importer *im, LLVMValueRef call);    /* import_call.c */
/* Loads through the amdgcn dispatch/implicit-argument pointers (import_call.c). */
int imp_special_load(importer *im, LLVMValueRef load, const imported *base);

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
/* Declaration of an OpenCL/intrinsic function in the module. */
LLVMValueRef ex_function(exporter *ex, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                         unsigned nparams, bool readnone, bool convergent);

#endif
