// after the retry loops of AMD APP SDK's URNG and NVIDIA's oclMersenneTwister rejection sampling, written with goto
// reconv-run(rejection_sample): --global 64 --local 32 --arg seeds=i32[64]:rand(240,1,1000000) --arg out=f32[64] --arg out_tries=i32[64]
__kernel void rejection_sample(__global const uint *seeds, __global float *out, __global int *out_tries) {
  uint s = seeds[get_global_id(0)];
  int tries = 0;
  float x, y;
again:
  tries++;
  s = s * 1664525u + 1013904223u;
  x = (s >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
  s = s * 1664525u + 1013904223u;
  y = (s >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
  if (x * x + y * y > 1.0f && tries < 16) goto again;
  out[get_global_id(0)] = x * sqrt(-2.0f * log(fmax(x * x + y * y, 1e-6f)) / fmax(x * x + y * y, 1e-6f));
  out_tries[get_global_id(0)] = tries;
}
