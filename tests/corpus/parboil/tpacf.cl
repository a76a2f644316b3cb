// after Parboil's tpacf: two-point angular correlation, a binary search of the dot product over bin edges
// reconv-run(tpacf_hist): --global 64 --local 64 --arg pts=f32[192]:rand(23,-1,1) --arg npts=64
// reconv-run(tpacf_hist): --arg binb=f32[9]:seq(-1,0.25) --arg hist=i32[8]
__attribute__((noinline)) int find_bin(__global const float *binb, float dot, int nbins) {
  int lo = 0, hi = nbins;
  while (hi > lo + 1) {
    int mid = (lo + hi) / 2;
    if (dot >= binb[mid]) hi = mid;
    else lo = mid;
  }
  return lo;
}
__kernel void tpacf_hist(__global const float *pts, int npts, __global const float *binb,
                         __global int *hist) {
  int i = get_global_id(0);
  float3 a = vload3(i, pts);
  a = normalize(a + (float3)(0.001f, 0.0f, 0.0f));
  for (int j = i + 1; j < npts; j++) {
    float3 b = normalize(vload3(j, pts) + (float3)(0.001f, 0.0f, 0.0f));
    float d = dot(a, b);
    int bin = find_bin(binb, d, 8);
    atomic_inc(&hist[bin]);
  }
}
