; REQUIRES: llvm
; fmuladd.ll (read its comment) with llvm.fma instead of llvm.fmuladd. Natively they are not
; equivalent: x86-64's generic CPU has no fused multiply-add, so LLVM computes fmuladd as a
; multiply and an add and calls the C library's fmaf for llvm.fma. reconv's interpreter agrees
; since fmuladd has a builtin of its own (@fmuladd, unfused as on such a host; @fma is fused):
; both oracles name the same first element.
; RUN: reconv equiv %S/fmuladd.ll %s --sizes 64
; RUN: reconv equiv --native %S/fmuladd.ll %s --sizes 64
; RUN: reconv equiv --native %S/fmuladd.ll %s --sizes 64 --json
; reconv-run: --global 64 --arg out=f32[64] --arg steps=60
target triple = "spir64"

declare spir_func i64 @_Z13get_global_idj(i32)
declare float @llvm.fma.f32(float, float, float)

define spir_kernel void @orbit(float addrspace(1)* %out, i32 %steps) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %g = trunc i64 %gid to i32
  %gf = sitofp i32 %g to float
  %t = fmul float %gf, 1.562500e-02   ; c = -2 + gid / 64
  %c = fadd float %t, -2.000000e+00
  br label %loop

loop:
  %x = phi float [ 0.000000e+00, %entry ], [ %x.next, %loop ]
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %x.next = call float @llvm.fma.f32(float %x, float %x, float %c)
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %steps
  br i1 %more, label %loop, label %exit

exit:
  %p = getelementptr inbounds float, float addrspace(1)* %out, i64 %gid
  store float %x.next, float addrspace(1)* %p, align 4
  ret void
}
