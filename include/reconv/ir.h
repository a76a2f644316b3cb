/* reconv IR: modules, kernels, blocks, SSA values, instructions, and the builder.
 *
 * The normative description of the text form and the semantics is docs/ir.md. In brief:
 * - A module holds kernels. A kernel has typed parameters (uniform for all threads) and basic
 *   blocks; blocks[0] is the entry. Every block ends in exactly one terminator.
 * - Thread-level kernels are in SSA form with phis at block starts (like LLVM IR).
 * - Wave-level kernels (the output of `lower`) have no phis; they add the lane-mask type, exec,
 *   ballot, mask operations, registers ($name, assignable many times) and `brexecz`.
 *
 * Memory: everything hangs off the module's arena. Detached or removed objects stay in the arena
 * until the module is freed. Block ids are kept dense (blocks[i]->id == i) by the builder, so
 * analyses index tables by block id. Value ids are dense slot numbers for parameters and
 * instruction results (never reused within a kernel), so interpreters index frames by value id.
 */
#ifndef RECONV_IR_H
#define RECONV_IR_H

#include "reconv/base.h"
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- types -----------------------------------------------------------------------------------
 * A type is a 16-bit number (docs/ir.md, "Types"):
 * - the basic types of hand-written kernels: void, i1, i8, i16, i32, i64, f32, f64, ptr (address
 *   space 0), mask (wave level), and f16;
 * - integers of any other width N (2..128): RC_TYPE_INT_BASE + N, and pointers into address space
 *   A (1..255): RC_TYPE_PTR_BASE + A. These are scalars; their width needs no module;
 * - composite types (vectors, arrays, structs) and types reconv only carries (LLVM's label, token,
 *   metadata, x86_fp80 ...): RC_TYPE_AGG_BASE + an index into the module's type table.
 * Equal types are equal numbers within a module: the constructors below intern them. What comes from
 * LLVM keeps LLVM's types this way; the simulators run scalars only (rc_legalize splits the rest). */

typedef enum rc_type {
  RC_VOID,
  RC_I1,
  RC_I8,
  RC_I16,
  RC_I32,
  RC_I64,
  RC_F32,
  RC_F64,
  RC_PTR,  /* 64-bit address into the simulated flat memory (address space 0) */
  RC_MASK, /* wave level only: one bit per lane of a wave (up to 64 lanes) */
  RC_F16,  /* IEEE binary16 */
  RC_TYPE_COUNT, /* the basic types */
  RC_TYPE_INT_BASE = 0x100, /* + N: iN for N in 2..128, other than 8, 16, 32, 64 */
  RC_TYPE_PTR_BASE = 0x200, /* + A: pointer into address space A, 1..255 */
  RC_TYPE_AGG_BASE = 0x400, /* + i: the module's type table, entry i */
  RC_TYPE_MAX = 0xffff
} rc_type;

/* Module-free facts about scalar types (basic, iN, pointers); composites answer 0 / false. */
const char *rc_type_name(rc_type t); /* basic types only ("?" otherwise); see rc_type_str */
bool rc_type_is_int(rc_type t);      /* i1 .. i128 */
bool rc_type_is_float(rc_type t);    /* f16, f32, f64 */
bool rc_type_is_ptr(rc_type t);      /* ptr, ptr addrspace(A) */
unsigned rc_type_bits(rc_type t);    /* i1 = 1, iN = N, f16 = 16, ptr = 64, mask = 64, void = 0 */
unsigned rc_type_size(rc_type t);    /* bytes in memory (store size): i1 = 1, i33 = 5 */
unsigned rc_type_addrspace(rc_type t); /* pointers: the address space; others 0 */
static inline bool rc_type_is_composite(rc_type t) { return t >= RC_TYPE_AGG_BASE; }
static inline bool rc_type_is_scalar(rc_type t) { return t != RC_VOID && t < RC_TYPE_AGG_BASE; }

typedef enum rc_type_kind { RC_TK_VECTOR, RC_TK_ARRAY, RC_TK_STRUCT, RC_TK_OTHER } rc_type_kind;

/* An entry of the module's type table. Layout (offsets, size, alignment) follows the rules of
 * docs/ir.md ("Types": natural alignment, vectors aligned to their size rounded up to a power of
 * two) unless the type was made with an explicit layout (an LLVM data layout). */
typedef struct rc_typeinfo {
  uint8_t kind;        /* rc_type_kind */
  bool packed;         /* struct without padding */
  uint32_t count;      /* vector and array length, struct field count */
  rc_type elem;        /* vector and array element type */
  rc_type *fields;     /* struct field types */
  uint64_t *offsets;   /* struct field byte offsets */
  uint64_t size;       /* allocation size in bytes (a multiple of align) */
  uint32_t align;      /* ABI alignment in bytes */
  const char *name;    /* the printed form: "<4 x f32>", "[8 x i32]", "{i32, f32}", "opaque \"token\"" */
} rc_typeinfo;

typedef struct rc_module rc_module;

/* Constructors: the type's number in module m (interned; the basic types for the basic widths).
 * They return RC_VOID for a type reconv cannot represent (an integer wider than 128 bits, an
 * address space above 255, a vector or array element that is not a value type, more than 65,000
 * composite types in one module). */
rc_type rc_type_int(rc_module *m, unsigned bits);
rc_type rc_type_ptr(rc_module *m, unsigned addrspace);
rc_type rc_type_vector(rc_module *m, rc_type elem, uint32_t n);
rc_type rc_type_array(rc_module *m, rc_type elem, uint64_t n);
rc_type rc_type_struct(rc_module *m, const rc_type *fields, uint32_t n, bool packed);
/* A struct with the given layout (from an LLVM data layout); the natural one when it agrees. */
rc_type rc_type_struct_layout(rc_module *m, const rc_type *fields, uint32_t n, bool packed,
                              const uint64_t *offsets, uint64_t size, uint32_t align);
