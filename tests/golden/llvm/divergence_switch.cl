// REQUIRES: llvm
// --llvm-divergence reads LLVM's verdict of a switch from the line that opens it: LLVM prints the
// cases on the lines up to `]`, which carry no verdict. A divergent switch in LLVM's eyes is
// divergent in reconv's then, and the function is not reconverging until reconverge has run.
// RUN: reconv analyze --llvm-divergence %s --json | grep -o '"reconverging": [a-z]*\|"divergent_branches": [^]]*]'
// RUN: reconv opt -p reconverge %s -o %T/out.ll && reconv analyze --llvm-divergence %T/out.ll --json | grep -o '"reconverging": [a-z]*'
kernel void pick(global const int *code, global int *out) {
  int i = get_global_id(0);
  int acc = 0;
  switch (code[i]) {
  case 0: acc = 3; break;
  case 1: acc = i * 7;
  case 2: acc += 5; break;
  default: acc = -1;
  }
  out[i] = acc;
}
