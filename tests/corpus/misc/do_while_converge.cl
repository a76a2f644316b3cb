// after the Newton iterations of the AMD APP SDK's EigenValue (recalculateEigenIntervals): do-while until converged, with an iteration cap
// reconv-run(newton_sqrt): --global 64 --local 32 --arg in=f32[64]:rand(244,0.5,100) --arg out=f32[64] --arg iters=i32[64] --arg tol=0.00001
__kernel void newton_sqrt(__global const float *in, __global float *out, __global int *iters, float tol) {
  float a = in[get_global_id(0)];
  float x = a;
  int k = 0;
  float prev;
  do {
    prev = x;
    x = 0.5f * (x + a / x);
    k++;
  } while (fabs(x - prev) > tol * x && k < 30);
  out[get_global_id(0)] = x;
  iters[get_global_id(0)] = k;
}
