; REQUIRES: llvm
; Unsupported LLVM IR ends with an error that names the kernel, the instruction and its line.
; RUN: reconv print %s
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @fadd_atomic(float addrspace(1)* %p) {
entry:
  %old = atomicrmw fadd float addrspace(1)* %p, float 1.0 seq_cst
  ret void
}
