; REQUIRES: llvm
; LLVM 14 miscompiles this kernel in `unify-loop-exits,structurizecfg` (the pipeline of `reconv
; compare`'s llvm-structurizecfg+lower row), so that row is NOT equivalent, and says that LLVM's
; output is already different at thread level, before reconv's lower runs. The loop leaves at two
; exits and %c is used after it. unify-loop-exits routes both exits through loop.exit.guard and
; gives %c a phi of one value there (%c.moved = phi [%c, %loop], [%c, %latch]). StructurizeCFG
; inverts the branch on it (%c.moved.inv = xor %c.moved, true, later folded to xor %c, true) and,
; to drop another inversion, not %c, inverts the icmp of %c in place (eq -> ne; upstream's
; simplifyConditions does this), although the xor still reads %c as it was: the branch in %cleanup
; goes the wrong way for every thread. LLVM's own JIT agrees (the native oracle, memory only), and with
; instsimplify between the two passes (the phi folded away first) the output is right. From
; tests/corpus/misc/nested_break.cl, whose unrolled inner loops have this shape.
; RUN: reconv print %s --llvm-passes=unify-loop-exits,structurizecfg -o %T/s.rir && reconv equiv %s %T/s.rir | tail -2
; RUN: reconv print %s --llvm-passes=unify-loop-exits,structurizecfg -o %T/s.ll && grep -E '^ *(%c|%c\.moved\.inv) =|br i1 %c' %T/s.ll && reconv equiv --native %s %T/s.ll | tail -1
; RUN: reconv print %s --llvm-passes=unify-loop-exits,instsimplify,structurizecfg -o %T/s.ll && reconv equiv --native %s %T/s.ll | tail -1
; RUN: reconv compare %s --only 'reconverge[auto]+lower',llvm-structurizecfg+lower --json | grep -o '"name": "[^"]*"\|"verdict": "[^"]*"' | paste - -
; RUN: reconv compare --kernel find_pair --only 'reconverge[auto]+lower',llvm-structurizecfg+lower tests/corpus/misc/nested_break.cl --json | grep -o '"name": "[^"]*"\|"verdict": "[^"]*"' | paste - -
; reconv-run(find): --global 16 --arg a=i32[8]:rand(1,0,15) --arg out=i32[16]

target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

define spir_kernel void @find(i32 addrspace(1)* %a, i32 addrspace(1)* %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %t = trunc i64 %gid to i32
  br label %loop

loop:
  %j = phi i32 [ 0, %entry ], [ %inc, %latch ]
  %p = getelementptr inbounds i32, i32 addrspace(1)* %a, i32 %j
  %v = load i32, i32 addrspace(1)* %p, align 4
  %c = icmp eq i32 %v, %t
  br i1 %c, label %then, label %latch

latch:
  %inc = add i32 %j, 1
  %d = icmp ult i32 %inc, 8
  br i1 %d, label %loop, label %cleanup

then:
  %x = add i32 %j, 100
  br label %cleanup

cleanup:
  %f = phi i32 [ %x, %then ], [ -1, %latch ]
  br i1 %c, label %done, label %more

more:
  %f2 = sub i32 %f, 1000
  br label %done

done:
  %g = phi i32 [ %f, %cleanup ], [ %f2, %more ]
  %q = getelementptr inbounds i32, i32 addrspace(1)* %out, i64 %gid
  store i32 %g, i32 addrspace(1)* %q, align 4
  ret void
}

declare i64 @_Z13get_global_idj(i32)
