// after the AMD APP SDK's Histogram: 256-bin histogram of bytes with __local sub-histograms and a merge
// reconv-run(histogram256): --global 64 --local 64 --arg data=i32[256]:rand(157,0,100000) --arg sharedArray=local:i32[256] --arg binResult=i32[256]
__kernel void histogram256(__global const uint4 *data, __local uint *sharedArray, __global uint *binResult) {
  size_t localId = get_local_id(0), globalId = get_global_id(0), groupSize = get_local_size(0);
  for (int i = localId; i < 256; i += groupSize) sharedArray[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint4 v = data[globalId];
  uint4 b = v & (uint4)(0xffu);
  atomic_inc(&sharedArray[b.x]);
  atomic_inc(&sharedArray[b.y]);
  atomic_inc(&sharedArray[b.z]);
  atomic_inc(&sharedArray[b.w]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = localId; i < 256; i += groupSize)
    if (sharedArray[i]) atomic_add(&binResult[i], sharedArray[i]);
}
