#!/usr/bin/env bash
# reconv on LLVM's own test inputs (issue 29): a directory of .ll files written by others, such as
# LLVM's llvm/test/Transforms/StructurizeCFG, FixIrreducible and UnifyLoopExits, fetched outside
# this repository (nothing of them is copied into it):
#
#   scripts/check-llvm-tests.sh [options] DIR|FILE...
#
# Per file (a file without `target triple` is checked as amdgcn-amd-amdhsa, so that LLVM's
# divergence analysis has a target with divergence):
#   fns       the functions reconv reads (reconv's LLVM reads the file; LLVM 14 in opaque-pointer
#             mode where it uses `ptr`); a file that LLVM N cannot parse is "not LLVM N", not a
#             failure
#   opt       `reconv opt -p reconverge[order=O]` for every block ordering O (dfpd df bf bfpd rpot
#             domreg): passed/orderings
#   verify    LLVM's verifier (`opt -passes=verify`) on each output
#   diverg    `reconv analyze --llvm-divergence` on each output: functions LLVM's own divergence
#             analysis finds reconverging (thesis Def. 15), per function and ordering
#   equiv     `reconv equiv` of each function, input against output, per ordering, with its run
#             specification or a guessed one (scripts/guess-spec.sh; i1 parameters false where the
#             interpreter cannot run them true); a function the interpreter
#             cannot run on the guess (it faults or loops: most of these tests branch on undef or
#             loop forever) counts as not runnable (+N), not as a failure
#   sim       `reconv sim --check` (wave mode, the default pipeline) of each function: equivalent
#             to the interpreter; not runnable as for equiv
# A cell is ok, a count passing/checked, or FAIL; a crash (a signal) or an "internal error" of
# reconv is a failure anywhere and is named. One row per file, then a summary line. Exit status 0
# when nothing failed, 1 when something did, 2 on wrong usage.
#
# options:
#   --reconv P    the reconv binary (default: `reconv` on PATH, else build/bin/reconv of this repo)
#   --table       the rows as a Markdown table
#   --summary     only the summary line and the failures
#   --log DIR     where failure messages go (default: a new directory under $TMPDIR or /tmp)
#   --timeout S   seconds per command (default 120)
set -u
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=guess-spec.sh
. "$here/guess-spec.sh"
reconv= table=0 summary_only=0 logdir= tmo=120
orderings="dfpd df bf bfpd rpot domreg"
inputs=()
usage() { sed -n '2,/^set -u/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --reconv) reconv=${2:?}; shift 2 ;;
    --table) table=1; shift ;;
    --summary) summary_only=1; shift ;;
    --log) logdir=${2:?}; shift 2 ;;
    --timeout) tmo=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "check-llvm-tests.sh: unknown option '$1'" >&2; exit 2 ;;
    *) inputs+=("$1"); shift ;;
  esac
