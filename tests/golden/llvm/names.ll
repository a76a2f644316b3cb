; REQUIRES: llvm
; Names: LLVM's are kept where the .rir alphabet [A-Za-z0-9_.] allows, other characters become
; '_', names starting with a digit get a letter in front, clashes get a suffix; unnamed blocks are
; named after the number LLVM prints for them (bb3, bb4), unnamed parameters after kernel_arg_name
; metadata or their position. Kernels are found by calling convention (spir_kernel here) or by
; OpenCL metadata (!opencl.kernels, as SPIR 1.2 modules have it). A switch that reaches a block
; twice gives one phi entry per predecessor block.
; RUN: reconv print %s
target triple = "spir64-unknown-unknown"

define spir_kernel void @"odd-name"(i32 addrspace(1)* %0, i32 %"the count", i32 %1) !kernel_arg_name !1 {
  %"a b" = add i32 %"the count", 1
  %"a_b" = add i32 %"a b", 2
  %"9lives" = mul i32 %"a_b", %1
  switch i32 %"9lives", label %3 [
    i32 0, label %4
    i32 1, label %4
    i32 2, label %"exit!"
  ]

3:
  br label %4

4:
  %x = phi i32 [ 7, %2 ], [ 7, %2 ], [ %"9lives", %3 ]
  br label %"exit!"

"exit!":
  %y = phi i32 [ %x, %4 ], [ 0, %2 ]
  store i32 %y, i32 addrspace(1)* %0
  ret void
}

define void @listed(i32 addrspace(1)* %p) {
  store i32 1, i32 addrspace(1)* %p
  ret void
}

!opencl.kernels = !{!0}
!0 = !{void (i32 addrspace(1)*)* @listed}
!1 = !{!"out", !"count", !""}
