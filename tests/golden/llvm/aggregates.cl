// REQUIRES: llvm
// Aggregates run (src/sim/scalarize.c): on amdgcn a struct comes back from a device function by
// value (-O0: extractvalue of the call; -O2: an insertvalue chain, nested [3 x i32] included),
// and __builtin_*_overflow is LLVM's {result, overflow} pair on every target. The simulators split
// each aggregate into its scalars; both optimisation levels leave the same memory, the wave
// simulator agrees with the interpreter, and on spir64 the native run agrees too.
// RUN: reconv print --target amdgcn-amd-amdhsa -O0 %s | grep -E "extractvalue|with_overflow"
// RUN: reconv run --target amdgcn-amd-amdhsa -O0 %s --global 8 --arg out=i32[8] --arg o2=i32[8] --dump out --dump o2
// RUN: reconv run --target amdgcn-amd-amdhsa -O2 %s --global 8 --arg out=i32[8] --arg o2=i32[8] --dump out --dump o2
// RUN: reconv sim --target amdgcn-amd-amdhsa -O2 -p reconverge,lower %s --check --global 64 --arg out=i32[64] --arg o2=i32[64] | grep check
// RUN: reconv opt -p reconverge --target spir64-unknown-unknown %s -o %t.ll && reconv equiv --native --target spir64-unknown-unknown %s %t.ll --arg out=i32[N] --arg o2=i32[N] --sizes 8,64 | tail -1
typedef struct { int a; float b; int c[3]; } S;

S make(int i) {
  S s;
  s.a = i * 3;
  s.b = i * 0.5f;
  for (int j = 0; j < 3; j++) s.c[j] = i + j;
  return s;
}

__kernel void k(__global int *out, __global int *o2) {
  int i = get_global_id(0);
  S s = make(i);
  if (i & 1) s = make(i + 7);
  out[i] = s.a + (int)s.b + s.c[2];
  int r;
  unsigned u;
  o2[i] = __builtin_add_overflow(i * 0x3fffffff, 0x7ffffff0, &r) ? r : -r;
  o2[i] += __builtin_umul_overflow((unsigned)i, 0x40000000u, &u) ? 1000 : (int)(u >> 28);
}
