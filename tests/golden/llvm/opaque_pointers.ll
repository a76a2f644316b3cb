; REQUIRES: llvm
; LLVM IR with opaque pointers (`ptr`, as LLVM 15 and later write it and most of LLVM's own tests
; are written now): LLVM 14 reads it only in a context in opaque-pointer mode, which reconv sets
; when the text uses `ptr` as a type (src/llvm/source.c). Imported, reconverged, verified by LLVM,
; run on the simulators and checked; `i32*` in the same file reads as `ptr` too.
; RUN: reconv print %s | head -n 12
; RUN: reconv opt -p reconverge %s -o %T/o.ll && opt %{opaque-pointers} -passes=verify -disable-output %T/o.ll && grep -c "ptr addrspace(1)" %T/o.ll
; RUN: reconv sim --check %s --global 8 --arg out=i32[N] --arg 'in=i32[N]:rand(5,0,9)' --arg n=6 | grep '^check'
; RUN: reconv equiv %s %T/o.ll --global 8 --arg out=i32[N] --arg 'in=i32[N]:rand(5,0,9)' --arg n=6 | tail -n 1
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()

define amdgpu_kernel void @sum_to(ptr addrspace(1) %out, i32 addrspace(1)* %in, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %pin = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %tid
  %lim = load i32, ptr addrspace(1) %pin, align 4
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %acc = phi i32 [ 0, %entry ], [ %acc1, %body ]
  %more = icmp slt i32 %i, %lim
  br i1 %more, label %body, label %done
body:
  %acc1 = add i32 %acc, %i
  %i1 = add i32 %i, 1
  %stop = icmp sgt i32 %acc1, %n
  br i1 %stop, label %done, label %loop
done:
  %r = phi i32 [ %acc, %loop ], [ -1, %body ]
  %pout = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %pout, align 4
  ret void
}
