// REQUIRES: llvm
// A run-specification comment for a kernel the file does not define.
// reconv-run(kernel_that_is_not_here): --global 4 --arg out=i32[4]
// RUN: reconv print %s
__kernel void k(__global int *out) {
  out[get_global_id(0)] = 1;
}