/* A type reconv carries but does not interpret, named by its LLVM spelling. */
rc_type rc_type_other(rc_module *m, const char *spelling);
const rc_typeinfo *rc_type_info(const rc_module *m, rc_type t); /* NULL for scalars and void */
/* The printed form of any type of m ("i33", "ptr addrspace(3)", "<4 x f32>"). */
const char *rc_type_str(const rc_module *m, rc_type t);
uint64_t rc_type_store_size(const rc_module *m, rc_type t); /* bytes a load or store touches */
uint64_t rc_type_alloc_size(const rc_module *m, rc_type t); /* bytes between array elements */
uint32_t rc_type_align(const rc_module *m, rc_type t);
/* Vectors, arrays, structs: number of elements or fields, the type and byte offset of one. */
uint32_t rc_type_count(const rc_module *m, rc_type t);
rc_type rc_type_elem(const rc_module *m, rc_type t, uint32_t i);
uint64_t rc_type_offset(const rc_module *m, rc_type t, uint32_t i);
bool rc_type_is_vector(const rc_module *m, rc_type t);
/* The element type of a vector, the type itself otherwise (element-wise operations). */
rc_type rc_type_scalar_of(const rc_module *m, rc_type t);
/* A vector of n elements of type elem when `like` is a vector, elem otherwise (the result type of
 * an element-wise comparison or cast). */
rc_type rc_type_like(rc_module *m, rc_type like, rc_type elem);
/* Can values of this type exist (not void, not an RC_TK_OTHER type)? */
bool rc_type_is_value(const rc_module *m, rc_type t);
/* The number in module `into` of type t of module `from` (made there when new). */
rc_type rc_type_translate(rc_module *into, const rc_module *from, rc_type t);
/* IEEE binary16: the bits of the half nearest to v (ties to even), their value, and both. */
uint16_t rc_f16_from_double(double v);
double rc_f16_to_double(uint16_t h);
double rc_round_f16(double v);

/* ---- opcodes --------------------------------------------------------------------------------- */

typedef enum rc_opcode {
  RC_OP_NONE,
  /* integer binary (also and/or/xor on masks) */
  RC_OP_ADD, RC_OP_SUB, RC_OP_MUL, RC_OP_SDIV, RC_OP_UDIV, RC_OP_SREM, RC_OP_UREM,
  RC_OP_AND, RC_OP_OR, RC_OP_XOR, RC_OP_ANDN, RC_OP_SHL, RC_OP_LSHR, RC_OP_ASHR,
  /* float binary and unary */
  RC_OP_FADD, RC_OP_FSUB, RC_OP_FMUL, RC_OP_FDIV, RC_OP_FREM, RC_OP_FNEG,
  /* comparisons (pred = rc_cmp) and select */
  RC_OP_ICMP, RC_OP_FCMP, RC_OP_SELECT,
  /* casts: type = destination type, ops[0] = source (element-wise on vectors) */
  RC_OP_TRUNC, RC_OP_ZEXT, RC_OP_SEXT, RC_OP_FPTRUNC, RC_OP_FPEXT, RC_OP_FPTOSI, RC_OP_FPTOUI,
  RC_OP_SITOFP, RC_OP_UITOFP, RC_OP_PTRTOINT, RC_OP_INTTOPTR, RC_OP_BITCAST, RC_OP_ADDRSPACECAST,
  /* memory: load (type = loaded type, ops[0] = ptr), store (ops[0] = value, ops[1] = ptr),
   * gep (ptr = ops[0] + sum of sext(ops[j]) * cases[j-1] for j >= 1, + imm),
   * alloca (private, imm bytes), localmem (work-group shared, imm bytes, same address for every
   * thread of a group) */
  RC_OP_LOAD, RC_OP_STORE, RC_OP_GEP, RC_OP_ALLOCA, RC_OP_LOCALMEM,
  /* call of a builtin (pred = rc_builtin), phi (targets[i] is the block of ops[i]) */
  RC_OP_CALL, RC_OP_PHI,
  /* values of LLVM's first-class types: freeze (ops[0] itself; undef reads as 0 anyway),
   * extractelement (vector ops[0], index ops[1]), insertelement (ops[0], element ops[1], index
   * ops[2]), shufflevector (ops[0], ops[1]; cases[0..imm) the mask, -1 = undef), extractvalue
   * (aggregate ops[0]; cases[0..imm) the indices), insertvalue (ops[0], value ops[1]; indices as
   * extractvalue) */
  RC_OP_FREEZE, RC_OP_EXTRACTELT, RC_OP_INSERTELT, RC_OP_SHUFFLE, RC_OP_EXTRACTVAL, RC_OP_INSERTVAL,
  /* call of a function of the module (callee), arguments ops[] */
  RC_OP_CALLFN,
  /* an instruction reconv carries but does not model (from LLVM): `text` says what it is; ops[]
   * are the operands it reads (cases[i]: the LLVM operand number of ops[i]); iflags say whether it
   * has effects (RC_IF_EFFECTS) and whether its result may differ between threads whose operands
   * are equal (RC_IF_VARYING). The simulators refuse to run it. */
  RC_OP_OPAQUE,
  /* wave level */
  RC_OP_BALLOT,  /* mask = lanes in exec for which the i1 ops[0] is true */
  RC_OP_EXEC,    /* mask = the current exec mask */
  RC_OP_SETEXEC, /* exec = ops[0] */
  RC_OP_RGET,    /* value = register reg */
  RC_OP_RSET,    /* register reg = ops[0] (for active lanes if the register is a vector) */
  /* terminators */
  RC_OP_BR,      /* br cond, targets[0] (true), targets[1] (false) */
  RC_OP_JMP,     /* jmp targets[0] */
  RC_OP_SWITCH,  /* switch ops[0], default targets[0], case cases[i-1] -> targets[i] */
  RC_OP_RET,     /* ret; in a function with a result, ret ops[0] */
  RC_OP_UNREACHABLE,
  RC_OP_BREXECZ, /* wave level: if exec is empty goto targets[0] else targets[1] */
  RC_OP_COUNT
} rc_opcode;

