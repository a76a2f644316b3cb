/* Which builtin an LLVM callee stands for (rc_builtin_from_llvm_name, include/reconv/ir.h): the
 * OpenCL C 1.2 built-in functions (section 6.12) as clang 14 mangles them with -nogpulib for amdgcn
 * and spir64, LLVM's intrinsics and amdgcn's. docs/builtins.md lists the names per builtin.
 *
 * OpenCL built-ins are overloaded C functions, so clang gives them Itanium C++ names:
 * `_Z <length> <name> <parameter types>`, e.g. `_Z5clampDv4_iS_S_` (clamp(int4, int4, int4)),
 * `_Z6vload4mPU3AS1Kf` (vload4(ulong, const __global float *)). The parameter types choose between
 * meanings the types of reconv's IR do not tell apart (signed or unsigned integers, the source of a
 * conversion, the element size of an async copy), so this file reads them: builtin types, vectors
 * (`Dv4_f`), pointers with qualifiers and address spaces (`PU3AS3Vj`), named types (`9ocl_event`)
 * and substitutions of earlier compound types (`S_`, `S0_` ...). Nothing else of the C++ mangling
 * grammar occurs in OpenCL C's built-in names; a name outside this subset is no builtin. */
#include "ir_internal.h"

#include <string.h>

/* ---- the subset of Itanium mangling OpenCL built-ins use ------------------------------------------ */

typedef enum { K_NONE, K_FLOAT, K_SIGNED, K_UNSIGNED, K_BOOL, K_VOID, K_NAMED } param_kind;

typedef struct param {
  param_kind kind;   /* of the scalar (behind vectors and pointers) */
  bool is_ptr;
  unsigned addrspace;/* of a pointer: the `U3ASn` qualifier (0: private/generic) */
  unsigned bytes;    /* of the value (of the pointee for a pointer): element size x lanes */
} param;

enum { MAX_PARAMS = 8, MAX_SUBST = 16 };

typedef struct mangled {
  const char *s;
  size_t n, p;
  const char *name;
  size_t len;
  unsigned nparams;
  param params[MAX_PARAMS];
  param subst[MAX_SUBST]; /* substitution candidates, in order (S_ is 0, S0_ is 1 ...) */
  unsigned nsubst;
} mangled;

static bool number(mangled *m, size_t *out) {
  size_t v = 0, start = m->p;
  while (m->p < m->n && m->s[m->p] >= '0' && m->s[m->p] <= '9') v = v * 10 + (size_t)(m->s[m->p++] - '0');
  *out = v;
  return m->p > start && v < (1u << 20);
}

static void add_subst(mangled *m, param t) {
  if (m->nsubst < MAX_SUBST) m->subst[m->nsubst++] = t;
}

static bool builtin_type(char c, param *t) {
  static const struct { char code; param_kind kind; unsigned bytes; } codes[] = {
      {'v', K_VOID, 0},     {'b', K_BOOL, 1},     {'c', K_SIGNED, 1},   {'a', K_SIGNED, 1},
      {'h', K_UNSIGNED, 1}, {'s', K_SIGNED, 2},   {'t', K_UNSIGNED, 2}, {'i', K_SIGNED, 4},
      {'j', K_UNSIGNED, 4}, {'l', K_SIGNED, 8},   {'m', K_UNSIGNED, 8}, {'x', K_SIGNED, 8},
      {'y', K_UNSIGNED, 8}, {'f', K_FLOAT, 4},    {'d', K_FLOAT, 8}};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
    if (codes[i].code == c) {
      *t = (param){codes[i].kind, false, 0, codes[i].bytes};
      return true;
    }
  return false;
}

/* One <type> of the mangling at m->p into *t; false when it is not in the subset. Iterative over
 * qualifiers and pointers (a chain of them is one loop), recursive only into a vector's element,
 * which is a builtin type. */
