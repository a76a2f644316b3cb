; REQUIRES: llvm
; THE regression the native oracle is for. @orbit iterates the real quadratic map x <- x*x + c (the
; Mandelbrot set's real axis; chaotic for most c in [-2, -1.4]) with llvm.fmuladd, which LLVM may
; compute fused or not: on the host's generic CPU it is a multiply and an add, rounded twice.
; fmuladd_as_fma.ll is the same kernel with llvm.fma, always fused (rounded once), as an exporter
; that maps fmuladd to fma would write it. Natively the orbits separate after a few dozen steps,
; and `reconv equiv --native` names the first element that differs; reconv's interpreter, which
; once computed both as one fused operation, now keeps them apart too (@fmuladd, @fma).
; The comparisons are in fmuladd_as_fma.ll; here the kernel natively against itself.
; RUN: reconv equiv --native %s %s --sizes 1,64
;
; reconv-run: --global 64 --arg out=f32[64] --arg steps=60
target triple = "spir64"

declare spir_func i64 @_Z13get_global_idj(i32)
declare float @llvm.fmuladd.f32(float, float, float)

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
  %x.next = call float @llvm.fmuladd.f32(float %x, float %x, float %c)
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %steps
  br i1 %more, label %loop, label %exit

exit:
  %p = getelementptr inbounds float, float addrspace(1)* %out, i64 %gid
  store float %x.next, float addrspace(1)* %p, align 4
  ret void
}
