// after the AMD APP SDK's RecursiveGaussian: a causal and an anti-causal IIR pass down a column
// reconv-run(RecursiveGaussian_kernel): --global 16 --local 16 --arg input=f32[256]:rand(164) --arg output=f32[256] --arg width=16 --arg height=16
// reconv-run(RecursiveGaussian_kernel): --arg a0=0.5 --arg a1=0.2 --arg a2=0.1 --arg a3=-0.05 --arg b1=0.4 --arg b2=-0.1 --arg coefp=0.3 --arg coefn=0.3
__kernel void RecursiveGaussian_kernel(__global const float *input, __global float *output, int width, int height,
                                       float a0, float a1, float a2, float a3, float b1, float b2, float coefp, float coefn) {
  int x = get_global_id(0);
  if (x >= width) return;
  float xp = 0.0f, yp = 0.0f, yb = 0.0f;
  for (int y = 0; y < height; y++) {
    float xc = input[x + y * width];
    float yc = (a0 * xc) + (a1 * xp) - (b1 * yp) - (b2 * yb);
    output[x + y * width] = yc;
    xp = xc; yb = yp; yp = yc;
  }
  float xn = 0.0f, xa = 0.0f, yn = 0.0f, ya = 0.0f;
  for (int y = height - 1; y > -1; y--) {
    float xc = input[x + y * width];
    float yc = (a2 * xn) + (a3 * xa) - (b1 * yn) - (b2 * ya);
    xa = xn; xn = xc; ya = yn; yn = yc;
    output[x + y * width] = output[x + y * width] + yc + 0.0f * (coefp + coefn);
  }
}
