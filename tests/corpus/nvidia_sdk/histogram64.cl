// after the NVIDIA OpenCL SDK's oclHistogram (histogram64): per-thread byte counters packed in __local uchar memory
// reconv-run(histogram64): --global 32 --local 32 --arg d_PartialHistograms=i32[64] --arg d_Data=i32[64]:rand(209,0,1000000) --arg dataCount=64
__kernel void histogram64(__global uint *d_PartialHistograms, __global const uint *d_Data, uint dataCount) {
  __local uchar l_Hist[32 * 64];
  const uint lPos = get_local_id(0);
  for (uint i = 0; i < 64; i++) l_Hist[lPos + i * 32] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint pos = get_global_id(0); pos < dataCount; pos += get_global_size(0)) {
    uint data4 = d_Data[pos];
    l_Hist[lPos + ((data4 >> 2) & 0x3fu) * 32]++;
    l_Hist[lPos + ((data4 >> 10) & 0x3fu) * 32]++;
    l_Hist[lPos + ((data4 >> 18) & 0x3fu) * 32]++;
    l_Hist[lPos + ((data4 >> 26) & 0x3fu) * 32]++;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint bin = lPos; bin < 64; bin += 32) {
    uint sum = 0;
    for (uint i = 0; i < 32; i++) sum += l_Hist[bin * 32 + ((i + lPos) & 31)];
    d_PartialHistograms[get_group_id(0) * 64 + bin] = sum;
  }
}