static bool parse_type(mangled *m, param *t) {
  bool pointer = false;
  unsigned addrspace = 0;
  unsigned wrappers = 0; /* substitution candidates the pointer and qualifiers add after the base */
  for (;;) {
    if (m->p >= m->n) return false;
    char c = m->s[m->p];
    if (c == 'P') {
      if (pointer) return false; /* pointers to pointers: no built-in takes them */
      pointer = true;
      wrappers++;
      m->p++;
    } else if (c == 'K' || c == 'V' || c == 'r') {
      m->p++;
    } else if (c == 'U') { /* vendor qualifier: U3AS1 */
      size_t len;
      m->p++;
      if (!number(m, &len) || m->p + len > m->n) return false;
      if (len == 3 && m->s[m->p] == 'A' && m->s[m->p + 1] == 'S' && m->s[m->p + 2] >= '0' && m->s[m->p + 2] <= '9')
        addrspace = (unsigned)(m->s[m->p + 2] - '0');
      m->p += len;
      wrappers++;
    } else {
      break;
    }
  }
  param base;
  char c = m->s[m->p];
  if (c == 'D' && m->p + 1 < m->n && m->s[m->p + 1] == 'h') { /* half */
    base = (param){K_FLOAT, false, 0, 2};
    m->p += 2;
  } else if (c == 'D' && m->p + 1 < m->n && m->s[m->p + 1] == 'v') { /* Dv<N>_<element> */
    size_t lanes;
    m->p += 2;
    if (!number(m, &lanes) || m->p >= m->n || m->s[m->p] != '_') return false;
    m->p++;
    param elem;
    if (m->p < m->n && m->s[m->p] == 'D' && m->p + 1 < m->n && m->s[m->p + 1] == 'h') {
      elem = (param){K_FLOAT, false, 0, 2};
      m->p += 2;
    } else if (m->p >= m->n || !builtin_type(m->s[m->p++], &elem)) {
      return false;
    }
    base = elem;
    base.bytes = elem.bytes * (unsigned)lanes;
    add_subst(m, base);
  } else if (c == 'S') { /* S_ or S<seq-id>_ (base 36) */
    size_t id = 0;
    m->p++;
    if (m->p < m->n && m->s[m->p] != '_') {
      while (m->p < m->n && m->s[m->p] != '_') {
        char d = m->s[m->p++];
        if (d >= '0' && d <= '9') id = id * 36 + (size_t)(d - '0');
        else if (d >= 'A' && d <= 'Z') id = id * 36 + (size_t)(d - 'A' + 10);
        else return false;
      }
      id++;
    }
    if (m->p >= m->n || id >= m->nsubst) return false;
    m->p++;
    base = m->subst[id];
  } else if (c >= '1' && c <= '9') { /* a named type: ocl_event, ocl_image2d_ro ... */
    size_t len;
    if (!number(m, &len) || m->p + len > m->n) return false;
    m->p += len;
    base = (param){K_NAMED, false, 0, 0};
    add_subst(m, base);
  } else if (builtin_type(c, &base)) {
    m->p++;
  } else {
    return false;
  }
  /* the qualified type and the pointer are substitution candidates of their own; what they
   * stand for here is the pointer (or the qualified value) */
  *t = base;
  if (pointer) {
    t->is_ptr = true;
    t->addrspace = addrspace;
  }
  for (unsigned w = 0; w < wrappers; w++) add_subst(m, w + 1 == wrappers ? *t : base);
  return true;
}

/* `_Z <len> <name> <types>`: false when s is not such a name (C names, intrinsics). */
static bool demangle(const char *s, size_t n, mangled *m) {
  memset(m, 0, sizeof *m);
  m->s = s;
  m->n = n;
  if (n < 3 || s[0] != '_' || s[1] != 'Z') return false;
  m->p = 2;
  size_t len;
  if (!number(m, &len) || m->p + len > n) return false;
  m->name = s + m->p;
  m->len = len;
  m->p += len;
  while (m->p < n) {
    param t;
    if (m->nparams == MAX_PARAMS || !parse_type(m, &t)) return false;
    m->params[m->nparams++] = t;
  }
  return true;
}

/* ---- names ---------------------------------------------------------------------------------------- */

static bool is(const char *s, size_t n, const char *w) { return strlen(w) == n && memcmp(s, w, n) == 0; }

