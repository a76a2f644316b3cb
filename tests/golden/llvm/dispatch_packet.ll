; REQUIRES: llvm
; The amdgcn dispatch packet (work-group sizes as u16 at 4, 6, 8, grid sizes as u32 at 12, 16, 20)
; is read through llvm.amdgcn.dispatch.ptr: the kernel imports and prints; reconv's simulators do
; not provide the packet yet: the run faults at the call, naming it.
; RUN: reconv print %s
; RUN: reconv run %s --global 8 --local 4 --arg out=i32[1]
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(i32 addrspace(1)* %out) {
entry:
  %dp = call i8 addrspace(4)* @llvm.amdgcn.dispatch.ptr()
  %p = getelementptr i8, i8 addrspace(4)* %dp, i64 24
  %q = bitcast i8 addrspace(4)* %p to i32 addrspace(4)*
  %v = load i32, i32 addrspace(4)* %q
  store i32 %v, i32 addrspace(1)* %out
  ret void
}

declare i8 addrspace(4)* @llvm.amdgcn.dispatch.ptr()
