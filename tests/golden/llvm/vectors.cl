// REQUIRES: llvm
// Vector code comes in as it is (docs/llvm.md): vector arithmetic, phis, selects, loads and
// stores, element inserts and extracts, shuffles and vector constants keep their <N x T> types in
// the view and in the export; only the simulators' private copy scalarizes them.
// RUN: reconv print %s
// RUN: reconv print %s -o %T/v.ll && opt -passes=verify -disable-output %T/v.ll && echo "export: verified by opt"

__kernel void saxpy4(__global float4 *y, __global const float4 *x, float a, int n) {
  int gid = get_global_id(0);
  float4 v = x[gid];
  if (gid < n)
    v = a * v + y[gid];
  else
    v.yz = (float2)(dot(v, v), v.w);
  y[gid] = v.wzyx;
}

__kernel void table(__global int *out) {
  int gid = get_global_id(0);
  int t[4] = {gid, gid * 2, gid * 3, 7};
  out[gid] = t[gid & 3];
}
