; REQUIRES: llvm
; LLVM's parser error comes with its position.
; RUN: reconv print %s
define amdgpu_kernel void @k(i32 addrspace(1)* %out) {
entry:
  store i32 1, i32 addrspace(1)* %nowhere
  ret void
}
