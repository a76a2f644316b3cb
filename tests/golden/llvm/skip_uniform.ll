; REQUIRES: llvm
; StructurizeCFG's skip-uniform-regions mode, as LLVM 20 spells it in a pipeline
; (structurizecfg<skip-uniform-regions>); on older LLVMs reconv runs it through opt's legacy pass
; (src/llvm/skip_uniform.c). In both kernels the first if-else branches on a kernel argument
; (uniform: it keeps its CFG, no Flow block) and the second on the work-item id (divergent:
; structurized). @unnamed has numbered blocks, which keep their numbers after the round trip
; through opt. The compare rows: one Flow block fewer with uniform regions skipped, both
; equivalent; passes before and after it run as usual; without opt the error says what is missing, and
; an opt that fails (`false`) is reported with its exit status.
; RUN: reconv print %s --kernel named --llvm-passes='structurizecfg<skip-uniform-regions>' | grep -E '^[A-Za-z0-9_.]+:|^  br|^  jmp'
; RUN: reconv print %s --kernel unnamed --llvm-passes='structurizecfg<skip-uniform-regions>' | grep -E '^[A-Za-z0-9_.]+:|^  br|^  jmp'
; RUN: reconv print %s --kernel named --llvm-passes=structurizecfg | grep -c '!flow'
; RUN: reconv print %s --kernel named --llvm-passes='lowerswitch,structurizecfg<skip-uniform-regions>,instsimplify' -o %T/s.rir && reconv equiv --kernel named %s %T/s.rir | tail -1
; RUN: reconv compare %s --kernel named --only 'llvm-structurizecfg+lower,llvm-structurizecfg[skip-uniform]+lower' --json | grep -o '"name": "[^"]*"\|"flow_blocks": [0-9]*\|"issued_instructions": [0-9]*\|"verdict": "[^"]*"' | paste - - - -
; RUN: RECONV_OPT=/nonexistent/opt reconv print %s --kernel named --llvm-passes='structurizecfg<skip-uniform-regions>' 2>&1 | sed "s/(tried [^)]*)/(tried ...)/; s/LLVM [0-9]*'s/LLVM N's/"; echo "exit ${PIPESTATUS[0]}"
; RUN: RECONV_OPT=false reconv print %s --kernel named --llvm-passes='structurizecfg<skip-uniform-regions>' 2>&1; echo "exit $?"
; reconv-run: --global 8 --arg p=i32[8] --arg n=1

target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @named(ptr addrspace(1) %p, i32 %n) {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %g = getelementptr i32, ptr addrspace(1) %p, i32 %t
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %a, label %b
a:
  store i32 1, ptr addrspace(1) %g
  br label %j
b:
  store i32 2, ptr addrspace(1) %g
  br label %j
j:
  %d = icmp sgt i32 %t, 3
  br i1 %d, label %x, label %y
x:
  %v = load i32, ptr addrspace(1) %g
  %v1 = add i32 %v, 10
  store i32 %v1, ptr addrspace(1) %g
  br label %z
y:
  %w = load i32, ptr addrspace(1) %g
  %w1 = mul i32 %w, 3
  store i32 %w1, ptr addrspace(1) %g
  br label %z
z:
  ret void
}

define amdgpu_kernel void @unnamed(ptr addrspace(1) %p, i32 %n) {
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %g = getelementptr i32, ptr addrspace(1) %p, i32 %t
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %1, label %2
1:
  store i32 1, ptr addrspace(1) %g
  br label %3
2:
  store i32 2, ptr addrspace(1) %g
  br label %3
3:
  %d = icmp sgt i32 %t, 3
  br i1 %d, label %4, label %5
4:
  store i32 3, ptr addrspace(1) %g
  br label %6
5:
  store i32 4, ptr addrspace(1) %g
  br label %6
6:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
