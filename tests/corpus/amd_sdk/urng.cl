// after the AMD APP SDK's URNG: uniform noise added to pixels from a Park-Miller generator, with a shuffle table
// reconv-run(noise_uniform): --global 32 --local 32 --arg inputImage=i8[128]:rand(168,0,127) --arg outputImage=i8[128] --arg factor=20
#define IA 16807
#define IM 2147483647
#define IQ 127773
#define IR 2836
#define NTAB 4
__attribute__((noinline)) float ran1(int idum, __local int *iv) {
  int j, k, iy = 0;
  int tid = get_local_id(0);
  for (j = NTAB; j >= 0; j--) {
    k = idum / IQ;
    idum = IA * (idum - k * IQ) - IR * k;
    if (idum < 0) idum += IM;
    if (j < NTAB) iv[NTAB * tid + j] = idum;
  }
  iy = iv[NTAB * tid];
  k = idum / IQ;
  idum = IA * (idum - k * IQ) - IR * k;
  if (idum < 0) idum += IM;
  j = iy / (1 + (IM - 1) / NTAB);
  iy = iv[NTAB * tid + (j & (NTAB - 1))];
  return (float)iy / 2147483648.0f;
}
__kernel void noise_uniform(__global const uchar4 *inputImage, __global uchar4 *outputImage, int factor) {
  __local int iv[NTAB * 32];
  int pos = get_global_id(0);
  float4 temp = convert_float4(inputImage[pos]);
  float avg = (temp.x + temp.y + temp.z + temp.y) / 4.0f;
  int seed = -(int)avg - 1;
  if (seed == 0) seed = 1;
  seed = seed < 0 ? -seed : seed;
  float dev = ran1(seed, iv);
  float4 ran = (float4)(-factor / 2.0f + dev * factor);
  outputImage[pos] = convert_uchar4_sat(temp + ran);
}
