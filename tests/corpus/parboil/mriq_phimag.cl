// after Parboil's mri-q (ComputePhiMag kernel): |phi|^2 of complex samples, with a tail guard
// reconv-run(computePhiMag): --global 64 --local 32 --arg phiR=f32[60]:rand(34) --arg phiI=f32[60]:rand(35) --arg phiMag=f32[64] --arg numK=60
__kernel void computePhiMag(__global const float *phiR, __global const float *phiI,
                            __global float *phiMag, int numK) {
  int k = get_global_id(0);
  if (k < numK) {
    float r = phiR[k], i = phiI[k];
    phiMag[k] = r * r + i * i;
  }
}
