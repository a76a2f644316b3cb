// after the AMD APP SDK's MonteCarloAsian: xorshift paths of an average-price option, payoff with fmax
// reconv-run(calPriceVega): --global 32 --local 32 --arg seeds=i32[32]:rand(160,1,100000) --arg steps=16 --arg strike=1.0 --arg price=f32[32]
__kernel void calPriceVega(__global const uint *seeds, int steps, float strike, __global float *price) {
  uint s = seeds[get_global_id(0)] | 1u;
  float S = 1.0f, sum = 0.0f;
  const float drift = 0.0005f, vol = 0.02f;
  for (int t = 0; t < steps; t++) {
    s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    float u = (s & 0xffffu) / 65536.0f - 0.5f;
    S *= exp(drift + vol * u * 3.4641f);
    sum += S;
  }
  price[get_global_id(0)] = fmax(sum / steps - strike, 0.0f);
}
