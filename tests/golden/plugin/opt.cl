// REQUIRES: llvm plugin
// The pass plugin in opt (docs/llvm.md, "The pass plugin"): reconv's passes and options in LLVM's
// spelling write what `reconv opt -p` writes for the same pipeline, and reconverge ends opt's default
// pipelines; reconv's errors are LLVM diagnostics (opt prints them and stops with status 1), not
// crashes. The kernel: a divergent loop with a break, a short circuit and an early return (not
// reconverging as clang writes it).
// RUN: . tests/golden/plugin/env.sh && "$clang" -x cl -cl-std=CL1.2 -O2 -target amdgcn-amd-amdhsa -nogpulib -emit-llvm -S -fno-discard-value-names -o %T/in.ll %s && "$opt" -S %T/in.ll -o %T/rt.ll
// RUN: . tests/golden/plugin/env.sh && cd %T && for p in 'reconverge reconverge' 'reconverge<order=auto> reconverge[order=auto]' 'reconverge<order=bfpd;all-divergent> reconverge[order=bfpd,all-divergent]' 'linearize<region=all> linearize[region=all]' 'meld meld' 'reconv-lowerswitch,reconverge<order=rpot> lowerswitch,reconverge[order=rpot]'; do set -- $p; "$opt" -load-pass-plugin="$plugin" -passes="$1" in.ll -S -o plugin.ll; reconv opt -p "$2" in.ll -o reconv.ll; echo "$1: $(cmp -s plugin.ll reconv.ll && echo "= reconv opt -p $2" || echo "differs from reconv opt -p $2"), $(cmp -s plugin.ll rt.ll && echo unchanged || echo changed), $("$opt" -passes=verify -disable-output plugin.ll && echo verifies)"; done
// RUN: . tests/golden/plugin/env.sh && cd %T && reconv analyze in.ll | grep -c 'reconverging: *no'; "$opt" -load-pass-plugin="$plugin" -passes='reconverge<order=auto>' in.ll -S -o plugin.ll && reconv analyze plugin.ll | grep 'reconverging:'
// the OptimizerLast extension point: default<O2> ends with reconverge (RECONV_PLUGIN_PIPELINE=none: not)
// RUN: . tests/golden/plugin/env.sh && cd %T && "$opt" -load-pass-plugin="$plugin" -passes='default<O2>' in.ll -S -o o2.ll && reconv analyze o2.ll | grep 'reconverging:'; RECONV_PLUGIN_PIPELINE=none "$opt" -load-pass-plugin="$plugin" -passes='default<O2>' in.ll -S -o o2.ll && reconv analyze o2.ll | grep -c 'reconverging: *no'
// a function reconv does not represent is left as it is, with a warning (no error: nothing to do)
// RUN: . tests/golden/plugin/env.sh && cd %T && printf 'define i128 @wide(i128 %%x) {\nentry:\n  ret i128 %%x\n}\n' > w.ll && "$opt" -load-pass-plugin="$plugin" -passes=reconverge w.ll -S -o w2.ll && "$opt" -S w.ll | cmp - w2.ll && echo "w.ll: unchanged"
// errors: an unknown option, a bad value, a pass whose result LLVM IR cannot hold (a wave kernel)
// RUN: . tests/golden/plugin/env.sh && cd %T && "$opt" -load-pass-plugin="$plugin" -passes='reconverge<bogus>' in.ll -S -o err.ll
// RUN: . tests/golden/plugin/env.sh && cd %T && "$opt" -load-pass-plugin="$plugin" -passes='reconverge<order=sideways>' in.ll -S -o err.ll
// RUN: . tests/golden/plugin/env.sh && cd %T && "$opt" -load-pass-plugin="$plugin" -passes='reconv-lower' in.ll -S -o err.ll 2>&1 | sed 's/in block [^ ]* (`.*`)/in block B/'; exit ${PIPESTATUS[0]}
// RUN: . tests/golden/plugin/env.sh && cd %T && "$opt" -load-pass-plugin="$plugin" -passes='reconverge,reconv-lower' in.ll -S -o err.ll
kernel void collatz_steps(global const int *in, global int *out, int limit) {
  int i = get_global_id(0);
  int x = in[i], steps = 0;
  if (x <= 0 || x > limit) {
    out[i] = -1;
    return;
  }
  while (x != 1) {
    if (steps > 64 && (x & 3) == 3) break;
    x = (x & 1) ? 3 * x + 1 : x / 2;
    steps++;
  }
  out[i] = steps;
}
