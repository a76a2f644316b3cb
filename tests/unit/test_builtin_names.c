/* rc_builtin_from_llvm_name (src/ir/builtin_names.c): OpenCL C built-ins as clang 14 mangles them
 * for spir64 and amdgcn (the names below are copied from clang's output for kernels calling
 * them), LLVM's and amdgcn's intrinsics, and names that are no builtin. */
#include "test.h"

#include <stdlib.h>

typedef struct expect {
  const char *llvm;    /* the callee's name */
  const char *builtin; /* rc_builtin_spell of the match, or NULL: no builtin */
  unsigned nargs;      /* arguments the builtin takes */
  uint32_t signed_args;
} expect;

static const expect cases[] = {
    {"_Z13get_global_idj", "global_id", 1, 0},
    {"_Z6vload4mPU3AS1Kf", "vload", 2, 0},
    {"_Z5fractfPU3AS1f", "fract", 2, 0},
    {"_Z6sincosfPU3AS3f", "sincos", 2, 0},
    {"_Z5frexpfPU3AS1i", "frexp", 2, 2},
    {"_Z6remquoffPU3AS1i", "remquo", 3, 4},
    {"_Z5ldexpfi", "ldexp", 2, 2},
    {"_Z4pownfi", "pown", 2, 2},
    {"_Z9half_sqrtf", "sqrt", 1, 0},
    {"_Z11native_powrff", "powr", 2, 0},
    {"_Z10native_sinf", "sin", 1, 0},
    {"_Z13native_divideff", "divide", 2, 0},
    /* a substitution of the vector type behind a pointer */
    {"_Z5fractDv4_fPU3AS1S_", "fract", 2, 0},
    {"_Z5clampDv4_fS_S_", "fclamp", 3, 0},
    {"_Z5clampDv4_iS_S_", "clamp_s", 3, 7},
    {"_Z5clampjjj", "clamp_u", 3, 0},
    {"_Z6selectDv4_fS_Dv4_i", "select", 3, 4},
    {"_Z12convert_int4Dv4_f", "convert.fs", 1, 0},
    {"_Z3mixDv4_fS_f", "mix", 3, 0},
    {"_Z4stepfDv4_f", "step", 2, 0},
    {"_Z10smoothstepffDv4_f", "smoothstep", 3, 0},
    {"_Z5crossDv4_fS_", "cross", 2, 0},
    {"_Z9normalizeDv4_f", "normalize", 1, 0},
    {"_Z8distanceDv4_fS_", "distance", 2, 0},
    {"_Z11fast_lengthDv2_f", "length", 1, 0},
    {"_Z8upsamplest", "upsample", 2, 1},
    {"_Z8upsamplett", "upsample", 2, 0},
    {"_Z7mad_satiii", "mad_sat_s", 3, 7},
    {"_Z7mad_satjjj", "mad_sat_u", 3, 0},
    {"_Z4haddii", "hadd_s", 2, 3},
    {"_Z5isnanf", "isnan", 1, 0},
    {"_Z3anyDv4_i", "any", 1, 1},
    {"_Z7signbitf", "signbit", 1, 0},
    {"_Z6islessff", "isless", 2, 0},
    {"_Z5mad24jjj", "mad24_u", 3, 0},
    {"_Z5mul24ii", "mul24_s", 2, 3},
    {"_Z8popcountj", "ctpop", 1, 0},
    {"_Z3clzj", "clz", 1, 0},
    {"_Z5rhaddjj", "rhadd_u", 2, 0},
    {"_Z3minii", "smin", 2, 3},
    {"_Z3maxjj", "umax", 2, 0},
    {"_Z3minff", "fmin", 2, 0},
    {"_Z3maxDv4_ff", "fmax", 2, 0},
    {"_Z3absi", "abs", 1, 1},
    {"_Z3absj", "identity", 1, 0},
    {"_Z14atomic_cmpxchgPU3AS1Vjjj", "atomic_cmpxchg", 3, 0},
    {"_Z11atomic_xchgPU3AS1Vjj", "atomic_xchg", 2, 0},
    {"_Z10atomic_minPU3AS1Vjj", "atomic_umin", 2, 0},
    {"_Z10atomic_maxPU3AS3Vii", "atomic_smax", 2, 3},
    {"_Z10atomic_incPU3AS3Vj", "atomic_inc", 1, 0},
    {"_Z8atom_addPU3AS1Vll", "atomic_add", 2, 3},
    {"_Z3fmaddd", "fma", 3, 0},
    {"_Z3madfff", "fmuladd", 3, 0},
    {"_Z7atan2pidd", "atan2pi", 2, 0},
    {"_Z5ilogbd", "ilogb", 1, 0},
    {"_Z3nanm", "nan", 1, 0},
    {"_Z5truncf", "ftrunc", 1, 0},
    {"_Z17convert_uchar_satf", "convert.fu.sat", 1, 0},
    {"_Z16convert_long_rtzd", "convert.fs.rtz", 1, 0},
    {"_Z18convert_float4_rtpDv4_j", "convert.uf.rtp", 1, 0},
    {"_Z8abs_diffhh", "abs_diff_u", 2, 0},
    {"_Z7add_sathh", "add_sat_u", 2, 0},
    {"_Z9bitselecthhh", "bitselect", 3, 0},
    {"_Z6mul_hill", "mul_hi_s", 2, 3},
    {"_Z6rotateii", "rotate", 2, 3},
    {"_Z11vstore_halffmPU3AS1Dh", "vstore_half", 3, 0},
    {"_Z16vstore_half4_rtzDv4_fmPU3AS1Dh", "vstore_half.rtz", 3, 0},
    {"_Z10vload_halfmPU3AS1KDh", "vload_half", 2, 0},
    {"_Z7vstore4Dv4_fmPU3AS1f", "vstore", 3, 0},
    /* the element size of the copy comes from the destination's pointee; to global memory the
     * destination is strided */
    {"_Z29async_work_group_strided_copyPU3AS1fPU3AS3Kfmm9ocl_event", "async_copy_strided.4.dst", 4, 0},
    {"_Z21async_work_group_copyPU3AS3Dv4_fPU3AS1KS_m9ocl_event", "async_copy.16", 3, 0},
    {"_Z17wait_group_eventsiP9ocl_event", "nop", 0, 1},
    {"_Z7barrierj", "barrier", 0, 0},
    {"_Z9mem_fencej", "fence", 0, 0},
    {"_Z12get_work_dimv", "work_dim", 0, 0},
    /* intrinsics, by family */
    {"llvm.fmuladd.f32", "fmuladd", 3, 0},
    {"llvm.fma.v4f32", "fma", 3, 0},
    {"llvm.usub.sat.i32", "sub_sat_u", 2, 0},
    {"llvm.sadd.sat.v2i16", "add_sat_s", 2, 0},
    {"llvm.fshl.i32", "fshl", 3, 0},
    {"llvm.sadd.with.overflow.i32", "sadd_with_overflow", 2, 0},
    {"llvm.umul.with.overflow.i64", "umul_with_overflow", 2, 0},
    {"llvm.usub.with.overflow.v2i32", "usub_with_overflow", 2, 0},
    {"_Z7shuffleDv4_fDv4_j", "shuffle", 2, 0},
    {"_Z8shuffle2Dv4_fS_Dv4_j", "shuffle2", 3, 0},
    {"_Z7shuffleDv8_iDv4_j", "shuffle", 2, 1},
    {"llvm.ctlz.i32", "clz", 1, 0},
    {"llvm.memcpy.p0i8.p1i8.i64", "memcpy", 3, 0},
    {"llvm.lifetime.start.p0i8", "nop", 0, 0},
    {"llvm.amdgcn.workitem.id.x", "local_id.x", 0, 0},
    {"llvm.amdgcn.class.f32", "fp_class", 2, 0},
    {"llvm.expect.i1", "identity", 1, 0},
    /* no builtins */
    {"llvm.sqrtx.f32", NULL, 0, 0},
    {"llvm.experimental.vector.reduce.add.v4i32", NULL, 0, 0},
    {"_Z3fooi", NULL, 0, 0},
    {"_Z8abs_diffff", NULL, 0, 0}, /* abs_diff has no float form */
    {"_Z3absf", NULL, 0, 0},
    {"_Z12convert_boolf", NULL, 0, 0},
    {"_Z16convert_float_satf", NULL, 0, 0}, /* _sat is for integer results only */
    {"_Z5vloadXmPU3AS1Kf", NULL, 0, 0},
    {"_Z5fractfPPf", NULL, 0, 0},
    {"_Z5clampDv4_fS0_S_", NULL, 0, 0}, /* a substitution that was never made */
    {"_Z99clamp", NULL, 0, 0},
    {"_Z", NULL, 0, 0},
    {"sqrt", NULL, 0, 0},
    {"get_global_id", NULL, 0, 0},
};

