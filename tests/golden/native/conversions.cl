// REQUIRES: llvm
// OpenCL's convert_* functions that the native wave backend computes as vector instructions
// (src/native/wave_codegen_int.c): integers to integers with and without _sat, floats to integers in
// every rounding mode, with and without _sat (out of range saturates, NaN gives 0, as in the
// interpreter), integers to floats and f64 to f32 to nearest even. The memory must be the
// interpreter's bit for bit, on inputs over the whole range (with NaN, infinities and halves
// among the floats); and none of these calls the runtime's per-lane builtin.
// reconv-run(ints): --global 256 --local 64 --arg a=i32[256]:rand(1,-2147483648,2147483647) --arg b=i64[256]:rand(2,-9223372036854775808,9223372036854775807) --arg o8=i8[4096] --arg o16=i16[4096] --arg o32=i32[4096] --arg o64=i64[4096]
// reconv-run(floats): --global 256 --local 64 --arg f=f32[256]:rand(3,-3000000000,3000000000) --arg d=f64[256]:rand(4,-1e19,1e19) --arg o8=i8[4096] --arg o32=i32[4096] --arg o64=i64[4096] --arg of=f32[4096]
// RUN: for k in ints floats; do reconv sim --native -p reconverge,lower --wave 16 --check --kernel $k %s | grep '^check'; done
// RUN: for k in ints floats; do reconv opt -p reconverge,lower --wave 16 --kernel $k %s -o %t.$k.ll && echo "$k: $(grep -c 'call i64 @rc_wave_rt_builtin(' %t.$k.ll) calls of the runtime's builtins"; done
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void ints(__global const int *a, __global const long *b, __global char *o8, __global short *o16,
                   __global int *o32, __global long *o64) {
  int i = get_global_id(0);
  int x = a[i];
  long y = b[i];
  int j = 16 * i;
  o8[j + 0] = convert_char(x);
  o8[j + 1] = convert_char_sat(x);
  o8[j + 2] = (char)convert_uchar_sat(x);
  o8[j + 3] = (char)convert_uchar_sat(y);
  o8[j + 4] = convert_char_sat((uint)x);
  o16[j + 0] = convert_short_sat(y);
  o16[j + 1] = (short)convert_ushort_sat((ulong)y);
  o16[j + 2] = convert_short((uchar)x);
  o32[j + 0] = convert_int_sat(y);
  o32[j + 1] = (int)convert_uint_sat(y);
  o32[j + 2] = convert_int_sat((ulong)y);
  o32[j + 3] = (int)convert_uint_sat(x);
  o64[j + 0] = convert_long((uint)x);
  o64[j + 1] = convert_long_sat((ulong)y);
  o64[j + 2] = (long)convert_ulong_sat(y);
  o64[j + 3] = (long)convert_ulong_sat(x);
}
__kernel void floats(__global const float *f, __global const double *d, __global char *o8, __global int *o32,
                     __global long *o64, __global float *of) {
  int i = get_global_id(0);
  float x = f[i];
  double y = d[i];
  if (i % 16 == 1) x = 0.5f + (float)(i / 16) - 8.0f; /* halves: the rounding modes differ */
  if (i % 32 == 3) x = x / 0.0f - x / 0.0f;          /* NaN */
  if (i % 32 == 5) x = 1.0f / 0.0f;
  if (i % 32 == 7) y = -1.0 / 0.0;
  if (i % 16 == 9) y = (double)(i / 16) - 7.5;
  int j = 16 * i;
  o8[j + 0] = convert_char_sat(x);
  o8[j + 1] = (char)convert_uchar_sat_rte(x);
  o8[j + 2] = convert_char_sat_rtp(y);
  o32[j + 0] = convert_int(x);
  o32[j + 1] = convert_int_rte(x);
  o32[j + 2] = convert_int_rtp(x);
  o32[j + 3] = convert_int_rtn(x);
  o32[j + 4] = (int)convert_uint_sat(x);
  o32[j + 5] = convert_int_sat_rte(y);
  o32[j + 6] = (int)convert_uint_rtn(y);
  o64[j + 0] = convert_long(x);
  o64[j + 1] = convert_long_rte(y);
  o64[j + 2] = (long)convert_ulong_sat_rtp(y);
  of[j + 0] = convert_float(y);
  of[j + 1] = convert_float(o64[j + 1]);
  of[j + 2] = convert_float((ulong)o64[j + 2]);
  of[j + 3] = convert_float(o32[j + 4]) + convert_float((uint)o32[j + 6]);
}
