; REQUIRES: llvm
; The same convention in LLVM IR text: `; reconv-run(KERNEL): OPTIONS`. A kernel that reconv
; exported carries its run specification as !reconv.run metadata; comments win over it, and the
; generic line applies to kernels without a line of their own.
; reconv-run(commented): --global 8 --arg out=i32[8]
; RUN: reconv print %s
; RUN: sed 's/^; reconv-run(commented)/; reconv-run/' %s > %T/generic.ll && reconv print %T/generic.ll
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @commented(i32 addrspace(1)* %out) !reconv.run !0 {
  ret void
}

define amdgpu_kernel void @exported(i32 addrspace(1)* %out) !reconv.run !1 {
  ret void
}

!0 = !{!"--global 1 --arg out=i32[1]"}
!1 = !{!"--global 4 --arg out=i32[4]:seq"}
