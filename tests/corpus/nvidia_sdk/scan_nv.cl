// after the NVIDIA OpenCL SDK's oclScan: a warp-style inclusive scan in __local memory and an exclusive 4-element scan
// reconv-run(scanExclusiveLocal1): --global 32 --local 32 --arg d_Dst=i32[128] --arg d_Src=i32[128]:rand(208) --arg l_Data=local:i32[64] --arg size=128
__attribute__((noinline)) uint scan1Inclusive(uint idata, __local uint *l_Data, uint size) {
  uint pos = 2 * get_local_id(0) - (get_local_id(0) & (size - 1));
  l_Data[pos] = 0;
  pos += size;
  l_Data[pos] = idata;
  for (uint offset = 1; offset < size; offset <<= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    uint t = l_Data[pos] + l_Data[pos - offset];
    barrier(CLK_LOCAL_MEM_FENCE);
    l_Data[pos] = t;
  }
  return l_Data[pos];
}
__kernel void scanExclusiveLocal1(__global uint4 *d_Dst, __global const uint4 *d_Src, __local uint *l_Data, uint size) {
  uint4 idata4 = d_Src[get_global_id(0)];
  idata4.y += idata4.x;
  idata4.z += idata4.y;
  idata4.w += idata4.z;
  uint oval = scan1Inclusive(idata4.w, l_Data, 32) - idata4.w;
  d_Dst[get_global_id(0)] = (uint4)(oval, oval + idata4.x, oval + idata4.y, oval + idata4.z);
}