const char *rc_opcode_name(rc_opcode op);
/* The opcode, type or predicate spelled by the n bytes at s (not NUL-terminated), or -1. */
int rc_opcode_lookup(const char *s, size_t n);
int rc_type_lookup(const char *s, size_t n);                  /* includes void and mask */
int rc_cmp_lookup(const char *s, size_t n, bool is_float);
/* Inline: every CFG walk asks this of every block's last instruction. */
static inline bool rc_opcode_is_terminator(rc_opcode op) { return op >= RC_OP_BR && op <= RC_OP_BREXECZ; }
bool rc_opcode_is_int_binop(rc_opcode op);
bool rc_opcode_is_float_binop(rc_opcode op);
bool rc_opcode_is_cast(rc_opcode op);

typedef enum rc_cmp {
  /* icmp */
  RC_CMP_EQ, RC_CMP_NE, RC_CMP_SLT, RC_CMP_SLE, RC_CMP_SGT, RC_CMP_SGE,
  RC_CMP_ULT, RC_CMP_ULE, RC_CMP_UGT, RC_CMP_UGE,
  /* fcmp: ordered, unordered */
  RC_CMP_OEQ, RC_CMP_ONE, RC_CMP_OLT, RC_CMP_OLE, RC_CMP_OGT, RC_CMP_OGE, RC_CMP_ORD,
  RC_CMP_UEQ, RC_CMP_UNE, RC_CMP_FULT, RC_CMP_FULE, RC_CMP_FUGT, RC_CMP_FUGE, RC_CMP_UNO,
  RC_CMP_FTRUE, RC_CMP_FFALSE,
  RC_CMP_COUNT
} rc_cmp;
const char *rc_cmp_name(rc_cmp c); /* "slt", "oeq", "ult" (for both icmp ult and fcmp ult) ... */
bool rc_cmp_is_float(rc_cmp c);
/* The predicate true exactly where c is false (NaNs included: olt <-> uge). */
rc_cmp rc_cmp_inverse(rc_cmp c);

/* ---- builtins (called with RC_OP_CALL; pred holds the id, imm the modifiers) -----------------
 * The list is include/reconv/builtins.def (one line per builtin: name, class, types, flags);
 * docs/builtins.md says what each computes and which OpenCL C and LLVM names map to it. A builtin
 * stands for one meaning: where OpenCL's spelling or LLVM's says more than the types do
 * (signedness: mul_hi_s / mul_hi_u; saturation and rounding of conversions; an element size),
 * there are separate builtins or modifiers in the call's imm (RC_BM_*), spelled as '.'-separated
 * suffixes of the name in the text form (`@convert.fs.sat.rtn`). Vector width and element types
 * come from the call's types. */

typedef enum rc_builtin {
#define X(id, name, sig, spec, flags) RC_BI_##id,
#include "reconv/builtins.def"
#undef X
  RC_BI_COUNT
} rc_builtin;

/* The coarse class of a builtin: how the machines' dispatch treats it. The classes F1..I2 are the
 * element-wise math computed inline by the hot paths (src/sim/scalar.h); OTHER is the long tail
 * (src/sim/builtins.c), or what legalize expands before anything runs. */
typedef enum rc_builtin_sig {
  RC_SIG_QUERY_DIM, /* (i32 const dim) -> int */
  RC_SIG_QUERY,     /* () -> int */
  RC_SIG_VOID0,     /* () -> void: barrier */
  RC_SIG_F1,        /* (F) -> F */
  RC_SIG_F2,        /* (F, F) -> F */
  RC_SIG_F3,        /* (F, F, F) -> F */
  RC_SIG_I1,        /* (I) -> I */
  RC_SIG_I2,        /* (I, I) -> I */
  RC_SIG_ATOMIC,    /* (ptr, T) -> T */
  RC_SIG_CMPXCHG,   /* (ptr, T, T) -> T */
  RC_SIG_MEMCPY,    /* (ptr, ptr, I) -> void */
  RC_SIG_MEMSET,    /* (ptr, i8, I) -> void */
  RC_SIG_OTHER      /* anything else: see the spec */
} rc_builtin_sig;

/* Flags of a builtin (rc_builtin_info.flags). */
enum {
  RC_BF_DIVERGENT = 1u << 0,   /* a source of divergence: the result may differ between threads
                                  whose arguments are equal (ids, atomics) */
  RC_BF_EFFECTS = 1u << 1,     /* writes memory or synchronises: never removed or moved */
  RC_BF_PURE = 1u << 2,        /* the result depends on the arguments only: no memory, no fault */
  RC_BF_ELEMENTWISE = 1u << 3, /* on vectors: the scalar form per element (a scalar argument where
                                  the spec allows one, 'S' or 'j', serves every element) */
  RC_BF_LEGAL = 1u << 4,       /* the machines run its scalar form (else legalize expands it) */
  RC_BF_MEMORY = 1u << 5,      /* reads or writes memory through its pointer arguments */
  RC_BF_MODS = 1u << 6,        /* takes modifiers in imm (RC_BM_*) */
  RC_BF_VECFORM = 1u << 7,     /* the vector form means something else than the scalar form per
                                  element (relational functions: true is -1, the sign bit decides);
                                  legalize expands vector forms */
  RC_BF_MATH = RC_BF_PURE | RC_BF_ELEMENTWISE | RC_BF_LEGAL,
  RC_BF_MATH_MEM = RC_BF_ELEMENTWISE | RC_BF_LEGAL | RC_BF_MEMORY | RC_BF_EFFECTS,
  RC_BF_ATOMIC = RC_BF_DIVERGENT | RC_BF_EFFECTS | RC_BF_MEMORY | RC_BF_LEGAL,
  RC_BF_RELATIONAL = RC_BF_PURE | RC_BF_LEGAL | RC_BF_VECFORM,
};

