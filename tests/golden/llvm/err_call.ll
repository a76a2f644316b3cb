; REQUIRES: llvm
; A call of a function that is neither an OpenCL builtin nor an intrinsic reconv knows.
; RUN: reconv print %s
target triple = "amdgcn-amd-amdhsa"

declare i32 @mystery(i32)

define amdgpu_kernel void @k(i32 addrspace(1)* %out) {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %v = call i32 @mystery(i32 %id)
  store i32 %v, i32 addrspace(1)* %out
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
