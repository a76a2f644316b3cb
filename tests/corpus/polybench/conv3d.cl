// after PolyBench/GPU's 3DConvolution: a 3x3x3 stencil, one launch per i plane, bounds checked per axis
// reconv-run(Convolution3D_kernel): --global 8,8 --local 8,8 --arg A=f32[512]:rand(81) --arg B=f32[512] --arg ni=8 --arg nj=8 --arg nk=8 --arg i=3
__kernel void Convolution3D_kernel(__global const float *A, __global float *B, int ni, int nj, int nk, int i) {
  int k = get_global_id(0), j = get_global_id(1);
  float c11 = +2, c21 = +5, c31 = -8, c12 = -3, c22 = +6, c32 = -9, c13 = +4, c23 = +7, c33 = +10;
  if (i < ni - 1 && j < nj - 1 && k < nk - 1 && i > 0 && j > 0 && k > 0) {
#define AT(a, b, c) A[(a) * (nk * nj) + (b) * nk + (c)]
    B[i * (nk * nj) + j * nk + k] =
        c11 * AT(i - 1, j - 1, k - 1) + c13 * AT(i + 1, j - 1, k - 1) + c21 * AT(i - 1, j - 1, k - 1) +
        c23 * AT(i + 1, j - 1, k - 1) + c31 * AT(i - 1, j - 1, k - 1) + c33 * AT(i + 1, j - 1, k - 1) +
        c12 * AT(i + 0, j - 1, k + 0) + c22 * AT(i + 0, j + 0, k + 0) + c32 * AT(i + 0, j + 1, k + 0) +
        c11 * AT(i - 1, j - 1, k + 1) + c13 * AT(i + 1, j - 1, k + 1) + c21 * AT(i - 1, j + 0, k + 1) +
        c23 * AT(i + 1, j + 0, k + 1) + c31 * AT(i - 1, j + 1, k + 1) + c33 * AT(i + 1, j + 1, k + 1);
  }
}
