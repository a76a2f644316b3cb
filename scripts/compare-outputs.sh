#!/usr/bin/env bash
# Compare two reconv binaries' outputs on generated kernels: for seeds FIRST..LAST of each shape
# (the shapes of bench/scaling.c at a small size), `reconv opt -p reconverge`, `reconv opt -p
# reconverge,lower` and `reconv analyze --json` must print the same bytes (and exit the same way).
# Used to show that a change of algorithm (issue 31) keeps every output; prints each differing
# case and exits 1 if there is one. The shapes run in parallel.
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

# same NAME ARGS...: both binaries' output and exit status agree on ARGS
same() {
  local d=$1; shift
  "$old" "$@" > "$d/old.out" 2>&1; echo "exit $?" >> "$d/old.out"
  "$new" "$@" > "$d/new.out" 2>&1; echo "exit $?" >> "$d/new.out"
  cmp -s "$d/old.out" "$d/new.out"
}

one_shape() {
  local name=$1 opts=$2 d="$tmp/$1" cases=0 diffs=0
  mkdir -p "$d"
  for ((seed = first; seed <= last; seed++)); do
    # shellcheck disable=SC2086
    "$new" gen --seed "$seed" --blocks "$blocks" $opts -o "$d/k.rir" || { echo "gen failed: $name $seed"; return 1; }
    for p in reconverge reconverge,lower; do
      cases=$((cases + 1))
      same "$d" opt -p "$p" "$d/k.rir" || { echo "differs: $name seed $seed -p $p"; diffs=$((diffs + 1)); }
    done
    cases=$((cases + 1))
    same "$d" analyze --json "$d/k.rir" || { echo "differs: $name seed $seed analyze"; diffs=$((diffs + 1)); }
  done
  echo "$cases $diffs" > "$d/count"
}

for sh in "${shapes[@]}"; do one_shape "${sh%%:*}" "${sh#*:}" & done
wait
cases=0 diffs=0
for sh in "${shapes[@]}"; do
  read -r c n < "$tmp/${sh%%:*}/count" || { echo "shape ${sh%%:*} did not finish"; exit 1; }
  cases=$((cases + c)) diffs=$((diffs + n))
done
echo "$cases cases, $diffs differ"
[ "$diffs" -eq 0 ]