TEST(builtin_names_of_clang_and_llvm) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const expect *e = &cases[i];
    rc_builtin_match m;
    int bi = rc_builtin_from_llvm_name(e->llvm, strlen(e->llvm), &m);
    CHECK_EQ_INT(bi, m.builtin);
    char spelled[64] = "(none)";
    if (bi >= 0) rc_builtin_spell((rc_builtin)bi, m.imm, spelled, sizeof spelled);
    if (!e->builtin ? bi >= 0 : bi < 0 || strcmp(spelled, e->builtin) != 0) {
      fprintf(stderr, "%s: got %s, expected %s\n", e->llvm, spelled, e->builtin ? e->builtin : "(none)");
      test_failures++;
      continue;
    }
    if (bi < 0) {
      CHECK_EQ_INT(m.nargs, 0);
      CHECK_EQ_INT(m.imm, 0);
      continue;
    }
    if (m.nargs != e->nargs || m.signed_args != e->signed_args) {
      fprintf(stderr, "%s: nargs %u signed_args %#x, expected %u %#x\n", e->llvm, m.nargs, m.signed_args, e->nargs,
              e->signed_args);
      test_failures++;
    }
    /* the modifiers are ones the builtin takes */
    CHECK(rc_builtin_mods_ok((rc_builtin)bi, m.imm));
  }
}

/* Every prefix of a mangled name is read without running past its end (the demangler gets a
 * length, not a NUL-terminated string). */
TEST(builtin_names_prefixes_are_safe) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t n = strlen(cases[i].llvm);
    for (size_t k = 0; k <= n; k++) {
      char *copy = malloc(k ? k : 1);
      memcpy(copy, cases[i].llvm, k);
      rc_builtin_match m;
      int bi = rc_builtin_from_llvm_name(copy, k, &m);
      CHECK(bi == m.builtin);
      free(copy);
    }
  }
}
