; REQUIRES: llvm
; Inline assembly is carried as an opaque instruction: the kernel is read, transformed and written
; (the asm stays as it was); only running it stops there, with a fault that names it.
; RUN: reconv print %s
; RUN: reconv opt -p reconverge %s -o %t.ll && opt -passes=verify -disable-output %t.ll && grep -c 'asm "v_mov_b32' %t.ll
; RUN: reconv run %s --global 4 --arg out=i32[4]
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(i32 addrspace(1)* %out) {
entry:
  %v = call i32 asm "v_mov_b32 $0, 7", "=v"()
  store i32 %v, i32 addrspace(1)* %out
  ret void
}
