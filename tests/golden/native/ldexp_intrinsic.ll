; REQUIRES: llvm, llvm-16
; llvm.ldexp, the target-independent intrinsic LLVM 16 added for OpenCL's ldexp (clang 19 emits it
; for tests/corpus/misc/math_float.cl): reconv reads it as @ldexp. The interpreter's memory must be
; the native run's (LLVM computes the intrinsic), and a small launch is printed: out[i] = x[i] * 2^k[i]
; with x = 1.5 + i and k = i - 3 (f32) and the same in f64.
; RUN: reconv print %s | grep -c '@ldexp'
; RUN: a=$(reconv equiv %s %s --sizes 16,257 | grep -o 'checksum 0x[0-9a-f]*'); b=$(reconv equiv --native %s %s --sizes 16,257 | grep -o 'checksum 0x[0-9a-f]*'); [ -n "$a" ] && [ "$a" = "$b" ] && echo "interpreter and native agree in $(echo "$a" | wc -l) runs"
; RUN: reconv run %s --global 6 --dump outf --dump outd
;
; reconv-run: --global 64 --arg outf=f32[N] --arg outd=f64[N] --arg x=f32[N]:seq(1.5,1) --arg k=i32[N]:seq(-3,1)
target triple = "spir64"

declare spir_func i64 @_Z13get_global_idj(i32)
declare float @llvm.ldexp.f32.i32(float, i32)
declare double @llvm.ldexp.f64.i32(double, i32)

define spir_kernel void @ldexp_both(ptr addrspace(1) %outf, ptr addrspace(1) %outd, ptr addrspace(1) %x, ptr addrspace(1) %k) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i64 %gid
  %xv = load float, ptr addrspace(1) %px, align 4
  %pk = getelementptr inbounds i32, ptr addrspace(1) %k, i64 %gid
  %kv = load i32, ptr addrspace(1) %pk, align 4
  %f = call float @llvm.ldexp.f32.i32(float %xv, i32 %kv)
  %pf = getelementptr inbounds float, ptr addrspace(1) %outf, i64 %gid
  store float %f, ptr addrspace(1) %pf, align 4
  %xd = fpext float %xv to double
  %d = call double @llvm.ldexp.f64.i32(double %xd, i32 %kv)
  %pd = getelementptr inbounds double, ptr addrspace(1) %outd, i64 %gid
  store double %d, ptr addrspace(1) %pd, align 8
  ret void
}
