// An irreducible loop built with goto: the cycle A <-> B has two entries (odd work-items start in
// B, even ones in A), so no block of it dominates the other. reconv's transforms take such CFGs
// directly; LLVM needs fix-irreducible first.
//
// reconv-run(irreducible): --global 64 --arg out=i32[64]

__kernel void irreducible(__global int *out) {
  int gid = get_global_id(0);
  int x = gid + 3, n = 0;
  if (gid & 1)
    goto B;
A:
  x = x * 3 + 1;
  n++;
  if (x > 5000)
    goto done;
B:
  x = x / 2 + (x & 7);
  n++;
  if (n < 40 && (x & 3) != 0)
    goto A;
  if (n < 40 && (x & 4) != 0)
    goto B;
done:
  out[gid] = x + n * 10000;
}
