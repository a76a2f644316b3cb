// after the AMD APP SDK's BinomialOption: backward induction over a binomial tree in __local memory
// reconv-run(binomial_options): --global 64 --local 16 --arg numSteps=15 --arg randArray=f32[16]:rand(150) --arg output=f32[16]
// reconv-run(binomial_options): --arg callA=local:f32[64] --arg callB=local:f32[64]
#define RISKFREE 0.02f
#define VOLATILITY 0.30f
__kernel void binomial_options(int numSteps, __global const float4 *randArray, __global float4 *output,
                               __local float4 *callA, __local float4 *callB) {
  int tid = get_local_id(0), bid = get_group_id(0);
  float4 inRand = randArray[bid];
  float4 s = (1.0f - inRand) * 5.0f + inRand * 30.0f;
  float4 x = (1.0f - inRand) * 1.0f + inRand * 100.0f;
  float4 optionYears = (1.0f - inRand) * 0.25f + inRand * 10.0f;
  float4 dt = optionYears * (1.0f / (float)numSteps);
  float4 vsdt = VOLATILITY * sqrt(dt);
  float4 rdt = RISKFREE * dt;
  float4 r = exp(rdt), rInv = 1.0f / r;
  float4 u = exp(vsdt), d = 1.0f / u;
  float4 pu = (r - d) / (u - d), pd = 1.0f - pu;
  float4 puByr = pu * rInv, pdByr = pd * rInv;
  float4 profit = s * exp(vsdt * (2.0f * tid - (float)numSteps)) - x;
  callA[tid] = fmax(profit, (float4)(0.0f));
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int j = numSteps; j > 0; j -= 2) {
    if (tid < j) callB[tid] = puByr * callA[tid] + pdByr * callA[tid + 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < j - 1) callA[tid] = puByr * callB[tid] + pdByr * callB[tid + 1];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0) output[bid] = callA[0];
}
