// after the NVIDIA OpenCL SDK's oclBlackScholes: the rational CND approximation, a grid-stride option loop
// reconv-run(BlackScholes): --global 32 --local 32 --arg d_Call=f32[64] --arg d_Put=f32[64] --arg d_S=f32[64]:rand(211,5,30) --arg d_X=f32[64]:rand(212,1,100) --arg d_T=f32[64]:rand(213,0.25,10) --arg R=0.02 --arg V=0.3 --arg optN=64
__attribute__((noinline)) float cndNV(float d) {
  const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f, A5 = 1.330274429f;
  const float RSQRT2PI = 0.39894228040143267793994605993438f;
  float K = 1.0f / (1.0f + 0.2316419f * fabs(d));
  float cnd = RSQRT2PI * exp(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  if (d > 0) cnd = 1.0f - cnd;
  return cnd;
}
__kernel void BlackScholes(__global float *d_Call, __global float *d_Put, __global const float *d_S, __global const float *d_X,
                           __global const float *d_T, float R, float V, unsigned int optN) {
  for (unsigned int opt = get_global_id(0); opt < optN; opt += get_global_size(0)) {
    float S = d_S[opt], X = d_X[opt], T = d_T[opt];
    float sqrtT = sqrt(T);
    float d1 = (log(S / X) + (R + 0.5f * V * V) * T) / (V * sqrtT);
    float d2 = d1 - V * sqrtT;
    float CNDD1 = cndNV(d1), CNDD2 = cndNV(d2);
    float expRT = exp(-R * T);
    d_Call[opt] = S * CNDD1 - X * expRT * CNDD2;
    d_Put[opt] = X * expRT * (1.0f - CNDD2) - S * (1.0f - CNDD1);
  }
}
