// after the NVIDIA OpenCL SDK's oclConvolutionSeparable: the row pass with halo loads into __local memory
// reconv-run(convolutionRows): --global 16,4 --local 16,4 --arg d_Dst=f32[64] --arg d_Src=f32[64]:rand(215) --arg c_Kernel=f32[5]:rand(216) --arg imageW=16 --arg imageH=4
#define KERNEL_RADIUS 2
#define ROWS_W 16
__kernel void convolutionRows(__global float *d_Dst, __global const float *d_Src, __constant float *c_Kernel, int imageW, int imageH) {
  __local float l_Data[4][ROWS_W + 2 * KERNEL_RADIUS];
  int lx = get_local_id(0), ly = get_local_id(1);
  int x = get_global_id(0), y = get_global_id(1);
  l_Data[ly][lx + KERNEL_RADIUS] = d_Src[y * imageW + x];
  if (lx < KERNEL_RADIUS) {
    l_Data[ly][lx] = x - KERNEL_RADIUS >= 0 ? d_Src[y * imageW + x - KERNEL_RADIUS] : 0.0f;
    l_Data[ly][lx + ROWS_W + KERNEL_RADIUS] = x + ROWS_W < imageW ? d_Src[y * imageW + x + ROWS_W] : 0.0f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  float sum = 0;
  for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++) sum += c_Kernel[KERNEL_RADIUS - j] * l_Data[ly][lx + KERNEL_RADIUS + j];
  d_Dst[y * imageW + x] = sum;
}
