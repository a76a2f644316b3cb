// after the math in the AMD APP SDK's MonteCarloAsian and NVIDIA's oclBlackScholes: single-precision math built-ins and relational built-ins
// reconv-run(math_flt): --global 64 --local 32 --arg x=f32[64]:rand(248,-3,3) --arg out=f32[512] --arg flags=i32[64]
__kernel void math_flt(__global const float *x, __global float *out, __global int *flags) {
  int i = get_global_id(0);
  float v = x[i];
  out[8 * i + 0] = sin(v) * cos(v) + tan(v * 0.3f);
  out[8 * i + 1] = exp(v) + exp2(v) + exp10(v * 0.1f);
  out[8 * i + 2] = atan(v) + asin(clamp(v, -1.0f, 1.0f)) + acos(clamp(v * 0.3f, -1.0f, 1.0f));
  out[8 * i + 3] = pow(fabs(v), 1.5f) + pown(v, 3) + rootn(fabs(v) + 1.0f, 3);
  out[8 * i + 4] = mix(v, 2.0f * v, 0.3f) + clamp(v, -1.0f, 1.0f) + sign(v) + copysign(2.0f, v);
  out[8 * i + 5] = native_sqrt(fabs(v)) + half_exp(v * 0.5f) + native_recip(v + 10.0f);
  out[8 * i + 6] = fmax(v, 0.0f) + fmin(v, 0.0f) + fdim(v, 1.0f) + trunc(v) + round(v) + rint(v);
  float ip;
  out[8 * i + 7] = fract(v, &ip) + ip + ldexp(v, 2) + logb(fabs(v) + 1.0f);
  flags[i] = isnan(v / v) | (isinf(1.0f / v) << 1) | (signbit(v) << 2) | (isgreater(v, 0.5f) << 3);
}
