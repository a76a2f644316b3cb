// REQUIRES: llvm
// A kernel that writes one element past the end of its buffer once the buffer has as many elements
// as work-items (below 16 work-items it keeps its 16). Natively the store hits the guard page after
// the buffer: the child process running the kernel dies of SIGSEGV, and reconv reports the fault
// with the work-item and the buffer, not a crash of its own.
// RUN: reconv equiv --native --target spir64 %s %s --sizes 1,3,32,64
// As the second program, after a first one that stores inside (sed): the second program faults.
// RUN: sed 's/out\[n\] = -1/out[n - 1] = i/' %s > %t.cl && reconv equiv --native --target spir64 %t.cl %s --sizes 1,3,32,64
//
// reconv-run: --global 16 --arg out=i32[16] --arg n=N

kernel void oob(global int *out, int n) {
  int i = get_global_id(0);
  out[i] = i;
  if (i == n - 1 && n > 16) out[n] = -1;
}
