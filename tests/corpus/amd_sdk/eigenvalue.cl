// after the AMD APP SDK's EigenValue: Sturm-sequence count of eigenvalues of a tridiagonal matrix below a bound
// reconv-run(calNumEigenValueInterval): --global 16 --local 16 --arg numEigenIntervals=i32[16] --arg interval=f32[32]:rand(169,-4,4) --arg diagonal=f32[16]:rand(170,-2,2) --arg offDiagonal=f32[16]:rand(171,-1,1) --arg width=16
__attribute__((noinline)) uint calNumEigenValuesLessThan(__global const float *diagonal, __global const float *offDiagonal,
                                                        uint width, float x) {
  uint count = 0;
  float prev_diff = (diagonal[0] - x);
  count += (prev_diff < 0) ? 1 : 0;
  for (uint i = 1; i < width; i += 1) {
    float diff = (diagonal[i] - x) - ((offDiagonal[i - 1] * offDiagonal[i - 1]) / prev_diff);
    if (diff == 0.0f) diff = -1e-12f; /* keep the recurrence finite */
    count += (diff < 0) ? 1 : 0;
    prev_diff = diff;
  }
  return count;
}
__kernel void calNumEigenValueInterval(__global uint *numEigenIntervals, __global const float *interval,
                                       __global const float *diagonal, __global const float *offDiagonal, const uint width) {
  uint threadId = get_global_id(0);
  uint lowerId = 2 * threadId, upperId = lowerId + 1;
  float lo = fmin(interval[lowerId], interval[upperId]), hi = fmax(interval[lowerId], interval[upperId]);
  uint lowerNumEigenValues = calNumEigenValuesLessThan(diagonal, offDiagonal, width, lo);
  uint upperNumEigenValues = calNumEigenValuesLessThan(diagonal, offDiagonal, width, hi);
  numEigenIntervals[threadId] = upperNumEigenValues - lowerNumEigenValues;
}
