// REQUIRES: llvm
// The address spaces of OpenCL C in reconv's flat memory: __global parameters, a __local array
// (localmem in the entry block, one per work-group) with barriers, __constant data with an
// initialiser (a private copy set up at the start), a private struct copied with memcpy, and
// OpenCL 1.x atomics (signed and unsigned min, inc, cmpxchg).
// RUN: reconv print %s
// RUN: reconv print %s -o %T/m.ll && opt -passes=verify -disable-output %T/m.ll && echo "export: verified by opt"

__constant int weights[5] = {1, 4, 6, 4, 1};

typedef struct { int a; float b; int c[6]; } record;

__kernel void blur(__global const int *in, __global int *out) {
  __local int tile[68];
  int lid = get_local_id(0), gid = get_global_id(0);
  tile[lid + 2] = in[gid];
  if (lid < 2) {
    tile[lid] = gid >= 2 ? in[gid - 2] : 0;
    tile[lid + 66] = in[gid + 64];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  int s = 0;
  for (int k = 0; k < 5; k++)
    s += weights[k] * tile[lid + k];
  out[gid] = s / 16;
}

__kernel void records(__global record *rs, __global int *count, __global unsigned *umin_out) {
  int gid = get_global_id(0);
  record r = rs[gid];
  r.c[gid % 6] += r.a;
  rs[(gid + 1) % 8] = r;
  atomic_inc(count);
  atomic_min((__global int *)count + 1, r.a);
  atomic_min(umin_out, (unsigned)r.c[0]);
  atomic_cmpxchg(count + 2, gid, gid + 1);
}

__kernel void lookup(__global int *out) {
  int gid = get_global_id(0);
  out[gid] = weights[gid % 5];
}
