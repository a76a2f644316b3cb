// REQUIRES: llvm
// At -O0 clang keeps helper functions as calls: reconv reads them as device functions and makes
// them reconverging too; its simulators run the calls inlined into their copy of the kernel
// (helper(3) = 6, helper(4) = 0+1+2+3 = 6, helper(5) = 10, helper(6) = 15), and a vector-valued
// callee is scalarized there. `sim -p` inlines the calls before its pipeline, so the callees are
// reconverged and lowered in their caller and run under its exec mask; lowered code that still
// calls is refused.
// RUN: reconv print -O0 %s
// RUN: reconv opt -p reconverge -O0 %s -o %t.ll && opt -passes=verify -disable-output %t.ll && echo verified
// RUN: reconv run -O0 %s --global 4 --arg out=i32[4] --dump out
// RUN: reconv opt -p reconverge -O0 %s -o %t.ll && reconv equiv -O0 %s %t.ll --arg out=i32[N] --seeds 1 --sizes 4,33
// RUN: reconv sim -O0 --mode ipdom %s --check --global 33 --arg out=i32[33] | grep -E "check|efficiency"
// RUN: reconv sim -O0 -p reconverge,lower %s --check --global 33 --arg out=i32[33] | grep -vE "^ +entry"
// RUN: reconv compare -O0 %s --global 33 --arg out=i32[33]
// RUN: reconv opt -O0 -p reconverge,lower %s -o %T/lowered.rir && cd %T && reconv sim lowered.rir --global 4 --arg out=i32[4]
int helper(int x) {
  if (x & 1) return x * 2; /* an early return on a divergent condition */
  int s = 0;
  for (int i = 0; i < x; i++) s += i;
  return s;
}

float4 spread(int x) {
  float4 v = (float4)(x, x + 1, x + 2, x + 3);
  return x & 2 ? v.wzyx : v * 0.5f;
}

__kernel void k(__global int *out) {
  int i = get_global_id(0);
  out[i] = helper(i + 3) + (int)dot(spread(i), (float4)(1, 10, 100, 1000));
}
