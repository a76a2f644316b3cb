// after the NVIDIA OpenCL SDK's oclQuasirandomGenerator: Niederreiter-like points from a table, then the inverse normal CDF with a tail branch
// reconv-run(InverseCND): --global 64 --local 32 --arg d_Output=f32[64] --arg d_Input=f32[64]:rand(228,0.001,0.999) --arg pathN=64
__attribute__((noinline)) float MoroInvCNDgpu(float P) {
  const float a1 = 2.50662823884f, a2 = -18.61500062529f, a3 = 41.39119773534f, a4 = -25.44106049637f;
  const float b1 = -8.4735109309f, b2 = 23.08336743743f, b3 = -21.06224101826f, b4 = 3.13082909833f;
  const float c1 = 0.337475482272615f, c2 = 0.976169019091719f, c3 = 0.160797971491821f, c4 = 2.76438810333863E-02f;
  const float c5 = 3.8405729373609E-03f, c6 = 3.951896511919E-04f, c7 = 3.21767881768E-05f, c8 = 2.888167364E-07f,
              c9 = 3.960315187E-07f;
  float y = P - 0.5f;
  if (fabs(y) < 0.42f) {
    float z = y * y;
    return y * (((a4 * z + a3) * z + a2) * z + a1) / ((((b4 * z + b3) * z + b2) * z + b1) * z + 1.0f);
  }
  float z = y > 0 ? log(-log(1.0f - P)) : log(-log(P));
  z = c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * (c6 + z * (c7 + z * (c8 + z * c9)))))));
  return y < 0.0f ? -z : z;
}
__kernel void InverseCND(__global float *d_Output, __global const float *d_Input, unsigned int pathN) {
  for (unsigned int pos = get_global_id(0); pos < pathN; pos += get_global_size(0)) d_Output[pos] = MoroInvCNDgpu(d_Input[pos]);
}
