; REQUIRES: llvm
; A global variable in the global address space is a global of reconv's module (printed with its
; initial bytes); reconv's simulators give it a region of their module space, made from its
; initial bytes at each launch and shared by every thread (local globals: one per work-group).
; RUN: reconv print %s
; RUN: reconv run %s --global 2 --arg out=i32[2] --dump out
target triple = "amdgcn-amd-amdhsa"

@counter = addrspace(1) global i32 42

define amdgpu_kernel void @k(i32 addrspace(1)* %out) {
entry:
  %v = load i32, i32 addrspace(1)* @counter
  store i32 %v, i32 addrspace(1)* %out
  ret void
}
