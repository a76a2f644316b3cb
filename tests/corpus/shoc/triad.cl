// after SHOC's triad: STREAM triad on float4 vectors, C = A + s*B
// reconv-run(triad): --global 64 --local 32 --arg A=f32[256]:rand(56) --arg B=f32[256]:rand(57) --arg C=f32[256] --arg s=1.75
__kernel void triad(__global const float4 *A, __global const float4 *B, __global float4 *C, float s) {
  int gid = get_global_id(0);
  C[gid] = A[gid] + s * B[gid];
}
