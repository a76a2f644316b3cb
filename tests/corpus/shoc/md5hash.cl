// after SHOC's md5hash: MD5 rounds over a short key space searched per work-item, early exit on a match
// reconv-run(md5_search): --global 64 --local 32 --arg target=i32[4]:rand(64) --arg found=i32[1]:fill(-1) --arg keyspace=64
#define F(x, y, z) (((x) & (y)) | (~(x) & (z)))
#define G(x, y, z) (((x) & (z)) | ((y) & ~(z)))
#define H(x, y, z) ((x) ^ (y) ^ (z))
#define I(x, y, z) ((y) ^ ((x) | ~(z)))
__attribute__((noinline)) uint4 md5_block(uint w0, uint w1) {
  uint a = 0x67452301u, b = 0xefcdab89u, c = 0x98badcfeu, d = 0x10325476u;
  const uint s[4] = {7, 12, 17, 22};
  for (int i = 0; i < 64; i++) {
    uint f, g;
    switch (i >> 4) {
      case 0: f = F(b, c, d); g = i; break;
      case 1: f = G(b, c, d); g = (5 * i + 1) & 15; break;
      case 2: f = H(b, c, d); g = (3 * i + 5) & 15; break;
      default: f = I(b, c, d); g = (7 * i) & 15; break;
    }
    uint m = g == 0 ? w0 : (g == 1 ? w1 : (g == 2 ? 0x80u : 0u));
    uint tmp = d;
    d = c; c = b;
    b = b + rotate(a + f + m + (uint)(i * 0x9e3779b9u), s[i & 3] + (uint)(i >> 4));
    a = tmp;
  }
  return (uint4)(a + 0x67452301u, b + 0xefcdab89u, c + 0x98badcfeu, d + 0x10325476u);
}
__kernel void md5_search(__global const uint *target, __global int *found, int keyspace) {
  int k = get_global_id(0);
  if (k >= keyspace) return;
  uint4 h = md5_block((uint)k * 2654435761u, (uint)k);
  if (h.x == target[0] && h.y == target[1] && h.z == target[2] && h.w == target[3]) found[0] = k;
}
