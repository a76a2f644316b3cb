// The bitonic sort kernel of DARM (Saumya et al. 2022, Fig. 1): every work-group sorts its 64
// values in __local memory; the compare-and-swap has a divergent branch with a differently
// ordered comparison on each side (lines 8-15), which DARM melds. Barriers separate the steps;
// they stand in uniform control flow (the loops run the same for every work-item). The loops are
// kept rolled here (clang would unroll them completely, as DARM's Fig. 4 shows) so that the
// divergent diamond sits inside two loops.
//
// reconv-run(bitonic): --global 128 --local 64 --arg values=i32[128]:rand(5,0,999)

#define NUM 64

__kernel void bitonic(__global int *values) {
  __local int shared[NUM];
  unsigned tid = get_local_id(0);
  unsigned gid = get_global_id(0);
  shared[tid] = values[gid];  // copy data from global memory to shared memory
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll 1
  for (unsigned k = 2; k <= NUM; k *= 2) {
#pragma unroll 1
    for (unsigned j = k / 2; j > 0; j /= 2) {
      unsigned ixj = tid ^ j;
      if (ixj > tid) {
        if ((tid & k) == 0) {
          if (shared[ixj] < shared[tid]) {
            int t = shared[tid];
            shared[tid] = shared[ixj];
            shared[ixj] = t;
          }
        } else {
          if (shared[ixj] > shared[tid]) {
            int t = shared[tid];
            shared[tid] = shared[ixj];
            shared[ixj] = t;
          }
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  values[gid] = shared[tid];  // write data back to global memory
}