/* Modifiers (the call's imm) of @convert: source and destination kinds (float, signed or unsigned
 * integer), saturation, rounding; of @vstore_half and @vstorea_half: the rounding; of the async
 * copies: the element size in bytes (1 .. 256) and which side is strided. */
enum {
  RC_BM_FLOAT = 0, RC_BM_SIGNED = 1, RC_BM_UNSIGNED = 2, /* kinds */
  RC_BM_SRC_SHIFT = 0, RC_BM_DST_SHIFT = 2, RC_BM_KIND_MASK = 3,
  RC_BM_SAT = 1 << 4,
  RC_BM_RND_SHIFT = 5, RC_BM_RND_MASK = 7 << 5,
  RC_BM_RND_DEFAULT = 0 << 5, /* to nearest even for float results, toward zero for integers */
  RC_BM_RTE = 1 << 5, RC_BM_RTZ = 2 << 5, RC_BM_RTP = 3 << 5, RC_BM_RTN = 4 << 5,
  RC_BM_ELEM_MASK = 0x1ff,    /* async copies: the element size */
  RC_BM_STRIDE_DST = 1 << 9,  /* async_copy_strided: the destination is strided (else the source) */
};

/* Types in a spec ("RESULT:ARGS", one letter each). T is the builtin's type: the result's when
 * the result letter is one of F I G Y, else the first argument's with one of these letters.
 *   F  float T (f16, f32, f64 or a vector of them)     I  integer T (i2 .. i64 elements, not i1)
 *   G  integer or float T                               Y  any scalar or vector T
 *   S  T or its element type (a scalar for every element)   E  T's element type
 *   J  i32 shaped like T (one per element)              j  J, or a scalar i32
 *   M  an integer shaped like T with T's element width  R  i32 for a scalar T, M for a vector
 *   W  an integer shaped like T, twice T's element width  H  an integer shaped like T
 *   b  i1 shaped like T                                 X  an integer or float shaped like T
 *   O  the struct {T, b}                                N  an integer scalar (not i1)
 *   i  i32                                              K  a constant i32 0, 1 or 2
 *   P  a pointer (any address space)                    B  i8
 *   D  a vector of T's element type, of any length
 *   Q  an integer scalar result (not i1)                V  no result (void)
 * Builtins that are neither element-wise nor expanded for vectors take scalar T only. */
typedef struct rc_builtin_info {
  const char *name; /* as written after '@' in the text form (without modifiers) */
  rc_builtin_sig sig;
  bool divergent_source; /* result differs between threads (global_id, lane_id, atomics ...) */
  bool has_side_effects;
  const char *spec;      /* the types, see above */
  uint16_t flags;        /* RC_BF_* */
  uint8_t nargs;         /* the number of arguments */
} rc_builtin_info;
const rc_builtin_info *rc_builtin_get(rc_builtin b);
int rc_builtin_lookup(const char *name); /* the exact name, without modifiers; -1 when unknown */
/* A name as written in the text form, modifiers included ("convert.fs.sat.rtn"): the builtin, or
 * -1 (unknown name, or modifiers the builtin does not take); *imm receives the modifiers. */
int rc_builtin_parse(const char *name, int64_t *imm);
/* The text form's name of builtin b with modifiers imm (at most 64 bytes with the NUL). */
void rc_builtin_spell(rc_builtin b, int64_t imm, char *buf, size_t len);
/* Are the modifiers imm valid for builtin b (0 for builtins without modifiers)? */
bool rc_builtin_mods_ok(rc_builtin b, int64_t imm);

/* The builtin an LLVM callee stands for: an OpenCL C 1.2 built-in function as clang 14 mangles it
 * (Itanium ABI, with -nogpulib, for amdgcn and spir64: `_Z13get_global_idj`, `_Z4fminDv4_fS_`,
 * `_Z14convert_uint4Dv4_f`, `_Z6vload4mPU3AS1Kf` ...), an LLVM intrinsic (`llvm.fmuladd.f32`,
 * `llvm.smin.v4i32`, `llvm.memcpy.p0i8.p0i8.i64`) or an amdgcn intrinsic (`llvm.amdgcn.workitem.id.x`).
 * The parameter types of a mangled name choose between meanings (signed or unsigned, float or
 * integer) and give what the types of reconv's IR do not say (the element size of an async copy,
 * the source signedness of a conversion). */
typedef struct rc_builtin_match {
  int builtin;         /* rc_builtin, or -1 */
  uint32_t nargs;      /* the builtin takes the call's first nargs arguments (llvm.memcpy's
                          volatile flag, llvm.ctlz's zero-is-poison flag, barrier's fence flags,
                          the event of an async copy ... are dropped) */
  int64_t imm;         /* the modifiers (rc_instr.imm of the call) */
  uint32_t signed_args;/* mangled names: bit i set when parameter i is a signed integer type
                          (char, short, int, long) or a vector or pointer of one */
} rc_builtin_match;
/* name: n bytes, not NUL-terminated. Returns m->builtin (-1 when the name is no builtin reconv
 * knows; *m is then all zero but builtin). The caller checks the builtin's types against the
 * call's (rc_instr_types_ok): a name only says what a callee means if its types fit. */
int rc_builtin_from_llvm_name(const char *name, size_t n, rc_builtin_match *m);

/* ---- values --------------------------------------------------------------------------------- */

typedef enum rc_value_kind {
  RC_V_INSTR,
  RC_V_PARAM,
  RC_V_CONST,
  RC_V_UNDEF,
  RC_V_GLOBAL, /* the address of a module-level variable (rc_global) */
} rc_value_kind;

typedef struct rc_module rc_module;
typedef struct rc_kernel rc_kernel;
typedef struct rc_block rc_block;
typedef struct rc_instr rc_instr;
typedef struct rc_reg rc_reg;

typedef struct rc_value {
  uint8_t kind;      /* rc_value_kind */
  uint8_t vflags;
  uint16_t type;     /* rc_type */
  uint32_t id;       /* slot: params 0..nparams-1, then instruction results; RC_NONE otherwise */
  const char *name;  /* NULL for unnamed values (the printer numbers them) and constants */
} rc_value;

