; REQUIRES: llvm
; Branch weights (!prof) through reconverge and the in-place export (issue 29, item 4): a branch
; reconverge retargets keeps its weights (its condition is the same, so each slot is taken as
; often as before), as LLVM's StructurizeCFG keeps them; a flow block whose every incoming edge is
; weighted by one branch gets the sums per value of its phi (@if_else: 1 to `false`, 1000 to
; exit; @three_way: FLOW0 1000/1); FLOW blocks fed by two different branches (@three_way's FLOW1,
; @loop_if_break's) get none. Debug locations are kept as before (llvm/names.ll and the like).
; RUN: reconv opt -p reconverge %s -o %t.ll && opt -passes=verify -disable-output %t.ll && grep -E '^define|^[A-Za-z0-9_]+:|br i1|^!' %t.ll | sed 's/ *;.*//'
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @if_else(i32 addrspace(1)* %out) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp eq i32 %t, 0
  br i1 %c, label %true, label %false, !prof !0
true:
  br label %exit
false:
  br label %exit
exit:
  %ret = phi i32 [ 42, %true ], [ 33, %false ]
  store i32 %ret, i32 addrspace(1)* %out
  ret void
}

define amdgpu_kernel void @three_way(i32 addrspace(1)* %out) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp ult i32 %t, 10
  br i1 %c, label %a, label %b, !prof !0
a:
  %d = icmp ult i32 %t, 5
  br i1 %d, label %x, label %y, !prof !1
b:
  store i32 2, i32 addrspace(1)* %out
  br label %y
x:
  store i32 1, i32 addrspace(1)* %out
  br label %exit
y:
  br label %exit
exit:
  ret void
}

define amdgpu_kernel void @loop_if_break(i32 addrspace(1)* %out) {
entry:
  %n = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [ %n, %entry ], [ %i.next, %loop_body ]
  %c = icmp ugt i32 %i, 0
  br i1 %c, label %loop_body, label %exit, !prof !0
loop_body:
  %i.next = sub i32 %i, 1
  %e = icmp eq i32 %i.next, 3
  br i1 %e, label %exit2, label %loop, !prof !1
exit:
  store i32 1, i32 addrspace(1)* %out
  ret void
exit2:
  ret void
}
!0 = !{!"branch_weights", i32 1000, i32 1}
!1 = !{!"branch_weights", i32 3, i32 7}
