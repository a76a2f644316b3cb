; REQUIRES: llvm
; A module LLVM's parser accepts but its verifier rejects (an amdgpu_kernel must return void) is
; reported, not handed to LLVM's passes, which would abort ("Broken module found").
; RUN: reconv print %s
define amdgpu_kernel i32 @k() {
entry:
  ret i32 0
}
