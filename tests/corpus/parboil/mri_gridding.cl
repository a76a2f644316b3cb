// after Parboil's mri-gridding: scatter samples to a grid with a Kaiser-Bessel-like window, binned by cell
// reconv-run(gridding): --global 64 --local 32 --arg sx=f32[64]:rand(24,0,15) --arg sy=f32[64]:rand(25,0,15)
// reconv-run(gridding): --arg val=f32[64]:rand(26) --arg grid=i32[256] --arg cnt=i32[256] --arg width=2.0 --arg beta=3.0
__attribute__((noinline)) float kb_weight(float d, float width, float beta) {
  float t = d / width;
  if (t >= 1.0f) return 0.0f;
  float s = sqrt(1.0f - t * t);
  return exp(beta * (s - 1.0f)); /* a cheap stand-in for I0(beta*s)/I0(beta) */
}
__kernel void gridding(__global const float *sx, __global const float *sy, __global const float *val,
                       __global int *grid, __global int *cnt, float width, float beta) {
  int i = get_global_id(0);
  float x = sx[i], y = sy[i];
  int x0 = max((int)ceil(x - width), 0), x1 = min((int)floor(x + width), 15);
  int y0 = max((int)ceil(y - width), 0), y1 = min((int)floor(y + width), 15);
  for (int gy = y0; gy <= y1; gy++)
    for (int gx = x0; gx <= x1; gx++) {
      float d = hypot(gx - x, gy - y);
      float w = kb_weight(d, width, beta);
      if (w == 0.0f) continue;
      atomic_inc(&cnt[gy * 16 + gx]);
      atomic_add(&grid[gy * 16 + gx], (int)(w * val[i] * 1024.0f)); /* fixed point: order-free */
    }
}
