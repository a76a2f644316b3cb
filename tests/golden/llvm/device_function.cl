// REQUIRES: llvm
// At -O0 clang keeps helper functions as calls: reconv reads them as device functions and makes
// them reconverging too; its simulators do not run calls yet and say so.
// RUN: reconv print -O0 %s
// RUN: reconv opt -p reconverge -O0 %s -o %t.ll && opt -passes=verify -disable-output %t.ll && echo verified
// RUN: reconv run -O0 %s --global 4 --arg out=i32[4] --dump out
int helper(int x) {
  if (x & 1) return x * 2; /* an early return on a divergent condition */
  int s = 0;
  for (int i = 0; i < x; i++) s += i;
  return s;
}

__kernel void k(__global int *out) {
  out[get_global_id(0)] = helper(get_global_id(0) + 3);
}
