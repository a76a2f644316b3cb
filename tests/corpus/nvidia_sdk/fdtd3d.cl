// after the NVIDIA OpenCL SDK's oclFDTD3d: march along z keeping a register queue of planes, neighbours from a __local tile
// reconv-run(FiniteDifferences): --global 8,8 --local 8,8 --arg output=f32[512] --arg input=f32[512]:rand(217) --arg coeff=f32[3]:rand(218) --arg dimx=8 --arg dimy=8 --arg dimz=8
#define RADIUS 1
__kernel void FiniteDifferences(__global float *output, __global const float *input, __constant float *coeff, int dimx, int dimy, int dimz) {
  __local float tile[8 + 2 * RADIUS][8 + 2 * RADIUS];
  int gx = get_global_id(0), gy = get_global_id(1);
  int lx = get_local_id(0) + RADIUS, ly = get_local_id(1) + RADIUS;
  int stride_y = dimx, stride_z = dimx * dimy;
  bool valid = gx >= RADIUS && gx < dimx - RADIUS && gy >= RADIUS && gy < dimy - RADIUS;
  float behind, current = input[gy * stride_y + gx], infront = input[stride_z + gy * stride_y + gx];
  for (int iz = 1; iz < dimz - 1; iz++) {
    behind = current;
    current = infront;
    infront = input[(iz + 1) * stride_z + gy * stride_y + gx];
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[ly][lx] = current;
    if (get_local_id(0) < RADIUS) {
      tile[ly][lx - RADIUS] = gx >= RADIUS ? input[iz * stride_z + gy * stride_y + gx - RADIUS] : 0.0f;
      tile[ly][lx + 8] = gx + 8 < dimx ? input[iz * stride_z + gy * stride_y + gx + 8] : 0.0f;
    }
    if (get_local_id(1) < RADIUS) {
      tile[ly - RADIUS][lx] = gy >= RADIUS ? input[iz * stride_z + (gy - RADIUS) * stride_y + gx] : 0.0f;
      tile[ly + 8][lx] = gy + 8 < dimy ? input[iz * stride_z + (gy + 8) * stride_y + gx] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!valid) continue;
    float value = coeff[0] * current;
    value += coeff[1] * (infront + behind + tile[ly - 1][lx] + tile[ly + 1][lx] + tile[ly][lx - 1] + tile[ly][lx + 1]);
    output[iz * stride_z + gy * stride_y + gx] = value;
  }
}
