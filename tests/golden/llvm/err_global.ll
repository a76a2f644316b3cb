; REQUIRES: llvm
; Global variables other than __local arrays and initialised __constant data have no place in
; reconv's memory model.
; RUN: reconv print %s
target triple = "amdgcn-amd-amdhsa"

@counter = addrspace(1) global i32 0

define amdgpu_kernel void @k(i32 addrspace(1)* %out) {
entry:
  %v = load i32, i32 addrspace(1)* @counter
  store i32 %v, i32 addrspace(1)* %out
  ret void
}
