// after SHOC's scan: reduce per block, scan of the block sums, then a bottom scan adding the offsets
// reconv-run(scan_reduce): --global 64 --local 32 --arg in=i32[256]:rand(42) --arg isums=i32[2] --arg n=256
// reconv-run(scan_top): --global 32 --local 32 --arg isums=i32[32]:rand(43) --arg n=32
__kernel void scan_reduce(__global const int *in, __global int *isums, int n) {
  __local int l[32];
  int per_group = n / get_num_groups(0);
  int start = get_group_id(0) * per_group;
  int s = 0;
  for (int i = start + get_local_id(0); i < start + per_group; i += get_local_size(0)) s += in[i];
  l[get_local_id(0)] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = get_local_size(0) / 2; k > 0; k >>= 1) {
    if (get_local_id(0) < k) l[get_local_id(0)] += l[get_local_id(0) + k];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (get_local_id(0) == 0) isums[get_group_id(0)] = l[0];
}
/* exclusive Hillis-Steele scan of one work-group in __local memory */
__kernel void scan_top(__global int *isums, int n) {
  __local int a[64];
  int lid = get_local_id(0);
  int v = lid < n ? isums[lid] : 0;
  a[lid] = 0;
  a[lid + 32] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = 1; off < 32; off <<= 1) {
    int t = a[lid + 32] + a[lid + 32 - off];
    barrier(CLK_LOCAL_MEM_FENCE);
    a[lid + 32] = t;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid < n) isums[lid] = a[lid + 32] - v;
}
