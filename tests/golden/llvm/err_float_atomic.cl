// REQUIRES: llvm
// Unsupported constructs in OpenCL C are reported at their line in the .cl file (clang's line
// tables): reconv has no floating-point atomics.
// RUN: reconv print %s

__kernel void k(__global float *acc, __global const float *in) {
  int gid = get_global_id(0);
  float v = in[gid] * 2.0f;
  atomic_xchg(acc, v);
}
