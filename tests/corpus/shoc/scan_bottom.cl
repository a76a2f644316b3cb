// after SHOC's scan (bottom_scan): a per-group exclusive scan in __local memory plus the block's offset
// reconv-run(bottom_scan): --global 64 --local 32 --arg in=f32[64]:rand(67) --arg isums=f32[2]:seq(0,10) --arg out=f32[64] --arg ls=local:f32[64]
__kernel void bottom_scan(__global const float *in, __global const float *isums, __global float *out,
                          __local float *ls) {
  int lid = get_local_id(0), n = get_local_size(0);
  float v = in[get_global_id(0)];
  ls[lid] = 0.0f;
  ls[lid + n] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = 1; off < n; off *= 2) {
    float t = ls[lid + n] + ls[lid + n - off];
    barrier(CLK_LOCAL_MEM_FENCE);
    ls[lid + n] = t;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = ls[lid + n] - v + isums[get_group_id(0)];
}
