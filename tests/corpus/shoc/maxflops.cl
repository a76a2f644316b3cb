// after SHOC's MaxFlops: chains of dependent mad on float4, unrolled by the compiler
// reconv-run(mad_chain): --global 64 --local 32 --arg data=f32[256]:rand(60) --arg nIters=4 --arg v1=0.999 --arg v2=0.001
__kernel void mad_chain(__global float4 *data, int nIters, float v1, float v2) {
  int gid = get_global_id(0);
  float4 s = data[gid];
  float4 t = s + (float4)(1.0f);
  for (int j = 0; j < nIters; j++) {
#pragma unroll 4
    for (int k = 0; k < 16; k++) {
      s = mad(s, (float4)(v1), (float4)(v2));
      t = mad(t, (float4)(v1), (float4)(v2));
    }
  }
  data[gid] = s + t;
}
