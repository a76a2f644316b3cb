// after PolyBench/GPU's jacobi-2d: the 5-point average on the interior of a square grid
// reconv-run(runJacobi2D_kernel1): --global 16,16 --local 8,8 --arg A=f32[256]:rand(134) --arg B=f32[256] --arg n=16
__kernel void runJacobi2D_kernel1(__global const float *A, __global float *B, int n) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (1 + j)] + A[(1 + i) * n + j] + A[(i - 1) * n + j]);
}
