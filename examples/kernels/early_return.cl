// Early returns inside a loop: a linear search that leaves the kernel from two places in the loop
// body (found the work-item's key; hit a negative sentinel) besides the normal loop exit. The
// loop has three exits, all divergent.
//
// reconv-run(early_return): --global 64 --arg in=i32[64]:rand(7,-4,63) --arg out=i32[64] --arg n=64

__kernel void early_return(__global const int *in, __global int *out, int n) {
  int gid = get_global_id(0);
  int acc = 0;
  for (int i = 0; i < n; i++) {
    int v = in[(gid + i) % n];
    if (v == gid) {
      out[gid] = -1 - i;  // found: where
      return;
    }
    if (v < 0) {
      out[gid] = acc;     // sentinel: the sum so far
      return;
    }
    acc += v;
  }
  out[gid] = 100000 + acc;
}