typedef struct rc_const {
  rc_value v;
  union {
    int64_t i; /* integers: truncated to the type's width and sign-extended; i1 is 0 or 1;
                  masks and pointers: the raw 64 bits (integers wider than 64 bits: the value
                  sign-extended from 64 bits) */
    double f;  /* f32 (f16) constants hold a value exactly representable as f32 (f16) */
    rc_value **elems; /* composite types: one constant per element or field; NULL: all zero */
  } u;
} rc_const;

/* A module-level variable (from LLVM: a global variable; OpenCL's __constant tables and __local
 * arrays). Its value (v) is its address, of pointer type into its address space. */
typedef struct rc_global {
  rc_value v;          /* kind RC_V_GLOBAL; v.id = index in module->globals; v.name = its name */
  rc_type vtype;       /* the type of what it holds */
  bool is_const;       /* never written */
  const uint8_t *init; /* initial bytes (rc_type_alloc_size(vtype) of them); NULL: all zero */
  uint32_t origin;     /* LLVM path: index + 1 of the global in the origin module; 0: none */
  uint32_t line, col;
} rc_global;

/* Wave-level registers: assignable storage with a type, scalar (one value per wave) or vector
 * (one per lane). Written with rset and read with rget. */
struct rc_reg {
  const char *name;
  uint16_t type;
  bool scalar;
  uint32_t id; /* dense per kernel */
};

/* ---- instructions ---------------------------------------------------------------------------- */

enum {
  RC_IF_UNIFORM = 1u << 0,   /* terminator annotated !uniform (user override) */
  RC_IF_DIVERGENT = 1u << 1, /* terminator annotated !divergent (user override) */
  RC_IF_SCALAR = 1u << 2,    /* wave level: executed once per wave on the scalar unit */
  RC_IF_EFFECTS = 1u << 3,   /* opaque: reads or writes memory, or has other effects */
  RC_IF_VARYING = 1u << 4,   /* opaque: the result may differ between threads with equal operands */
  RC_IF_VIEW = 1u << 5,      /* LLVM path: computes a constant expression of the origin for
                                reconv's view; the LLVM module keeps the expression itself */
};

struct rc_instr {
  rc_value v;        /* the result; v.type == RC_VOID for instructions without one */
  uint16_t op;       /* rc_opcode */
  uint16_t pred;     /* rc_cmp for icmp/fcmp, rc_builtin for call */
  uint8_t iflags;    /* RC_IF_* */
  uint16_t origin_op; /* RC_IF_VIEW: the operand of instruction `origin` that holds the expression */
  uint32_t nops, opcap;
  rc_value **ops;
  uint32_t ntargets;
  uint32_t origin;    /* LLVM path: index + 1 of the LLVM instruction this is (in its function's
                         instruction order); 0: made by reconv */
  rc_block **targets; /* terminators: successors; phi: incoming block of ops[i] (ntargets==nops) */
  int64_t *cases;     /* switch: cases[i] is the value leading to targets[i+1]; gep: the scales;
                         shufflevector: the mask; extract/insertvalue: the indices; opaque: the
                         LLVM operand number of each operand */
  int64_t imm;        /* gep: constant byte offset; alloca/localmem: size in bytes; shufflevector,
                         extract/insertvalue: length of cases (alloca: the result type says
                         the address space) */
  union {
    rc_reg *reg;        /* rget/rset */
    rc_kernel *callee;  /* callfn */
    const char *text;   /* opaque: what it is, in LLVM's words (one line) */
  } u;
  rc_block *parent;   /* NULL while detached */
  rc_instr *prev, *next;
  uint32_t line, col; /* source position (0 when built by a pass) */
};

/* ---- blocks, kernels, modules ----------------------------------------------------------------- */

enum {
  RC_BLOCK_FLOW = 1u << 0,    /* flow block inserted by reconverge (thesis 4.3) */
  RC_BLOCK_GUARD = 1u << 1,   /* guard block inserted by a linearization */
  RC_BLOCK_VIRTUAL = 1u << 2, /* other block inserted by a transform (exit unification, splits) */
  RC_BLOCK_SYNTHETIC = RC_BLOCK_FLOW | RC_BLOCK_GUARD | RC_BLOCK_VIRTUAL, /* skipped in traces */
  /* a block of a device function inlined into its caller (rc_inline_call): the callee's code,
   * charged as the caller's, but not a block of the caller's traces */
  RC_BLOCK_INLINED = 1u << 3,
};

struct rc_block {
  const char *name;  /* unique within the kernel; never NULL */
  uint32_t id;       /* index in kernel->blocks */
  uint32_t bflags;   /* RC_BLOCK_* */
  rc_kernel *parent;
  rc_instr *first, *last;
  rc_block **preds;  /* one entry per incoming CFG edge (a block branching twice here is here
                        twice); order is not meaningful */
  uint32_t npreds, predcap;
  uint32_t line, col;
  uint32_t origin;   /* LLVM path: index + 1 of the LLVM block this is; 0: made by reconv */
};

typedef enum rc_level { RC_LEVEL_THREAD, RC_LEVEL_WAVE } rc_level;

/* A kernel (an entry point, launched by a run specification) or a device function (called by
 * callfn). Both are analysed and transformed alike. */
struct rc_kernel {
  rc_module *mod;
  const char *name;
  rc_level level;
  bool is_function;     /* a device function: callable, not launchable */
  rc_type ret_type;     /* device functions: the result type (RC_VOID: none) */
  uint32_t origin;      /* LLVM path: index + 1 of the function in the origin module; 0: none */
  /* Device functions: per parameter, 1 when it may differ between the threads of a call (the
   * module's uniformity fills it from the call sites); NULL: every parameter may. Kernels'
   * parameters are uniform. */
  uint8_t *param_divergent;
  rc_value **params;
  uint32_t nparams, paramcap;
  rc_block **blocks;
  uint32_t nblocks, blockcap;
  rc_reg **regs;
  uint32_t nregs, regcap;
  uint32_t nvalues;     /* next value id */
  const char *run_spec; /* default run specification (`!run "..."`), or NULL */
  uint32_t line, col;
  rc_strmap block_names;    /* name -> block (NULL value: free again) */
  rc_strmap value_names;    /* name -> value */
  rc_strmap fresh_counters; /* base -> next number for rc_kernel_fresh_name */
  rc_strmap reg_names;      /* name -> register */
};

