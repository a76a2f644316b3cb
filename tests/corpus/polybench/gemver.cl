// after PolyBench/GPU's gemver: a rank-2 update A += u1 v1^T + u2 v2^T, then x += beta A^T y + z, then w = alpha A x
// reconv-run(gemver_kernel1): --global 16,16 --local 8,8 --arg A=f32[256]:rand(115) --arg v1=f32[16]:rand(116) --arg v2=f32[16]:rand(117) --arg u1=f32[16]:rand(118) --arg u2=f32[16]:rand(119) --arg n=16
// reconv-run(gemver_kernel2): --global 16 --local 16 --arg A=f32[256]:rand(120) --arg x=f32[16] --arg y=f32[16]:rand(121) --arg z=f32[16]:rand(122) --arg beta=0.5 --arg n=16
// reconv-run(gemver_kernel3): --global 16 --local 16 --arg A=f32[256]:rand(123) --arg x=f32[16]:rand(124) --arg w=f32[16] --arg alpha=1.5 --arg n=16
__kernel void gemver_kernel1(__global float *A, __global const float *v1, __global const float *v2,
                             __global const float *u1, __global const float *u2, int n) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < n && j < n) A[i * n + j] += u1[i] * v1[j] + u2[i] * v2[j];
}
__kernel void gemver_kernel2(__global const float *A, __global float *x, __global const float *y,
                             __global const float *z, float beta, int n) {
  int i = get_global_id(0);
  if (i < n) {
    for (int j = 0; j < n; j++) x[i] += beta * A[j * n + i] * y[j];
    x[i] += z[i];
  }
}
__kernel void gemver_kernel3(__global const float *A, __global const float *x, __global float *w, float alpha, int n) {
  int i = get_global_id(0);
  if (i < n)
    for (int j = 0; j < n; j++) w[i] += alpha * A[i * n + j] * x[j];
}
