// after Parboil's sgemm: tiled matrix multiply C = alpha*A*B + beta*C with __local tiles
// reconv-run(sgemm_tiled): --global 16,16 --local 8,8 --arg A=f32[256]:rand(1) --arg B=f32[256]:rand(2)
// reconv-run(sgemm_tiled): --arg C=f32[256]:rand(3) --arg n=16 --arg alpha=1.5 --arg beta=0.5
#define TILE 8
__kernel void sgemm_tiled(__global const float *A, __global const float *B, __global float *C,
                          int n, float alpha, float beta) {
  __local float As[TILE][TILE];
  __local float Bs[TILE][TILE];
  int tx = get_local_id(0), ty = get_local_id(1);
  int col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = (row < n && t + tx < n) ? A[row * n + t + tx] : 0.0f;
    Bs[ty][tx] = (col < n && t + ty < n) ? B[(t + ty) * n + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k)
      acc = mad(As[ty][k], Bs[k][tx], acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < n && col < n)
    C[row * n + col] = alpha * acc + beta * C[row * n + col];
}
