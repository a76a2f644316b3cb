// after the AMD APP SDK's DwtHaar1D: multi-level Haar decomposition of a signal in __local memory
// reconv-run(dwtHaar1D): --global 32 --local 32 --arg inSignal=f32[64]:rand(154) --arg coefsSignal=f32[64] --arg AverageSignal=f32[1] --arg sharedArray=local:f32[64] --arg tLevels=6 --arg signalLength=64
__kernel void dwtHaar1D(__global const float *inSignal, __global float *coefsSignal, __global float *AverageSignal,
                        __local float *sharedArray, uint tLevels, uint signalLength) {
  size_t localId = get_local_id(0);
  size_t localSize = get_local_size(0);
  float t0 = inSignal[2 * localId], t1 = inSignal[2 * localId + 1];
  const float invSqrt2 = 0.70710678f;
  sharedArray[localId] = (t0 + t1) * invSqrt2;
  coefsSignal[signalLength / 2 + localId] = (t0 - t1) * invSqrt2;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint levels = tLevels > 6 ? 6 : tLevels;
  uint activeThreads = (1 << levels) / 4;
  uint midOutPos = signalLength / 4;
  for (uint i = 1; i < levels; ++i) {
    float data0 = 0.0f, data1 = 0.0f;
    if (localId < activeThreads) {
      data0 = sharedArray[2 * localId];
      data1 = sharedArray[2 * localId + 1];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (localId < activeThreads) {
      sharedArray[localId] = (data0 + data1) * invSqrt2;
      coefsSignal[midOutPos + localId] = (data0 - data1) * invSqrt2;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    activeThreads >>= 1;
    midOutPos >>= 1;
  }
  if (localId == 0) AverageSignal[0] = sharedArray[0] + 0.0f * localSize;
}
