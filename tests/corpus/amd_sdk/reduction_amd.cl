// after the AMD APP SDK's Reduction: uint4 loads, each work-item adds two vectors, then a __local tree and a final horizontal add
// reconv-run(reduce): --global 32 --local 32 --arg input=i32[256]:rand(179) --arg output=i32[4] --arg sdata=local:i32[128]
__kernel void reduce(__global const uint4 *input, __global uint4 *output, __local uint4 *sdata) {
  unsigned int tid = get_local_id(0), bid = get_group_id(0), gid = get_global_id(0);
  unsigned int localSize = get_local_size(0);
  unsigned int stride = gid * 2;
  sdata[tid] = input[stride] + input[stride + 1];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned int s = localSize >> 1; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0) output[bid] = sdata[0];
}
