// after Parboil's histo (prescan kernel): per-group min/max of the input by __local tree reduction
// reconv-run(histo_prescan): --global 128 --local 64 --arg in=i32[128]:rand(27,-500,500) --arg minmax=i32[4] --arg n=128
__kernel void histo_prescan(__global const int *in, __global int *minmax, int n) {
  __local int lmin[64], lmax[64];
  int lid = get_local_id(0), gid = get_global_id(0);
  int v = gid < n ? in[gid] : in[0];
  lmin[lid] = v; lmax[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s) {
      lmin[lid] = min(lmin[lid], lmin[lid + s]);
      lmax[lid] = max(lmax[lid], lmax[lid + s]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    int g = get_group_id(0);
    minmax[2 * g] = lmin[0];
    minmax[2 * g + 1] = lmax[0];
  }
}
