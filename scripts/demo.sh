#!/usr/bin/env bash
# reconv's main job on a bundled kernel: compile OpenCL C with clang (through the LLVM bridge),
# analyse it, make its CFG reconverging, check that every thread still does what it did, compare
# the block orderings and LLVM's StructurizeCFG, lower it to exec-mask code and run it on a
# simulated wave, compare every strategy on the wave, and draw the CFG before and after.
# Without the LLVM bridge it does the same on the .rir version of the thesis's Fig. 4.8a.
set -euo pipefail
reconv=${1:-build/bin/reconv}
cd "$(dirname "$0")/.."
out=demo-out
mkdir -p "$out"

if "$reconv" --version | grep -q llvm; then
  kernel=examples/kernels/short_circuit.cl
else
  echo "(reconv was built without the LLVM bridge: using a .rir example instead of OpenCL C)"
  kernel=examples/thesis/fig4_8a.rir
fi
name=$(basename "$kernel"); name=${name%.*}

step() { printf '\n== %s\n' "$*"; }

echo "reconv is $reconv; the steps below call it \`reconv\` (to do the same: export PATH=\"$(cd "$(dirname "$reconv")" && pwd):\$PATH\")"

step "reconv analyze $kernel"
"$reconv" analyze "$kernel"

step "reconv opt -p reconverge $kernel -o $out/$name.reconverged.rir --stats"
"$reconv" opt -p reconverge "$kernel" -o "$out/$name.reconverged.rir" --stats
"$reconv" print "$out/$name.reconverged.rir"

step "reconv equiv (every thread runs the same blocks and leaves the same memory)"
"$reconv" equiv "$kernel" "$out/$name.reconverged.rir"

step "reconv orderings $kernel (thesis 4.3.1)"
"$reconv" orderings "$kernel"

if "$reconv" --version | grep -q llvm; then
  step "LLVM's StructurizeCFG on the same kernel, for comparison"
  "$reconv" print "$kernel" --llvm-passes=fix-irreducible,unify-loop-exits,structurizecfg \
    -o "$out/$name.structurized.rir"
  echo "blocks: original $("$reconv" print "$kernel" | grep -c '^[A-Za-z0-9_.]*:')," \
       "reconverge $(grep -c '^[A-Za-z0-9_.]*:' "$out/$name.reconverged.rir")," \
       "StructurizeCFG $(grep -c '^[A-Za-z0-9_.]*:' "$out/$name.structurized.rir")"
  "$reconv" opt -p reconverge "$kernel" -o "$out/$name.reconverged.ll"
  echo "LLVM IR of the reconverged kernel: $out/$name.reconverged.ll"
fi

step "reconv opt -p reconverge,lower: wave-level code with exec and re-join masks (thesis 4.2)"
"$reconv" opt -p reconverge,lower "$kernel" -o "$out/$name.wave.rir" --stats
echo "wave kernel: $out/$name.wave.rir"

step "reconv sim --check: a wave of 32 lanes runs it; every lane must match the interpreter"
"$reconv" sim --check "$kernel" --timeline "$out/$name.timeline.svg"
echo "timeline of wave 0 (lanes against issued instructions): $out/$name.timeline.svg"

step "reconv compare: the IPDOM stack, every ordering and LLVM's StructurizeCFG on the same kernel"
"$reconv" compare "$kernel"

step "pictures of the CFG before and after"
"$reconv" dot --analysis "$kernel" -o "$out/$name.dot"
"$reconv" dot --analysis "$out/$name.reconverged.rir" -o "$out/$name.reconverged.dot"
for f in "$out/$name.dot" "$out/$name.reconverged.dot"; do
  if command -v dot >/dev/null 2>&1; then
    dot -Tsvg "$f" -o "${f%.dot}.svg"
    echo "${f%.dot}.svg"
  else
    echo "$f (install graphviz for SVG)"
  fi
done

step "reconv report: the whole story on one page"
"$reconv" report "$kernel" -o "$out/$name.report.html"
echo "$out/$name.report.html"

step "what the demo wrote under $out/"
describe() { [ -e "$1" ] && printf '  %-40s %s\n' "$1" "$2"; return 0; }
describe "$out/$name.reconverged.rir" "the reconverged kernel (reconv's IR, docs/ir.md)"
describe "$out/$name.reconverged.ll" "the same, as LLVM IR: the module edited in place"
describe "$out/$name.structurized.rir" "LLVM's StructurizeCFG's output, for comparison"
describe "$out/$name.wave.rir" "the wave-level code with exec and re-join masks"
describe "$out/$name.timeline.svg" "wave 0's timeline: active lanes per issued instruction"
describe "$out/$name.dot" "the CFG before (DOT; red: divergent branches, dashed: inserted blocks)"
describe "$out/$name.svg" "... drawn as SVG"
describe "$out/$name.reconverged.dot" "the CFG after reconverge (DOT)"
describe "$out/$name.reconverged.svg" "... drawn as SVG"
describe "$out/$name.report.html" "the whole story on one page: open it in a browser"
