// after PolyBench/GPU's gramschmidt: the norm of column k (one work-item), normalisation, then the projections
// reconv-run(gramschmidt_kernel1): --global 16 --local 16 --arg a=f32[256]:rand(128) --arg r=f32[256] --arg q=f32[256] --arg k=2 --arg m=16 --arg n=16
// reconv-run(gramschmidt_kernel3): --global 16 --local 16 --arg a=f32[256]:rand(129) --arg r=f32[256]:rand(130) --arg q=f32[256]:rand(131) --arg k=2 --arg m=16 --arg n=16
__kernel void gramschmidt_kernel1(__global const float *a, __global float *r, __global float *q, int k, int m, int n) {
  int tid = get_global_id(0);
  if (tid == 0) {
    float nrm = 0.0f;
    for (int i = 0; i < m; i++) nrm += a[i * n + k] * a[i * n + k];
    r[k * n + k] = sqrt(nrm);
  }
}
__kernel void gramschmidt_kernel3(__global float *a, __global float *r, __global const float *q, int k, int m, int n) {
  int j = get_global_id(0);
  if (j > k && j < n) {
    r[k * n + j] = 0.0f;
    for (int i = 0; i < m; i++) r[k * n + j] += q[i * n + k] * a[i * n + j];
    for (int i = 0; i < m; i++) a[i * n + j] -= q[i * n + k] * r[k * n + j];
  }
}
