// after PolyBench/GPU's covariance (mean kernel) in double precision
// reconv-run(mean_kernel_dbl): --global 16 --local 16 --arg mean=f64[16] --arg data=f64[256]:rand(147) --arg float_n=16.0 --arg m=16 --arg n=16
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void mean_kernel_dbl(__global double *mean, __global const double *data, double float_n, int m, int n) {
  int j = get_global_id(0);
  if (j < m) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += data[i * m + j];
    mean[j] = s / float_n;
  }
}
