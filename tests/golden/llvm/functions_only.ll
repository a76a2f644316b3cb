; REQUIRES: llvm
; A module without kernels: its functions are device functions, analysed and transformed like
; kernels; running one needs a value for each parameter.
; RUN: reconv print %s
; RUN: reconv opt -p reconverge %s -o %t.ll && opt -passes=verify -disable-output %t.ll && echo verified
; RUN: reconv run %s
define i32 @not_a_kernel(i32 %x) {
  ret i32 %x
}
