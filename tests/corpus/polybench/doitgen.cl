// after PolyBench/GPU's doitgen: multiresolution kernel, sum[r][q][p] = A[r][q][:] . C4[:][p]
// reconv-run(doitgen_kernel): --global 8,8 --local 8,8 --arg A=f32[512]:rand(103) --arg C4=f32[64]:rand(104) --arg sum=f32[512] --arg np=8 --arg nq=8 --arg r=2
__kernel void doitgen_kernel(__global const float *A, __global const float *C4, __global float *sum, int np, int nq, int r) {
  int p = get_global_id(0), q = get_global_id(1);
  if (p < np && q < nq) {
    float s = 0.0f;
    for (int s2 = 0; s2 < np; s2++) s += A[r * (nq * np) + q * np + s2] * C4[s2 * np + p];
    sum[r * (nq * np) + q * np + p] = s;
  }
}
