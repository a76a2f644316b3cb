// after the counters of Parboil's bfs and histo and the AMD APP SDK's HistogramAtomics: every OpenCL 1.2 atomic on global and local ints
// reconv-run(atomics): --global 64 --local 32 --arg g=i32[16] --arg in=i32[64]:rand(252,0,15) --arg out=i32[64]
__kernel void atomics(__global int *g, __global const int *in, __global int *out) {
  __local int l[4];
  int lid = get_local_id(0);
  if (lid < 4) l[lid] = lid == 1 ? 1000 : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  int v = in[get_global_id(0)];
  atomic_add(&g[0], v);
  atomic_sub(&g[1], v);
  atomic_inc(&g[2]);
  atomic_dec(&g[3]);
  atomic_min(&g[4], -v);
  atomic_max(&g[5], v);
  atomic_and((__global uint *)&g[6], ~(1u << (v & 15)));
  atomic_or(&g[7], 1 << (v & 15));
  atomic_xor(&g[8], v);
  int old = atomic_cmpxchg(&g[9], 0, get_global_id(0) + 1);
  atomic_add(&l[0], v);
  atomic_min(&l[1], v);
  atomic_max(&l[2], v);
  atomic_inc(&l[3]);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = (old == 0) + (lid == 0 ? l[0] + l[1] + l[2] + l[3] : 0);
  if (lid == 0) atomic_xchg(&g[10 + get_group_id(0)], l[0]);
}
