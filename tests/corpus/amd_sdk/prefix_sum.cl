// after the AMD APP SDK's PrefixSum: the work-efficient (Blelloch) up-sweep and down-sweep in __local memory
// reconv-run(group_prefixSum): --global 32 --local 32 --arg output=f32[64] --arg input=f32[64]:rand(162) --arg block=local:f32[64] --arg length=64
__kernel void group_prefixSum(__global float *output, __global const float *input, __local float *block, const uint length) {
  int tid = get_local_id(0);
  int offset = 1;
  block[2 * tid] = input[2 * tid];
  block[2 * tid + 1] = input[2 * tid + 1];
  for (int d = length >> 1; d > 0; d >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      block[bi] += block[ai];
    }
    offset *= 2;
  }
  if (tid == 0) block[length - 1] = 0;
  for (int d = 1; d < length; d *= 2) {
    offset >>= 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      float t = block[ai];
      block[ai] = block[bi];
      block[bi] += t;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  output[2 * tid] = block[2 * tid];
  output[2 * tid + 1] = block[2 * tid + 1];
}
