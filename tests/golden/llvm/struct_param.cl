// REQUIRES: llvm
// A struct kernel argument (OpenCL C 1.2 section 6.9) on amdgcn is a by-value aggregate parameter,
// %p.coerce of type {i32, f32, i64, {i16, i16}, [3 x i32]}; a run specification gives its 8 scalar
// elements in order, --arg 'p.coerce={...}' (docs/cli.md). The fields land where the kernel reads
// them (out: base + w[i % 3] below n, -i in [lo, hi), 7 elsewhere; f: scale * i), the wave simulator
// agrees with the interpreter, reconverge's output is trace-equivalent, and the spir64 form (a
// byval pointer given the same 32 bytes as a buffer) leaves the same memory, natively too.
// Malformed and mistyped values are refused with the parameter's type.
// RUN: reconv run --target amdgcn-amd-amdhsa -O2 %s --global 12 --arg 'p.coerce={5,0.5,1000,6,9,1,2,3}' --arg out=i32[N] --arg f=f32[N] --dump out --dump f
// RUN: reconv sim --target amdgcn-amd-amdhsa -O2 -p reconverge,lower %s --check --global 12 --arg 'p.coerce={5,0.5,1000,6,9,1,2,3}' --arg out=i32[N] --arg f=f32[N] | grep '^check'
// RUN: reconv opt -p reconverge --target amdgcn-amd-amdhsa -O2 %s -o %T/rc.ll && reconv equiv --target amdgcn-amd-amdhsa -O2 %s %T/rc.ll --arg 'p.coerce={3,-1.5,-7,0,40,10,20,30}' --arg out=i32[N] --arg f=f32[N] --sizes 8,64 | tail -1
// RUN: printf '\005\000\000\000\000\000\000\077\350\003\000\000\000\000\000\000\006\000\011\000\001\000\000\000\002\000\000\000\003\000\000\000' > %T/p.bin && reconv run --target spir64-unknown-unknown -O2 %s --global 12 --arg "p=i8[32]:file(%T/p.bin)" --arg out=i32[N] --arg f=f32[N] --dump out --dump f | grep -v checksum
// RUN: reconv opt -p reconverge --target spir64-unknown-unknown -O2 %s -o %T/rc64.ll && reconv equiv --native --target spir64-unknown-unknown -O2 %s %T/rc64.ll --global 12 --arg "p=i8[32]:file(%T/p.bin)" --arg out=i32[N] --arg f=f32[N] | tail -1
// RUN: reconv run --target amdgcn-amd-amdhsa %s --arg out=i32[N] --arg f=f32[N]
// RUN: reconv run --target amdgcn-amd-amdhsa %s --arg 'p.coerce={5,0.5}' --arg out=i32[N] --arg f=f32[N]
// RUN: reconv run --target amdgcn-amd-amdhsa %s --arg 'p.coerce={5.5,0.5,1000,6,9,1,2,3}' --arg out=i32[N] --arg f=f32[N]
// RUN: reconv run --target amdgcn-amd-amdhsa %s --arg 'p.coerce={5,0.5,1000,70000,9,1,2,3}' --arg out=i32[N] --arg f=f32[N]
// RUN: reconv run --target amdgcn-amd-amdhsa %s --arg p.coerce=5 --arg out=i32[N] --arg f=f32[N]
// RUN: reconv run --target amdgcn-amd-amdhsa %s --arg 'p.coerce={5,0.5,1000,6,9,1,2,3}' --arg 'out={1}' --arg f=f32[N]
// RUN: reconv run --target amdgcn-amd-amdhsa %s --arg 'p.coerce={5,0.5' --arg out=i32[N] --arg f=f32[N]
// RUN: reconv run --target amdgcn-amd-amdhsa %s --arg 'p.coerce={5,x,1000,6,9,1,2,3}' --arg out=i32[N] --arg f=f32[N]
// RUN: reconv run --target amdgcn-amd-amdhsa %s --arg 'p.coerce={}' --arg out=i32[N] --arg f=f32[N]
typedef struct { short lo, hi; } Range;
typedef struct { int n; float scale; long base; Range r; int w[3]; } Params;

__kernel void k(Params p, __global int *out, __global float *f) {
  int i = get_global_id(0);
  if (i < p.n) out[i] = (int)(p.base + p.w[i % 3]);
  else if (i >= p.r.lo && i < p.r.hi) out[i] = -i;
  else out[i] = 7;
  f[i] = p.scale * i;
}
