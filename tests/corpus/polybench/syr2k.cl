// after PolyBench/GPU's syr2k: C = alpha*A*B^T + alpha*B*A^T + beta*C
// reconv-run(syr2k_kernel): --global 16,16 --local 8,8 --arg a=f32[256]:rand(141) --arg b=f32[256]:rand(142) --arg c=f32[256]:rand(143) --arg alpha=1.5 --arg beta=0.5 --arg n=16 --arg m=16
__kernel void syr2k_kernel(__global const float *a, __global const float *b, __global float *c,
                           float alpha, float beta, int n, int m) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < n && j < n) {
    c[i * n + j] *= beta;
    for (int k = 0; k < m; k++)
      c[i * n + j] += alpha * a[i * m + k] * b[j * m + k] + alpha * b[i * m + k] * a[j * m + k];
  }
}
