// REQUIRES: llvm
// Vector code comes in as scalars: LLVM's scalarizer splits vector arithmetic, phis and selects
// before import; vector loads and stores, element inserts and extracts, shuffles and vector
// constants are taken apart by the importer; dot() becomes multiplies and adds. A private array
// indexed by a variable, which SROA turned into a vector, comes in as a chain of selects.
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
