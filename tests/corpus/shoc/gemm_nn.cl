// after SHOC's gemm (sgemmNN): a row of 16 C values per work-item, B staged in __local memory
// reconv-run(sgemmNN): --global 16 --local 16 --arg A=f32[256]:rand(62) --arg B=f32[256]:rand(63) --arg C=f32[256]
// reconv-run(sgemmNN): --arg n=16 --arg alpha=1.0 --arg beta=0.0
__kernel void sgemmNN(__global const float *A, __global const float *B, __global float *C, int n,
                      float alpha, float beta) {
  __local float bs[16][17];
  int row = get_global_id(0);
  float c[16];
  for (int j = 0; j < 16; j++) c[j] = 0.0f;
  for (int kb = 0; kb < n; kb += 16) {
    for (int j = 0; j < 16; j++) bs[get_local_id(0)][j] = B[(kb + get_local_id(0)) * n + j];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < 16; k++) {
      float a = A[row * n + kb + k];
      for (int j = 0; j < 16; j++) c[j] += a * bs[k][j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int j = 0; j < 16; j++) C[row * n + j] = alpha * c[j] + beta * C[row * n + j];
}
