// after the AMD APP SDK's MersenneTwister: a small per-item twister state, tempering and a Box-Muller pair
// reconv-run(gaussianRand): --global 32 --local 32 --arg seedArray=i32[128]:rand(159,1,100000) --arg width=32 --arg mulFactor=2 --arg gaussianRand=f32[64]
__attribute__((noinline)) uint4 lshift128(uint4 input, uint shift) {
  uint invshift = 32u - shift;
  uint4 temp;
  temp.x = input.x << shift;
  temp.y = (input.y << shift) | (input.x >> invshift);
  temp.z = (input.z << shift) | (input.y >> invshift);
  temp.w = (input.w << shift) | (input.z >> invshift);
  return temp;
}
__kernel void gaussianRand(__global const uint4 *seedArray, uint width, uint mulFactor, __global float *gaussianRand) {
  uint4 mask4 = (uint4)(0xdfffffefu, 0xdff7fb7fu, 0x6fffdfffu, 0xbffffff6u);
  uint4 state = seedArray[get_global_id(0)];
  float out[2];
  for (uint i = 0; i < mulFactor; ++i) {
    uint4 t = lshift128(state, 8) ^ ((state >> 11) & mask4) ^ state.yzwx;
    state = t;
    uint4 r = t ^ (t >> 7);
    float u1 = (r.x & 0xffffffu) / 16777216.0f + 1e-7f;
    float u2 = (r.y & 0xffffffu) / 16777216.0f;
    float rr = sqrt(-2.0f * log(u1));
    out[i & 1] = i & 1 ? rr * sin(6.2831853f * u2) : rr * cos(6.2831853f * u2);
  }
  gaussianRand[2 * get_global_id(0)] = out[0];
  gaussianRand[2 * get_global_id(0) + 1] = out[1];
}
