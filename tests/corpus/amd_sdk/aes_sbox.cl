// after the AMD APP SDK's AESEncryptDecrypt: SubBytes, ShiftRows and AddRoundKey rounds on a uchar16 state
// reconv-run(AESEncrypt): --global 16 --local 16 --arg output=i8[256] --arg input=i8[256]:rand(176,0,127) --arg roundKey=i8[176]:rand(177,0,127) --arg SBox=i8[256]:rand(178,0,127) --arg rounds=10
__attribute__((noinline)) uchar16 shiftRows(uchar16 s) {
  return (uchar16)(s.s0, s.s5, s.sa, s.sf, s.s4, s.s9, s.se, s.s3, s.s8, s.sd, s.s2, s.s7, s.sc, s.s1, s.s6, s.sb);
}
__attribute__((noinline)) uchar galoisMul2(uchar a) {
  uchar hi = a & 0x80;
  a <<= 1;
  if (hi) a ^= 0x1b;
  return a;
}
__kernel void AESEncrypt(__global uchar16 *output, __global const uchar16 *input, __global const uchar16 *roundKey,
                         __global const uchar *SBox, const uint rounds) {
  uint gid = get_global_id(0);
  uchar16 state = input[gid] ^ roundKey[0];
  for (uint r = 1; r < rounds; ++r) {
    uchar16 t;
    for (int i = 0; i < 16; i++) ((uchar *)&t)[i] = SBox[((uchar *)&state)[i]];
    t = shiftRows(t);
    uchar16 m;
    for (int c = 0; c < 4; c++)
      for (int i = 0; i < 4; i++) {
        uchar a = ((uchar *)&t)[c * 4 + i], b = ((uchar *)&t)[c * 4 + ((i + 1) & 3)];
        ((uchar *)&m)[c * 4 + i] = galoisMul2(a) ^ galoisMul2(b) ^ b;
      }
    state = m ^ roundKey[r];
  }
  output[gid] = state;
}
