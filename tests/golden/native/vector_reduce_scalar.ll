; REQUIRES: llvm
; vector_reduce.ll's kernel with every reduction written out: extractelement, then the lanes
; combined in order by scalar operations and intrinsics (the reference it is checked against).
; RUN: reconv sim --check %s | grep '^check'
;
; reconv-run: --global 16 --arg outi=i32[N*13] --arg outf=f32[N*4] --arg vi=i32[N*4]:rand(7,-9,9) --arg vf=f32[N*4]:rand(3,-4,4)
target triple = "spir64"

declare spir_func i64 @_Z13get_global_idj(i32)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare float @llvm.minnum.f32(float, float)
declare float @llvm.maxnum.f32(float, float)

define spir_kernel void @reduce(ptr addrspace(1) %outi, ptr addrspace(1) %outf, ptr addrspace(1) %vi, ptr addrspace(1) %vf) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %pvi = getelementptr inbounds <4 x i32>, ptr addrspace(1) %vi, i64 %gid
  %v = load <4 x i32>, ptr addrspace(1) %pvi, align 16
  %pvf = getelementptr inbounds <4 x float>, ptr addrspace(1) %vf, i64 %gid
  %f = load <4 x float>, ptr addrspace(1) %pvf, align 16
  %v0 = extractelement <4 x i32> %v, i32 0
  %f0 = extractelement <4 x float> %f, i32 0
  %c0 = icmp slt i32 %v0, 3
  %v1 = extractelement <4 x i32> %v, i32 1
  %f1 = extractelement <4 x float> %f, i32 1
  %c1 = icmp slt i32 %v1, 3
  %v2 = extractelement <4 x i32> %v, i32 2
  %f2 = extractelement <4 x float> %f, i32 2
  %c2 = icmp slt i32 %v2, 3
  %v3 = extractelement <4 x i32> %v, i32 3
  %f3 = extractelement <4 x float> %f, i32 3
  %c3 = icmp slt i32 %v3, 3
  %r0.1 = add i32 %v0, %v1
  %r0.2 = add i32 %r0.1, %v2
  %r0.3 = add i32 %r0.2, %v3
  %r1.1 = mul i32 %v0, %v1
  %r1.2 = mul i32 %r1.1, %v2
  %r1.3 = mul i32 %r1.2, %v3
  %r2.1 = and i32 %v0, %v1
  %r2.2 = and i32 %r2.1, %v2
  %r2.3 = and i32 %r2.2, %v3
  %r3.1 = or i32 %v0, %v1
  %r3.2 = or i32 %r3.1, %v2
  %r3.3 = or i32 %r3.2, %v3
  %r4.1 = xor i32 %v0, %v1
  %r4.2 = xor i32 %r4.1, %v2
  %r4.3 = xor i32 %r4.2, %v3
  %r5.1 = call i32 @llvm.smin.i32(i32 %v0, i32 %v1)
  %r5.2 = call i32 @llvm.smin.i32(i32 %r5.1, i32 %v2)
  %r5.3 = call i32 @llvm.smin.i32(i32 %r5.2, i32 %v3)
  %r6.1 = call i32 @llvm.smax.i32(i32 %v0, i32 %v1)
  %r6.2 = call i32 @llvm.smax.i32(i32 %r6.1, i32 %v2)
  %r6.3 = call i32 @llvm.smax.i32(i32 %r6.2, i32 %v3)
  %r7.1 = call i32 @llvm.umin.i32(i32 %v0, i32 %v1)
  %r7.2 = call i32 @llvm.umin.i32(i32 %r7.1, i32 %v2)
  %r7.3 = call i32 @llvm.umin.i32(i32 %r7.2, i32 %v3)
  %r8.1 = call i32 @llvm.umax.i32(i32 %v0, i32 %v1)
  %r8.2 = call i32 @llvm.umax.i32(i32 %r8.1, i32 %v2)
  %r8.3 = call i32 @llvm.umax.i32(i32 %r8.2, i32 %v3)
  %b9.1 = or i1 %c0, %c1
  %b9.2 = or i1 %b9.1, %c2
  %b9.3 = or i1 %b9.2, %c3
  %r9 = zext i1 %b9.3 to i32
  %b10.1 = and i1 %c0, %c1
  %b10.2 = and i1 %b10.1, %c2
  %b10.3 = and i1 %b10.2, %c3
  %r10 = zext i1 %b10.3 to i32
  %b11.1 = xor i1 %c0, %c1
  %b11.2 = xor i1 %b11.1, %c2
  %b11.3 = xor i1 %b11.2, %c3
  %r11 = zext i1 %b11.3 to i32
  %b12.1 = add i1 %c0, %c1
  %b12.2 = add i1 %b12.1, %c2
  %b12.3 = add i1 %b12.2, %c3
  %r12 = zext i1 %b12.3 to i32
  %s0.1 = call float @llvm.minnum.f32(float %f0, float %f1)
  %s0.2 = call float @llvm.minnum.f32(float %s0.1, float %f2)
  %s0.3 = call float @llvm.minnum.f32(float %s0.2, float %f3)
  %s1.1 = call float @llvm.maxnum.f32(float %f0, float %f1)
  %s1.2 = call float @llvm.maxnum.f32(float %s1.1, float %f2)
  %s1.3 = call float @llvm.maxnum.f32(float %s1.2, float %f3)
  %s2.0 = fadd float 5.000000e-01, %f0
  %s2.1 = fadd float %s2.0, %f1
  %s2.2 = fadd float %s2.1, %f2
  %s2.3 = fadd float %s2.2, %f3
  %s3.0 = fmul float -2.000000e+00, %f0
  %s3.1 = fmul float %s3.0, %f1
  %s3.2 = fmul float %s3.1, %f2
  %s3.3 = fmul float %s3.2, %f3
  %base = mul i64 %gid, 13
  %p0 = getelementptr inbounds i32, ptr addrspace(1) %outi, i64 %base
  store i32 %r0.3, ptr addrspace(1) %p0, align 4
  %p1 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 1
  store i32 %r1.3, ptr addrspace(1) %p1, align 4
  %p2 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 2
  store i32 %r2.3, ptr addrspace(1) %p2, align 4
  %p3 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 3
  store i32 %r3.3, ptr addrspace(1) %p3, align 4
  %p4 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 4
  store i32 %r4.3, ptr addrspace(1) %p4, align 4
  %p5 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 5
  store i32 %r5.3, ptr addrspace(1) %p5, align 4
  %p6 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 6
  store i32 %r6.3, ptr addrspace(1) %p6, align 4
  %p7 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 7
  store i32 %r7.3, ptr addrspace(1) %p7, align 4
  %p8 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 8
  store i32 %r8.3, ptr addrspace(1) %p8, align 4
  %p9 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 9
  store i32 %r9, ptr addrspace(1) %p9, align 4
  %p10 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 10
  store i32 %r10, ptr addrspace(1) %p10, align 4
  %p11 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 11
  store i32 %r11, ptr addrspace(1) %p11, align 4
  %p12 = getelementptr inbounds i32, ptr addrspace(1) %p0, i64 12
  store i32 %r12, ptr addrspace(1) %p12, align 4
  %fbase = shl i64 %gid, 2
  %q0 = getelementptr inbounds float, ptr addrspace(1) %outf, i64 %fbase
  store float %s0.3, ptr addrspace(1) %q0, align 4
  %q1 = getelementptr inbounds float, ptr addrspace(1) %q0, i64 1
  store float %s1.3, ptr addrspace(1) %q1, align 4
  %q2 = getelementptr inbounds float, ptr addrspace(1) %q0, i64 2
  store float %s2.3, ptr addrspace(1) %q2, align 4
  %q3 = getelementptr inbounds float, ptr addrspace(1) %q0, i64 3
  store float %s3.3, ptr addrspace(1) %q3, align 4
  ret void
}
