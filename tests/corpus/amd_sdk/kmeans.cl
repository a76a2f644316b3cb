// after the AMD APP SDK's KmeansAutoclustering: assign each point to the nearest centroid, count members atomically
// reconv-run(assignCentroid): --global 64 --local 32 --arg pointPos=f32[128]:rand(173,0,10) --arg cluster=i32[64] --arg centroidPos=f32[8]:rand(174,0,10) --arg numClusters=4 --arg members=i32[4]
__kernel void assignCentroid(__global const float2 *pointPos, __global uint *cluster, __global const float2 *centroidPos,
                             uint numClusters, __global int *members) {
  uint gid = get_global_id(0);
  float2 p = pointPos[gid];
  float best = FLT_MAX;
  uint bestIdx = 0;
  for (uint c = 0; c < numClusters; c++) {
    float2 d = p - centroidPos[c];
    float dist = dot(d, d);
    if (dist < best) { best = dist; bestIdx = c; }
  }
  cluster[gid] = bestIdx;
  atomic_inc(&members[bestIdx]);
}