static bool has_prefix(const char *s, size_t n, const char *p) {
  size_t k = strlen(p);
  return n >= k && memcmp(s, p, k) == 0;
}

/* "llvm.sqrt" names llvm.sqrt and llvm.sqrt.f32, not llvm.sqrtx */
static bool intrinsic_family(const char *s, size_t n, const char *base) {
  size_t k = strlen(base);
  return has_prefix(s, n, base) && (n == k || s[k] == '.');
}

/* LLVM and amdgcn intrinsics, by family. */
static const struct { const char *name; rc_builtin bi; } intrinsics[] = {
    /* what changes nothing a simulated thread can observe */
    {"llvm.lifetime.start", RC_BI_NOP}, {"llvm.lifetime.end", RC_BI_NOP}, {"llvm.assume", RC_BI_NOP},
    {"llvm.dbg.value", RC_BI_NOP}, {"llvm.dbg.declare", RC_BI_NOP}, {"llvm.dbg.label", RC_BI_NOP},
    {"llvm.experimental.noalias.scope.decl", RC_BI_NOP}, {"llvm.invariant.start", RC_BI_NOP},
    {"llvm.invariant.end", RC_BI_NOP}, {"llvm.donothing", RC_BI_NOP}, {"llvm.sideeffect", RC_BI_NOP},
    {"llvm.amdgcn.s.waitcnt", RC_BI_NOP}, {"llvm.prefetch", RC_BI_NOP},
    /* values passed through: a hint, a canonical NaN or denormal (reconv's values are canonical) */
    {"llvm.expect", RC_BI_IDENTITY}, {"llvm.canonicalize", RC_BI_IDENTITY},
    {"llvm.amdgcn.workitem.id.x", RC_BI_LOCAL_ID_X}, {"llvm.amdgcn.workitem.id.y", RC_BI_LOCAL_ID_Y},
    {"llvm.amdgcn.workitem.id.z", RC_BI_LOCAL_ID_Z}, {"llvm.amdgcn.workgroup.id.x", RC_BI_GROUP_ID_X},
    {"llvm.amdgcn.workgroup.id.y", RC_BI_GROUP_ID_Y}, {"llvm.amdgcn.workgroup.id.z", RC_BI_GROUP_ID_Z},
    {"llvm.amdgcn.dispatch.ptr", RC_BI_DISPATCH_PTR}, {"llvm.amdgcn.implicitarg.ptr", RC_BI_IMPLICITARG_PTR},
    {"llvm.amdgcn.mbcnt.lo", RC_BI_MBCNT_LO}, {"llvm.amdgcn.mbcnt.hi", RC_BI_MBCNT_HI},
    {"llvm.amdgcn.readfirstlane", RC_BI_READFIRSTLANE}, {"llvm.amdgcn.s.barrier", RC_BI_BARRIER},
    {"llvm.amdgcn.rsq", RC_BI_RSQRT}, {"llvm.amdgcn.fract", RC_BI_AMDGCN_FRACT},
    {"llvm.amdgcn.frexp.mant", RC_BI_FREXP_MANT}, {"llvm.amdgcn.frexp.exp", RC_BI_FREXP_EXP},
    {"llvm.amdgcn.class", RC_BI_FP_CLASS}, {"llvm.amdgcn.sin", RC_BI_AMDGCN_SIN},
    {"llvm.amdgcn.cos", RC_BI_AMDGCN_COS}, {"llvm.amdgcn.fmed3", RC_BI_FMED3},
    {"llvm.amdgcn.ubfe", RC_BI_UBFE}, {"llvm.amdgcn.sbfe", RC_BI_SBFE}, {"llvm.amdgcn.ldexp", RC_BI_LDEXP},
    /* LLVM 16+ spells OpenCL's ldexp as a target-independent intrinsic (clang 19 emits it) */
    {"llvm.ldexp", RC_BI_LDEXP},
    {"llvm.memcpy", RC_BI_MEMCPY}, {"llvm.memset", RC_BI_MEMSET},
    {"llvm.sqrt", RC_BI_SQRT}, {"llvm.fabs", RC_BI_FABS}, {"llvm.floor", RC_BI_FLOOR},
    {"llvm.ceil", RC_BI_CEIL}, {"llvm.trunc", RC_BI_FTRUNC}, {"llvm.round", RC_BI_ROUND},
    {"llvm.exp", RC_BI_EXP}, {"llvm.exp2", RC_BI_EXP2}, {"llvm.log", RC_BI_LOG}, {"llvm.log2", RC_BI_LOG2},
    {"llvm.log10", RC_BI_LOG10}, {"llvm.sin", RC_BI_SIN}, {"llvm.cos", RC_BI_COS},
    {"llvm.minnum", RC_BI_FMIN}, {"llvm.maxnum", RC_BI_FMAX}, {"llvm.pow", RC_BI_POW},
    {"llvm.copysign", RC_BI_COPYSIGN}, {"llvm.fma", RC_BI_FMA},
    /* fused or not, as the target likes; never the same builtin as fma, which is always fused (a
     * host without fused multiply-add computes them differently) */
    {"llvm.fmuladd", RC_BI_FMULADD},
    {"llvm.rint", RC_BI_RINT}, {"llvm.nearbyint", RC_BI_RINT},
    {"llvm.minimum", RC_BI_FMINIMUM}, {"llvm.maximum", RC_BI_FMAXIMUM},
    {"llvm.smin", RC_BI_SMIN}, {"llvm.smax", RC_BI_SMAX}, {"llvm.umin", RC_BI_UMIN}, {"llvm.umax", RC_BI_UMAX},
    {"llvm.abs", RC_BI_ABS}, {"llvm.ctpop", RC_BI_CTPOP}, {"llvm.ctlz", RC_BI_CLZ}, {"llvm.cttz", RC_BI_CTZ},
    {"llvm.sadd.sat", RC_BI_ADD_SAT_S}, {"llvm.uadd.sat", RC_BI_ADD_SAT_U},
    {"llvm.ssub.sat", RC_BI_SUB_SAT_S}, {"llvm.usub.sat", RC_BI_SUB_SAT_U},
    {"llvm.bswap", RC_BI_BSWAP}, {"llvm.bitreverse", RC_BI_BITREVERSE},
    {"llvm.fshl", RC_BI_FSHL}, {"llvm.fshr", RC_BI_FSHR},
    {"llvm.vector.reduce.add", RC_BI_REDUCE_ADD}, {"llvm.vector.reduce.mul", RC_BI_REDUCE_MUL},
    {"llvm.vector.reduce.and", RC_BI_REDUCE_AND}, {"llvm.vector.reduce.or", RC_BI_REDUCE_OR},
    {"llvm.vector.reduce.xor", RC_BI_REDUCE_XOR}, {"llvm.vector.reduce.smin", RC_BI_REDUCE_SMIN},
    {"llvm.vector.reduce.smax", RC_BI_REDUCE_SMAX}, {"llvm.vector.reduce.umin", RC_BI_REDUCE_UMIN},
    {"llvm.vector.reduce.umax", RC_BI_REDUCE_UMAX}, {"llvm.vector.reduce.fmin", RC_BI_REDUCE_FMIN},
    {"llvm.vector.reduce.fmax", RC_BI_REDUCE_FMAX}, {"llvm.vector.reduce.fadd", RC_BI_REDUCE_FADD},
    {"llvm.vector.reduce.fmul", RC_BI_REDUCE_FMUL},
    /* {result, overflow}: the simulators split them into the operation and its *_ov builtin */
    {"llvm.sadd.with.overflow", RC_BI_SADD_WITH_OVERFLOW}, {"llvm.uadd.with.overflow", RC_BI_UADD_WITH_OVERFLOW},
    {"llvm.ssub.with.overflow", RC_BI_SSUB_WITH_OVERFLOW}, {"llvm.usub.with.overflow", RC_BI_USUB_WITH_OVERFLOW},
    {"llvm.smul.with.overflow", RC_BI_SMUL_WITH_OVERFLOW}, {"llvm.umul.with.overflow", RC_BI_UMUL_WITH_OVERFLOW},
};

