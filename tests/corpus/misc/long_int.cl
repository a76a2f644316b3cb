// after the 64-bit hashing in SHOC's md5hash key generation and AMD's URNG: long/ulong arithmetic, shifts and division
// reconv-run(hash64): --global 64 --local 32 --arg in=i64[64]:rand(253,-1000000,1000000) --arg out=i64[64] --arg div=7
__kernel void hash64(__global const long *in, __global ulong *out, long div) {
  long v = in[get_global_id(0)];
  ulong h = 1469598103934665603ul;
  for (int b = 0; b < 8; b++) {
    h ^= (ulong)(v >> (8 * b)) & 0xfful;
    h *= 1099511628211ul;
  }
  long q = v / div, r = v % div;
  out[get_global_id(0)] = h + (ulong)(q * 3 + r) + (ulong)mul_hi((ulong)v, h) + rotate(h, (ulong)(r & 63));
}
