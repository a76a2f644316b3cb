// after PolyBench/GPU's fdtd-2d (kernel 2): the ex update, columns from 1
__kernel void fdtd_kernel2(__global float *ex, __global const float *hz, int nx, int ny) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < nx && j < ny && j > 0) ex[i * (ny + 1) + j] = ex[i * (ny + 1) + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
}