/* OpenCL names whose builtin is the same name (section 6.12.2, 6.12.4, 6.12.5, 6.12.6). */
static const rc_builtin same_name[] = {
    RC_BI_SQRT, RC_BI_FABS, RC_BI_FLOOR, RC_BI_CEIL, RC_BI_ROUND, RC_BI_EXP, RC_BI_EXP2, RC_BI_LOG,
    RC_BI_LOG2, RC_BI_SIN, RC_BI_COS, RC_BI_RSQRT, RC_BI_FMIN, RC_BI_FMAX, RC_BI_POW, RC_BI_COPYSIGN,
    RC_BI_FMA, RC_BI_RINT, RC_BI_ACOS, RC_BI_ACOSH, RC_BI_ACOSPI, RC_BI_ASIN, RC_BI_ASINH, RC_BI_ASINPI,
    RC_BI_ATAN, RC_BI_ATAN2, RC_BI_ATANH, RC_BI_ATANPI, RC_BI_ATAN2PI, RC_BI_CBRT, RC_BI_COSH, RC_BI_COSPI,
    RC_BI_ERF, RC_BI_ERFC, RC_BI_EXP10, RC_BI_EXPM1, RC_BI_FDIM, RC_BI_FMOD, RC_BI_HYPOT, RC_BI_LGAMMA,
    RC_BI_LOG10, RC_BI_LOG1P, RC_BI_LOGB, RC_BI_MAXMAG, RC_BI_MINMAG, RC_BI_NEXTAFTER, RC_BI_POWR,
    RC_BI_REMAINDER, RC_BI_SINH, RC_BI_SINPI, RC_BI_TAN, RC_BI_TANH, RC_BI_TANPI, RC_BI_TGAMMA,
    RC_BI_LDEXP, RC_BI_POWN, RC_BI_ROOTN, RC_BI_ILOGB, RC_BI_NAN, RC_BI_FRACT, RC_BI_MODF, RC_BI_SINCOS,
    RC_BI_FREXP, RC_BI_LGAMMA_R, RC_BI_REMQUO, RC_BI_DEGREES, RC_BI_RADIANS, RC_BI_MIX, RC_BI_STEP,
    RC_BI_SMOOTHSTEP, RC_BI_SIGN, RC_BI_ROTATE, RC_BI_UPSAMPLE, RC_BI_ISEQUAL, RC_BI_ISNOTEQUAL,
    RC_BI_ISGREATER, RC_BI_ISGREATEREQUAL, RC_BI_ISLESS, RC_BI_ISLESSEQUAL, RC_BI_ISLESSGREATER,
    RC_BI_ISFINITE, RC_BI_ISINF, RC_BI_ISNAN, RC_BI_ISNORMAL, RC_BI_ISORDERED, RC_BI_ISUNORDERED,
    RC_BI_SIGNBIT, RC_BI_ANY, RC_BI_ALL, RC_BI_BITSELECT, RC_BI_SELECT, RC_BI_CROSS, RC_BI_DOT,
    RC_BI_DISTANCE, RC_BI_LENGTH, RC_BI_NORMALIZE, RC_BI_SHUFFLE, RC_BI_SHUFFLE2};

