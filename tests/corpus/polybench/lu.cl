// after PolyBench/GPU's lu: scale the pivot row, then update the trailing sub-matrix
// reconv-run(lu_kernel1): --global 16 --local 16 --arg A=f32[256]:rand(135,1,2) --arg k=3 --arg n=16
// reconv-run(lu_kernel2): --global 16,16 --local 8,8 --arg A=f32[256]:rand(136,1,2) --arg k=3 --arg n=16
__kernel void lu_kernel1(__global float *A, int k, int n) {
  int j = get_global_id(0);
  if (j > k && j < n) A[k * n + j] = A[k * n + j] / A[k * n + k];
}
__kernel void lu_kernel2(__global float *A, int k, int n) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i > k && j > k && i < n && j < n) A[i * n + j] = A[i * n + j] - A[i * n + k] * A[k * n + j];
}
