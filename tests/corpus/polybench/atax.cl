// after PolyBench/GPU's atax: tmp = A*x, then y = A^T * tmp
// reconv-run(atax_kernel1): --global 32 --local 32 --arg A=f32[1024]:rand(88) --arg x=f32[32]:rand(89) --arg tmp=f32[32] --arg nx=32 --arg ny=32
// reconv-run(atax_kernel2): --global 32 --local 32 --arg A=f32[1024]:rand(90) --arg y=f32[32] --arg tmp=f32[32]:rand(91) --arg nx=32 --arg ny=32
__kernel void atax_kernel1(__global const float *A, __global const float *x, __global float *tmp, int nx, int ny) {
  int i = get_global_id(0);
  if (i < nx) {
    for (int j = 0; j < ny; j++) tmp[i] += A[i * ny + j] * x[j];
  }
}
__kernel void atax_kernel2(__global const float *A, __global float *y, __global const float *tmp, int nx, int ny) {
  int j = get_global_id(0);
  if (j < ny) {
    for (int i = 0; i < nx; i++) y[j] += A[i * ny + j] * tmp[i];
  }
}
