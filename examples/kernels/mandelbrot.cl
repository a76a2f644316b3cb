// Mandelbrot: work-item g computes the escape time of pixel g of a width x (global / width) image
// of the region [-2, 0.5] x [-1.25, 1.25]. Points inside the set run all max_iter iterations,
// points far outside leave after one or two: the loop exit diverges.
//
// reconv-run(mandelbrot): --global 256 --arg out=i32[256] --arg width=16 --arg max_iter=64

__kernel void mandelbrot(__global int *out, int width, int max_iter) {
  int gid = get_global_id(0);
  int height = get_global_size(0) / width;
  float cx = -2.0f + 2.5f * (float)(gid % width) / (float)width;
  float cy = -1.25f + 2.5f * (float)(gid / width) / (float)height;
  float x = 0.0f, y = 0.0f;
  int it = 0;
  while (it < max_iter && x * x + y * y <= 4.0f) {
    float t = x * x - y * y + cx;
    y = 2.0f * x * y + cy;
    x = t;
    it++;
  }
  out[gid] = it;
}
