// REQUIRES: llvm
// clang's own diagnostics come through when the OpenCL C does not compile.
// RUN: reconv print %s
__kernel void k(__global int *out) {
  out[get_global_id(0)] = undeclared_variable;
}
