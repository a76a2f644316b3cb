// after the escape-time loops of the AMD APP SDK's Mandelbrot: iterate until escape, several exits from the loop body
// reconv-run(mandel_escape): --global 64 --local 32 --arg out=i32[64] --arg width=8 --arg maxIter=50
__kernel void mandel_escape(__global int *out, int width, int maxIter) {
  int gx = get_global_id(0) % width, gy = get_global_id(0) / width;
  float cr = -2.0f + 2.5f * gx / width, ci = -1.25f + 2.5f * gy / width;
  float zr = 0.0f, zi = 0.0f;
  int it = 0;
  for (;;) {
    if (it >= maxIter) { out[get_global_id(0)] = -1; return; }
    float zr2 = zr * zr, zi2 = zi * zi;
    if (zr2 + zi2 > 4.0f) break;
    zi = 2.0f * zr * zi + ci;
    zr = zr2 - zi2 + cr;
    it++;
    if (zr == 0.0f && zi == 0.0f) { it = -2; break; } /* a fixed point */
  }
  out[get_global_id(0)] = it;
}
