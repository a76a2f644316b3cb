// after PolyBench/GPU's mvt: x1 += A*y1 and x2 += A^T*y2
// reconv-run(mvt_kernel1): --global 32 --local 16 --arg a=f32[1024]:rand(137) --arg x1=f32[32] --arg y_1=f32[32]:rand(138) --arg n=32
__kernel void mvt_kernel1(__global const float *a, __global float *x1, __global const float *y_1, int n) {
  int i = get_global_id(0);
  if (i < n) for (int j = 0; j < n; j++) x1[i] += a[i * n + j] * y_1[j];
}
__kernel void mvt_kernel2(__global const float *a, __global float *x2, __global const float *y_2, int n) {
  int i = get_global_id(0);
  if (i < n) for (int j = 0; j < n; j++) x2[i] += a[j * n + i] * y_2[j];
}
