// after PolyBench/GPU's gramschmidt (kernel 2): q[:,k] = a[:,k] / r[k][k]
__kernel void gramschmidt_kernel2(__global const float *a, __global const float *r, __global float *q, int k, int m, int n) {
  int i = get_global_id(0);
  if (i < m) q[i * n + k] = a[i * n + k] / r[k * n + k];
}
