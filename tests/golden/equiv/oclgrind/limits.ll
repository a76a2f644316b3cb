; oclgrind 21.10's known limits (tests/golden/equiv/oclgrind.test), one kernel each: an integer of
; 3 bytes, a signed compare of a 4-bit integer, and a freeze (where its --uninitialized stops).
; REQUIRES: llvm oclgrind
; RUN: for k in wide subbyte frozen; do reconv equiv --oclgrind --kernel $k %s %s; done
; reconv-run(wide): --global 16 --local 16 --arg out=i32[N]
; reconv-run(subbyte): --global 16 --local 16 --arg out=i32[N]
; reconv-run(frozen): --global 16 --local 16 --arg out=i32[N]
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

define spir_kernel void @wide(i32 addrspace(1)* %out) !kernel_arg_addr_space !0 !kernel_arg_access_qual !1 !kernel_arg_type !2 !kernel_arg_base_type !2 !kernel_arg_type_qual !3 {
entry:
  %id = tail call spir_func i64 @_Z13get_global_idj(i32 0)
  %t = trunc i64 %id to i24
  %a = add i24 %t, 5
  %z = zext i24 %a to i32
  %p = getelementptr inbounds i32, i32 addrspace(1)* %out, i64 %id
  store i32 %z, i32 addrspace(1)* %p, align 4
  ret void
}

define spir_kernel void @subbyte(i32 addrspace(1)* %out) !kernel_arg_addr_space !0 !kernel_arg_access_qual !1 !kernel_arg_type !2 !kernel_arg_base_type !2 !kernel_arg_type_qual !3 {
entry:
  %id = tail call spir_func i64 @_Z13get_global_idj(i32 0)
  %t = trunc i64 %id to i4
  %c = icmp slt i4 %t, 3
  %v = select i1 %c, i32 1, i32 2
  %p = getelementptr inbounds i32, i32 addrspace(1)* %out, i64 %id
  store i32 %v, i32 addrspace(1)* %p, align 4
  ret void
}

define spir_kernel void @frozen(i32 addrspace(1)* %out) !kernel_arg_addr_space !0 !kernel_arg_access_qual !1 !kernel_arg_type !2 !kernel_arg_base_type !2 !kernel_arg_type_qual !3 {
entry:
  %id = tail call spir_func i64 @_Z13get_global_idj(i32 0)
  %t = trunc i64 %id to i32
  %f = freeze i32 %t
  %p = getelementptr inbounds i32, i32 addrspace(1)* %out, i64 %id
  store i32 %f, i32 addrspace(1)* %p, align 4
  ret void
}

declare spir_func i64 @_Z13get_global_idj(i32)

!0 = !{i32 1}
!1 = !{!"none"}
!2 = !{!"int*"}
!3 = !{!""}
