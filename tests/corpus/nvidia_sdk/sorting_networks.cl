// after the NVIDIA OpenCL SDK's oclSortingNetworks: a local bitonic sort of key/value pairs with a comparator device function
// reconv-run(bitonicSortLocal): --global 32 --local 32 --arg d_DstKey=i32[64] --arg d_DstVal=i32[64] --arg d_SrcKey=i32[64]:rand(210,0,1000) --arg d_SrcVal=i32[64]:seq --arg dir=1
#define LOCAL_SIZE_LIMIT 64
__attribute__((noinline)) void ComparatorLocal(__local uint *keyA, __local uint *valA, __local uint *keyB, __local uint *valB, uint dir) {
  if ((*keyA > *keyB) == dir) {
    uint t = *keyA; *keyA = *keyB; *keyB = t;
    t = *valA; *valA = *valB; *valB = t;
  }
}
__kernel void bitonicSortLocal(__global uint *d_DstKey, __global uint *d_DstVal, __global const uint *d_SrcKey,
                               __global const uint *d_SrcVal, uint dir) {
  __local uint l_key[LOCAL_SIZE_LIMIT], l_val[LOCAL_SIZE_LIMIT];
  uint lid = get_local_id(0);
  l_key[lid] = d_SrcKey[lid];
  l_val[lid] = d_SrcVal[lid];
  l_key[lid + 32] = d_SrcKey[lid + 32];
  l_val[lid + 32] = d_SrcVal[lid + 32];
  for (uint size = 2; size < LOCAL_SIZE_LIMIT; size <<= 1) {
    uint ddd = dir ^ ((lid & (size / 2)) != 0);
    for (uint stride = size / 2; stride > 0; stride >>= 1) {
      barrier(CLK_LOCAL_MEM_FENCE);
      uint pos = 2 * lid - (lid & (stride - 1));
      ComparatorLocal(&l_key[pos], &l_val[pos], &l_key[pos + stride], &l_val[pos + stride], ddd);
    }
  }
  for (uint stride = LOCAL_SIZE_LIMIT / 2; stride > 0; stride >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    uint pos = 2 * lid - (lid & (stride - 1));
    ComparatorLocal(&l_key[pos], &l_val[pos], &l_key[pos + stride], &l_val[pos + stride], dir);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  d_DstKey[lid] = l_key[lid]; d_DstVal[lid] = l_val[lid];
  d_DstKey[lid + 32] = l_key[lid + 32]; d_DstVal[lid + 32] = l_val[lid + 32];
}
