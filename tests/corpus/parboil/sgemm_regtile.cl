// after Parboil's sgemm (register-tiled variant): each work-item computes a float4 strip of C
// reconv-run(sgemm_reg): --global 4,16 --local 4,8 --arg A=f32[256]:rand(28) --arg B=f32[256]:rand(29) --arg C=f32[256] --arg n=16
__kernel void sgemm_reg(__global const float *A, __global const float *B, __global float *C, int n) {
  int c4 = get_global_id(0), row = get_global_id(1);
  float4 acc = (float4)(0.0f);
  for (int k = 0; k < n; k++) {
    float a = A[row * n + k];
    float4 b = vload4(c4, B + k * n);
    acc = fma((float4)(a), b, acc);
  }
  vstore4(acc, c4, C + row * n);
}
