// after SHOC's reduction: grid-stride loads then a __local tree sum, one partial per work-group
// reconv-run(reduce_sum): --global 128 --local 64 --arg in=f32[512]:rand(40) --arg out=f32[2] --arg sdata=local:f32[64] --arg n=512
__kernel void reduce_sum(__global const float *in, __global float *out, __local float *sdata, int n) {
  int tid = get_local_id(0);
  int i = get_group_id(0) * get_local_size(0) * 2 + tid;
  int stride = get_local_size(0) * 2 * get_num_groups(0);
  float s = 0.0f;
  while (i < n) {
    s += in[i];
    if (i + get_local_size(0) < n) s += in[i + get_local_size(0)];
    i += stride;
  }
  sdata[tid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = get_local_size(0) / 2; k > 0; k >>= 1) {
    if (tid < k) sdata[tid] += sdata[tid + k];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0) out[get_group_id(0)] = sdata[0];
}
