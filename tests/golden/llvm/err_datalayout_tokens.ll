; REQUIRES: llvm
; The probe of err_datalayout.ll finds `target datalayout = "..."` token by token, as LLVM's lexer
; does: the keywords on two lines, a comment between them and the string, which holds an escape
; (\70 is `p`: the layout is "p:", which makes LLVM 14 abort). A comment or another string that
; mentions target datalayout is no layout.
; RUN: reconv print %s 2>%t; echo "exit $?"; grep -v -e "^LLVM ERROR" -e "^$" %t
source_filename = "target datalayout = \22p:\22"
  target
    datalayout ; target datalayout = "p:"
  = "\70:"
define amdgpu_kernel void @k() {
entry:
  ret void
}
