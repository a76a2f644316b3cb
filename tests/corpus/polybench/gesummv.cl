// after PolyBench/GPU's gesummv: y = alpha*A*x + beta*B*x
// reconv-run(gesummv_kernel): --global 32 --local 32 --arg a=f32[1024]:rand(125) --arg b=f32[1024]:rand(126) --arg x=f32[32]:rand(127) --arg y=f32[32] --arg tmp=f32[32] --arg alpha=43532.0 --arg beta=12313.0 --arg n=32
__kernel void gesummv_kernel(__global const float *a, __global const float *b, __global const float *x,
                             __global float *y, __global float *tmp, float alpha, float beta, int n) {
  int i = get_global_id(0);
  if (i < n) {
    for (int j = 0; j < n; j++) {
      tmp[i] += a[i * n + j] * x[j];
      y[i] += b[i * n + j] * x[j];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}
