// Collatz: work-item g counts the steps from g + 1 down to 1. The loop's trip count, and so its
// exit, diverges wildly between neighbouring work-items.
//
// reconv-run(collatz): --global 64 --arg out=i32[64]

__kernel void collatz(__global int *out) {
  int gid = get_global_id(0);
  unsigned x = gid + 1;
  int steps = 0;
  while (x != 1) {
    if (x & 1)
      x = 3 * x + 1;
    else
      x = x / 2;
    steps++;
  }
  out[gid] = steps;
}
