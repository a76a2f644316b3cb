// after SHOC's qtclustering: count the points within a threshold of each candidate, skip assigned ones
// reconv-run(qtc_cardinality): --global 64 --local 32 --arg pts=f32[128]:rand(65,0,4) --arg assigned=i32[64]:rand(66,0,1)
// reconv-run(qtc_cardinality): --arg card=i32[64] --arg npts=64 --arg thresh=1.0
__kernel void qtc_cardinality(__global const float2 *pts, __global const int *assigned,
                              __global int *card, int npts, float thresh) {
  int i = get_global_id(0);
  if (assigned[i]) { card[i] = 0; return; }
  float2 p = pts[i];
  int c = 0;
  for (int j = 0; j < npts; j++) {
    if (assigned[j]) continue;
    if (distance(p, pts[j]) < thresh) c++;
  }
  card[i] = c;
}
