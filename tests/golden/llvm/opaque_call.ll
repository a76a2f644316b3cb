; REQUIRES: llvm
; A call of a function that is neither defined in the module, nor an OpenCL built-in, nor an
; intrinsic reconv knows is opaque: its result may differ between threads (!varying), it may
; touch memory (!effects). The branch on it is divergent; reconverge makes the kernel
; reconverging and keeps the call as it is.
; RUN: reconv print %s
; RUN: reconv analyze %s --json | grep -o '"divergent_branches": \[[^]]*\]'
; RUN: reconv opt -p reconverge %s -o %t.ll && opt -passes=verify -disable-output %t.ll && grep 'call i32 @mystery' %t.ll
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