/* OpenCL names with other spellings: the implementation-defined precisions (native_, half_,
 * fast_) compute what reconv's exact builtin computes, within their allowed error. */
static const struct { const char *name; rc_builtin bi; } renamed[] = {
    {"get_global_id", RC_BI_GLOBAL_ID}, {"get_local_id", RC_BI_LOCAL_ID}, {"get_group_id", RC_BI_GROUP_ID},
    {"get_global_size", RC_BI_GLOBAL_SIZE}, {"get_local_size", RC_BI_LOCAL_SIZE},
    {"get_num_groups", RC_BI_NUM_GROUPS}, {"get_sub_group_local_id", RC_BI_LANE_ID},
    {"get_sub_group_size", RC_BI_WAVE_SIZE},
    {"trunc", RC_BI_FTRUNC}, {"mad", RC_BI_FMULADD}, {"popcount", RC_BI_CTPOP}, {"clz", RC_BI_CLZ},
    {"ctz", RC_BI_CTZ}, {"get_work_dim", RC_BI_WORK_DIM}, {"get_global_offset", RC_BI_GLOBAL_OFFSET},
    {"barrier", RC_BI_BARRIER}, {"work_group_barrier", RC_BI_BARRIER}, {"mem_fence", RC_BI_FENCE},
    {"read_mem_fence", RC_BI_FENCE}, {"write_mem_fence", RC_BI_FENCE},
    /* the async copies complete at once on reconv's machines: waiting is nothing */
    {"wait_group_events", RC_BI_NOP}, {"prefetch", RC_BI_NOP},
    {"native_divide", RC_BI_DIVIDE}, {"half_divide", RC_BI_DIVIDE}, {"native_recip", RC_BI_RECIP},
    {"half_recip", RC_BI_RECIP}, {"fast_length", RC_BI_LENGTH}, {"fast_distance", RC_BI_DISTANCE},
    {"fast_normalize", RC_BI_NORMALIZE}, {"vload_half", RC_BI_VLOAD_HALF}, {"vloada_half", RC_BI_VLOADA_HALF},
};

