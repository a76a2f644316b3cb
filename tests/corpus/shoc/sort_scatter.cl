// after SHOC's sort (bottom_scan / scatter): place keys by digit with a per-digit running offset
// reconv-run(radix_scatter): --global 32 --local 32 --arg keys=i32[32]:rand(68,0,255) --arg out=i32[32] --arg offsets=i32[16]:seq(0,2) --arg shift=4
__kernel void radix_scatter(__global const uint *keys, __global uint *out, __global const uint *offsets,
                            int shift) {
  __local uint ldig[32];
  int lid = get_local_id(0);
  uint k = keys[lid];
  uint d = (k >> shift) & 15u;
  ldig[lid] = d;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint rank = 0;
  for (int j = 0; j < lid; j++) rank += ldig[j] == d; /* stable rank among equal digits */
  uint pos = offsets[d] + rank;
  if (pos < 32) out[pos] = k;
}
