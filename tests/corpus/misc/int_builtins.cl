// after the bit tricks of SHOC's md5hash and the NVIDIA SDK's oclRadixSort: OpenCL integer built-ins
// reconv-run(int_ops): --global 64 --local 32 --arg a=i32[64]:rand(245,-100000,100000) --arg b=i32[64]:rand(246,-100000,100000) --arg out=i32[512]
__kernel void int_ops(__global const int *a, __global const int *b, __global int *out) {
  int i = get_global_id(0);
  int x = a[i], y = b[i];
  uint ux = (uint)x, uy = (uint)y;
  out[8 * i + 0] = mul24(x & 0x7fff, y & 0x7fff);
  out[8 * i + 1] = mad24(x & 0x7fff, y & 0x7fff, 17);
  out[8 * i + 2] = clz(ux) + popcount(uy);
  out[8 * i + 3] = rotate(ux, (uint)(y & 31));
  out[8 * i + 4] = abs_diff(x, y);
  out[8 * i + 5] = add_sat(x * 20000, y * 20000);
  out[8 * i + 6] = mul_hi(x, y) ^ hadd(x, y);
  out[8 * i + 7] = clamp(x, -500, 500) + max(x, y) - min(ux, uy) + abs(y) + rhadd(x, y) + sub_sat(ux, uy);
}
