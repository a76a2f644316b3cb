#!/usr/bin/env bash
# What reconverge costs in machine code: for each kernel, `llc -mtriple=amdgcn-amd-amdhsa
# -mcpu=gfx900` on the input and on `reconv opt -p reconverge`'s output, and per function the
# memory instructions by class (global_*, flat_*, scratch_*, buffer_*; ds_* for local memory) and
# the total number of instructions (issue #12: "the memory classes are the same on every kernel").
# A function whose memory classes differ (a global access turned flat, a new scratch spill ...) is
# flagged with "DIFF" and makes the exit status 1.
#
#   bench/llc_memory.sh [--opt -O2] [--reconv PATH] [--cpu gfx900] DIR|FILE...
#
# .cl files are compiled for amdgcn-amd-amdhsa as reconv does (docs/llvm.md); .ll files are used
# as they are (they should be amdgcn modules). Counts are of instruction lines in llc's assembly
# between a function's label and its .Lfunc_end (directives, labels and comments aside).
set -u
export LC_ALL=C
olevel=-O2
reconv=
cpu=gfx900
inputs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --opt) olevel=${2:?}; shift 2 ;;
    -O[0-3s]) olevel=$1; shift ;;
    --reconv) reconv=${2:?}; shift 2 ;;
    --cpu) cpu=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "llc_memory.sh: unknown option '$1'" >&2; exit 2 ;;
    *) inputs+=("$1"); shift ;;
  esac
done
[ ${#inputs[@]} -gt 0 ] || { echo "usage: bench/llc_memory.sh [--opt -ON] [--reconv PATH] DIR|FILE..." >&2; exit 2; }
# shellcheck source=bench/llvm_common.sh
. "$(dirname "${BASH_SOURCE[0]}")/llvm_common.sh"
bench_find_tools llc_memory.sh
bench_inputs llc_memory.sh "${inputs[@]}"
files=("${bench_files[@]}")
work=$(mktemp -d "${TMPDIR:-/tmp}/llc-memory.XXXXXX")
trap 'rm -rf "$work"' EXIT

# "function global flat scratch buffer ds total" per function of an assembly file
count() {
  bench_asm_instructions "$1" | awk '
    $1 != name { if (name != "") print name, g, f, s, b, d, t; name = $1; g = f = s = b = d = t = 0 }
    { op = $2; t++
      if (op ~ /^global_/) g++; else if (op ~ /^flat_/) f++; else if (op ~ /^scratch_/) s++
      else if (op ~ /^buffer_/) b++; else if (op ~ /^ds_/) d++ }
    END { if (name != "") print name, g, f, s, b, d, t }'
}
classes() { # the classes used: a word of g f s b d
  awk '{ c = ""; if ($2) c = c "g"; if ($3) c = c "f"; if ($4) c = c "s"; if ($5) c = c "b"; if ($6) c = c "d"; print $1, (c == "" ? "-" : c) }'
}

printf '%-44s %-28s %23s   %23s  %s\n' "file / function" "" "input: gl fl sc bu ds total" "output: gl fl sc bu ds total" ""
ndiff=0; nfn=0; nerr=0; tin=0; tout=0
for f in "${files[@]}"; do
  case "$f" in
    *.cl) if ! bench_compile_cl "$f" "$work/in.ll" "$olevel" 2>"$work/err"; then
            echo "$f: clang failed"; nerr=$((nerr + 1)); continue; fi ;;
    *) cp "$f" "$work/in.ll" ;;
  esac
  if ! "$reconv" opt -p reconverge "$work/in.ll" -o "$work/out.ll" 2>"$work/err"; then
    echo "$f: reconv opt failed: $(head -1 "$work/err")"; nerr=$((nerr + 1)); continue
  fi
  ok=1
  for v in in out; do
    if ! bench_llc "$work/$v.ll" "$work/$v.s" "$cpu" 2>"$work/err"; then
      echo "$f: llc failed on the $v: $(head -1 "$work/err")"; ok=0
    fi
  done
  [ $ok = 1 ] || { nerr=$((nerr + 1)); continue; }
  count "$work/in.s" | sort > "$work/cin"
  count "$work/out.s" | sort > "$work/cout"
  join "$work/cin" "$work/cout" > "$work/both"
  while read -r fn g1 f1 s1 b1 d1 t1 g2 f2 s2 b2 d2 t2; do
    nfn=$((nfn + 1)); tin=$((tin + t1)); tout=$((tout + t2))
    c1=$(echo "$fn $g1 $f1 $s1 $b1 $d1" | classes | cut -d' ' -f2)
    c2=$(echo "$fn $g2 $f2 $s2 $b2 $d2" | classes | cut -d' ' -f2)
    flag=""
    if [ "$c1" != "$c2" ]; then flag="DIFF ($c1 -> $c2)"; ndiff=$((ndiff + 1)); fi
    printf '%-44s %-28s %4d %3d %3d %3d %3d %6d   %4d %3d %3d %3d %3d %6d  %s\n' "${f#./}" "$fn" \
      "$g1" "$f1" "$s1" "$b1" "$d1" "$t1" "$g2" "$f2" "$s2" "$b2" "$d2" "$t2" "$flag"
  done < "$work/both"
done
echo "summary: ${#files[@]} files, $nfn functions: memory classes differ in $ndiff, errors $nerr; instructions $tin in, $tout out"
[ $ndiff -eq 0 ] && [ $nerr -eq 0 ]
