// after SHOC's s3d double build and PolyBench's double variants: double-precision math built-ins
// reconv-run(math_dbl): --global 32 --local 32 --arg x=f64[32]:rand(247,0.1,3) --arg out=f64[256]
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void math_dbl(__global const double *x, __global double *out) {
  int i = get_global_id(0);
  double v = x[i];
  out[8 * i + 0] = sin(v) + cos(v);
  out[8 * i + 1] = exp(-v) * log(v);
  out[8 * i + 2] = atan2(v, 1.5) + atan(v);
  out[8 * i + 3] = pow(v, 2.5) - sqrt(v);
  out[8 * i + 4] = fma(v, v, -1.0) + mad(v, 2.0, 0.5);
  out[8 * i + 5] = floor(v * 3.7) + ceil(v) + fmod(v, 0.7);
  out[8 * i + 6] = clamp(v, 0.5, 2.0) + mix(0.0, v, 0.25) + step(1.0, v) + smoothstep(0.0, 3.0, v);
  out[8 * i + 7] = tanh(v) + hypot(v, 2.0) + cbrt(v) + exp2(v) + log10(v);
}
