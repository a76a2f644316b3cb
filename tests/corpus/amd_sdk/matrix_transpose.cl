// after the AMD APP SDK's MatrixTranspose: a block transposed through __local memory
// reconv-run(matrixTranspose): --global 16,16 --local 8,8 --arg output=f32[256] --arg input=f32[256]:rand(158) --arg block=local:f32[64] --arg width=16 --arg height=16 --arg blockSize=8
__kernel void matrixTranspose(__global float *output, __global const float *input, __local float *block,
                              const uint width, const uint height, const uint blockSize) {
  uint globalIdx = get_global_id(0), globalIdy = get_global_id(1);
  uint localIdx = get_local_id(0), localIdy = get_local_id(1);
  block[localIdy * blockSize + localIdx] = input[globalIdy * width + globalIdx];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint groupIdx = get_group_id(0), groupIdy = get_group_id(1);
  uint targetGlobalIdx = groupIdy * blockSize + localIdy;
  uint targetGlobalIdy = groupIdx * blockSize + localIdx;
  output[targetGlobalIdy * height + targetGlobalIdx] = block[localIdx * blockSize + localIdy];
}
