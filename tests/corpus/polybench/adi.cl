// after PolyBench/GPU's adi: a column sweep of the alternating-direction implicit solver (forward then backward)
// reconv-run(adi_column): --global 16 --local 16 --arg A=f32[256]:rand(144,1,2) --arg B=f32[256]:rand(145,2,3) --arg X=f32[256]:rand(146) --arg n=16
__kernel void adi_column(__global const float *A, __global float *B, __global float *X, int n) {
  int i1 = get_global_id(0);
  if (i1 >= n) return;
  for (int i2 = 1; i2 < n; i2++) {
    X[i1 * n + i2] -= X[i1 * n + i2 - 1] * A[i1 * n + i2] / B[i1 * n + i2 - 1];
    B[i1 * n + i2] -= A[i1 * n + i2] * A[i1 * n + i2] / B[i1 * n + i2 - 1];
  }
  X[i1 * n + n - 1] /= B[i1 * n + n - 1];
  for (int i2 = n - 2; i2 >= 0; i2--)
    X[i1 * n + i2] = (X[i1 * n + i2] - X[i1 * n + i2 + 1] * A[i1 * n + i2 + 1]) / B[i1 * n + i2];
}