/* native_X and half_X for these X */
static const rc_builtin precisions[] = {RC_BI_COS, RC_BI_EXP, RC_BI_EXP2, RC_BI_EXP10, RC_BI_LOG,
                                        RC_BI_LOG2, RC_BI_LOG10, RC_BI_POWR, RC_BI_RSQRT, RC_BI_SIN,
                                        RC_BI_SQRT, RC_BI_TAN};

/* Integer functions with a signed and an unsigned builtin: the first parameter decides. */
static const struct { const char *name; rc_builtin s, u; } by_sign[] = {
    {"abs_diff", RC_BI_ABS_DIFF_S, RC_BI_ABS_DIFF_U}, {"add_sat", RC_BI_ADD_SAT_S, RC_BI_ADD_SAT_U},
    {"sub_sat", RC_BI_SUB_SAT_S, RC_BI_SUB_SAT_U},    {"hadd", RC_BI_HADD_S, RC_BI_HADD_U},
    {"rhadd", RC_BI_RHADD_S, RC_BI_RHADD_U},          {"mul_hi", RC_BI_MUL_HI_S, RC_BI_MUL_HI_U},
    {"mad_hi", RC_BI_MAD_HI_S, RC_BI_MAD_HI_U},       {"mad_sat", RC_BI_MAD_SAT_S, RC_BI_MAD_SAT_U},
    {"mul24", RC_BI_MUL24_S, RC_BI_MUL24_U},          {"mad24", RC_BI_MAD24_S, RC_BI_MAD24_U},
    {"min", RC_BI_SMIN, RC_BI_UMIN},                  {"max", RC_BI_SMAX, RC_BI_UMAX},
    {"clamp", RC_BI_CLAMP_S, RC_BI_CLAMP_U},
};

/* The read-modify-write atomics (section 6.12.11, and atom_ of the 64-bit extensions). */
static const struct { const char *op; rc_builtin s, u; } atomics[] = {
    {"add", RC_BI_ATOMIC_ADD, RC_BI_ATOMIC_ADD},   {"sub", RC_BI_ATOMIC_SUB, RC_BI_ATOMIC_SUB},
    {"xchg", RC_BI_ATOMIC_XCHG, RC_BI_ATOMIC_XCHG}, {"and", RC_BI_ATOMIC_AND, RC_BI_ATOMIC_AND},
    {"or", RC_BI_ATOMIC_OR, RC_BI_ATOMIC_OR},      {"xor", RC_BI_ATOMIC_XOR, RC_BI_ATOMIC_XOR},
    {"min", RC_BI_ATOMIC_SMIN, RC_BI_ATOMIC_UMIN}, {"max", RC_BI_ATOMIC_SMAX, RC_BI_ATOMIC_UMAX},
    {"inc", RC_BI_ATOMIC_INC, RC_BI_ATOMIC_INC},   {"dec", RC_BI_ATOMIC_DEC, RC_BI_ATOMIC_DEC},
    {"cmpxchg", RC_BI_ATOMIC_CMPXCHG, RC_BI_ATOMIC_CMPXCHG}};

