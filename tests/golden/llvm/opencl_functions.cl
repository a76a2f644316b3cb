// REQUIRES: llvm
// OpenCL functions reconv has no builtin for but that are short instruction sequences: vloadN and
// vstoreN (N elements at p + offset * N), isnan/isinf/isfinite (1 or 0 for scalars), convert_T
// with its default rounding (by the source's and the destination's signedness), select(a, b, c)
// (c ? b : a), mix(x, y, a) (x + (y - x) * a), clamp, mad24.
// RUN: reconv print %s

__kernel void functions(__global float *out, __global const float *in, __global int *iout) {
  int gid = get_global_id(0);
  float4 v = vload4(gid, in);
  vstore4(v * 2.0f, gid, out);
  float x = in[gid];
  uint u = convert_uint(x);
  iout[gid] = isnan(x) + isinf(x) * 2 + isfinite(x) * 4 + convert_int(x) + select(1, 2, gid & 1) +
              (int)mix(x, 2.0f, 0.5f) + convert_int(u) + convert_int(convert_char(gid)) +
              convert_int(convert_ushort(gid)) + clamp(gid, 3, 9) + mad24(gid, 3, 1) +
              (int)convert_double(x);
}
