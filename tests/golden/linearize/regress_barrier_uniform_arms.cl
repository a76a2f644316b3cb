// REQUIRES: llvm
// Regression (issue 30): barriers in both arms of a uniform branch inside an unstructured region,
// the shapes of Rodinia's srad reduce_kernel and heartwall, which linearize refused before ("a
// thread-dependent branch of its region decides which sweep of the guards runs it").
//
// arms_reduce (srad's shape): `if (mode == 0)` picks a reduction in local memory, and within the
// else arm `if (g != mode)` one of two more; each arm has barriers (clang unrolls the loops), and
// each ends with `if (t == last) { out[g] = ...; }`, a thread-dependent branch. clang sinks the
// arms' stores into one block (`.sink.split`) that all three thread-dependent branches reach, so
// the region is the whole of the three arms. Before, the guard of the last arm was nested under
// nothing (O2 asks its guard's block to dominate it, and the middle arm's does not), so it came
// after the middle arm's join, where g held the values the middle arm's thread-dependent tail
// left, and its barriers were in divergent control flow. Now O1 puts each arm in the else side of
// the guard of the arm before it, at any depth, and the guard tests a value set by a uniform
// branch alone.
//
// frame_arms (heartwall's shape): `if (frame == 0)` runs, in its first arm, a loop of a
// thread-dependent trip count with a thread-dependent early return, and in the second arm
// barriers; the arms' final stores are sunk into a shared block. The loop of the output nests,
// with its back-edge guard, in the side of the first arm's guard (before, every loop closed the
// guards around it, and the second arm's guard came after the loop, testing values of g that had
// left a divergent loop); the values of g that would only pass through the loop skip it by a guard
// of its own (O1 for a loop as a whole).
//
// Both run with work-groups of 16 reading each other's values from local memory between barriers,
// so a barrier out of step would change the memory; the interpreter also faults on a thread waiting
// at a barrier its work-group has left (`reconv equiv`), and the native oracle runs them compiled.
// reconv-run(arms_reduce): --global 64 --local 16 --arg data=i32[N]:rand(5,0,99) --arg out=i32[128] --arg n=60 --arg mode=0
// reconv-run(frame_arms): --global 64 --local 16 --arg in=i32[N]:rand(7,0,99) --arg out=i32[N] --arg frame=0 --arg len=37
//
// RUN: for k in arms_reduce frame_arms; do reconv opt -p linearize --target spir64 -O 2 --kernel $k %s -o %t.ll --stats | grep -E '^kernel @'$k'|^  (regions|back_edge_guards|nested_else|nested_loops|loop_guards) ' | sed -n "/@$k:/,/loop_guards/p"; done
// RUN: for k in arms_reduce frame_arms; do reconv opt -p linearize --target spir64 -O 2 --kernel $k %s -o %t.ll && reconv analyze --kernel $k %t.ll | grep -E '^  (reducible|structured|barriers uniform)'; done
// Trace equivalence on the interpreter at both values of the uniform condition, and natively
// RUN: for k in arms_reduce frame_arms; do p=mode; [ $k = frame_arms ] && p=frame; reconv opt -p linearize --target spir64 -O 2 --kernel $k %s -o %t.ll && for m in 0 3; do reconv equiv --target spir64 -O 2 --kernel $k %s %t.ll --arg $p=$m | tail -1; done; done
// RUN: for k in arms_reduce frame_arms; do reconv opt -p linearize --target spir64 -O 2 --kernel $k %s -o %t.ll && reconv equiv --native --target spir64 -O 2 --kernel $k %s %t.ll | tail -1; done
// At opt=2 too. At opt=0 (Algorithm 1 with no optimisation: every arm in the chain) the pass
// refuses, as it must, naming the barrier; at opt=1 as well for arms_reduce, whose last arm is the
// second level of else sides: O1 nests a then side at the first level only (deeper it is O2's
// dominance), so the middle arm's thread-dependent tail leaves its values before the last arm.
// RUN: for k in arms_reduce frame_arms; do reconv opt -p "linearize[opt=2]" --target spir64 -O 2 --kernel $k %s -o %t.ll && reconv analyze --kernel $k %t.ll | grep 'barriers uniform' && reconv equiv --target spir64 -O 2 --kernel $k %s %t.ll | tail -1; done
// RUN: for o in 0 1; do reconv opt -p "linearize[opt=$o]" --target spir64 -O 2 --kernel arms_reduce %s -o %t.ll 2>&1 | sed 's/^.*error: //' | cut -c1-100; echo "exit ${PIPESTATUS[0]}"; done
// RUN: reconv opt -p 'linearize[opt=1]' --target spir64 -O 2 --kernel frame_arms %s -o %t.ll && reconv equiv --target spir64 -O 2 --kernel frame_arms %s %t.ll | tail -1

#define WG 16

__kernel void arms_reduce(__global const int *data, __global int *out, int n, int mode) {
  int g = get_group_id(0), t = get_local_id(0);
  int i0 = g * WG + t;
  __local int s[WG];
  s[t] = i0 < n ? data[i0] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (mode == 0) { /* a tree: s[0] ends with the sum */
    for (int d = 1; d < WG; d *= 2) {
      int v = (t % (2 * d) == 0) ? s[t + d] : 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      s[t] += v;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) {
      out[g] = s[0];
      out[64 + g] = 1;
    }
  } else if (g != mode) { /* a prefix sum: s[WG - 1] ends with it */
    for (int d = 1; d < WG; d *= 2) {
      int v = t >= d ? s[t - d] : 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      s[t] += v;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == WG - 1) {
      out[g] = s[t] * mode;
      out[64 + g] = 2;
    }
  } else { /* work-group `mode`: pairs, then the last thread folds them (a recurrence, which
            * clang does not vectorise: reconv's interpreter has no vector reductions) */
    int v = s[t ^ 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    s[t] += v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == WG - 1) {
      int sum = 0;
      for (int i = 0; i < WG; i += 2) sum = sum * 3 + s[i];
      out[g] = sum;
      out[64 + g] = 3;
    }
  }
}

__kernel void frame_arms(__global const int *in, __global int *out, int frame, int len) {
  int g = get_group_id(0), t = get_local_id(0);
  __local int s[WG];
  if (frame == 0) { /* a strided sum: thread t adds len / 16 elements, or one more */
    int acc = 0;
    for (int i = t; i < len; i += WG) {
      if (in[i] == 0) { /* a zero ends the sum early */
        out[g * WG + t] = -i;
        return;
      }
      acc += in[i];
    }
    out[g * WG + t] = acc;
  } else {
    s[t] = in[g * WG + t];
    barrier(CLK_LOCAL_MEM_FENCE);
    int v = s[(t + frame) % WG] * 2;
    barrier(CLK_LOCAL_MEM_FENCE);
    s[t] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t >= frame) out[g * WG + t] = s[WG - 1 - t];
  }
}
