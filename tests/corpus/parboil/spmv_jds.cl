// after Parboil's spmv: sparse matrix-vector product in the jagged diagonal (JDS) format
// reconv-run(spmv_jds): --global 64 --local 32 --arg dst=f32[64] --arg data=f32[512]:rand(4)
// reconv-run(spmv_jds): --arg indices=i32[512]:rand(5,0,63) --arg perm=i32[64]:seq
// reconv-run(spmv_jds): --arg rowlen=i32[64]:rand(6,0,8) --arg jds_ptr=i32[8]:seq(0,64) --arg x=f32[64]:rand(7) --arg dim=64
__kernel void spmv_jds(__global float *dst, __global const float *data,
                       __global const int *indices, __global const int *perm,
                       __global const int *rowlen, __global const int *jds_ptr,
                       __global const float *x, int dim) {
  int ix = get_global_id(0);
  if (ix >= dim) return;
  float sum = 0.0f;
  int bound = rowlen[ix];
  for (int k = 0; k < bound; k++) {
    int j = jds_ptr[k] + ix;
    sum += data[j] * x[indices[j]];
  }
  dst[perm[ix]] = sum;
}
