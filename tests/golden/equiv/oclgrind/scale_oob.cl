// scale.cl, but the threads past n read past the end of out (oclgrind: "Invalid read"), and
// then store what scale.cl stores: the memory is the same.
// REQUIRES: llvm oclgrind
// On oclgrind against itself (and with tests/golden/equiv/oclgrind.test, against the others):
// RUN: reconv equiv --oclgrind --target spir64 %s %s
// reconv-run: --global 64 --local 16 --arg out=i32[N] --arg in=f32[N]:rand(3,0,8) --arg n=50
kernel void scale(global int *out, global const float *in, int n) {
  int i = get_global_id(0);
  if (i < n) out[i] = (int)(in[i] * 2.0f);
  else { int t = out[i + 64]; out[i] = t == 12345 ? 7 : -1; }
}
