// after the AMD APP SDK's DCT: 8x8 block DCT as two matrix products through __local memory, a cos table computed inline
// reconv-run(DCT): --global 8,8 --local 8,8 --arg input=f32[64]:rand(153,0,255) --arg output=f32[64] --arg inter=local:f32[64] --arg width=8 --arg inverse=0
__attribute__((noinline)) float dct_coef(int u, int x) {
  float a = u == 0 ? 0.35355339f : 0.5f;
  return a * cos((2 * x + 1) * u * 0.19634954f); /* pi/16 */
}
__kernel void DCT(__global const float *input, __global float *output, __local float *inter, int width, int inverse) {
  int i = get_local_id(1), j = get_local_id(0);
  int gi = get_global_id(1), gj = get_global_id(0);
  float acc = 0.0f;
  for (int k = 0; k < 8; k++) {
    float c = inverse ? dct_coef(k, i) : dct_coef(i, k);
    acc += c * input[(gi - i + k) * width + gj];
  }
  inter[i * 8 + j] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  acc = 0.0f;
  for (int k = 0; k < 8; k++) {
    float c = inverse ? dct_coef(k, j) : dct_coef(j, k);
    acc += inter[i * 8 + k] * c;
  }
  output[gi * width + gj] = acc;
}
