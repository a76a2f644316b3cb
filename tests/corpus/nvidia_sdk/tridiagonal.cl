// after the NVIDIA OpenCL SDK's oclTridiagonal (cyclic reduction): forward reduction and back substitution in __local memory
// reconv-run(cyclic_small_systems): --global 16 --local 16 --arg a_d=f32[32]:rand(224,0,0.2) --arg b_d=f32[32]:rand(225,2,3) --arg c_d=f32[32]:rand(226,0,0.2) --arg d_d=f32[32]:rand(227) --arg x_d=f32[32] --arg system_size=32 --arg iterations=4
__kernel void cyclic_small_systems(__global const float *a_d, __global const float *b_d, __global const float *c_d,
                                   __global const float *d_d, __global float *x_d, int system_size, int iterations) {
  __local float a[32], b[32], c[32], d[32], x[32];
  int thid = get_local_id(0);
  a[thid] = a_d[thid]; a[thid + 16] = a_d[thid + 16];
  b[thid] = b_d[thid]; b[thid + 16] = b_d[thid + 16];
  c[thid] = c_d[thid]; c[thid + 16] = c_d[thid + 16];
  d[thid] = d_d[thid]; d[thid + 16] = d_d[thid + 16];
  barrier(CLK_LOCAL_MEM_FENCE);
  int stride = 1;
  int numThreads = system_size / 2;
  for (int j = 0; j < iterations; j++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    stride *= 2;
    int delta = stride / 2;
    if (thid < numThreads) {
      int i = stride * thid + stride - 1;
      if (i == system_size - 1) {
        float tmp = a[i] / b[i - delta];
        b[i] = b[i] - c[i - delta] * tmp;
        d[i] = d[i] - d[i - delta] * tmp;
        a[i] = -a[i - delta] * tmp;
        c[i] = 0;
      } else {
        float tmp1 = a[i] / b[i - delta], tmp2 = c[i] / b[i + delta];
        b[i] = b[i] - c[i - delta] * tmp1 - a[i + delta] * tmp2;
        d[i] = d[i] - d[i - delta] * tmp1 - d[i + delta] * tmp2;
        a[i] = -a[i - delta] * tmp1;
        c[i] = -c[i + delta] * tmp2;
      }
    }
    numThreads /= 2;
  }
  if (thid < 2) {
    int addr1 = stride - 1, addr2 = 2 * stride - 1;
    float tmp3 = b[addr2] * b[addr1] - c[addr1] * a[addr2];
    x[addr1] = (b[addr2] * d[addr1] - c[addr1] * d[addr2]) / tmp3;
    x[addr2] = (d[addr2] * b[addr1] - d[addr1] * a[addr2]) / tmp3;
  }
  numThreads = 2;
  for (int j = 0; j < iterations; j++) {
    int delta = stride / 2;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (thid < numThreads) {
      int i = stride * thid + stride / 2 - 1;
      if (i == delta - 1) x[i] = (d[i] - c[i] * x[i + delta]) / b[i];
      else x[i] = (d[i] - a[i] * x[i - delta] - c[i] * x[i + delta]) / b[i];
    }
    stride /= 2;
    numThreads *= 2;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  x_d[thid] = x[thid];
  x_d[thid + 16] = x[thid + 16];
}
