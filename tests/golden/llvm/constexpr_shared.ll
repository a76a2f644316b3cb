; REQUIRES: llvm
; One constant expression used bare by one load and nested in a bitcast by another: the view has
; one view instruction for it, whose first use is the nested one. Export must find the constant
; again in the module where each use has it (an earlier export wrote `undef` for the bare use).
; The kernel is already reconverging, so it must come out identical.
; RUN: reconv opt -p reconverge %s -o %T/out.ll && opt -S %s -o %T/in.ll && diff <(sed -n "/^define/,/^}/p" %T/in.ll) <(sed -n "/^define/,/^}/p" %T/out.ll) && echo identical
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"
@bs = internal addrspace(3) global [4 x [16 x float]] undef, align 64
define spir_kernel void @k(float addrspace(1)* %out, i32 %n) {
entry:
  %v = load <4 x float>, <4 x float> addrspace(3)* bitcast (float addrspace(3)* getelementptr inbounds ([4 x [16 x float]], [4 x [16 x float]] addrspace(3)* @bs, i64 0, i64 1, i64 0) to <4 x float> addrspace(3)*), align 64
  %s = load float, float addrspace(3)* getelementptr inbounds ([4 x [16 x float]], [4 x [16 x float]] addrspace(3)* @bs, i64 0, i64 1, i64 0), align 64
  %e = extractelement <4 x float> %v, i64 1
  %a = fadd float %e, %s
  store float %a, float addrspace(1)* %out, align 4
  ret void
}
