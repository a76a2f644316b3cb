; REQUIRES: llvm
; What device libraries (and HIP) make of the work-item functions on amdgcn: the workitem.id and
; workgroup.id intrinsics, and loads from the dispatch packet (work-group size at 4, 6, 8 as i16;
; grid size at 12, 16, 20 as i32) and the implicit arguments (global offset at 0, 8, 16, which
; reconv launches keep at 0). Also: the amdgcn barrier, fences and waitcnt (dropped: reconv's
; memory is sequentially consistent and barriers order work-groups), the rsq intrinsic, fmuladd,
; integer min/max and bit counts, memcpy/memset, markers (lifetime, assume) and freeze.
; RUN: reconv print %s
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @hip_style(i32 addrspace(1)* %out, float addrspace(1)* %f) {
entry:
  %tmp = alloca [4 x i32], align 4, addrspace(5)
  %tmp.i8 = bitcast [4 x i32] addrspace(5)* %tmp to i8 addrspace(5)*
  call void @llvm.lifetime.start.p5i8(i64 16, i8 addrspace(5)* %tmp.i8)
  %tx = call i32 @llvm.amdgcn.workitem.id.x()
  %ty = call i32 @llvm.amdgcn.workitem.id.y()
  %bx = call i32 @llvm.amdgcn.workgroup.id.x()
  %bz = call i32 @llvm.amdgcn.workgroup.id.z()
  %dp = call i8 addrspace(4)* @llvm.amdgcn.dispatch.ptr()
  %p.wgx = getelementptr inbounds i8, i8 addrspace(4)* %dp, i64 4
  %p.wgx16 = bitcast i8 addrspace(4)* %p.wgx to i16 addrspace(4)*
  %wgx = load i16, i16 addrspace(4)* %p.wgx16, align 4
  %p.wgz = getelementptr inbounds i16, i16 addrspace(4)* %p.wgx16, i64 2
  %wgz = load i16, i16 addrspace(4)* %p.wgz, align 4
  %dp32 = bitcast i8 addrspace(4)* %dp to i32 addrspace(4)*
  %p.gy = getelementptr inbounds i32, i32 addrspace(4)* %dp32, i64 4
  %gridy = load i32, i32 addrspace(4)* %p.gy, align 4
  %ia = call i8 addrspace(4)* @llvm.amdgcn.implicitarg.ptr()
  %ia64 = bitcast i8 addrspace(4)* %ia to i64 addrspace(4)*
  %off.x = load i64, i64 addrspace(4)* %ia64, align 8
  %wgx32 = zext i16 %wgx to i32
  %base = mul i32 %bx, %wgx32
  %gid0 = add i32 %base, %tx
  %off32 = trunc i64 %off.x to i32
  %gid = add i32 %gid0, %off32
  %inrange = icmp ult i32 %gid, %gridy
  call void @llvm.assume(i1 true)
  br i1 %inrange, label %body, label %exit

body:
  %fp = getelementptr inbounds float, float addrspace(1)* %f, i32 %gid
  %x = load float, float addrspace(1)* %fp, align 4
  %r = call float @llvm.amdgcn.rsq.f32(float %x)
  %m = call float @llvm.fmuladd.f32(float %r, float %x, float 1.0)
  %fz = freeze float %m
  store float %fz, float addrspace(1)* %fp, align 4
  %mn = call i32 @llvm.smin.i32(i32 %gid, i32 %ty)
  %lz = call i32 @llvm.ctlz.i32(i32 %mn, i1 true)
  %pc = call i32 @llvm.ctpop.i32(i32 %lz)
  %wgz32 = zext i16 %wgz to i32
  %sum = add i32 %pc, %wgz32
  %sum2 = add i32 %sum, %bz
  call void @llvm.memset.p5i8.i64(i8 addrspace(5)* %tmp.i8, i8 0, i64 16, i1 false)
  %outp = getelementptr inbounds i32, i32 addrspace(1)* %out, i32 %gid
  %outp.i8 = bitcast i32 addrspace(1)* %outp to i8 addrspace(1)*
  call void @llvm.memcpy.p1i8.p5i8.i64(i8 addrspace(1)* %outp.i8, i8 addrspace(5)* %tmp.i8, i64 4, i1 false)
  %old = atomicrmw add i32 addrspace(1)* %outp, i32 %sum2 syncscope("agent") monotonic
  br label %exit

exit:
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.waitcnt(i32 0)
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  call void @llvm.lifetime.end.p5i8(i64 16, i8 addrspace(5)* %tmp.i8)
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workitem.id.y()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare i32 @llvm.amdgcn.workgroup.id.z()
declare i8 addrspace(4)* @llvm.amdgcn.dispatch.ptr()
declare i8 addrspace(4)* @llvm.amdgcn.implicitarg.ptr()
declare float @llvm.amdgcn.rsq.f32(float)
declare float @llvm.fmuladd.f32(float, float, float)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.ctpop.i32(i32)
declare void @llvm.assume(i1)
declare void @llvm.memset.p5i8.i64(i8 addrspace(5)*, i8, i64, i1)
declare void @llvm.memcpy.p1i8.p5i8.i64(i8 addrspace(1)*, i8 addrspace(5)*, i64, i1)
declare void @llvm.lifetime.start.p5i8(i64, i8 addrspace(5)*)
declare void @llvm.lifetime.end.p5i8(i64, i8 addrspace(5)*)
declare void @llvm.amdgcn.s.waitcnt(i32)
declare void @llvm.amdgcn.s.barrier()
