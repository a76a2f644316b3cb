// after the NVIDIA OpenCL SDK's oclNbody: the body-body interaction as a device function on float4, softened distance
// reconv-run(integrateBodies): --global 32 --local 32 --arg newPos=f32[128] --arg oldPos=f32[128]:rand(229,-2,2) --arg numBodies=32 --arg softeningSquared=0.01 --arg deltaTime=0.01
__attribute__((noinline)) float4 bodyBodyInteraction(float4 ai, float4 bi, float4 bj, float softeningSquared) {
  float4 r = bj - bi;
  r.w = 0;
  float distSqr = r.x * r.x + r.y * r.y + r.z * r.z + softeningSquared;
  float invDist = rsqrt(distSqr);
  float s = bj.w * invDist * invDist * invDist;
  return mad((float4)(s), r, ai);
}
__kernel void integrateBodies(__global float4 *newPos, __global const float4 *oldPos, int numBodies, float softeningSquared, float deltaTime) {
  int index = get_global_id(0);
  float4 pos = oldPos[index];
  float4 acc = (float4)(0.0f);
  for (int j = 0; j < numBodies; j++) acc = bodyBodyInteraction(acc, pos, oldPos[j], softeningSquared);
  pos.xyz += acc.xyz * deltaTime * deltaTime;
  newPos[index] = pos;
}
