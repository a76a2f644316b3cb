// REQUIRES: llvm
// A struct kernel argument that the kernel writes. On amdgcn clang passes it by value (%p.coerce,
// given as {V,...}: each work-item's registers hold its own copy); on spir64 as a byval pointer,
// whose memory is the callee's own copy (LangRef): the native oracle gives each work-item an alloca
// copied from the buffer at the kernel's entry (src/native/native.c, copy_byval_params). So the
// interpreter on amdgcn and the native run on spir64 leave the same memory: the same checksum on
// the first two lines below (the struct's 32 bytes, unchanged, then out). At -O0 clang keeps the
// kernel's stores into the struct, so without the copy every work-item would add to one shared n:
// that is what reconv's simulators do on spir64, where the byval pointer's buffer is shared
// (docs/cli.md), and the last line's checksum differs.
// RUN: reconv equiv -O0 --target amdgcn-amd-amdhsa %s %s --global 8 --arg 'p.coerce={5,0.5,1000,6,9,1,2,3}' --arg out=i32[N] --seeds 1 | head -1
// RUN: printf '\005\000\000\000\000\000\000\077\350\003\000\000\000\000\000\000\006\000\011\000\001\000\000\000\002\000\000\000\003\000\000\000' > %T/p.bin && reconv equiv --native -O0 --target spir64-unknown-unknown %s %s --global 8 --arg "p=i8[32]:file(%T/p.bin)" --arg out=i32[N] --seeds 1 | head -1
// RUN: reconv equiv -O0 --target spir64-unknown-unknown %s %s --global 8 --arg "p=i8[32]:file(%T/p.bin)" --arg out=i32[N] --seeds 1 | head -1
typedef struct { short lo, hi; } Range;
typedef struct { int n; float scale; long base; Range r; int w[3]; } Params;

__kernel void k(Params p, __global int *out) {
  int i = get_global_id(0);
  for (int j = 0; j <= i; j++) p.n += j;
  out[i] = p.n * 10 + p.w[i % 3] + (int)(p.scale * 4);
}
