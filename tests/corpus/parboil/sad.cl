// after Parboil's sad: sum of absolute differences of 4x4 blocks over a small search window
// reconv-run(sad4x4): --global 16 --local 16 --arg cur=i32[256]:rand(20,0,255) --arg ref=i32[256]:rand(21,0,255)
// reconv-run(sad4x4): --arg out=i32[16] --arg width=16
__kernel void sad4x4(__global const int *cur, __global const int *ref, __global int *out, int width) {
  int blk = get_global_id(0);
  int bx = (blk & 3) * 4, by = (blk >> 2) * 4;
  uint best = 0xffffffffu;
  for (int dy = -2; dy <= 2; dy++)
    for (int dx = -2; dx <= 2; dx++) {
      if (bx + dx < 0 || by + dy < 0 || bx + dx + 3 >= width || by + dy + 3 >= width) continue;
      uint s = 0;
      for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
          s += abs_diff(cur[(by + y) * width + bx + x], ref[(by + dy + y) * width + bx + dx + x]);
      best = min(best, s);
    }
  out[blk] = (int)best;
}
