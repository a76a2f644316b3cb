// after PolyBench/GPU's covariance: subtract the column means, then the upper triangle of the covariance
// reconv-run(reduce_kernel): --global 16,16 --local 8,8 --arg mean=f32[16]:rand(100) --arg data=f32[256]:rand(101) --arg m=16 --arg n=16
// reconv-run(covar_kernel): --global 16 --local 16 --arg symmat=f32[256] --arg data=f32[256]:rand(102) --arg m=16 --arg n=16
__kernel void reduce_kernel(__global const float *mean, __global float *data, int m, int n) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < n && j < m) data[i * m + j] -= mean[j];
}
__kernel void covar_kernel(__global float *symmat, __global const float *data, int m, int n) {
  int j1 = get_global_id(0);
  if (j1 < m) {
    for (int j2 = j1; j2 < m; j2++) {
      float s = 0.0f;
      for (int i = 0; i < n; i++) s += data[i * m + j1] * data[i * m + j2];
      symmat[j2 * m + j1] = s;
      symmat[j1 * m + j2] = s;
    }
  }
}
