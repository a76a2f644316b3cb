// REQUIRES: llvm
// The run-specification comment convention: `reconv-run(KERNEL): OPTIONS` gives KERNEL the run
// specification that `!run "..."` gives a .rir kernel; several lines for one kernel are joined;
// `reconv-run: OPTIONS` applies to every kernel without its own line; block comments work too.
// reconv-run(first): --global 64 --local 32
// reconv-run(first):     --arg out=i32[64]
/* reconv-run: --global 16 --arg out=i32[16] */
// RUN: reconv print %s

__kernel void first(__global int *out) { out[get_global_id(0)] = 1; }

__kernel void second(__global int *out) { out[get_global_id(0)] = 2; }
