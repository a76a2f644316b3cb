; REQUIRES: llvm
; A global variable in the global address space is a global of reconv's module (printed with its
; initial bytes); reconv's simulators run constant globals (a copy per thread) and local ones
; (per work-group), and refuse a writable one shared by every thread, which OpenCL C 1.2 has not.
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
