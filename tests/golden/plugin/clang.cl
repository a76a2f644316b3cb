// REQUIRES: llvm plugin
// The pass plugin in clang (-fpass-plugin; docs/llvm.md, "The pass plugin"): reconverge runs at the
// end of the optimisation pipeline (the OptimizerLast extension point), also at -O0; the kernel
// clang writes is what `reconv opt -p reconverge` makes of the kernel clang writes without the
// plugin (compared as LLVM prints both again: the `; preds` comments follow use-list order, which
// a module read back from text does not keep), it reconverges, and natively (LLVM's JIT, spir64)
// it leaves the memory the kernel without the plugin leaves. RECONV_PLUGIN_PIPELINE chooses the
// passes; reconv's errors are clang's errors.
// reconv-run: --global 64 --arg in=i32[64]:rand(5,-8,64) --arg out=i32[64] --arg n=64
// RUN: . tests/golden/plugin/env.sh && cd %T && for o in 0 2; do "$clang" -x cl -cl-std=CL1.2 -O$o -target spir64 -emit-llvm -S -fno-discard-value-names -o plain$o.ll $OLDPWD/%s && "$clang" -x cl -cl-std=CL1.2 -O$o -target spir64 -emit-llvm -S -fno-discard-value-names -fpass-plugin="$plugin" -o plugin$o.ll $OLDPWD/%s && reconv opt -p reconverge plain$o.ll -o ref$o.ll && echo "-O$o: plugin's output $(cmp -s <("$opt" -S plugin$o.ll 2>/dev/null | tail -n +2) <("$opt" -S ref$o.ll 2>/dev/null | tail -n +2) && echo "= reconv opt -p reconverge's" || echo "differs from reconv opt -p reconverge's")"; reconv analyze plain$o.ll | grep -c 'reconverging: *no'; reconv analyze plugin$o.ll | grep 'reconverging:'; done
// RUN: cd %T && for o in 0 2; do { sed -n 's|^// *\(reconv-run.*\)$|; \1|p' $OLDPWD/%s; cat plain$o.ll; } > a.ll; { sed -n 's|^// *\(reconv-run.*\)$|; \1|p' $OLDPWD/%s; cat plugin$o.ll; } > b.ll; reconv equiv --native a.ll b.ll | tail -n 1; done
// RUN: . tests/golden/plugin/env.sh && cd %T && RECONV_PLUGIN_PIPELINE=none "$clang" -x cl -cl-std=CL1.2 -O2 -target spir64 -emit-llvm -S -fno-discard-value-names -fpass-plugin="$plugin" -o none.ll $OLDPWD/%s && cmp none.ll plain2.ll && echo "RECONV_PLUGIN_PIPELINE=none: clang's own output"
// RUN: . tests/golden/plugin/env.sh && cd %T && RECONV_PLUGIN_PIPELINE='lowerswitch,reconverge[order=bfpd]' "$clang" -x cl -cl-std=CL1.2 -O2 -target spir64 -emit-llvm -S -fno-discard-value-names -fpass-plugin="$plugin" -o bfpd.ll $OLDPWD/%s && reconv opt -p 'lowerswitch,reconverge[order=bfpd]' plain2.ll -o ref.ll && cmp -s <("$opt" -S bfpd.ll 2>/dev/null | tail -n +2) <("$opt" -S ref.ll 2>/dev/null | tail -n +2) && echo "RECONV_PLUGIN_PIPELINE=lowerswitch,reconverge[order=bfpd]: = reconv opt -p lowerswitch,reconverge[order=bfpd]"
// RUN: . tests/golden/plugin/env.sh && cd %T && RECONV_PLUGIN_PIPELINE='reconverge[order=sideways]' "$clang" -x cl -cl-std=CL1.2 -O2 -target spir64 -emit-llvm -S -fpass-plugin="$plugin" -o err.ll $OLDPWD/%s
kernel void search(global const int *in, global int *out, int n) {
  int i = get_global_id(0);
  int found = -1;
  for (int j = 0; j < n; j++) {
    int v = in[(i + j) & 63];
    if (v < 0) {
      out[i] = -2 - j;
      return;
    }
    if (v == i) {
      found = j;
      break;
    }
  }
  out[i] = found;
}
