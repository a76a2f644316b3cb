// after PolyBench/GPU's 3mm: E = A*B, F = C*D, G = E*F, one generic kernel per product
// reconv-run(mm3_kernel): --global 8,8 --local 4,4 --arg X=f32[64]:rand(86) --arg Y=f32[64]:rand(87) --arg Z=f32[64] --arg ni=8 --arg nj=8 --arg nk=8
__kernel void mm3_kernel(__global const float *X, __global const float *Y, __global float *Z, int ni, int nj, int nk) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i >= ni || j >= nj) return;
  float acc = 0.0f;
  for (int k = 0; k < nk; k++) acc += X[i * nk + k] * Y[k * nj + j];
  Z[i * nj + j] = acc;
}
