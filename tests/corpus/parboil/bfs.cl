// after Parboil's bfs: one level of a queue-based breadth-first search with a __local frontier queue
// One edge per node (row = seq): which thread wins a cmpxchg or gets which queue slot then does not
// depend on the schedule, since a wave runs its lanes' atomics in lane order, as the one-thread-at-a-
// time reference does; with two edges per node the reference's thread 0 ran both of its atomics before
// thread 1's first, a race the kernel has on real hardware too, and no two schedules agree on it.
// reconv-run(bfs_level): --global 64 --local 64 --arg q_in=i32[64]:seq --arg nq_in=16 --arg row=i32[65]:seq
// reconv-run(bfs_level): --arg col=i32[130]:rand(22,0,63) --arg cost=i32[64]:fill(-1) --arg q_out=i32[128]
// reconv-run(bfs_level): --arg nq_out=i32[1] --arg level=1
__kernel void bfs_level(__global const int *q_in, int nq_in, __global const int *row,
                        __global const int *col, __global int *cost, __global int *q_out,
                        __global int *nq_out, int level) {
  __local int lq[128];
  __local int lcount, lbase;
  int lid = get_local_id(0);
  if (lid == 0) lcount = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  int tid = get_global_id(0);
  if (tid < nq_in) {
    int node = q_in[tid];
    for (int e = row[node]; e < row[node + 1]; e++) {
      int nb = col[e];
      if (atomic_cmpxchg(&cost[nb], -1, level) == -1) {
        int slot = atomic_inc(&lcount);
        if (slot < 128) lq[slot] = nb;
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) lbase = atomic_add(nq_out, min(lcount, 128));
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = lid; i < min(lcount, 128); i += get_local_size(0)) q_out[lbase + i] = lq[i];
}
