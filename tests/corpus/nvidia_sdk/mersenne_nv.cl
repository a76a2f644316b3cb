// after the NVIDIA OpenCL SDK's oclMersenneTwister: MT19937-style twist with a small state, tempering by shifts and masks
// reconv-run(MersenneTwister): --global 32 --local 32 --arg d_Rand=f32[128] --arg seeds=i32[32]:rand(214,1,1000000) --arg nPerRng=4
#define MT_NN 19
#define MT_MM 9
#define MATRIX_A 0x9908b0dfu
#define UPPER_MASK 0x80000000u
#define LOWER_MASK 0x7fffffffu
__kernel void MersenneTwister(__global float *d_Rand, __global const uint *seeds, int nPerRng) {
  int globalID = get_global_id(0);
  uint mt[MT_NN];
  mt[0] = seeds[globalID];
  for (int i = 1; i < MT_NN; i++) mt[i] = (1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i);
  int iState = 0;
  for (int iOut = 0; iOut < nPerRng; iOut++) {
    int iState1 = iState + 1, iStateM = iState + MT_MM;
    if (iState1 >= MT_NN) iState1 -= MT_NN;
    if (iStateM >= MT_NN) iStateM -= MT_NN;
    uint x = (mt[iState] & UPPER_MASK) | (mt[iState1] & LOWER_MASK);
    x = mt[iStateM] ^ (x >> 1) ^ ((x & 1) ? MATRIX_A : 0);
    mt[iState] = x;
    iState = iState1;
    x ^= (x >> 11);
    x ^= (x << 7) & 0x9d2c5680u;
    x ^= (x << 15) & 0xefc60000u;
    x ^= (x >> 18);
    d_Rand[globalID + iOut * get_global_size(0)] = ((float)x + 1.0f) / 4294967296.0f;
  }
}
