// after PolyBench/GPU's 2mm: two chained matrix products, tmp = A*B then D = tmp*C
// reconv-run(mm2_kernel1): --global 8,8 --local 8,8 --arg A=f32[64]:rand(82) --arg B=f32[64]:rand(83) --arg tmp=f32[64] --arg n=8
// reconv-run(mm2_kernel2): --global 8,8 --local 8,8 --arg tmp=f32[64]:rand(84) --arg C=f32[64]:rand(85) --arg D=f32[64] --arg n=8
__kernel void mm2_kernel1(__global const float *A, __global const float *B, __global float *tmp, int n) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < n && j < n) {
    tmp[i * n + j] = 0;
    for (int k = 0; k < n; k++) tmp[i * n + j] += A[i * n + k] * B[k * n + j];
  }
}
__kernel void mm2_kernel2(__global const float *tmp, __global const float *C, __global float *D, int n) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < n && j < n) {
    D[i * n + j] = 0;
    for (int k = 0; k < n; k++) D[i * n + j] += tmp[i * n + k] * C[k * n + j];
  }
}