struct rc_module {
  rc_ctx *ctx;
  rc_arena arena;
  const char *filename; /* for diagnostics; may be NULL */
  rc_kernel **kernels;
  uint32_t nkernels, kernelcap;
  rc_strmap kernel_names; /* name -> kernel */
  /* What a frontend keeps of the module it read, for the matching backend (NULL when none): the
   * LLVM bridge keeps the LLVM module itself, which export copies and edits (include/reconv/llvm.h).
   * origin_free releases it with the module. */
  void *origin;
  void (*origin_free)(void *origin);
  const char *triple;     /* LLVM path: the target triple of the origin (address-space meanings) */
  /* types beyond the basic ones (rc_type_int ... rc_type_other) */
  rc_typeinfo **types;
  uint32_t ntypes, typecap;
  rc_strmap type_index;   /* printed form -> index + 1 */
  const char **int_names; /* by width, 129 entries (arena), made on first use */
  const char **ptr_names; /* by address space, 256 entries (arena), made on first use */
  /* module-level variables */
  rc_global **globals;
  uint32_t nglobals, globalcap;
  rc_strmap global_names; /* name -> rc_global */
};

/* ---- module and kernel ------------------------------------------------------------------------ */

rc_module *rc_module_new(rc_ctx *ctx, const char *filename);
void rc_module_free(rc_module *m);
rc_kernel *rc_module_find_kernel(const rc_module *m, const char *name);
/* Take a kernel out of its module; it must not be used afterwards (its IR stays in the module's
 * arena until the module goes, its name maps are freed now). */
void rc_module_remove_kernel(rc_module *m, rc_kernel *k);
/* Deep copy of a kernel into module `into` (which may be its own module) under a new name; NULL
 * when the name is taken. Into another module, the globals it uses and the device functions it
 * calls (theirs too) come along, unless `into` has ones of those names already. References outside
 * the kernel (invalid IR) are copied as they are. */
rc_kernel *rc_kernel_clone(rc_module *into, const rc_kernel *k, const char *name);

/* Inline the call `call` (callfn, in a thread-level kernel) of a device function with a body: the
 * call's block is split after the call (the rest goes to a new block, RC_BLOCK_VIRTUAL, named
 * "<block>.<prefix>.ret"), the callee's blocks are copied in as "<block>.<prefix>.<callee block>"
 * (flags kept: a callee's flow blocks stay flow blocks), its parameters replaced by the call's
 * arguments, each `ret` jumps to the rest, and the call's result is the returned value (a phi when
 * several blocks return). New blocks are appended: the kernel's blocks keep their ids. Returns the
 * block holding the rest, or NULL (nothing changed) when the callee has no blocks. */
rc_block *rc_inline_call(rc_instr *call, const char *prefix);
/* Inline every call of k, the callees' own calls too (each copied block flagged RC_BLOCK_INLINED),
 * until none is left or k has grown by max_new_blocks blocks (a recursion, which OpenCL C forbids).
 * Returns the number of calls inlined, or -1 with *stuck the call at which the limit was reached. */
long rc_inline_calls(rc_kernel *k, uint32_t max_new_blocks, const rc_instr **stuck);

rc_kernel *rc_kernel_new(rc_module *m, const char *name); /* NULL if the name is taken */
/* A device function with result type ret (RC_VOID: none); NULL if the name is taken. */
rc_kernel *rc_function_new(rc_module *m, const char *name, rc_type ret);
/* A module-level variable holding a vtype in address space `addrspace`, zero-initialised unless
 * init (rc_type_alloc_size(m, vtype) bytes, copied) is given; NULL if the name is taken. */
rc_global *rc_global_new(rc_module *m, const char *name, rc_type vtype, unsigned addrspace,
                         bool is_const, const void *init);
rc_global *rc_module_find_global(const rc_module *m, const char *name);
/* Parameters must be added before any instruction, so a parameter's id is its index. */
rc_value *rc_kernel_add_param(rc_kernel *k, rc_type t, const char *name);
rc_reg *rc_kernel_add_reg(rc_kernel *k, rc_type t, bool scalar, const char *name);
rc_reg *rc_kernel_find_reg(const rc_kernel *k, const char *name);
void rc_kernel_set_run_spec(rc_kernel *k, const char *spec);

/* Names. Block names are unique; a NULL or taken name gets a fresh one derived from `base`
 * (FLOW0, FLOW1, ...). Value names are unique when set (NULL = unnamed). */
rc_block *rc_kernel_find_block(const rc_kernel *k, const char *name);
rc_value *rc_kernel_find_value(const rc_kernel *k, const char *name);
const char *rc_kernel_fresh_name(rc_kernel *k, const char *base); /* "base" or "baseN" */
bool rc_value_set_name(rc_kernel *k, rc_value *v, const char *name); /* false if taken */

/* ---- blocks and edges -------------------------------------------------------------------------- */

/* A new empty block appended to the kernel. name NULL: fresh "bb"N. A taken name is made unique
 * by appending a number. */
rc_block *rc_block_new(rc_kernel *k, const char *name);
/* Move a block to position `index` in kernel->blocks (ids are renumbered). */
void rc_block_move(rc_block *b, uint32_t index);
/* Lay the kernel's blocks out as blocks[0 .. n) (a permutation of all of them, n == nblocks; ids are
 * renumbered; the first is the entry). */
