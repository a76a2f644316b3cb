// after the AMD APP SDK's BlackScholes: call and put prices with a polynomial normal CDF (a device function)
// reconv-run(blackScholes): --global 64 --local 32 --arg randArray=f32[64]:rand(152) --arg width=8 --arg call=f32[64] --arg put=f32[64]
#define S_LOWER_LIMIT 10.0f
#define S_UPPER_LIMIT 100.0f
#define K_LOWER_LIMIT 10.0f
#define K_UPPER_LIMIT 100.0f
#define T_LOWER_LIMIT 1.0f
#define T_UPPER_LIMIT 10.0f
#define R_LOWER_LIMIT 0.01f
#define R_UPPER_LIMIT 0.05f
#define SIGMA_LOWER_LIMIT 0.01f
#define SIGMA_UPPER_LIMIT 0.10f
__attribute__((noinline)) float phi(float X) {
  const float c1 = 0.319381530f, c2 = -0.356563782f, c3 = 1.781477937f, c4 = -1.821255978f, c5 = 1.330274429f;
  const float zero = 0.0f, one = 1.0f, two = 2.0f, temp4 = 0.2316419f, oneBySqrt2pi = 0.398942280f;
  float absX = fabs(X);
  float t = one / (one + temp4 * absX);
  float y = one - oneBySqrt2pi * exp(-X * X / two) * t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * c5))));
  return (X < zero) ? (one - y) : y;
}
__kernel void blackScholes(__global const float *randArray, int width, __global float *call, __global float *put) {
  size_t xPos = get_global_id(0) % width, yPos = get_global_id(0) / width;
  float two = 2.0f;
  float inRand = randArray[yPos * width + xPos];
  float S = S_LOWER_LIMIT * inRand + S_UPPER_LIMIT * (1.0f - inRand);
  float K = K_LOWER_LIMIT * inRand + K_UPPER_LIMIT * (1.0f - inRand);
  float T = T_LOWER_LIMIT * inRand + T_UPPER_LIMIT * (1.0f - inRand);
  float R = R_LOWER_LIMIT * inRand + R_UPPER_LIMIT * (1.0f - inRand);
  float sigmaVal = SIGMA_LOWER_LIMIT * inRand + SIGMA_UPPER_LIMIT * (1.0f - inRand);
  float sigmaSqrtT = sigmaVal * sqrt(T);
  float d1 = (log(S / K) + (R + sigmaVal * sigmaVal / two) * T) / sigmaSqrtT;
  float d2 = d1 - sigmaSqrtT;
  float KexpMinusRT = K * exp(-R * T);
  call[yPos * width + xPos] = S * phi(d1) - KexpMinusRT * phi(d2);
  put[yPos * width + xPos] = KexpMinusRT * phi(-d2) - S * phi(-d1);
}
