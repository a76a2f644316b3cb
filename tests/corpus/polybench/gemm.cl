// after PolyBench/GPU's gemm: C = alpha*A*B + beta*C, one element per work-item
// reconv-run(gemm): --global 16,16 --local 16,4 --arg a=f32[256]:rand(112) --arg b=f32[256]:rand(113) --arg c=f32[256]:rand(114)
// reconv-run(gemm): --arg alpha=32412.0 --arg beta=2123.0 --arg ni=16 --arg nj=16 --arg nk=16
__kernel void gemm(__global const float *a, __global const float *b, __global float *c, float alpha,
                   float beta, int ni, int nj, int nk) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < ni && j < nj) {
    c[i * nj + j] *= beta;
    for (int k = 0; k < nk; k++) c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
  }
}
