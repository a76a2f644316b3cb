// after the classification kernels of Parboil's tpacf and SHOC's qtclustering: a device function with many returns, called in a loop
// reconv-run(classify_all): --global 64 --local 32 --arg pts=f32[128]:rand(256,-2,2) --arg cls=i32[64] --arg counts=i32[8]
__attribute__((noinline)) int classify(float2 p) {
  if (isnan(p.x) || isnan(p.y)) return 7;
  float r2 = dot(p, p);
  if (r2 < 0.25f) return 0;
  if (r2 > 4.0f) return 6;
  if (p.x >= 0.0f) {
    if (p.y >= 0.0f) return 1;
    return 2;
  }
  if (p.y >= 0.0f) return 3;
  return p.x < -1.0f ? 4 : 5;
}
__kernel void classify_all(__global const float2 *pts, __global int *cls, __global int *counts) {
  int i = get_global_id(0);
  int c = classify(pts[i]);
  cls[i] = c;
  int k = 0;
  while (k < 3) {
    if (classify(pts[(i + k + 1) & 63]) == c) break;
    k++;
  }
  atomic_add(&counts[c], k);
}
