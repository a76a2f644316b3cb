; REQUIRES: llvm
; Loads of the amdgcn dispatch packet are understood at the offsets of the work-group and grid
; sizes only.
; RUN: reconv print %s
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
