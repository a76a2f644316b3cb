// after PolyBench/GPU's fdtd-2d: the three field updates of one time step, a boundary row set from the source
// reconv-run(fdtd_step1): --global 16,16 --local 8,8 --arg fict=f32[4]:rand(105) --arg ex=f32[256]:rand(106) --arg ey=f32[256]:rand(107) --arg hz=f32[256]:rand(108) --arg t=1 --arg nx=16 --arg ny=16
// reconv-run(fdtd_step3): --global 16,16 --local 8,8 --arg ex=f32[256]:rand(109) --arg ey=f32[256]:rand(110) --arg hz=f32[256]:rand(111) --arg nx=16 --arg ny=16
__kernel void fdtd_step1(__global const float *fict, __global float *ex, __global float *ey,
                         __global const float *hz, int t, int nx, int ny) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < nx && j < ny) {
    if (i == 0) ey[i * ny + j] = fict[t];
    else ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
  }
  if (i < nx && j < ny && j > 0) ex[i * ny + j] = ex[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + j - 1]);
}
__kernel void fdtd_step3(__global const float *ex, __global const float *ey, __global float *hz, int nx, int ny) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < nx - 1 && j < ny - 1)
    hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * ny + j + 1] - ex[i * ny + j] + ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
