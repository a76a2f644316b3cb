; REQUIRES: llvm
; Branches on undef in an irreducible cycle (issue 29, item 5): LLVM 14's divergence analysis
; calls every branch of a function with an irreducible cycle divergent, also one on undef; reconv's
; view of an amdgcn kernel says the same (src/analysis/uniformity.c, the target's view), so that
; reconverge's output, in every block ordering, is reconverging for LLVM as well. (A branch on
; undef in a reducible kernel is uniform for both.)
; RUN: for k in k reducible; do reconv analyze --kernel $k %s | grep branches; done
; RUN: for o in dfpd df bf bfpd rpot domreg; do reconv opt -p "reconverge[order=$o]" --kernel k %s -o %t.$o.ll && opt -passes=verify -disable-output %t.$o.ll && echo "$o: $(reconv analyze --llvm-divergence %t.$o.ll --json | grep -o '"reconverging": [a-z]*')"; done
target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @k(i32 addrspace(1)* %out) {
entry:
  br label %top
top:
  br i1 undef, label %back, label %body
body:
  br i1 undef, label %a, label %b
a:
  br label %spin1
spin1:
  br i1 undef, label %spin1, label %back
b:
  br label %spin2
spin2:
  br i1 undef, label %spin2, label %after2
after2:
  br label %back
back:
  store i32 1, i32 addrspace(1)* %out
  br i1 undef, label %c, label %top
c:
  br label %spin3
spin3:
  br i1 undef, label %spin3, label %after3
after3:
  br label %body
}

define amdgpu_kernel void @reducible(i32 addrspace(1)* %out) {
entry:
  br i1 undef, label %a, label %b
a:
  store i32 1, i32 addrspace(1)* %out
  br label %b
b:
  ret void
}