done
[ ${#inputs[@]} -gt 0 ] || { echo "check-llvm-tests.sh: no input (DIR or FILE)" >&2; exit 2; }
if [ -z "$reconv" ]; then
  if command -v reconv >/dev/null 2>&1; then reconv=$(command -v reconv)
  elif [ -x "$here/../build/bin/reconv" ]; then reconv="$here/../build/bin/reconv"
  else echo "check-llvm-tests.sh: no reconv on PATH; give --reconv PATH" >&2; exit 2; fi
fi
# shellcheck source=scripts/llvm_tools.sh
. "$here/llvm_tools.sh"
optbin=$(llvm_tool "$reconv" opt)
# LLVM 14 reads `ptr` IR only in its opaque-pointer mode; LLVM 15 and later have no other
llvm_major=$("$reconv" --version 2>/dev/null | sed -n 's/.*with llvm \([0-9][0-9]*\)\..*/\1/p')
command -v "$optbin" >/dev/null 2>&1 || { echo "check-llvm-tests.sh: LLVM's opt not found" >&2; exit 2; }
files=()
for i in "${inputs[@]}"; do
  if [ -d "$i" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$i" -type f -name '*.ll' | sort)
  elif [ -f "$i" ]; then files+=("$i")
  else echo "check-llvm-tests.sh: no such file or directory: $i" >&2; exit 2; fi
done
work=$(mktemp -d "${TMPDIR:-/tmp}/check-llvm-tests.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -z "$logdir" ]; then logdir=$(mktemp -d "${TMPDIR:-/tmp}/check-llvm-tests-log.XXXXXX"); else mkdir -p "$logdir"; fi

nfiles=0 nnot14=0 nfns=0 opt_ok=0 opt_all=0 ver_ok=0 ver_all=0 div_ok=0 div_all=0
eq_ok=0 eq_all=0 eq_nr=0 sim_ok=0 sim_all=0 sim_nr=0 ncrash=0 ninternal=0 nfail_files=0
failed=()
row() {
  [ $summary_only = 1 ] && return
  if [ $table = 1 ]; then printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$@"
  else printf '%-60s %5s %7s %7s %7s %12s %10s\n' "$@"; fi
}
if [ $summary_only = 0 ]; then
  if [ $table = 1 ]; then echo "| file | fns | opt | verify | diverg | equiv | sim |"; echo "|---|---|---|---|---|---|---|"
  else printf '%-60s %5s %7s %7s %7s %12s %10s\n' file fns opt verify diverg equiv sim; fi
fi
# run LOG CMD...: CMD with a time limit, its output in $work/msg; a signal or an internal error
# counts and is logged; returns CMD's status
run() {
  local log=$1; shift
  timeout "$tmo" "$@" > "$work/msg" 2>&1
  local rc=$?
  broke=0
  if [ $rc -ge 128 ] && [ $rc -ne 124 ]; then
    ncrash=$((ncrash + 1)); bad=1; broke=1
    { echo "== CRASH (exit $rc): $*"; cat "$work/msg"; } >> "$log"
  elif grep -q 'internal error' "$work/msg"; then
    ninternal=$((ninternal + 1)); bad=1; broke=1
    { echo "== INTERNAL ERROR: $*"; cat "$work/msg"; } >> "$log"
  fi
  return $rc
}
# a run that the interpreter cannot make on the guessed specification
not_runnable() {
  grep -q 'does not fit in <\|the first program faults\|the thread-level run faults\|nothing to compare\|cannot run it\|simulators cannot\|has no value\|is not simulated\|step budget\|steps' "$work/msg"
}

for f in "${files[@]}"; do
  nfiles=$((nfiles + 1))
  rel=${f#"${inputs[0]%/}/"}
  log="$logdir/$(echo "$rel" | tr '/' '_').log"
  bad=0
  in="$work/in.ll"
  if grep -q '^target triple' "$f"; then cp "$f" "$in"
  else { echo 'target triple = "amdgcn-amd-amdhsa"'; cat "$f"; } > "$in"; fi
  oflags=()
  [ "$llvm_major" = 14 ] && grep -q '\bptr\b' "$in" && oflags=(-opaque-pointers)
  if ! run "$log" "$reconv" print "$in"; then
    if [ $broke = 0 ]; then
      nnot14=$((nnot14 + 1))
      { echo "== not LLVM $llvm_major: reconv print"; cat "$work/msg"; } >> "$log"
      row "$rel" "-" "not LLVM $llvm_major" "-" "-" "-" "-"
    else
      row "$rel" "FAIL" "-" "-" "-" "-" "-"; nfail_files=$((nfail_files + 1)); failed+=("$rel")
    fi
    continue
  fi
  sigs=$(grep -E '^(wave )?(kernel|function [^@]*) @' "$work/msg")
  nf=$(grep -c . <<< "$sigs")
  nfns=$((nfns + nf))
  fo=0 fv=0 dv=0 da=0 eo=0 ea=0 en=0 so=0 sa=0 sn=0
  for o in $orderings; do
    out="$work/out.$o.ll"
    if run "$log" "$reconv" opt -p "reconverge[order=$o]" "$in" -o "$out"; then
      fo=$((fo + 1))
      # LLVM's tests use triples opt does not know (amdgpu6.00--): verified without the triple then
      if run "$log" "$optbin" "${oflags[@]}" -passes=verify -disable-output "$out" ||
         { grep -q 'unrecognized architecture' "$work/msg" && grep -v '^target triple' "$out" > "$work/notriple.ll" &&
           run "$log" "$optbin" "${oflags[@]}" -passes=verify -disable-output "$work/notriple.ll"; }; then fv=$((fv + 1))
      else bad=1; { echo "== verify, order=$o"; cat "$work/msg"; } >> "$log"; fi
      if run "$log" "$reconv" analyze --llvm-divergence "$out" --json; then
        t=$(grep -c '"reconverging": true' "$work/msg"); a=$(grep -c '"reconverging"' "$work/msg")
        dv=$((dv + t)) da=$((da + a))
        [ "$t" != "$a" ] && { bad=1; { echo "== divergence, order=$o"; cat "$work/msg"; } >> "$log"; }
      else bad=1; { echo "== analyze --llvm-divergence, order=$o"; cat "$work/msg"; } >> "$log"; fi
    else
      bad=1; { echo "== reconv opt, order=$o"; cat "$work/msg"; } >> "$log"
    fi
  done
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    fn=$(sed -E 's/^(wave )?(kernel|function [^@]*) @([^(]*)\(.*/\3/' <<< "$line")
    spec=()
    if ! grep -q '!run "' <<< "$line"; then
      # i1 parameters true, or false where the interpreter cannot run that (most of these tests
      # loop forever on one of the two)
      mapfile -t spec < <(guess_spec "$line" 1)
      if grep -q ' i1 %' <<< "$line" && ! timeout "$tmo" "$reconv" run --kernel "$fn" "$in" "${spec[@]}" > /dev/null 2>&1; then
        mapfile -t spec < <(guess_spec "$line" 0)
      fi
    fi
    for o in $orderings; do
      [ -f "$work/out.$o.ll" ] || continue
      if run "$log" "$reconv" equiv --kernel "$fn" "$in" "$work/out.$o.ll" "${spec[@]}"; then eo=$((eo + 1)) ea=$((ea + 1))
      elif [ $broke = 0 ] && not_runnable; then en=$((en + 1))
      else ea=$((ea + 1)); bad=1; { echo "== equiv @$fn, order=$o"; cat "$work/msg"; } >> "$log"; fi
    done
    if run "$log" "$reconv" sim --check --kernel "$fn" "$in" "${spec[@]}" && grep -q '^check: equivalent' "$work/msg"; then
      so=$((so + 1)) sa=$((sa + 1))
    elif [ $broke = 0 ] && { not_runnable || { grep -q '^reconv sim: fault:' "$work/msg" &&
           ! timeout "$tmo" "$reconv" run --kernel "$fn" "$in" "${spec[@]}" > /dev/null 2>&1; }; }; then
      sn=$((sn + 1)) # the thread-level run faults as well: nothing to compare
    else sa=$((sa + 1)); bad=1; { echo "== sim --check @$fn"; cat "$work/msg"; } >> "$log"; fi
  done <<< "$sigs"
  rm -f "$work"/out.*.ll
  nords=$(wc -w <<< "$orderings")
  opt_ok=$((opt_ok + fo)) opt_all=$((opt_all + nords)) ver_ok=$((ver_ok + fv)) ver_all=$((ver_all + fo))
  div_ok=$((div_ok + dv)) div_all=$((div_all + da)) eq_ok=$((eq_ok + eo)) eq_all=$((eq_all + ea)) eq_nr=$((eq_nr + en))
  sim_ok=$((sim_ok + so)) sim_all=$((sim_all + sa)) sim_nr=$((sim_nr + sn))
  cell() { if [ "$1" = "$2" ]; then echo "$1/$2"; else echo "FAIL $1/$2"; fi; }
  ecell="$(cell $eo $ea)"; [ $en -gt 0 ] && ecell="$ecell +$en"
  scell="$(cell $so $sa)"; [ $sn -gt 0 ] && scell="$scell +$sn"
  row "$rel" "$nf" "$(cell $fo "$nords")" "$(cell $fv $fo)" "$(cell $dv $da)" "$ecell" "$scell"
  if [ $bad = 1 ]; then nfail_files=$((nfail_files + 1)); failed+=("$rel"); fi
done

echo "summary: $nfiles files ($nnot14 not LLVM $llvm_major), $nfns functions: opt $opt_ok/$opt_all, verify $ver_ok/$ver_all, divergence $div_ok/$div_all reconverging, equiv $eq_ok/$eq_all (+$eq_nr not runnable), sim --check $sim_ok/$sim_all (+$sim_nr not runnable); $ncrash crashes, $ninternal internal errors; $nfail_files files with failures"
if [ $nfail_files -gt 0 ]; then
  printf '  failed: %s\n' "${failed[@]}"
  echo "messages: $logdir" >&2
  exit 1
fi
exit 0
