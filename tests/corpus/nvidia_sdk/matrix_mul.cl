// after the NVIDIA OpenCL SDK's oclMatrixMul: block matrix multiply with __local As/Bs passed as kernel arguments
// reconv-run(matrixMul): --global 16,16 --local 8,8 --arg C=f32[256] --arg A=f32[256]:rand(204) --arg B=f32[256]:rand(205) --arg As=local:f32[64] --arg Bs=local:f32[64] --arg uiWA=16 --arg uiWB=16
#define BLOCK_SIZE 8
#define AS(i, j) As[j + i * BLOCK_SIZE]
#define BS(i, j) Bs[j + i * BLOCK_SIZE]
__kernel void matrixMul(__global float *C, __global const float *A, __global const float *B, __local float *As,
                        __local float *Bs, int uiWA, int uiWB) {
  int bx = get_group_id(0), by = get_group_id(1);
  int tx = get_local_id(0), ty = get_local_id(1);
  int aBegin = uiWA * BLOCK_SIZE * by, aEnd = aBegin + uiWA - 1, aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx, bStep = BLOCK_SIZE * uiWB;
  float Csub = 0.0f;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    AS(ty, tx) = A[a + uiWA * ty + tx];
    BS(ty, tx) = B[b + uiWB * ty + tx];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += AS(ty, k) * BS(k, tx);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[get_global_id(1) * get_global_size(0) + get_global_id(0)] = Csub;
}
