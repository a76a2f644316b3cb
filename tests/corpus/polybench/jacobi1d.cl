// after PolyBench/GPU's jacobi-1d: the 3-point average and the copy-back, interior only
// reconv-run(runJacobi1D_kernel1): --global 64 --local 32 --arg A=f32[64]:rand(132) --arg B=f32[64] --arg n=64
// reconv-run(runJacobi1D_kernel2): --global 64 --local 32 --arg A=f32[64] --arg B=f32[64]:rand(133) --arg n=64
__kernel void runJacobi1D_kernel1(__global const float *A, __global float *B, int n) {
  int i = get_global_id(0);
  if (i > 1 && i < n - 1) B[i] = 0.33333f * (A[i - 1] + A[i] + A[i + 1]);
}
__kernel void runJacobi1D_kernel2(__global float *A, __global const float *B, int n) {
  int j = get_global_id(0);
  if (j > 1 && j < n - 1) A[j] = B[j];
}
