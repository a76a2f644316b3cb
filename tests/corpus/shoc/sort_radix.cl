// after SHOC's sort: one 4-bit radix pass, per-group digit counts by __local atomics
// reconv-run(radix_count): --global 128 --local 64 --arg keys=i32[128]:rand(44,0,100000) --arg counts=i32[32] --arg shift=4
__kernel void radix_count(__global const uint *keys, __global uint *counts, int shift) {
  __local uint hist[16];
  int lid = get_local_id(0);
  if (lid < 16) hist[lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint digit = (keys[get_global_id(0)] >> shift) & 0xFu;
  atomic_inc(&hist[digit]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 16) counts[lid * get_num_groups(0) + get_group_id(0)] = hist[lid];
}