static int64_t kind_mod(param_kind k) {
  return k == K_FLOAT ? RC_BM_FLOAT : k == K_UNSIGNED || k == K_BOOL ? RC_BM_UNSIGNED : RC_BM_SIGNED;
}

/* "_rte" ... at the end of s: the rounding modifier, and how many bytes it takes. */
static size_t rounding_suffix(const char *s, size_t n, int64_t *imm) {
  static const char *const names[] = {"_rte", "_rtz", "_rtp", "_rtn"};
  static const int64_t mods[] = {RC_BM_RTE, RC_BM_RTZ, RC_BM_RTP, RC_BM_RTN};
  for (int i = 0; i < 4; i++)
    if (n >= 4 && memcmp(s + n - 4, names[i], 4) == 0) {
      *imm |= mods[i];
      return 4;
    }
  return 0;
}

/* convert_<type>[N][_sat][_rtX] (section 6.2.3) from a parameter of kind src. */
static int convert_of(const char *s, size_t n, param_kind src, int64_t *imm) {
  n -= rounding_suffix(s, n, imm);
  if (n >= 4 && memcmp(s + n - 4, "_sat", 4) == 0) {
    *imm |= RC_BM_SAT;
    n -= 4;
  }
  while (n > 0 && s[n - 1] >= '0' && s[n - 1] <= '9') n--; /* the vector width is in the types */
  static const struct { const char *name; int64_t kind; } dsts[] = {
      {"char", RC_BM_SIGNED},  {"uchar", RC_BM_UNSIGNED}, {"short", RC_BM_SIGNED}, {"ushort", RC_BM_UNSIGNED},
      {"int", RC_BM_SIGNED},   {"uint", RC_BM_UNSIGNED},  {"long", RC_BM_SIGNED},  {"ulong", RC_BM_UNSIGNED},
      {"float", RC_BM_FLOAT},  {"double", RC_BM_FLOAT},   {"half", RC_BM_FLOAT}};
  for (size_t i = 0; i < sizeof dsts / sizeof dsts[0]; i++)
    if (is(s, n, dsts[i].name)) {
      if ((*imm & RC_BM_SAT) && dsts[i].kind == RC_BM_FLOAT) return -1;
      *imm |= kind_mod(src) << RC_BM_SRC_SHIFT | dsts[i].kind << RC_BM_DST_SHIFT;
      return RC_BI_CONVERT;
    }
  return -1;
}

