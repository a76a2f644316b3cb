; REQUIRES: llvm
; An opaque call that reads a vector (issue 29, item 2): the simulators' form scalarizes the
; vector instructions away and the call stays, to fault where a thread reaches it; it read the
; removed insertelement, and the form failed its own verifier ("internal error"), also when no
; thread goes there. n=3: no thread calls @use; n=7: every thread does, and that faults.
; RUN: reconv run %s --arg out=i32[4] --arg n=3
; RUN: reconv sim --check %s --arg out=i32[4] --arg n=3 | grep '^check\|^buffer'
; RUN: reconv sim --mode ipdom %s --arg out=i32[4] --arg n=3 | grep '^buffer'
; RUN: reconv sim %s --arg out=i32[4] --arg n=7
declare void @use(<2 x i32>)
define void @k(i32 addrspace(1)* %out, i32 %n) {
entry:
  %c = icmp eq i32 %n, 7
  br i1 %c, label %a, label %b
a:
  %v0 = insertelement <2 x i32> undef, i32 %n, i32 0
  %v = insertelement <2 x i32> %v0, i32 1, i32 1
  call void @use(<2 x i32> %v)
  br label %b
b:
  store i32 1, i32 addrspace(1)* %out
  ret void
}
