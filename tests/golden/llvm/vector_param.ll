; REQUIRES: llvm
; A vector kernel parameter: a value of the view like any other. A run specification gives its
; elements as {V,V,...} (docs/cli.md); the wave simulator agrees with the interpreter, and a wrong
; count or type is refused.
; RUN: reconv print %s
; RUN: reconv run %s --global 1 --arg out=f32[4] '--arg=v={1.5,2.5,3.5,4.5}' --dump out
; RUN: reconv sim %s --check --global 1 --arg out=f32[4] '--arg=v={1.5,2.5,3.5,4.5}' | grep '^check'
; RUN: reconv run %s --global 1 --arg out=f32[4] '--arg=v={1.5,2.5,3.5}'
; RUN: reconv run %s --global 1 --arg out=f32[4] --arg v=1.5
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(<4 x float> addrspace(1)* %out,
                             <4 x float> %v) {
entry:
  store <4 x float> %v, <4 x float> addrspace(1)* %out
  ret void
}
