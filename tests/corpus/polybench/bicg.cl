// after PolyBench/GPU's bicg: s = r*A and q = A*p, the BiCG sub-kernels
// reconv-run(bicgKernel1): --global 32 --local 16 --arg A=f32[1024]:rand(92) --arg r=f32[32]:rand(93) --arg s=f32[32] --arg nx=32 --arg ny=32
// reconv-run(bicgKernel2): --global 32 --local 16 --arg A=f32[1024]:rand(94) --arg p=f32[32]:rand(95) --arg q=f32[32] --arg nx=32 --arg ny=32
__kernel void bicgKernel1(__global const float *A, __global const float *r, __global float *s, int nx, int ny) {
  int j = get_global_id(0);
  if (j < ny) {
    s[j] = 0.0f;
    for (int i = 0; i < nx; i++) s[j] += A[i * ny + j] * r[i];
  }
}
__kernel void bicgKernel2(__global const float *A, __global const float *p, __global float *q, int nx, int ny) {
  int i = get_global_id(0);
  if (i < nx) {
    q[i] = 0.0f;
    for (int j = 0; j < ny; j++) q[i] += A[i * ny + j] * p[j];
  }
}
