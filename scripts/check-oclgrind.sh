#!/usr/bin/env bash
# oclgrind as a third oracle on a directory of OpenCL C kernels (issue 29, item 6):
#
#   scripts/check-oclgrind.sh [options] DIR|FILE...
#
# For every .cl file (directories searched recursively, files sorted) and every kernel in it with a
# run specification (a `reconv-run` comment): `reconv opt -p PIPELINE --target spir64` makes the
# transformed program, and `reconv equiv --oclgrind` runs both on oclgrind (Debian's OpenCL device
# simulator: memory compared, and any diagnostic of the transformed program that the original does
# not raise is a failure). One line per kernel: ok, "not checkable: WHY" (oclgrind's known limits,
# reported by reconv), or FAIL with the message; then the reasons for "not checkable" with their
# counts, and a summary line (equivalent kernels that ran without oclgrind's check of uninitialised
# values, which stops at freeze and crashes on some kernels, are counted). Exit status 0 when no kernel
# failed, 1 when one did, 2 on wrong usage or when oclgrind is missing.
#
# options:
#   -p PIPELINE   the passes of the transformed program (default reconverge)
#   --opt -ON     clang's optimisation level (default -O2)
#   --reconv P    the reconv binary (default: `reconv` on PATH, else build/bin/reconv of this repo)
#   --summary     print only the summary line, the failures and the kernels not checkable
#   --timeout S   seconds per command (default 300)
set -u
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pipeline=reconverge olevel=-O2 reconv= summary_only=0 tmo=300
inputs=()
usage() { sed -n '2,/^set -u/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -p) pipeline=${2:?}; shift 2 ;;
    --opt) olevel=${2:?}; shift 2 ;;
    -O[0-3s]) olevel=$1; shift ;;
    --reconv) reconv=${2:?}; shift 2 ;;
    --summary) summary_only=1; shift ;;
    --timeout) tmo=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "check-oclgrind.sh: unknown option '$1'" >&2; exit 2 ;;
    *) inputs+=("$1"); shift ;;
  esac
done
[ ${#inputs[@]} -gt 0 ] || { echo "check-oclgrind.sh: no input (DIR or FILE)" >&2; exit 2; }
if [ -z "$reconv" ]; then
  if command -v reconv >/dev/null 2>&1; then reconv=$(command -v reconv)
  elif [ -x "$here/../build/bin/reconv" ]; then reconv="$here/../build/bin/reconv"
  else echo "check-oclgrind.sh: no reconv on PATH; give --reconv PATH" >&2; exit 2; fi
fi
command -v oclgrind-kernel >/dev/null 2>&1 || [ -n "${RECONV_OCLGRIND:-}" ] ||
  { echo "check-oclgrind.sh: oclgrind is not installed (Debian's oclgrind; scripts/setup.sh --tests)" >&2; exit 2; }
files=()
for i in "${inputs[@]}"; do
  if [ -d "$i" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$i" -type f -name '*.cl' | sort)
  elif [ -f "$i" ]; then files+=("$i")
  else echo "check-oclgrind.sh: no such file or directory: $i" >&2; exit 2; fi
done
work=$(mktemp -d "${TMPDIR:-/tmp}/check-oclgrind.XXXXXX")
trap 'rm -rf "$work"' EXIT
nk=0 nok=0 nun=0 nfail=0 npartial=0
declare -A why_count
for f in "${files[@]}"; do
  kernels=$(timeout "$tmo" "$reconv" print --target spir64 "$olevel" "$f" 2>/dev/null |
            sed -n 's/^kernel @\([^(]*\)(.* !run ".*/\1/p')
  [ -n "$kernels" ] || continue
  if ! timeout "$tmo" "$reconv" opt -p "$pipeline" --target spir64 "$olevel" "$f" -o "$work/out.ll" > "$work/msg" 2>&1; then
    for k in $kernels; do
      nk=$((nk + 1)) nfail=$((nfail + 1))
      echo "FAIL $f @$k: reconv opt -p $pipeline: $(head -n 1 "$work/msg")"
    done
    continue
  fi
  for k in $kernels; do
    nk=$((nk + 1))
    out=$(timeout "$tmo" "$reconv" equiv --oclgrind --target spir64 "$olevel" --kernel "$k" "$f" "$work/out.ll" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] && grep -q 'not checkable on oclgrind' <<< "$out"; then
      nun=$((nun + 1))
      w=$(sed -n 's/.*not checkable on oclgrind: //p' <<< "$out" | sed 's/^@[^ :]*:\{0,1\} //; s/block [^ ]* //; s/i[0-9]*)/iN)/; s/compares i[0-9]*/compares iN/')
      why_count[$w]=$(( ${why_count[$w]:-0} + 1 ))
      echo "not checkable: $f @$k: $(sed -n 's/.*not checkable on oclgrind: //p' <<< "$out")"
    elif [ $rc -eq 0 ]; then
      nok=$((nok + 1))
      grep -q 'uninitialised values not checked' <<< "$out" && npartial=$((npartial + 1))
      [ $summary_only = 1 ] || echo "ok   $f @$k: $(tail -n 1 <<< "$out")"
    else
      nfail=$((nfail + 1))
      echo "FAIL $f @$k: $(grep -v '^seed .*: equivalent\|^note:' <<< "$out" | head -n 2 | tr '\n' ' ' | cut -c1-300)"
    fi
  done
done
for w in "${!why_count[@]}"; do echo "not checkable, ${why_count[$w]}x: $w"; done | sort
echo "summary (oclgrind, -p $pipeline, spir64 $olevel): $nk kernels: $nok equivalent ($npartial without the check of uninitialised values), $nun not checkable, $nfail failed"
[ $nfail -eq 0 ]
