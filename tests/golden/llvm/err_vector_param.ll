; REQUIRES: llvm
; Kernel parameters are scalars and pointers; a vector parameter is named with its line.
; RUN: reconv print %s
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(<4 x float> addrspace(1)* %out,
                             <4 x float> %v) {
entry:
  store <4 x float> %v, <4 x float> addrspace(1)* %out
  ret void
}
