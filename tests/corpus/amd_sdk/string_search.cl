// after the AMD APP SDK's StringSearch (naive): compare the pattern at each position, leaving at the first mismatch
// reconv-run(StringSearchNaive): --global 64 --local 32 --arg text=i8[80]:rand(172,97,99) --arg textLength=80 --arg pattern=i8[3]:fill(97) --arg patternLength=3 --arg resultBuffer=i32[64] --arg resultCountPerWG=i32[2] --arg maxSearchLength=1
__kernel void StringSearchNaive(__global const uchar *text, const uint textLength, __global const uchar *pattern,
                                const uint patternLength, __global int *resultBuffer, __global int *resultCountPerWG,
                                const uint maxSearchLength) {
  __local volatile uint groupSuccessCounter;
  int localIdx = get_local_id(0), localSize = get_local_size(0), groupIdx = get_group_id(0);
  uint lastSearchIdx = textLength - patternLength + 1;
  uint beginSearchIdx = groupIdx * localSize * maxSearchLength;
  if (localIdx == 0) groupSuccessCounter = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stringPos = beginSearchIdx + localIdx; stringPos < min(beginSearchIdx + localSize * maxSearchLength, lastSearchIdx); stringPos += localSize) {
    int i;
    for (i = 0; i < patternLength; i++)
      if (text[stringPos + i] != pattern[i]) break;
    if (i == patternLength) {
      int count = atomic_inc(&groupSuccessCounter);
      resultBuffer[beginSearchIdx + count] = stringPos;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (localIdx == 0) resultCountPerWG[groupIdx] = groupSuccessCounter;
}
