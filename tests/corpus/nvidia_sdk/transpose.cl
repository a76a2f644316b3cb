// after the NVIDIA OpenCL SDK's oclTranspose: a padded __local tile avoids bank conflicts, edges guarded
// reconv-run(transpose): --global 16,16 --local 8,8 --arg odata=f32[240] --arg idata=f32[240]:rand(206) --arg offset=0 --arg width=16 --arg height=15
#define BLOCK_DIM 8
__kernel void transpose(__global float *odata, __global const float *idata, int offset, int width, int height) {
  __local float block[BLOCK_DIM * (BLOCK_DIM + 1)];
  unsigned int xIndex = get_global_id(0), yIndex = get_global_id(1);
  if ((xIndex + offset < width) && (yIndex < height)) {
    unsigned int index_in = yIndex * width + xIndex + offset;
    block[get_local_id(1) * (BLOCK_DIM + 1) + get_local_id(0)] = idata[index_in];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  xIndex = get_group_id(1) * BLOCK_DIM + get_local_id(0);
  yIndex = get_group_id(0) * BLOCK_DIM + get_local_id(1);
  if ((xIndex < height) && (yIndex + offset < width)) {
    unsigned int index_out = yIndex * height + xIndex;
    odata[index_out] = block[get_local_id(0) * (BLOCK_DIM + 1) + get_local_id(1)];
  }
}
