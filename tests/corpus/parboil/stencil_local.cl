// after Parboil's stencil (local-memory variant): a 2-D 5-point stencil with a __local tile and halo
// reconv-run(stencil2d_tile): --global 16,16 --local 8,8 --arg in=f32[256]:rand(30) --arg out=f32[256] --arg n=16
#define T 8
__kernel void stencil2d_tile(__global const float *in, __global float *out, int n) {
  __local float tile[T + 2][T + 2];
  int lx = get_local_id(0), ly = get_local_id(1);
  int gx = get_global_id(0), gy = get_global_id(1);
  tile[ly + 1][lx + 1] = in[gy * n + gx];
  if (lx == 0) tile[ly + 1][0] = gx > 0 ? in[gy * n + gx - 1] : 0.0f;
  if (lx == T - 1) tile[ly + 1][T + 1] = gx < n - 1 ? in[gy * n + gx + 1] : 0.0f;
  if (ly == 0) tile[0][lx + 1] = gy > 0 ? in[(gy - 1) * n + gx] : 0.0f;
  if (ly == T - 1) tile[T + 1][lx + 1] = gy < n - 1 ? in[(gy + 1) * n + gx] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (gx == 0 || gy == 0 || gx == n - 1 || gy == n - 1) { out[gy * n + gx] = tile[ly + 1][lx + 1]; return; }
  out[gy * n + gx] = 0.2f * (tile[ly + 1][lx + 1] + tile[ly][lx + 1] + tile[ly + 2][lx + 1] +
                            tile[ly + 1][lx] + tile[ly + 1][lx + 2]);
}
