; REQUIRES: llvm
; A datalayout string runs to the next quote, lines below if need be, as LLVM's lexer reads it: the
; probe of err_datalayout.ll once looked for the closing quote on the same line, found none, left
; the string to the parser, and LLVM 14 ended the process ("LLVM ERROR: not a number, or does not
; fit in an unsigned int"; found by tests/fuzz/fuzz_llvm.c).
; RUN: reconv print %s 2>%t; echo "exit $?"; grep -v -e "^LLVM ERROR" -e "^$" %t
target datalayout = "e-v192:25
loat"
define amdgpu_kernel void @k() {
entry:
  ret void
}
