; REQUIRES: llvm
; A vector kernel parameter: a value of the view like any other. The run specification has no
; form for a vector value yet (nor do the simulators run vectors): the run is refused.
; RUN: reconv print %s
; RUN: reconv run %s --global 1 --arg out=f32[4] '--arg=v={1.5,2.5,3.5,4.5}' --dump out
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @k(<4 x float> addrspace(1)* %out,
                             <4 x float> %v) {
entry:
  store <4 x float> %v, <4 x float> addrspace(1)* %out
  ret void
}
