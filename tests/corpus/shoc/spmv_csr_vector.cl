// after SHOC's spmv (csr_vector): a warp-sized group of lanes per row, partial sums reduced in __local memory
// reconv-run(spmv_csr_vector): --global 256 --local 64 --arg val=f32[384]:rand(45) --arg vec=f32[64]:rand(46)
// reconv-run(spmv_csr_vector): --arg cols=i32[384]:rand(47,0,63) --arg rowDelimiters=i32[33]:seq(0,12) --arg dim=32 --arg out=f32[32]
#define VS 8
__kernel void spmv_csr_vector(__global const float *val, __global const float *vec,
                              __global const int *cols, __global const int *rowDelimiters,
                              int dim, __global float *out) {
  __local volatile float partial[64];
  int t = get_local_id(0);
  int lane = t & (VS - 1);
  int row = get_global_id(0) / VS;
  partial[t] = 0.0f;
  if (row < dim) {
    int start = rowDelimiters[row], end = rowDelimiters[row + 1];
    float s = 0.0f;
    for (int j = start + lane; j < end; j += VS) s += val[j] * vec[cols[j]];
    partial[t] = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = VS / 2; k > 0; k >>= 1) {
    if (lane < k) partial[t] += partial[t + k];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane == 0 && row < dim) out[row] = partial[t];
}
