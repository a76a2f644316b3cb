; REQUIRES: llvm
; atomicrmw fadd: reconv has no builtin for it, so its view is opaque; the kernel is still read,
; transformed and written.
; RUN: reconv print %s
; RUN: reconv opt -p reconverge %s -o %t.ll && opt -passes=verify -disable-output %t.ll && grep -c atomicrmw %t.ll
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @fadd_atomic(float addrspace(1)* %p) {
entry:
  %old = atomicrmw fadd float addrspace(1)* %p, float 1.0 seq_cst
  ret void
}
