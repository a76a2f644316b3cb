// after the AMD APP SDK's BoxFilter (SAT version): a box sum from a summed-area table, clamped at the edges
// reconv-run(box_filter_sat): --global 16,16 --local 8,8 --arg sat=i32[256]:seq --arg out=i32[256] --arg N=2 --arg width=16 --arg height=16
__kernel void box_filter_sat(__global const int *sat, __global int *out, int N, int width, int height) {
  int x = get_global_id(0), y = get_global_id(1);
  int k = N / 2;
  if (x < k || y < k || x >= width - k || y >= height - k) { out[y * width + x] = 0; return; }
  int x0 = x - k, y0 = y - k, x1 = x + k, y1 = y + k;
  int sum = sat[y1 * width + x1];
  if (x0 > 0) sum -= sat[y1 * width + x0 - 1];
  if (y0 > 0) sum -= sat[(y0 - 1) * width + x1];
  if (x0 > 0 && y0 > 0) sum += sat[(y0 - 1) * width + x0 - 1];
  out[y * width + x] = sum / ((2 * k + 1) * (2 * k + 1));
}
