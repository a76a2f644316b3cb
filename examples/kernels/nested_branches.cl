// Anantpur and Govindarajan 2014, Fig. 3a: three nested divergent branches. The reconvergence
// stack of IPDOM hardware grows by one entry per nesting level (Fig. 3b).
//
// reconv-run(nested_branches): --global 64 --arg out=i32[64]:seq

__kernel void nested_branches(__global int *out) {
  int gid = get_global_id(0);
  int v = 0;
  if (gid & 1) {               // B1: branch 1
    if (gid & 2) {             // B2: branch 2
      if (gid & 4)             // B4: branch 3
        v = out[gid] + 1;      // B6: S1
      else
        v = out[gid] * 3;      // B7: S2
      v = v * 5 + (v >> 2);    // B8: S3
    } else {
      v = gid * gid;           // B5: S4
    }
    out[gid] = v;              // B9: S5
  } else {
    out[gid] = gid - 7;        // B3: S6
  }
  out[gid] += 100;             // B10: S7
}
