; REQUIRES: llvm
; A module without kernels (no amdgpu_kernel or spir_kernel function, no OpenCL kernel metadata).
; RUN: reconv print %s
define i32 @not_a_kernel(i32 %x) {
  ret i32 %x
}
