// after SHOC's reduction (double precision build): the same tree reduction over doubles
// reconv-run(reduce_dbl): --global 64 --local 32 --arg in=f64[256]:rand(41) --arg out=f64[2] --arg n=256
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void reduce_dbl(__global const double *in, __global double *out, int n) {
  __local double sdata[32];
  int tid = get_local_id(0);
  double s = 0.0;
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) s += in[i];
  sdata[tid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 16; k > 0; k >>= 1) {
    if (tid < k) sdata[tid] += sdata[tid + k];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0) out[get_group_id(0)] = sdata[0];
}
