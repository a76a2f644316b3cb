; REQUIRES: llvm
; LLVM's vector reductions (llvm.vector.reduce.*), which clang 19's vectorizers make of OpenCL
; code (NVIDIA's median filter: llvm.vector.reduce.umin.v4i32): reconv reads them as @reduce_*
; builtins and the simulators expand them lane by lane (src/sim/scalarize.c). Checked against
; vector_reduce_scalar.ll, the same kernel written with extractelement and scalar operations:
; natively (LLVM's JIT computes the reductions: an oracle that owes nothing to reconv) and on
; reconv's interpreter, and printed for a small launch.
; RUN: reconv print %s | grep -c '@reduce_'
; RUN: reconv equiv --native %s %S/vector_reduce_scalar.ll --sizes 16,257
; RUN: reconv equiv %s %S/vector_reduce_scalar.ll --sizes 16,257 | tail -n 1
; RUN: reconv run %s --global 2 --dump vi --dump outi --dump outf
; RUN: reconv opt -p reconverge %s -o %T/o.ll && reconv equiv --native %s %T/o.ll --sizes 16,257 | tail -n 1
;
; reconv-run: --global 16 --arg outi=i32[N*13] --arg outf=f32[N*4] --arg vi=i32[N*4]:rand(7,-9,9) --arg vf=f32[N*4]:rand(3,-4,4)
target triple = "spir64"

declare spir_func i64 @_Z13get_global_idj(i32)
declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)
declare i32 @llvm.vector.reduce.mul.v4i32(<4 x i32>)
declare i32 @llvm.vector.reduce.and.v4i32(<4 x i32>)
declare i32 @llvm.vector.reduce.or.v4i32(<4 x i32>)
declare i32 @llvm.vector.reduce.xor.v4i32(<4 x i32>)
declare i32 @llvm.vector.reduce.smin.v4i32(<4 x i32>)
declare i32 @llvm.vector.reduce.smax.v4i32(<4 x i32>)
declare i32 @llvm.vector.reduce.umin.v4i32(<4 x i32>)
declare i32 @llvm.vector.reduce.umax.v4i32(<4 x i32>)
declare i1 @llvm.vector.reduce.or.v4i1(<4 x i1>)
declare i1 @llvm.vector.reduce.and.v4i1(<4 x i1>)
declare i1 @llvm.vector.reduce.xor.v4i1(<4 x i1>)
declare i1 @llvm.vector.reduce.add.v4i1(<4 x i1>)
declare float @llvm.vector.reduce.fmin.v4f32(<4 x float>)
declare float @llvm.vector.reduce.fmax.v4f32(<4 x float>)
declare float @llvm.vector.reduce.fadd.v4f32(float, <4 x float>)
declare float @llvm.vector.reduce.fmul.v4f32(float, <4 x float>)

define spir_kernel void @reduce(ptr addrspace(1) %outi, ptr addrspace(1) %outf, ptr addrspace(1) %vi, ptr addrspace(1) %vf) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %pvi = getelementptr inbounds <4 x i32>, ptr addrspace(1) %vi, i64 %gid
  %v = load <4 x i32>, ptr addrspace(1) %pvi, align 16
  %pvf = getelementptr inbounds <4 x float>, ptr addrspace(1) %vf, i64 %gid
  %f = load <4 x float>, ptr addrspace(1) %pvf, align 16
  %r0 = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %v)
  %r1 = call i32 @llvm.vector.reduce.mul.v4i32(<4 x i32> %v)
  %r2 = call i32 @llvm.vector.reduce.and.v4i32(<4 x i32> %v)
  %r3 = call i32 @llvm.vector.reduce.or.v4i32(<4 x i32> %v)
  %r4 = call i32 @llvm.vector.reduce.xor.v4i32(<4 x i32> %v)
  %r5 = call i32 @llvm.vector.reduce.smin.v4i32(<4 x i32> %v)
  %r6 = call i32 @llvm.vector.reduce.smax.v4i32(<4 x i32> %v)
  %r7 = call i32 @llvm.vector.reduce.umin.v4i32(<4 x i32> %v)
  %r8 = call i32 @llvm.vector.reduce.umax.v4i32(<4 x i32> %v)
  %small = icmp slt <4 x i32> %v, <i32 3, i32 3, i32 3, i32 3>
  %b9 = call i1 @llvm.vector.reduce.or.v4i1(<4 x i1> %small)
  %b10 = call i1 @llvm.vector.reduce.and.v4i1(<4 x i1> %small)
  %b11 = call i1 @llvm.vector.reduce.xor.v4i1(<4 x i1> %small)
  %b12 = call i1 @llvm.vector.reduce.add.v4i1(<4 x i1> %small)
  %r9 = zext i1 %b9 to i32
  %r10 = zext i1 %b10 to i32
  %r11 = zext i1 %b11 to i32
  %r12 = zext i1 %b12 to i32
  %base = mul i64 %gid, 13
  %p0 = getelementptr inbounds i32, ptr addrspace(1) %outi, i64 %base
  store i32 %r0, ptr addrspace(1) %p0, align 4
  %p1 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 1
  store i32 %r1, ptr addrspace(1) %p1, align 4
  %p2 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 2
  store i32 %r2, ptr addrspace(1) %p2, align 4
  %p3 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 3
  store i32 %r3, ptr addrspace(1) %p3, align 4
  %p4 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 4
  store i32 %r4, ptr addrspace(1) %p4, align 4
  %p5 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 5
  store i32 %r5, ptr addrspace(1) %p5, align 4
  %p6 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 6
  store i32 %r6, ptr addrspace(1) %p6, align 4
  %p7 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 7
  store i32 %r7, ptr addrspace(1) %p7, align 4
  %p8 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 8
  store i32 %r8, ptr addrspace(1) %p8, align 4
  %p9 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 9
  store i32 %r9, ptr addrspace(1) %p9, align 4
  %p10 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 10
  store i32 %r10, ptr addrspace(1) %p10, align 4
  %p11 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 11
  store i32 %r11, ptr addrspace(1) %p11, align 4
  %p12 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 12
  store i32 %r12, ptr addrspace(1) %p12, align 4
  %s0 = call float @llvm.vector.reduce.fmin.v4f32(<4 x float> %f)
  %s1 = call float @llvm.vector.reduce.fmax.v4f32(<4 x float> %f)
  %s2 = call float @llvm.vector.reduce.fadd.v4f32(float 5.000000e-01, <4 x float> %f)
  %s3 = call float @llvm.vector.reduce.fmul.v4f32(float -2.000000e+00, <4 x float> %f)
  %fbase = shl i64 %gid, 2
  %q0 = getelementptr inbounds float, ptr addrspace(1) %outf, i64 %fbase
  store float %s0, ptr addrspace(1) %q0, align 4
  %q1 = getelementptr inbounds float, ptr addrspace(1) %q0, i64 1
  store float %s1, ptr addrspace(1) %q1, align 4
  %q2 = getelementptr inbounds float, ptr addrspace(1) %q0, i64 2
  store float %s2, ptr addrspace(1) %q2, align 4
  %q3 = getelementptr inbounds float, ptr addrspace(1) %q0, i64 3
  store float %s3, ptr addrspace(1) %q3, align 4
  ret void
}
