// after the vector code of the AMD APP SDK's AESEncryptDecrypt and NVIDIA's oclDCT8x8: swizzles, shuffle and vector relational ops
// reconv-run(vec_ops): --global 32 --local 32 --arg in=f32[128]:rand(249,-1,1) --arg ii=i32[64]:rand(250) --arg out=f32[128] --arg outi=i32[64]
__kernel void vec_ops(__global const float4 *in, __global const int2 *ii, __global float4 *out, __global int2 *outi) {
  int g = get_global_id(0);
  float4 v = in[g];
  float4 w = v.wzyx + v.xxyy * v.zwzw;
  uint4 mask = (uint4)(3, 2, 1, 0);
  float4 s = shuffle(v, mask);
  float8 big = (float8)(v, w);
  float4 t = shuffle2(v, w, (uint4)(0, 5, 2, 7));
  int4 gt = isgreater(v, w);
  float4 sel = select(s, t, gt);
  out[g] = sel + big.s1357 + (float4)(dot(v, w), length(v.xy), cross(v, w).xy);
  int2 p = ii[g];
  int2 q = p.yx * (int2)(3, -3) + (p >> 1);
  outi[g] = any(q > 50) ? q : p;
}
