// after Parboil's histo: saturating histogram with per-work-group __local bins and global atomics
// reconv-run(histo_local): --global 256 --local 64 --arg img=i32[256]:rand(9,0,63) --arg histo=i32[64]
// reconv-run(histo_local): --arg n=256 --arg bins=64
__kernel void histo_local(__global const int *img, __global int *histo, int n, int bins) {
  __local int lh[64];
  int lid = get_local_id(0);
  for (int b = lid; b < 64; b += get_local_size(0)) lh[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
    int v = img[i];
    if (v >= 0 && v < bins) atomic_inc(&lh[v]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int b = lid; b < bins; b += get_local_size(0)) {
    int c = lh[b];
    if (c == 0) continue;
    int old = atomic_add(&histo[b], c);
    if (old + c > 255) atomic_min(&histo[b], 255); /* saturate like the 8-bit bins */
  }
}
