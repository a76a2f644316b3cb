#!/usr/bin/env bash
# The pass plugin on a directory of OpenCL C kernels (tests/corpus).
#
#   tests/golden/plugin/corpus.sh [--opt -ON] DIR
# Each file compiled by clang as scripts/check-llvm.sh does (amdgcn-amd-amdhsa, -O2 by default):
#   same       `opt -load-pass-plugin=libreconv-plugin.so -passes=reconverge in.ll -S -o out.ll`
#              writes the file `reconv opt -p reconverge in.ll -o ref.ll` writes, byte for byte
#   verify     `opt -passes=verify` accepts it
#   reconv     `reconv analyze --json`: every function reconverging (thesis Def. 15)
#   LLVM       `reconv analyze --llvm-divergence --json`: the same with LLVM's own divergence
#              analysis deciding which branches are divergent
#   changed    files the pass changed (LLVM's `opt -S` round trip of in.ll is the reference)
#
#   tests/golden/plugin/corpus.sh --clang-native [--opt -ON] DIR
# Each file with a run specification compiled for spir64 by clang twice, without and with
# -fpass-plugin (reconverge at the OptimizerLast extension point):
#   same       the kernel clang writes with the plugin is what `reconv opt -p reconverge` makes of the
#              one it writes without (as `opt -S` prints both: `; preds` comments follow use-list
#              order, which a module read back from text does not keep)
#   native     where the plugin changed the module: `reconv equiv --native` per kernel with a run
#              specification (LLVM's JIT on this machine): the same memory
# One summary line; a file failing a check is named. Exit status 1 when one failed.
set -u
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/env.sh"
olevel=-O2
native=0
while [ $# -gt 1 ]; do
  case "$1" in
    --opt) olevel=$2; shift 2 ;;
    --clang-native) native=1; shift ;;
    *) break ;;
  esac
done
dir=${1:?usage: corpus.sh [--clang-native] [--opt -ON] DIR}
top=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/plugin-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
n=0; same=0; verified=0; fns=0; rec=0; lfns=0; lrec=0; changed=0; nk=0; nok=0; failed=()
cl() { "$clang" -x cl -cl-std=CL1.2 "$olevel" -nogpulib -emit-llvm -S -cl-kernel-arg-info -fno-discard-value-names \
         -gline-tables-only "$@" 2>/dev/null; }
# "reconverging" verdicts of reconv analyze --json: one line per function, true or false
verdicts() { sed -n 's/^{"kernel": "[^"]*".*"reconverging": \([a-z]*\),.*/\1/p' "$1"; }
# the file's run specifications, as LLVM IR comments (docs/llvm.md, "Run specifications")
specs() { sed -n 's|^[[:space:]]*//[[:space:]]*\(reconv-run.*\)$|; \1|p' "$1"; }
all() { [ "$1" = "$2" ] && [ "$2" -gt 0 ] && echo "all" || echo "FAIL $1/$2"; }
while IFS= read -r f; do
  src=$top/$f
  if [ $native = 1 ]; then
    grep -q 'reconv-run' "$src" || continue
    n=$((n + 1))
    if ! cl -target spir64 -o plain.ll -- "$src" || ! cl -target spir64 -fpass-plugin="$plugin" -o plugin.ll -- "$src"; then
      failed+=("$f (clang)"); continue
    fi
    reconv opt -p reconverge plain.ll -o ref.ll 2>/dev/null
    for x in plain plugin ref; do "$opt" -S $x.ll -o - 2>/dev/null | tail -n +2 > $x.rt; done
    if [ -s plugin.rt ] && cmp -s plugin.rt ref.rt; then same=$((same + 1)); else failed+=("$f"); continue; fi
    cmp -s plain.rt plugin.rt && continue
    changed=$((changed + 1))
    { specs "$src"; cat plain.ll; } > a.ll
    { specs "$src"; cat plugin.ll; } > b.ll
    if grep -q '^; *reconv-run:' a.ll; then ks=$(sed -n 's/^define [^@]*spir_kernel [^@]*@\([-A-Za-z0-9._$]*\)(.*/\1/p' a.ll)
    else ks=$(sed -n 's/^; *reconv-run(\([^)]*\)).*/\1/p' a.ll | sort -u); fi
    bad=0
    for k in $ks; do
      nk=$((nk + 1))
      if reconv equiv --native --kernel "$k" a.ll b.ll >/dev/null 2>&1; then nok=$((nok + 1)); else bad=1; fi
    done
    [ $bad = 1 ] && failed+=("$f (native)")
    continue
  fi
  n=$((n + 1)); bad=0
  rm -f in.ll ref.ll out.ll
  if ! cl -target amdgcn-amd-amdhsa -o in.ll -- "$src"; then failed+=("$f (clang)"); continue; fi
  reconv opt -p reconverge in.ll -o ref.ll 2>/dev/null
  "$opt" -load-pass-plugin="$plugin" -passes=reconverge in.ll -S -o out.ll 2>/dev/null
  if [ -s out.ll ] && cmp -s ref.ll out.ll; then same=$((same + 1)); else bad=1; fi
  "$opt" -S in.ll -o rt.ll 2>/dev/null
  cmp -s rt.ll out.ll || changed=$((changed + 1))
  if "$opt" -passes=verify -disable-output out.ll 2>/dev/null; then verified=$((verified + 1)); else bad=1; fi
  reconv analyze --json out.ll > an.json 2>/dev/null || bad=1
  k=$(verdicts an.json | wc -l); t=$(verdicts an.json | grep -c '^true$')
  fns=$((fns + k)); rec=$((rec + t)); [ "$k" = "$t" ] && [ "$k" -gt 0 ] || bad=1
  reconv analyze --llvm-divergence --json out.ll > an.json 2>/dev/null || bad=1
  k=$(verdicts an.json | wc -l); t=$(verdicts an.json | grep -c '^true$')
  lfns=$((lfns + k)); lrec=$((lrec + t)); [ "$k" = "$t" ] && [ "$k" -gt 0 ] || bad=1
  [ $bad = 1 ] && failed+=("$f")
done < <(cd "$top" && find "$dir" -type f -name '*.cl' | sort)
# how many files the pass changed depends on the LLVM version's clang: only that there are some
some=$([ $changed -ge 5 ] && echo "5 files or more" || echo "only $changed")
if [ $native = 1 ]; then
  echo "$n files with a run specification (spir64 $olevel): clang -fpass-plugin's output = reconv opt's: $(all $same $n);" \
    "changed by reconverge: $some; same memory natively: $(all $nok $nk) kernels of the files changed"
else
  echo "$n files (amdgcn $olevel): plugin's output = reconv opt's: $(all $same $n); verify: $(all $verified $n);" \
    "functions reconverging (reconv): $(all $rec $fns); (LLVM's divergence): $(all $lrec $lfns); changed by reconverge: $some"
fi
[ ${#failed[@]} -eq 0 ] || { printf '  failed: %s\n' "${failed[@]}"; exit 1; }
