#!/usr/bin/env bash
# reconverge against LLVM's StructurizeCFG on the bundled OpenCL kernels (examples/kernels/*.cl,
# found by glob). Run from the repository root by tests/golden/llvm/structurize_blocks.test.
#
# For each kernel: its blocks as imported, after `reconv opt -p reconverge`, and after LLVM's
# fix-irreducible,unify-loop-exits,structurizecfg (run by LLVM itself through --llvm-passes), and
# whether it was reconverging to begin with (thesis Def. 15, reconv analyze). Then the claims:
#   - reconverge inserts no block into a kernel that is already reconverging;
#   - over all kernels, reconverge inserts fewer blocks than StructurizeCFG;
#   - each kernel is trace-equivalent (reconv equiv) to both transformed versions, at launch sizes
#     1, 3, 32, 64 and 257 (a size that is not a multiple of any group or wave).
# A claim that fails prints a line starting with FAIL; the exit status is then 1.
set -u
export LC_ALL=C
sizes=1,3,32,64,257
llvm_passes=fix-irreducible,unify-loop-exits,structurizecfg
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t files < <(find examples/kernels -name '*.cl' | sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "no kernels found under examples/kernels/" >&2
  exit 1
fi

# json_field FILE NAME: the value of "NAME": in the first JSON line of FILE
json_field() { grep -o "\"$2\": [a-z0-9]*" "$1" | head -1 | sed 's/.*: //'; }

status=0 equiv_failed=0
total_before=0 total_r=0 total_s=0
printf '%-18s %7s %16s %16s %13s\n' kernel before reconverge structurizecfg reconverging
for f in "${files[@]}"; do
  k=$(basename "$f" .cl)
  if ! reconv analyze --json "$f" > "$tmp/orig.json" ||
     ! reconv opt -p reconverge "$f" -o "$tmp/r.rir" ||
     ! reconv analyze --json "$tmp/r.rir" > "$tmp/r.json" ||
     ! reconv print "$f" --llvm-passes=$llvm_passes -o "$tmp/s.rir" ||
     ! reconv analyze --json "$tmp/s.rir" > "$tmp/s.json"; then
    echo "FAIL: $k: a tool failed"; status=1; continue
  fi
  before=$(json_field "$tmp/orig.json" blocks)
  after_r=$(json_field "$tmp/r.json" blocks)
  after_s=$(json_field "$tmp/s.json" blocks)
  reconverging=$(json_field "$tmp/orig.json" reconverging)
  printf '%-18s %7d %9d (%+4d) %9d (%+4d) %13s\n' "$k" "$before" "$after_r" $((after_r - before)) \
    "$after_s" $((after_s - before)) "$( [ "$reconverging" = true ] && echo yes || echo no)"
  total_before=$((total_before + before))
  total_r=$((total_r + after_r))
  total_s=$((total_s + after_s))
  if [ "$reconverging" = true ] && [ "$after_r" -ne "$before" ]; then
    echo "FAIL: $k is already reconverging, but reconverge inserted $((after_r - before)) blocks"
    status=1
  fi
  for t in r s; do
    if ! reconv equiv "$f" "$tmp/$t.rir" --sizes $sizes > "$tmp/eq" 2>&1; then
      echo "FAIL: $k: not equivalent after $( [ $t = r ] && echo reconverge || echo StructurizeCFG)"
      tail -2 "$tmp/eq"; status=1 equiv_failed=1
    fi
  done
done
printf '%-18s %7d %9d (%+4d) %9d (%+4d)\n' total $total_before $total_r $((total_r - total_before)) \
  $total_s $((total_s - total_before))
if [ $((total_r - total_before)) -ge $((total_s - total_before)) ]; then
  echo "FAIL: reconverge inserts $((total_r - total_before)) blocks, no fewer than StructurizeCFG's" \
       "$((total_s - total_before))"
  status=1
fi
[ $equiv_failed -eq 0 ] &&
  echo "every kernel is trace-equivalent to both versions at launch sizes $sizes"
exit $status
