// REQUIRES: llvm
// A run-specification comment without its colon.
// reconv-run(k) --global 4 --arg out=i32[4]
// RUN: reconv print %s
__kernel void k(__global int *out) {
  out[get_global_id(0)] = 1;
}
