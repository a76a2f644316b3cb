// REQUIRES: llvm
// OpenCL's integer functions that the native wave backend computes as vector instructions
// (src/native/wave_codegen_int.c) instead of a call of the interpreter's function per lane: each
// kernel's memory must be the interpreter's, bit for bit, on inputs over the whole range of each
// type (the extremes, where saturation, the halving adds' carries and mul_hi's signs differ), for
// char, short, int and long, and the wave code must call the runtime for none of them but 64-bit
// mul_hi (twice: signed and unsigned), which would need 128-bit lanes.
// reconv-run(ints): --global 256 --local 64 --arg a=i32[256]:rand(1,-2147483648,2147483647) --arg b=i32[256]:rand(2,-2147483648,2147483647) --arg c=i32[256]:rand(3,-2147483648,2147483647) --arg out=i32[4096]
// reconv-run(narrow): --global 256 --local 64 --arg a=i8[256]:rand(4,-128,127) --arg b=i8[256]:rand(5,-128,127) --arg s=i16[256]:rand(6,-32768,32767) --arg t=i16[256]:rand(7,-32768,32767) --arg out=i16[4096]
// reconv-run(longs): --global 256 --local 64 --arg a=i64[256]:rand(8,-9223372036854775808,9223372036854775807) --arg b=i64[256]:rand(9,-9223372036854775808,9223372036854775807) --arg out=i64[4096]
// RUN: for k in ints narrow longs; do reconv sim --native -p reconverge,lower --wave 16 --check --kernel $k %s | grep '^check'; done
// RUN: for k in ints narrow longs; do reconv opt -p reconverge,lower --wave 16 --kernel $k %s -o %t.$k.ll && echo "$k: $(grep -c 'call i64 @rc_wave_rt_builtin(' %t.$k.ll) calls of the runtime's builtins"; done
__kernel void ints(__global const int *a, __global const int *b, __global const int *c, __global int *out) {
  int i = get_global_id(0);
  int x = a[i], y = b[i], z = c[i];
  uint ux = (uint)x, uy = (uint)y, uz = (uint)z;
  __global int *o = out + 16 * i;
  o[0] = mul24(x, y);
  o[1] = (int)mad24(ux, uy, uz);
  o[2] = rotate(x, y);
  o[3] = (int)abs_diff(x, y);
  o[4] = (int)abs_diff(ux, uy);
  o[5] = add_sat(x, y);
  o[6] = (int)sub_sat(ux, uy);
  o[7] = mul_hi(x, y);
  o[8] = (int)mul_hi(ux, uy);
  o[9] = hadd(x, y) ^ rhadd(x, y);
  o[10] = (int)(hadd(ux, uy) ^ rhadd(ux, uy));
  o[11] = clamp(x, y, z);
  o[12] = (int)clamp(ux, uy, uz);
  o[13] = mad_hi(x, y, z);
  o[14] = sub_sat(x, y) + (int)add_sat(ux, uy);
  o[15] = mul24(x & 0xffffff, y | 7) + (int)mad24(ux & 0xfff, 17u, uz);
}
__kernel void narrow(__global const char *a, __global const char *b, __global const short *s,
                     __global const short *t, __global short *out) {
  int i = get_global_id(0);
  char x = a[i], y = b[i];
  short u = s[i], v = t[i];
  __global short *o = out + 16 * i;
  o[0] = add_sat(x, y);
  o[1] = sub_sat((uchar)x, (uchar)y);
  o[2] = hadd(x, y);
  o[3] = rhadd((uchar)x, (uchar)y);
  o[4] = abs_diff(x, y);
  o[5] = rotate(x, y);
  o[6] = mul_hi(x, y);
  o[7] = clamp(x, y, (char)(x ^ y));
  o[8] = add_sat(u, v);
  o[9] = sub_sat((ushort)u, (ushort)v);
  o[10] = hadd(u, v) ^ rhadd(u, v);
  o[11] = abs_diff((ushort)u, (ushort)v);
  o[12] = rotate((ushort)u, (ushort)v);
  o[13] = mul_hi(u, v);
  o[14] = (short)mul_hi((ushort)u, (ushort)v);
  o[15] = clamp(u, v, (short)(u + v));
}
__kernel void longs(__global const long *a, __global const long *b, __global long *out) {
  int i = get_global_id(0);
  long x = a[i], y = b[i];
  ulong ux = (ulong)x, uy = (ulong)y;
  __global long *o = out + 16 * i;
  o[0] = add_sat(x, y);
  o[1] = (long)sub_sat(ux, uy);
  o[2] = hadd(x, y);
  o[3] = (long)rhadd(ux, uy);
  o[4] = (long)abs_diff(x, y);
  o[5] = rotate(x, y);
  o[6] = clamp(x, y, x ^ y);
  o[7] = (long)clamp(ux, uy, ux ^ uy);
  o[8] = mul_hi(x, y);
  o[9] = (long)mul_hi(ux, uy);
  o[10] = hadd(ux, ~uy);
  o[11] = (long)abs_diff(ux, ~uy);
  o[12] = hadd(x, -y) + rhadd(-x, y);
  o[13] = sub_sat(x, -y);
  o[14] = (long)add_sat(ux, ~uy);
  o[15] = rotate(ux, (ulong)i);
}
