; REQUIRES: llvm
; Inline assembly cannot be imported.
; RUN: reconv print %s
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(i32 addrspace(1)* %out) {
entry:
  %v = call i32 asm "v_mov_b32 $0, 7", "=v"()
  store i32 %v, i32 addrspace(1)* %out
  ret void
}
