// REQUIRES: llvm
// At -O0 clang does not inline helper functions; reconv imports kernels without calls and says
// what to do.
// RUN: reconv print -O0 %s
int helper(int x) { return x * 2; }

__kernel void k(__global int *out) {
  out[get_global_id(0)] = helper(3);
}
