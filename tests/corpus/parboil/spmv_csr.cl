// after Parboil's spmv (CSR baseline): one row per work-item, rows of different lengths diverge
// reconv-run(spmv_csr_row): --global 64 --local 32 --arg rowptr=i32[65]:seq(0,3) --arg cols=i32[192]:rand(31,0,63)
// reconv-run(spmv_csr_row): --arg vals=f32[192]:rand(32) --arg x=f32[64]:rand(33) --arg y=f32[64] --arg nrows=64
__kernel void spmv_csr_row(__global const int *rowptr, __global const int *cols,
                           __global const float *vals, __global const float *x, __global float *y,
                           int nrows) {
  int r = get_global_id(0);
  if (r >= nrows) return;
  int b = rowptr[r], e = rowptr[r + 1];
  e = b + ((e - b) * (r % 3)) / 2; /* rows of 0, 1 or 3 entries */
  float s = 0.0f;
  for (int j = b; j < e; j++) s = mad(vals[j], x[cols[j]], s);
  y[r] = s;
}
