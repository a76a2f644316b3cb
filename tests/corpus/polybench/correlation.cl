// after PolyBench/GPU's correlation: column means, standard deviations (guarded near zero), centring, the matrix
// reconv-run(mean_kernel): --global 16 --local 16 --arg mean=f32[16] --arg data=f32[256]:rand(96) --arg float_n=16.0 --arg m=16 --arg n=16
// reconv-run(std_kernel): --global 16 --local 16 --arg mean=f32[16]:rand(97) --arg std=f32[16] --arg data=f32[256]:rand(98) --arg float_n=16.0 --arg eps=0.005 --arg m=16 --arg n=16
// reconv-run(corr_kernel): --global 16 --local 16 --arg symmat=f32[256] --arg data=f32[256]:rand(99) --arg m=16 --arg n=16
__kernel void mean_kernel(__global float *mean, __global const float *data, float float_n, int m, int n) {
  int j = get_global_id(0);
  if (j < m) {
    mean[j] = 0.0f;
    for (int i = 0; i < n; i++) mean[j] += data[i * m + j];
    mean[j] /= float_n;
  }
}
__kernel void std_kernel(__global const float *mean, __global float *std, __global const float *data,
                         float float_n, float eps, int m, int n) {
  int j = get_global_id(0);
  if (j < m) {
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
    s = sqrt(s / float_n);
    if (s <= eps) s = 1.0f;
    std[j] = s;
  }
}
__kernel void corr_kernel(__global float *symmat, __global const float *data, int m, int n) {
  int j1 = get_global_id(0);
  if (j1 < m - 1) {
    symmat[j1 * m + j1] = 1.0f;
    for (int j2 = j1 + 1; j2 < m; j2++) {
      float s = 0.0f;
      for (int i = 0; i < n; i++) s += data[i * m + j1] * data[i * m + j2];
      symmat[j1 * m + j2] = s;
      symmat[j2 * m + j1] = s;
    }
  }
}
