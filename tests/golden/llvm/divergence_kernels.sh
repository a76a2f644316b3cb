#!/usr/bin/env bash
# Cross-check of reconv's uniformity analysis against LLVM's divergence analysis on the bundled
# OpenCL kernels (examples/kernels/*.cl, found by glob). Run from the repository root by
# tests/golden/llvm/divergence_kernels.test, which explains the disagreements it expects.
#
# For each kernel, the conditional branches (`br i1`, `switch`) are sorted into divergent and
# uniform twice: by `reconv analyze --json` (divergent_branches, uniform_branches: block names)
# and by LLVM's `print<divergence>` on the module clang made (run through --llvm-passes, so with
# the amdgcn target machine that tells LLVM which values are sources of divergence). Blocks are
# matched by name: the importer keeps LLVM's block names, with characters outside [A-Za-z0-9_.]
# turned into '_' (docs/llvm.md), which is done to LLVM's names here too.
#
# Output: per kernel, one line when the two agree on every branch, else one line per block on
# which they differ. The exit status is 1 when a tool fails or a kernel has no branch to compare
# (so an empty comparison cannot pass unnoticed), 0 otherwise, agreements or not.
set -u
export LC_ALL=C
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t files < <(find examples/kernels -name '*.cl' | sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "no kernels found under examples/kernels/" >&2
  exit 1
fi
status=0
for f in "${files[@]}"; do
  # LLVM's verdicts: "KERNEL BLOCK divergent|uniform" per conditional branch. LLVM 14's
  # print<divergence> writes a block's name as "<11 blanks>NAME:" and prefixes divergent
  # instructions with "DIVERGENT:"; print<uniformity> (LLVM 17 and later, which reconv runs for
  # print<divergence> there) writes "BLOCK NAME" and "  DIVERGENT:".
  if ! reconv print "$f" --llvm-passes='print<divergence>' -o "$tmp/m.rir" 2>"$tmp/da"; then
    echo "$f: reconv print --llvm-passes='print<divergence>' failed"; cat "$tmp/da"; status=1
    continue
  fi
  awk '
    /^.Divergence Analysis. for function / { k = $NF; gsub(/^.|.:$/, "", k); b = ""; next }
    /^UniformityInfo for function / { k = $NF; gsub(/^.|.:$/, "", k); b = ""; next }
    /^           [^ ].*:$/ { b = $1; sub(/:$/, "", b); gsub(/[^A-Za-z0-9_.]/, "_", b); next }
    /^BLOCK / { b = $2; gsub(/[^A-Za-z0-9_.]/, "_", b); next }
    /^ +(br i1|switch) / { print k, (b == "" ? "<unnamed>" : b), "uniform"; next }
    /^ *DIVERGENT: +(br i1|switch) / { print k, (b == "" ? "<unnamed>" : b), "divergent" }
  ' "$tmp/da" | sort > "$tmp/llvm"
  # reconv's verdicts, from the JSON lines of reconv analyze (one object per kernel).
  if ! reconv analyze --json "$f" > "$tmp/json" 2>"$tmp/err"; then
    echo "$f: reconv analyze failed"; cat "$tmp/err"; status=1
    continue
  fi
  while IFS= read -r line; do
    k=$(printf '%s\n' "$line" | grep -o '^{"kernel": "[^"]*"' | sed 's/.*: "//; s/"$//')
    for verdict in divergent uniform; do
      printf '%s\n' "$line" | grep -o "\"${verdict}_branches\": \[[^]]*\]" |
        sed 's/^[^[]*\[//; s/\]$//' | tr ',' '\n' | tr -d ' "' | grep -v '^$' |
        sed "s/^/$k /; s/\$/ $verdict/"
    done
  done < "$tmp/json" | sort > "$tmp/reconv"
  kernels=$(cut -d' ' -f1 "$tmp/llvm" "$tmp/reconv" | sort -u)
  if [ -z "$kernels" ]; then
    echo "$f: no conditional branch to compare"; status=1
    continue
  fi
  for k in $kernels; do
    grep "^$k " "$tmp/llvm" | cut -d' ' -f2- > "$tmp/l"
    grep "^$k " "$tmp/reconv" | cut -d' ' -f2- > "$tmp/r"
    if cmp -s "$tmp/l" "$tmp/r"; then
      echo "$k: agree on $(grep -c ' divergent$' "$tmp/r") divergent and" \
           "$(grep -c ' uniform$' "$tmp/r") uniform branches"
      continue
    fi
    # per block: reconv's verdict, LLVM's verdict ("none": no conditional branch there)
    join -a1 -a2 -e none -o 0,1.2,2.2 "$tmp/r" "$tmp/l" | while read -r b rv lv; do
      [ "$rv" = "$lv" ] || echo "$k: $b: reconv $rv, LLVM $lv"
    done
  done
done
exit $status