void rc_kernel_set_block_order(rc_kernel *k, rc_block *const *blocks, uint32_t n);
/* Exchange the bodies of two kernels of one module (parameters, blocks, registers, values, names,
 * level), so that a transform tried on a copy can be adopted without running it again; name, run
 * specification, origin and source position stay. */
void rc_kernel_swap_bodies(rc_kernel *a, rc_kernel *b);
/* Remove a block: drops its outgoing edges (updating successors' preds and phis) and removes it
 * from the kernel. It must have no predecessors left. */
void rc_block_remove(rc_block *b);
/* Remove every block with dead[id] set in one pass (O(blocks)); same conditions. */
void rc_kernel_remove_blocks(rc_kernel *k, const bool *dead);

/* last instruction if a terminator, else NULL (inline, as rc_opcode_is_terminator) */
static inline rc_instr *rc_block_term(const rc_block *b) {
  return b->last && rc_opcode_is_terminator((rc_opcode)b->last->op) ? b->last : NULL;
}
uint32_t rc_block_nsuccs(const rc_block *b);
rc_block *rc_block_succ(const rc_block *b, uint32_t i);
rc_instr *rc_block_first_nonphi(const rc_block *b);
bool rc_block_has_pred(const rc_block *b, const rc_block *p);
bool rc_block_has_barrier(const rc_block *b); /* calls @barrier() */
uint32_t rc_block_count_pred(const rc_block *b, const rc_block *p); /* number of edges p -> b */

/* Retarget successor i of a terminator: preds of old and new targets are kept right. Phis in the
 * old target are NOT touched (callers decide; see rc_phi_* and ssa repair). */
void rc_term_set_target(rc_instr *term, uint32_t i, rc_block *target);
/* Replace the terminator of b (which may have none yet) by `term` (detached, not yet in a
 * block); preds of old and new targets are updated. The old terminator is detached. */
void rc_block_set_term(rc_block *b, rc_instr *term);

/* ---- instructions ------------------------------------------------------------------------------ */

/* A detached instruction with room for `nops` operands (all NULL) and `ntargets` targets. A result
 * value id is assigned when type != RC_VOID. */
rc_instr *rc_instr_new(rc_kernel *k, rc_opcode op, rc_type type, uint32_t nops, uint32_t ntargets);
/* A detached copy of i (not a phi or terminator) in its own kernel k: the same operands, fields and
 * cases, the same origin (on the LLVM path, export writes it as a clone of that instruction). */
rc_instr *rc_instr_copy(rc_kernel *k, const rc_instr *i);
void rc_instr_append(rc_block *b, rc_instr *i);          /* at the end (after the terminator!) */
void rc_instr_prepend(rc_block *b, rc_instr *i);         /* at the start */
void rc_instr_insert_before(rc_instr *pos, rc_instr *i);
void rc_instr_insert_after(rc_instr *pos, rc_instr *i);
/* Insert before the terminator, or at the end when there is none. */
void rc_instr_insert_before_term(rc_block *b, rc_instr *i);
/* Insert after the phis. */
void rc_instr_insert_after_phis(rc_block *b, rc_instr *i);
/* Unlink from its block. For a terminator, the preds of its targets are updated. */
void rc_instr_detach(rc_instr *i);
void rc_instr_set_op(rc_instr *i, uint32_t idx, rc_value *v);
/* Give i the n values of `cases` (gep scales, shuffle masks, aggregate indices, opaque operand
 * numbers; switch cases are made by rc_instr_new), copied into k's arena; imm becomes n for
 * shufflevector and extract/insertvalue. */
void rc_instr_set_cases(rc_kernel *k, rc_instr *i, const int64_t *cases, uint32_t n);
/* Replace every use of `from` in the kernel by `to` (O(instructions)). */
void rc_kernel_replace_uses(rc_kernel *k, rc_value *from, rc_value *to);

static inline bool rc_is_instr_value(const rc_value *v) { return v->kind == RC_V_INSTR; }
static inline rc_instr *rc_value_instr(rc_value *v) {
  return v->kind == RC_V_INSTR ? (rc_instr *)v : NULL;
}

/* ---- constants --------------------------------------------------------------------------------- */

rc_value *rc_const_int(rc_kernel *k, rc_type t, int64_t value); /* ints, ptr, mask */
rc_value *rc_const_float(rc_kernel *k, rc_type t, double value);
rc_value *rc_const_bool(rc_kernel *k, bool value);
rc_value *rc_undef(rc_kernel *k, rc_type t);
/* A constant of composite type t from one constant per element or field (copied). */
rc_value *rc_const_composite(rc_kernel *k, rc_type t, rc_value *const *elems);
/* The all-zero constant of any value type (composites: zeroinitializer). */
rc_value *rc_const_zero(rc_kernel *k, rc_type t);
/* Element i of a composite constant, or NULL when it is all zero (elems == NULL). */
rc_value *rc_const_elem(const rc_value *v, uint32_t i);
bool rc_value_is_const(const rc_value *v);
int64_t rc_const_ival(const rc_value *v);
double rc_const_fval(const rc_value *v);
int64_t rc_int_canon(rc_type t, int64_t value); /* truncate to width and sign-extend */

/* ---- phis ---------------------------------------------------------------------------------------- */

rc_instr *rc_phi_new(rc_block *b, rc_type t, const char *name); /* inserted after existing phis */
void rc_phi_add_incoming(rc_instr *phi, rc_value *v, rc_block *from);
void rc_phi_remove_incoming(rc_instr *phi, uint32_t idx);
int rc_phi_index_of(const rc_instr *phi, const rc_block *from); /* -1 when absent */
rc_value *rc_phi_value_for(const rc_instr *phi, const rc_block *from); /* NULL when absent */

/* ---- the builder: instructions created at an insertion point ----------------------------------- */

typedef struct rc_builder {
  rc_kernel *k;
  rc_block *block;  /* append to this block ... */
  rc_instr *before; /* ... or insert before this instruction when not NULL */
} rc_builder;

