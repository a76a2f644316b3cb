; REQUIRES: llvm
; LLVM 14's text parser aborts the process on a malformed datalayout ("LLVM ERROR: Trailing
; separator in datalayout string"); reconv parses in a child first and reports it, exit 1.
; RUN: reconv print %s 2>%t; echo "exit $?"; grep -v -e "^LLVM ERROR" -e "^$" %t
target datalayout = "p:"
define amdgpu_kernel void @k() {
entry:
  ret void
}
