// after SHOC's spmv (ellpackr): column-major ELLPACK-R with a per-row length
// reconv-run(spmv_ellpackr): --global 64 --local 32 --arg val=f32[512]:rand(48) --arg vec=f32[64]:rand(49)
// reconv-run(spmv_ellpackr): --arg cols=i32[512]:rand(50,0,63) --arg rowLengths=i32[64]:rand(51,0,8) --arg dim=64 --arg out=f32[64]
__kernel void spmv_ellpackr(__global const float *val, __global const float *vec,
                            __global const int *cols, __global const int *rowLengths, int dim,
                            __global float *out) {
  int t = get_global_id(0);
  if (t < dim) {
    float r = 0.0f;
    int max = rowLengths[t];
    for (int i = 0; i < max; i++) {
      int ind = i * dim + t;
      r += val[ind] * vec[cols[ind]];
    }
    out[t] = r;
  }
}
