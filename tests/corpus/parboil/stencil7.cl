// after Parboil's stencil: 7-point 3-D Jacobi stencil, one thread per (i,j) column walking k
// reconv-run(stencil7): --global 8,8 --local 8,8 --arg A0=f32[512]:rand(8) --arg Anext=f32[512]
// reconv-run(stencil7): --arg c0=0.5 --arg c1=0.08 --arg nx=8 --arg ny=8 --arg nz=8
#define IDX(i, j, k) ((i) + nx * ((j) + ny * (k)))
__kernel void stencil7(float c0, float c1, __global const float *A0, __global float *Anext,
                       int nx, int ny, int nz) {
  int i = get_global_id(0), j = get_global_id(1);
  if (i < 1 || j < 1 || i > nx - 2 || j > ny - 2) return;
  for (int k = 1; k < nz - 1; k++) {
    Anext[IDX(i, j, k)] = c1 * (A0[IDX(i, j, k + 1)] + A0[IDX(i, j, k - 1)] + A0[IDX(i, j + 1, k)] +
                                A0[IDX(i, j - 1, k)] + A0[IDX(i + 1, j, k)] + A0[IDX(i - 1, j, k)]) -
                          A0[IDX(i, j, k)] * c0;
  }
}
