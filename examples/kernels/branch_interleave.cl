// Anantpur and Govindarajan 2014, Fig. 2a: a divergent branch with a nested branch on each side
// (B1 -> B2 {B3 | B4} | B5 {B6 | B7}). Serial execution of the two sides forgoes the latency
// hiding that interleaving blocks of both sides (B1, B2, B5, B3, B6 ...) would give.
//
// reconv-run(branch_interleave): --global 64 --arg in=i32[64]:rand(11,0,99) --arg out=i32[64]

__kernel void branch_interleave(__global const int *in, __global int *out) {
  int gid = get_global_id(0);
  int x = in[gid];
  if ((gid & 1) == 0) {          // B1: c1
    x = x * 3;                   // B2: S1
    if (x & 4)                   //     c2
      out[gid] = x + 1;          // B3: S2
    else
      out[gid] = x - 1;          // B4: S3
  } else {
    x = x + in[(gid + 1) % 64];  // B5: S4 (a load whose latency B2 could hide)
    if (x > 100)                 //     c3
      out[gid] = x * 2;          // B6: S5
    else
      out[gid] = x / 2;          // B7: S6
  }
}
