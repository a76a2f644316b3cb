// REQUIRES: llvm
// LLVM's own structurizer as a peer of reconv's transforms: --llvm-passes runs LLVM passes (new
// pass manager pipeline syntax) before import, so StructurizeCFG's output comes in as reconv IR.
// The blocks it inserts ("Flow") are flow blocks there, with their i1 phis; blocks other passes
// insert would be !virtual. Both are skipped when traces are compared.
//
// @divergent jumps into the middle of an if with a condition on the work-item id: the CFG is
// unstructured (if.end -> B is a side entry into B) and StructurizeCFG routes both paths through
// a Flow block. @uniform has the same shape with conditions on a kernel argument: LLVM 14's
// new-pass-manager StructurizeCFG consults no divergence analysis (it has no equivalent of the
// legacy pass's -structurizecfg-skip-uniform-regions) and structurizes it just the same, whatever
// the target machine's TTI says about divergence.
// RUN: reconv print %s
// RUN: reconv print %s --llvm-passes=fix-irreducible,unify-loop-exits,structurizecfg
// RUN: reconv print %s --llvm-passes=fix-irreducible,unify-loop-exits,structurizecfg -o %T/s.ll && opt -passes=verify -disable-output %T/s.ll && echo "export: verified by opt"

__kernel void divergent(__global int *out) {
  int gid = get_global_id(0);
  int v = 0;
  if (gid & 1)
    goto B;
  v += 10;
  if (gid & 2)
    goto C;
B:
  v += 100;
C:
  v += 1000;
  out[gid] = v;
}

__kernel void uniform(__global int *out, int n) {
  int gid = get_global_id(0);
  int v = 0;
  if (n & 1)
    goto B;
  v += 10;
  if (n & 2)
    goto C;
B:
  v += 100;
C:
  v += 1000;
  out[gid] = v;
}
