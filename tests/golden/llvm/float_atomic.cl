// REQUIRES: llvm
// OpenCL's atomic_xchg on a float: a builtin of reconv's view (docs/builtins.md), and the call
// stays in the LLVM module.
// RUN: reconv print %s
// RUN: reconv run %s --global 4 --arg acc=f32[1] --arg in=f32[4]:seq
__kernel void k(__global float *acc, __global const float *in) {
  int gid = get_global_id(0);
  float v = in[gid] * 2.0f;
  atomic_xchg(acc, v);
}
