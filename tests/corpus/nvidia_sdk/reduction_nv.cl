// after the NVIDIA OpenCL SDK's oclReduction (reduce6): unrolled tail with a compile-time block size, nIsPow2 test
// reconv-run(reduce6): --global 64 --local 64 --arg g_idata=f32[200]:rand(207) --arg g_odata=f32[1] --arg n=200 --arg sdata=local:f32[64]
#define blockSize 64
#define nIsPow2 0
__kernel void reduce6(__global const float *g_idata, __global float *g_odata, unsigned int n, __local volatile float *sdata) {
  unsigned int tid = get_local_id(0);
  unsigned int i = get_group_id(0) * (get_local_size(0) * 2) + get_local_id(0);
  unsigned int gridSize = blockSize * 2 * get_num_groups(0);
  sdata[tid] = 0;
  while (i < n) {
    sdata[tid] += g_idata[i];
    if (nIsPow2 || i + blockSize < n) sdata[tid] += g_idata[i + blockSize];
    i += gridSize;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (blockSize >= 64) { if (tid < 32) { sdata[tid] += sdata[tid + 32]; } barrier(CLK_LOCAL_MEM_FENCE); }
  if (tid < 16) { sdata[tid] += sdata[tid + 16]; } barrier(CLK_LOCAL_MEM_FENCE);
  if (tid < 8) { sdata[tid] += sdata[tid + 8]; } barrier(CLK_LOCAL_MEM_FENCE);
  if (tid < 4) { sdata[tid] += sdata[tid + 4]; } barrier(CLK_LOCAL_MEM_FENCE);
  if (tid < 2) { sdata[tid] += sdata[tid + 2]; } barrier(CLK_LOCAL_MEM_FENCE);
  if (tid < 1) { sdata[tid] += sdata[tid + 1]; }
  if (tid == 0) g_odata[get_group_id(0)] = sdata[0];
}
