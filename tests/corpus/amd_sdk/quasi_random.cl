// after the AMD APP SDK's QuasiRandomSequence: Sobol-like points from direction numbers, bit by bit
// reconv-run(QuasiRandomSequence): --global 32 --local 32 --arg output=f32[32] --arg input=i32[32]:rand(163,1,100000)
__kernel void QuasiRandomSequence(__global float *output, __global const uint *input) {
  uint gid = get_global_id(0);
  uint temp = 0;
  uint n = gid + 1;
  for (int k = 0; k < 32 && n; k++, n >>= 1)
    if (n & 1) temp ^= input[k];
  output[gid] = temp * (1.0f / 4294967296.0f);
}
