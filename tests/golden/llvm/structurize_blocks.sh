#!/usr/bin/env bash
# reconverge against LLVM's StructurizeCFG on OpenCL kernels: by default the bundled ones
# (examples/kernels/*.cl, found by glob), run from the repository root by
# tests/golden/llvm/structurize_blocks.test; `structurize_blocks.sh --no-equiv DIR...` measures
# any directories of .cl and .ll files the same way (docs/llvm.md's table of the corpus).
#
# For each file (all its functions together): its blocks as imported, after `reconv opt -p
# reconverge`, and after LLVM's fix-irreducible,unify-loop-exits,structurizecfg (run by the LLVM
# reconv was built with, through --llvm-passes), whether it was reconverging to begin with (thesis
# Def. 15, reconv analyze) and whether it was in LLVM's eyes (with LLVM's divergence analysis,
# analyze --llvm-divergence). Then the claims:
#   - reconverge inserts no block into a file that is already reconverging, in either's eyes;
#   - over all files, reconverge inserts at most half as many blocks as StructurizeCFG;
#   - each kernel is trace-equivalent (reconv equiv) to both transformed versions, at launch sizes
#     1, 3, 32, 64 and 257 (a size that is not a multiple of any group or wave); not with --no-equiv.
# A claim that fails prints a line starting with FAIL; the exit status is then 1.
set -u
export LC_ALL=C
sizes=1,3,32,64,257
llvm_passes=fix-irreducible,unify-loop-exits,structurizecfg
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
equiv=true
[ "${1:-}" = "--no-equiv" ] && { equiv=false; shift; }
[ $# -eq 0 ] && set -- examples/kernels
mapfile -t files < <(find "$@" \( -name '*.cl' -o -name '*.ll' \) | sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "no kernels found under $*" >&2
  exit 1
fi

# blocks_of FILE: the blocks of every function of FILE (one JSON line each), summed
blocks_of() { grep -o '"blocks": [0-9]*' "$1" | awk '{ n += $2 } END { print n + 0 }'; }
# reconverging_of FILE: true when every function of FILE is reconverging
reconverging_of() { grep -o '"reconverging": [a-z]*' "$1" | awk '$2 != "true" { no = 1 } END { print no ? "false" : "true" }'; }

status=0 equiv_failed=0
total_before=0 total_r=0 total_s=0
printf '%-18s %7s %16s %16s %13s %6s\n' kernel before reconverge structurizecfg reconverging "(LLVM)"
for f in "${files[@]}"; do
  k=$(basename "${f%.*}")
  if ! reconv analyze --json "$f" > "$tmp/orig.json" ||
     ! reconv analyze --llvm-divergence --json "$f" > "$tmp/llvm.json" ||
     ! reconv opt -p reconverge "$f" -o "$tmp/r.rir" ||
     ! reconv analyze --json "$tmp/r.rir" > "$tmp/r.json" ||
     ! reconv print "$f" --llvm-passes=$llvm_passes -o "$tmp/s.rir" ||
     ! reconv analyze --json "$tmp/s.rir" > "$tmp/s.json"; then
    echo "FAIL: $k: a tool failed"; status=1; continue
  fi
  before=$(blocks_of "$tmp/orig.json")
  after_r=$(blocks_of "$tmp/r.json")
  after_s=$(blocks_of "$tmp/s.json")
  reconverging=$(reconverging_of "$tmp/orig.json")
  llvm_reconverging=$(reconverging_of "$tmp/llvm.json")
  printf '%-18s %7d %9d (%+4d) %9d (%+4d) %13s %6s\n' "$k" "$before" "$after_r" $((after_r - before)) \
    "$after_s" $((after_s - before)) "$( [ "$reconverging" = true ] && echo yes || echo no)" \
    "$( [ "$llvm_reconverging" = true ] && echo yes || echo no)"
  total_before=$((total_before + before))
  total_r=$((total_r + after_r))
  total_s=$((total_s + after_s))
  if { [ "$reconverging" = true ] || [ "$llvm_reconverging" = true ]; } && [ "$after_r" -ne "$before" ]; then
    echo "FAIL: $k is already reconverging, but reconverge inserted $((after_r - before)) blocks"
    status=1
  fi
  $equiv || continue
  for t in r s; do
    if ! reconv equiv "$f" "$tmp/$t.rir" --sizes $sizes > "$tmp/eq" 2>&1; then
      echo "FAIL: $k: not equivalent after $( [ $t = r ] && echo reconverge || echo StructurizeCFG)"
      tail -2 "$tmp/eq"; status=1 equiv_failed=1
    fi
  done
done
printf '%-18s %7d %9d (%+4d) %9d (%+4d)\n' total $total_before $total_r $((total_r - total_before)) \
  $total_s $((total_s - total_before))
if [ $((2 * (total_r - total_before))) -gt $((total_s - total_before)) ]; then
  echo "FAIL: reconverge inserts $((total_r - total_before)) blocks, more than half of StructurizeCFG's" \
       "$((total_s - total_before))"
  status=1
fi
$equiv && [ $equiv_failed -eq 0 ] &&
  echo "every kernel is trace-equivalent to both versions at launch sizes $sizes"
exit $status
