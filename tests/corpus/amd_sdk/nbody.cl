// after the AMD APP SDK's NBody: all-pairs gravity with positions tiled through __local float4, then integration
// reconv-run(nbody_sim): --global 64 --local 32 --arg pos=f32[256]:rand(161,0,4) --arg vel=f32[256] --arg numBodies=64 --arg deltaTime=0.005 --arg epsSqr=50.0 --arg localPos=local:f32[128] --arg newPosition=f32[256] --arg newVelocity=f32[256]
__kernel void nbody_sim(__global const float4 *pos, __global const float4 *vel, int numBodies, float deltaTime,
                        float epsSqr, __local float4 *localPos, __global float4 *newPosition, __global float4 *newVelocity) {
  unsigned int tid = get_local_id(0), gid = get_global_id(0), localSize = get_local_size(0);
  unsigned int numTiles = numBodies / localSize;
  float4 myPos = pos[gid];
  float4 acc = (float4)(0.0f);
  for (int i = 0; i < numTiles; ++i) {
    localPos[tid] = pos[i * localSize + tid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < localSize; ++j) {
      float4 r = localPos[j] - myPos;
      float distSqr = r.x * r.x + r.y * r.y + r.z * r.z;
      float invDist = 1.0f / sqrt(distSqr + epsSqr);
      float s = localPos[j].w * invDist * invDist * invDist;
      acc += s * r;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  float4 oldVel = vel[gid];
  float4 newPos = myPos + oldVel * deltaTime + acc * 0.5f * deltaTime * deltaTime;
  newPos.w = myPos.w;
  newPosition[gid] = newPos;
  newVelocity[gid] = oldVel + acc * deltaTime;
}
