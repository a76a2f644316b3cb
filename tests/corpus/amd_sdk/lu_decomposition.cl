// after the AMD APP SDK's LUDecomposition: eliminate below the pivot on double4 rows, the multipliers stored in L
// reconv-run(kernelLUDecompose): --global 4,16 --local 4,16 --arg LU=f64[256]:rand(175,1,2) --arg d=3 --arg width=16
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void kernelLUDecompose(__global double4 *LU, int d, int width) {
  int x = get_global_id(0), y = get_global_id(1);
  int w4 = width / 4;
  if (y <= d) return;
  double ratio = ((__global double *)LU)[y * width + d] / ((__global double *)LU)[d * width + d];
  if (x * 4 + 3 <= d) return;
  double4 row = LU[y * w4 + x], piv = LU[d * w4 + x];
  double4 upd = row - ratio * piv;
  int c = x * 4;
  /* keep the columns left of d, store the multiplier at column d */
  if (c + 0 <= d) upd.x = c + 0 == d ? ratio : row.x;
  if (c + 1 <= d) upd.y = c + 1 == d ? ratio : row.y;
  if (c + 2 <= d) upd.z = c + 2 == d ? ratio : row.z;
  if (c + 3 <= d) upd.w = c + 3 == d ? ratio : row.w;
  LU[y * w4 + x] = upd;
}
