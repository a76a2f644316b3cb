// after SHOC's neuralnet: a fully connected layer with a sigmoid, one neuron per work-item
// reconv-run(nn_forward): --global 32 --local 32 --arg in=f32[64]:rand(69) --arg w=f32[2048]:rand(70,-1,1) --arg bias=f32[32]:rand(71) --arg out=f32[32] --arg nin=64
__attribute__((noinline)) float sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }
__kernel void nn_forward(__global const float *in, __global const float *w, __global const float *bias,
                         __global float *out, int nin) {
  int j = get_global_id(0);
  float s = bias[j];
  for (int i = 0; i < nin; i++) s = mad(w[j * nin + i], in[i], s);
  out[j] = sigmoid(s);
}
