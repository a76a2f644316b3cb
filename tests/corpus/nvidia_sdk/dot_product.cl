// after the NVIDIA OpenCL SDK's oclDotProduct: float4 dot products, one per work-item
// reconv-run(DotProduct): --global 64 --local 32 --arg a=f32[256]:rand(202) --arg b=f32[256]:rand(203) --arg c=f32[64] --arg iNumElements=60
__kernel void DotProduct(__global const float *a, __global const float *b, __global float *c, int iNumElements) {
  int iGID = get_global_id(0);
  if (iGID >= iNumElements) return;
  int iInOffset = iGID << 2;
  c[iGID] = a[iInOffset] * b[iInOffset] + a[iInOffset + 1] * b[iInOffset + 1] +
            a[iInOffset + 2] * b[iInOffset + 2] + a[iInOffset + 3] * b[iInOffset + 3];
}
