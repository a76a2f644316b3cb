// after the NVIDIA OpenCL SDK's oclDXTCompression: colour endpoints of a 4x4 block and 2-bit indices, a switch on the palette
// reconv-run(compress_block): --global 16 --local 16 --arg image=i32[256]:rand(220,0,16777215) --arg result=i32[32]
__attribute__((noinline)) uint to565(float3 c) {
  uint r = (uint)clamp(c.x, 0.0f, 255.0f) >> 3, g = (uint)clamp(c.y, 0.0f, 255.0f) >> 2, b = (uint)clamp(c.z, 0.0f, 255.0f) >> 3;
  return (r << 11) | (g << 5) | b;
}
__kernel void compress_block(__global const uint *image, __global uint2 *result) {
  int blk = get_global_id(0);
  float3 px[16];
  float3 lo = (float3)(255.0f), hi = (float3)(0.0f);
  for (int i = 0; i < 16; i++) {
    uint c = image[blk * 16 + i];
    px[i] = (float3)(c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff);
    lo = fmin(lo, px[i]);
    hi = fmax(hi, px[i]);
  }
  uint indices = 0;
  float3 axis = hi - lo;
  float len2 = dot(axis, axis) + 1e-6f;
  for (int i = 0; i < 16; i++) {
    float t = dot(px[i] - lo, axis) / len2;
    int q = (int)(t * 3.0f + 0.5f);
    uint code;
    switch (q) {
      case 0: code = 1; break; /* lo */
      case 1: code = 3; break; /* 2/3 lo + 1/3 hi */
      case 2: code = 2; break; /* 1/3 lo + 2/3 hi */
      default: code = 0; break; /* hi */
    }
    indices |= code << (2 * i);
  }
  result[blk] = (uint2)((to565(hi) << 16) | to565(lo), indices);
}
