; REQUIRES: llvm
; A branch on a constant expression `ptrtoint (ptr @g to i1)` (LLVM writes such conditions; one of
; LLVM's StructurizeCFG tests has one): reconv's view computes it with a ptrtoint to i1, which its
; verifier refused ("internal error: reconv's view of this module does not verify"). ptrtoint to i1
; is the address's lowest bit (docs/ir.md).
; RUN: reconv print %s | grep 'ptrtoint'
; RUN: reconv sim --check %s --global 4 --arg out=i32[4] --arg x=2 | grep '^check'
; RUN: reconv opt -p reconverge %s -o %T/o.ll && opt %{opaque-pointers} -passes=verify -disable-output %T/o.ll && grep -c 'ptrtoint (i32 addrspace(1)\* @g to i1)\|ptrtoint (ptr addrspace(1) @g to i1)' %T/o.ll
; RUN: reconv equiv %s %T/o.ll --global 4 --arg out=i32[4] --arg x=2 | tail -n 1
target triple = "amdgcn-amd-amdhsa"
@g = addrspace(1) global i32 0, align 4

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %x) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %d = icmp ult i32 %tid, %x
  br i1 %d, label %first, label %join
first:
  br i1 ptrtoint (ptr addrspace(1) @g to i1), label %odd, label %join
odd:
  br label %join
join:
  %v = phi i32 [ 1, %entry ], [ 2, %first ], [ 3, %odd ]
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void
}