/* The builtin of an OpenCL name with its parameters, or -1. */
static int opencl_builtin(const mangled *m, int64_t *imm) {
  const char *s = m->name;
  size_t n = m->len;
  param_kind k0 = m->nparams ? m->params[0].kind : K_NONE;
  bool unsigned0 = k0 == K_UNSIGNED, float0 = k0 == K_FLOAT;
  for (size_t i = 0; i < sizeof renamed / sizeof renamed[0]; i++)
    if (is(s, n, renamed[i].name)) return (int)renamed[i].bi;
  if (float0 && (is(s, n, "min") || is(s, n, "max") || is(s, n, "clamp")))
    return is(s, n, "min") ? RC_BI_FMIN : is(s, n, "max") ? RC_BI_FMAX : RC_BI_FCLAMP;
  /* abs of an unsigned integer is the integer */
  if (is(s, n, "abs")) return unsigned0 ? RC_BI_IDENTITY : float0 ? -1 : RC_BI_ABS;
  for (size_t i = 0; i < sizeof by_sign / sizeof by_sign[0]; i++)
    if (is(s, n, by_sign[i].name)) return float0 ? -1 : (int)(unsigned0 ? by_sign[i].u : by_sign[i].s);
  for (size_t i = 0; i < sizeof same_name / sizeof same_name[0]; i++)
    if (is(s, n, rc_builtin_get(same_name[i])->name)) return (int)same_name[i];
  for (size_t i = 0; i < sizeof precisions / sizeof precisions[0]; i++) {
    const char *base = rc_builtin_get(precisions[i])->name;
    if ((has_prefix(s, n, "native_") && is(s + 7, n - 7, base)) || (has_prefix(s, n, "half_") && is(s + 5, n - 5, base)))
      return (int)precisions[i];
  }
  if (has_prefix(s, n, "atomic_") || has_prefix(s, n, "atom_")) {
    size_t skip = s[4] == '_' ? 5 : 7;
    /* the operand's signedness is the pointee's: parameter 0 is the pointer */
    for (size_t i = 0; i < sizeof atomics / sizeof atomics[0]; i++)
      if (is(s + skip, n - skip, atomics[i].op)) return (int)(unsigned0 ? atomics[i].u : atomics[i].s);
    return -1;
  }
  if (has_prefix(s, n, "convert_")) return m->nparams == 1 ? convert_of(s + 8, n - 8, k0, imm) : -1;
  if (has_prefix(s, n, "async_work_group_")) {
    if (m->nparams < 2 || !m->params[0].is_ptr || m->params[0].bytes == 0 || m->params[0].bytes > 256) return -1;
    *imm = m->params[0].bytes;
    if (is(s, n, "async_work_group_copy")) return RC_BI_ASYNC_COPY;
    if (!is(s, n, "async_work_group_strided_copy")) return -1;
    /* to global memory, the destination is strided (section 6.12.10) */
    if (m->params[0].addrspace == 1) *imm |= RC_BM_STRIDE_DST;
    return RC_BI_ASYNC_COPY_STRIDED;
  }
  /* vloadN, vstoreN, vload_halfN, vstore_halfN[_rtX], vloada_halfN, vstorea_halfN[_rtX] */
  size_t r = rounding_suffix(s, n, imm);
  size_t stem = n - r;
  while (stem > 0 && s[stem - 1] >= '0' && s[stem - 1] <= '9') stem--;
  if (stem != n - r || r) {
    if (!r && is(s, stem, "vload")) return RC_BI_VLOAD;
    if (!r && is(s, stem, "vstore")) return RC_BI_VSTORE;
    if (!r && is(s, stem, "vload_half")) return RC_BI_VLOAD_HALF;
    if (!r && is(s, stem, "vloada_half")) return RC_BI_VLOADA_HALF;
    if (is(s, stem, "vstore_half")) return RC_BI_VSTORE_HALF;
    if (is(s, stem, "vstorea_half")) return RC_BI_VSTOREA_HALF;
    *imm = 0;
    return -1;
  }
  if (is(s, n, "vstore_half")) return RC_BI_VSTORE_HALF;
  if (is(s, n, "vstorea_half")) return RC_BI_VSTOREA_HALF;
  return -1;
}

int rc_builtin_from_llvm_name(const char *name, size_t n, rc_builtin_match *m) {
  memset(m, 0, sizeof *m);
  m->builtin = -1;
  int bi = -1;
  if (has_prefix(name, n, "llvm.")) {
    for (size_t i = 0; i < sizeof intrinsics / sizeof intrinsics[0] && bi < 0; i++)
      if (intrinsic_family(name, n, intrinsics[i].name)) bi = (int)intrinsics[i].bi;
  } else {
    mangled d;
    int64_t imm = 0;
    if (demangle(name, n, &d)) {
      bi = opencl_builtin(&d, &imm);
      for (unsigned p = 0; p < d.nparams && p < 32; p++)
        if (d.params[p].kind == K_SIGNED) m->signed_args |= 1u << p;
    } else {
      /* a C name: clang keeps the built-ins' names unmangled only where they are not overloaded
       * (none of OpenCL's), but a kernel may call a function it declares itself by such a name */
      return -1;
    }
    if (bi < 0) {
      m->signed_args = 0;
      return -1;
    }
    m->imm = imm;
  }
  if (bi < 0) return -1;
  /* the builtin takes the call's first arguments: barrier's and fence's flags, llvm.memcpy's
   * volatile flag, llvm.ctlz's zero-is-poison flag, a lifetime's size and pointer, the event of an
   * async copy are dropped */
  m->builtin = bi;
  m->nargs = rc_builtin_get((rc_builtin)bi)->nargs;
  return bi;
}
