// Anantpur and Govindarajan 2014, Fig. 2b/2c: an inner loop whose trip count differs between
// threads and between iterations of the outer loop (thread T1: 10 then 15, T2: 15 then 10).
// Under IPDOM reconvergence a thread that leaves the inner loop early waits for the others; loop
// merging lets it run S3 and the next outer iteration and join them in the inner loop.
//
// reconv-run(loop_merge): --global 64 --arg out=i32[128] --arg outer=2

__kernel void loop_merge(__global int *out, int outer) {
  int gid = get_global_id(0);
  int acc = gid;
  for (int i = 0; i < outer; i++) {
    acc = acc * 2 + 1;                                       // S1
    int trips = (i & 1) ? 15 - (gid & 7) : 10 + (gid & 7);   // Fig. 2c
    for (int j = 0; j < trips; j++)
      acc = (acc ^ (j * 7)) + (acc >> 3);                    // S2
    out[gid * 2 + (i & 1)] = acc;                            // S3
  }
}
