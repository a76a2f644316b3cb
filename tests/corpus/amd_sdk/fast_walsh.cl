// after the AMD APP SDK's FastWalshTransform: one butterfly step of the Walsh-Hadamard transform
// reconv-run(fastWalshTransform): --global 32 --local 32 --arg tArray=f32[64]:rand(155) --arg step=4
__kernel void fastWalshTransform(__global float *tArray, const int step) {
  unsigned int tid = get_global_id(0);
  const unsigned int group = tid % step;
  const unsigned int pair = 2 * step * (tid / step) + group;
  const unsigned int match = pair + step;
  float T1 = tArray[pair], T2 = tArray[match];
  tArray[pair] = T1 + T2;
  tArray[match] = T1 - T2;
}
