// after the NVIDIA OpenCL SDK's oclVectorAdd: c = a + b with a bounds guard
// reconv-run(VectorAdd): --global 64 --local 32 --arg a=f32[60]:rand(200) --arg b=f32[60]:rand(201) --arg c=f32[60] --arg iNumElements=60
__kernel void VectorAdd(__global const float *a, __global const float *b, __global float *c, int iNumElements) {
  int iGID = get_global_id(0);
  if (iGID >= iNumElements) return;
  c[iGID] = a[iGID] + b[iGID];
}
