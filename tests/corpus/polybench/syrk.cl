// after PolyBench/GPU's syrk: C = alpha*A*A^T + beta*C
// reconv-run(syrk_kernel): --global 16,16 --local 8,8 --arg alpha=1.25 --arg beta=0.75 --arg a=f32[256]:rand(139) --arg c=f32[256]:rand(140) --arg n=16 --arg m=16
__kernel void syrk_kernel(float alpha, float beta, __global const float *a, __global float *c, int n, int m) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < n && j < n) {
    c[i * n + j] *= beta;
    for (int k = 0; k < m; k++) c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
  }
}
