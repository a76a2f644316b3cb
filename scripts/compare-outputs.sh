#!/usr/bin/env bash
# Compare two reconv binaries' outputs on generated kernels: for seeds FIRST..LAST of each shape
# (the shapes of bench/scaling.c at a small size), `reconv opt -p PIPELINE` and `reconv analyze
# --json` must print the same bytes. Used to show that a change of algorithm (issue 31) keeps
# every output; prints each differing case and exits 1 if there is one.
#
#   scripts/compare-outputs.sh OLD_RECONV NEW_RECONV [FIRST] [LAST] [BLOCKS]
set -u
old=$1 new=$2 first=${3:-1} last=${4:-500} blocks=${5:-60}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shapes=("default:--far 0.15 --irreducible --exits 4"
        "local:--far 0 --irreducible --exits 4"
        "far50:--far 0.5 --irreducible --exits 4"
        "switches:--far 0.15 --irreducible --switches --exits 4"
        "reducible:--far 0.15 --exits 4"
        "exits8:--far 0.15 --irreducible --exits 8")
pipelines=("reconverge" "reconverge,lower")
diffs=0 cases=0
for sh in "${shapes[@]}"; do
  name=${sh%%:*} opts=${sh#*:}
  for ((seed = first; seed <= last; seed++)); do
    # shellcheck disable=SC2086
    "$new" gen --seed "$seed" --blocks "$blocks" $opts -o "$tmp/k.rir" || { echo "gen failed: $name $seed"; exit 1; }
    for p in "${pipelines[@]}"; do
      cases=$((cases + 1))
      "$old" opt -p "$p" "$tmp/k.rir" > "$tmp/old.out" 2>&1; echo "exit $?" >> "$tmp/old.out"
      "$new" opt -p "$p" "$tmp/k.rir" > "$tmp/new.out" 2>&1; echo "exit $?" >> "$tmp/new.out"
      if ! cmp -s "$tmp/old.out" "$tmp/new.out"; then
        echo "differs: $name seed $seed -p $p"; diffs=$((diffs + 1))
      fi
    done
    cases=$((cases + 1))
    "$old" analyze --json "$tmp/k.rir" > "$tmp/old.out" 2>&1
    "$new" analyze --json "$tmp/k.rir" > "$tmp/new.out" 2>&1
    cmp -s "$tmp/old.out" "$tmp/new.out" || { echo "differs: $name seed $seed analyze"; diffs=$((diffs + 1)); }
  done
done
echo "$cases cases, $diffs differ"
[ "$diffs" -eq 0 ]
