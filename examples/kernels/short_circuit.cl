// Anantpur and Govindarajan 2014, Fig. 1: the short-circuit example,
//   if ((c1() || c2()) && c3()) S1; else S2; S3;
// whose CFG is unstructured: B1 (c1) -> B3 or B2 (c2), B2 -> B3 or B5, B3 (c3) -> B4 (S1) or
// B5 (S2), both -> B6 (S3). Under IPDOM reconvergence B3 and B5 may run several times per warp.
// The conditions read memory (so that clang keeps the short circuit instead of computing all
// three) at addresses given by the work-item id, so the threads of a wave diverge.
//
// reconv-run(short_circuit): --global 64 --arg c=i32[192]:rand(1,0,1) --arg out=i32[64]

__kernel void short_circuit(__global const int *c, __global int *out) {
  int gid = get_global_id(0);
  if ((c[3 * gid] || c[3 * gid + 1]) && c[3 * gid + 2])
    out[gid] = gid * 10;      // S1
  else
    out[gid] = -gid;          // S2
  out[gid] += 1000;           // S3
}