void rc_builder_at_end(rc_builder *b, rc_block *block);
void rc_builder_before(rc_builder *b, rc_instr *pos);
void rc_builder_before_term(rc_builder *b, rc_block *block);
rc_instr *rc_build(rc_builder *b, rc_instr *i); /* insert a detached instruction; returns it */

rc_value *rc_build_binop(rc_builder *b, rc_opcode op, rc_value *x, rc_value *y, const char *name);
rc_value *rc_build_unop(rc_builder *b, rc_opcode op, rc_value *x, const char *name); /* fneg */
rc_value *rc_build_cmp(rc_builder *b, rc_cmp c, rc_value *x, rc_value *y, const char *name);
rc_value *rc_build_select(rc_builder *b, rc_value *c, rc_value *x, rc_value *y, const char *name);
rc_value *rc_build_cast(rc_builder *b, rc_opcode op, rc_value *x, rc_type to, const char *name);
rc_value *rc_build_load(rc_builder *b, rc_type t, rc_value *ptr, const char *name);
rc_instr *rc_build_store(rc_builder *b, rc_value *v, rc_value *ptr);
rc_value *rc_build_gep(rc_builder *b, rc_value *base, rc_value *index, int64_t scale,
                       const char *name);
rc_value *rc_build_alloca(rc_builder *b, int64_t bytes, const char *name);
rc_value *rc_build_localmem(rc_builder *b, int64_t bytes, const char *name);
rc_instr *rc_build_call(rc_builder *b, rc_builtin f, rc_type ret, rc_value **args, uint32_t nargs,
                        const char *name);
rc_instr *rc_build_br(rc_builder *b, rc_value *cond, rc_block *t, rc_block *f);
rc_instr *rc_build_jmp(rc_builder *b, rc_block *t);
rc_instr *rc_build_switch(rc_builder *b, rc_value *v, rc_block *dflt, const int64_t *cases,
                          rc_block *const *targets, uint32_t ncases);
rc_instr *rc_build_ret(rc_builder *b);
rc_instr *rc_build_ret_value(rc_builder *b, rc_value *v); /* functions with a result */
rc_instr *rc_build_callfn(rc_builder *b, rc_kernel *callee, rc_value **args, uint32_t nargs,
                          const char *name);
rc_instr *rc_build_unreachable(rc_builder *b);
/* wave level */
rc_value *rc_build_ballot(rc_builder *b, rc_value *cond, const char *name);
rc_value *rc_build_exec(rc_builder *b, const char *name);
rc_instr *rc_build_setexec(rc_builder *b, rc_value *mask);
rc_value *rc_build_rget(rc_builder *b, rc_reg *r, const char *name);
rc_instr *rc_build_rset(rc_builder *b, rc_reg *r, rc_value *v);
rc_instr *rc_build_brexecz(rc_builder *b, rc_block *if_empty, rc_block *otherwise);

/* ---- printing and parsing ------------------------------------------------------------------------ */

/* Print in the .rir text form (docs/ir.md). Unnamed values are printed as %0, %1, ... in order of
 * definition; print(parse(print(m))) == print(m). */
void rc_print_module(const rc_module *m, rc_strbuf *out);
void rc_print_kernel(const rc_kernel *k, rc_strbuf *out);
void rc_print_instr(const rc_instr *i, rc_strbuf *out); /* one line, for diagnostics */
void rc_print_value_ref(const rc_value *v, rc_strbuf *out); /* "%x", "5", "undef" */

/* Parse .rir text. Errors are reported through ctx as "file:line:col: error: ..." and parsing
 * stops at the first one; returns NULL then. `filename` is used in diagnostics. The text need not
 * be NUL-terminated and may contain any bytes. A module that parses is then verified
 * (rc_verify_module); a verifier error also gives NULL. */
rc_module *rc_parse_module(rc_ctx *ctx, const char *filename, const char *text, size_t len);
/* The same without the verifier run (for tools that want to show broken IR). */
rc_module *rc_parse_module_unverified(rc_ctx *ctx, const char *filename, const char *text,
                                      size_t len);
/* Read and parse the .rir file at path (rc_parse_module); a file that cannot be read is reported
 * as "path: error: cannot read: ..." and gives NULL. (LLVM IR and OpenCL C: rc_llvm_import_file.) */
rc_module *rc_parse_file(rc_ctx *ctx, const char *path);

/* ---- pictures ---------------------------------------------------------------------------------------
 * Graphviz DOT of a kernel's CFG, drawn like the thesis's figures: one box per block with its name,
 * conditional edges labelled T/F (switch edges with their case values), inserted blocks (flow,
 * guard, virtual) dashed. With analysis results, divergent branches are filled red and the edges of
 * uniform branches dotted. */
typedef struct rc_dot_opts {
  const uint8_t *divergent_branch; /* per block id, or NULL when no analysis was run */
  bool show_instructions;          /* list each block's instructions in its box */
  /* per block id: the id of the successor that post-dominates its divergent branch (its primary
   * successor, thesis Def. 15; RC_NONE: none), drawn bold; NULL: not drawn */
  const uint32_t *primary_successor;
  bool no_legend;                  /* with an analysis: leave out the legend box */
} rc_dot_opts;
void rc_dot_kernel(const rc_kernel *k, const rc_dot_opts *o, rc_strbuf *out);

/* ---- verifier ------------------------------------------------------------------------------------- */

/* Check the kernel against the rules of docs/ir.md (CFG shape, types, phis, SSA dominance, level
 * rules). Reports the first problems through the context; returns 0 when valid, -1 otherwise. */
int rc_verify_kernel(rc_ctx *ctx, const rc_kernel *k);
int rc_verify_module(rc_ctx *ctx, const rc_module *m);
/* Does one instruction of kernel k (placed or not) have valid operand and result types, by the
 * rules above? Its operands must be set; nothing is reported. */
bool rc_instr_types_ok(const rc_kernel *k, const rc_instr *i);

#ifdef __cplusplus
}
#endif
#endif
