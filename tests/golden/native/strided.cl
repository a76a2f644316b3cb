// REQUIRES: llvm
// Strided lanes (src/native/wave_codegen_mem.c): the components of OpenCL vector types, lane l's
// at base + l * k * size, load and store as masked vector accesses of W * k elements in which only
// the lanes' own elements are enabled, instead of gathers and scatters. Memory must be the
// interpreter's at every wave width, and an access must not touch the elements of the lanes'
// vectors it does not name: the last work-items read and write only .x of a float4 buffer that
// ends there (its other components are past the end: a fault if they were loaded), and inactive
// lanes (odd work-items of `some`) must leave their elements unwritten.
// reconv-run(components): --global 64 --local 32 --arg a=f32[256]:rand(1) --arg b=f32[253]:rand(2) --arg c=f32[253] --arg s=i16[512]:rand(3,-32768,32767) --arg t=i16[512]
// reconv-run(some): --global 64 --local 64 --arg a=i32[128]:rand(4) --arg b=i32[128]:seq
// RUN: for w in 4 16 64; do for k in components some; do reconv sim --native -p reconverge,lower --wave $w --check --kernel $k %s | grep '^check'; done; done
// RUN: reconv opt -p reconverge,lower --wave 16 --kernel components %s -o %t.ll && grep -o 'llvm.masked.load.v64f32\|llvm.masked.store.v64f32\|llvm.masked.load.v128i16\|llvm.masked.store.v128i16' %t.ll | sort -u
__kernel void components(__global const float4 *a, __global const float *b, __global float *c,
                         __global const short8 *s, __global short8 *t) {
  int i = get_global_id(0);
  float4 x = a[i];
  if (i < 63) { /* b and c hold 253 floats: 63 whole float4 and one .x */
    float4 y = vload4(i, b);
    vstore4(x * 2.0f + y, i, c);
  } else {
    c[4 * i] = b[4 * i] + x.w;
  }
  short8 v = s[i];
  t[i] = v.s10325476 + (short8)(v.s7, 1, 2, 3, 4, 5, 6, v.s0);
}
__kernel void some(__global const int2 *a, __global int2 *b) {
  int i = get_global_id(0);
  if (i & 1) return;
  int2 v = a[i];
  b[i] = (int2)(v.y - v.x, v.x * 3);
}
