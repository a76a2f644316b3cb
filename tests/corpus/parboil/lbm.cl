// after Parboil's lbm: one D2Q9-style lattice-Boltzmann collide step, obstacles take a bounce-back branch
// reconv-run(lbm_collide): --global 64 --local 32 --arg src=f32[576]:rand(18,0.5,1.5) --arg dst=f32[576]
// reconv-run(lbm_collide): --arg flags=i32[64]:rand(19,0,3) --arg omega=1.7
#define Q 9
__kernel void lbm_collide(__global const float *src, __global float *dst, __global const int *flags,
                          float omega) {
  int c = get_global_id(0);
  int n = get_global_size(0);
  float f[Q];
  for (int q = 0; q < Q; q++) f[q] = src[q * n + c];
  int flag = flags[c];
  if (flag == 1) { /* obstacle: bounce back */
    for (int q = 1; q < Q; q++) dst[q * n + c] = f[((q - 1) ^ 1) + 1];
    dst[c] = f[0];
    return;
  }
  float rho = 0.0f, ux = 0.0f, uy = 0.0f;
  const int ex[Q] = {0, 1, -1, 0, 0, 1, -1, 1, -1};
  const int ey[Q] = {0, 0, 0, 1, -1, 1, -1, -1, 1};
  for (int q = 0; q < Q; q++) { rho += f[q]; ux += ex[q] * f[q]; uy += ey[q] * f[q]; }
  ux /= rho; uy /= rho;
  if (flag == 2) { ux = 0.005f; uy = 0.002f; } /* accelerated cell */
  float u2 = 1.5f * (ux * ux + uy * uy);
  for (int q = 0; q < Q; q++) {
    float w = q == 0 ? 4.0f / 9.0f : (q < 5 ? 1.0f / 9.0f : 1.0f / 36.0f);
    float eu = ex[q] * ux + ey[q] * uy;
    float feq = w * rho * (1.0f + 3.0f * eu + 4.5f * eu * eu - u2);
    dst[q * n + c] = (1.0f - omega) * f[q] + omega * feq;
  }
}
