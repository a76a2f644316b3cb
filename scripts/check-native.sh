#!/usr/bin/env bash
# Check the native wave backend on a directory of kernels (docs/native.md, "Wave kernels on the
# host's vector unit"):
#
#   scripts/check-native.sh [options] DIR|FILE...
#
# For every .cl, .ll and .rir file (directories are searched recursively, files sorted) and every
# kernel of it with a run specification (`// reconv-run(NAME): ...` in OpenCL C, `!run "..."` in
# .rir), every pipeline runs at every wave size:
#
#   reconv sim --native -p PIPELINE --wave W --check --kernel NAME FILE
#
# which lowers the kernel, compiles the wave code for this machine's SIMD unit, runs it natively
# and compares the memory with reconv's interpreter. One row per file: per pipeline, the runs that
# were equivalent out of those made; then a summary line per pipeline and in all. A run that is
# not equivalent, faults or fails is a failure (its message goes to the log directory), with two
# exceptions counted apart: a pipeline that declines the kernel with its own message (linearize
# and meld may), and a kernel whose result depends on the order of its work-items (a race: the
# native run leaves exactly the memory the wave simulator leaves, which is not the interpreter's). A kernel
# without a run specification is counted apart, not run. Exit status 0 when every run was
# equivalent, 1 when one was not, 2 on wrong usage.
#
# options:
#   --waves "W ..."      wave sizes (default "4 8 16 32 64")
#   --pipelines "P;..."  pipelines, separated by ';' (default: reconverge,lower; blockip;
#                        full-linearize; linearize,reconverge,lower; meld,reconverge,lower)
#   --target T           clang's target for .cl files (default: reconv's, amdgcn-amd-amdhsa)
#   --reconv P           the reconv binary (default: `reconv` on PATH, else build/bin/reconv here)
#   --log DIR            where failure messages go (default: a new directory under $TMPDIR or /tmp)
#   --sample K/N         only the files whose position in the sorted list is K modulo N
#   --timeout S          seconds per run (default 120)
#   --guess-spec         also run kernels without a run specification, with a guessed one: 256
#                        work-items in groups of 64, every global pointer a buffer of 16384 i32
#                        (random 0..15), every local pointer 1024 i32 of local memory, integers 16,
#                        floats 0.5 (for kernels nobody wrote a specification for: a kernel whose
#                        interpreter run faults under the guess is counted apart, as not runnable)
#   -D NAME[=V]          passed to clang for .cl files (BLOCK_SIZE and the like)
#   --summary            print only the summary lines and the failures
set -u
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

waves="4 8 16 32 64"
pipelines="reconverge,lower;blockip;full-linearize;linearize,reconverge,lower;meld,reconverge,lower"
target=
reconv=
logdir=
sample=
tmo=120
summary_only=0
guess=0
defines=()
inputs=()

usage() {
  sed -n '2,/^set -u/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --waves) [ $# -ge 2 ] || usage; waves=$2; shift 2 ;;
    --pipelines) [ $# -ge 2 ] || usage; pipelines=$2; shift 2 ;;
    --target) [ $# -ge 2 ] || usage; target=$2; shift 2 ;;
    --reconv) [ $# -ge 2 ] || usage; reconv=$2; shift 2 ;;
    --log) [ $# -ge 2 ] || usage; logdir=$2; shift 2 ;;
    --sample) [ $# -ge 2 ] || usage; sample=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || usage; tmo=$2; shift 2 ;;
    --summary) summary_only=1; shift ;;
    --guess-spec) guess=1; shift ;;
    -D) [ $# -ge 2 ] || usage; defines+=(-D "$2"); shift 2 ;;
    -D*) defines+=(-D "${1#-D}"); shift ;;
    -h|--help) usage ;;
    -*) echo "check-native.sh: unknown option '$1'" >&2; exit 2 ;;
    *) inputs+=("$1"); shift ;;
  esac
done
[ ${#inputs[@]} -gt 0 ] || { echo "check-native.sh: no input directory or file" >&2; exit 2; }
if [ -z "$reconv" ]; then
  reconv=$(command -v reconv 2>/dev/null || echo "$here/../build/bin/reconv")
fi
[ -x "$reconv" ] || { echo "check-native.sh: no reconv binary ($reconv)" >&2; exit 2; }
[ -n "$logdir" ] || logdir=$(mktemp -d "${TMPDIR:-/tmp}/check-native.XXXXXX")
mkdir -p "$logdir"
for w in $waves; do
  case "$w" in 4|8|16|32|64) ;; *) echo "check-native.sh: --waves: $w is not 4, 8, 16, 32 or 64" >&2; exit 2 ;; esac
done
if [ -n "$sample" ]; then
  sk=${sample%/*} sn=${sample#*/}
  case "$sk$sn" in *[!0-9]*|'') echo "check-native.sh: --sample expects K/N" >&2; exit 2 ;; esac
fi

files=()
for i in "${inputs[@]}"; do
  if [ -d "$i" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$i" -type f \( -name '*.cl' -o -name '*.ll' -o -name '*.rir' \) | sort)
  elif [ -f "$i" ]; then
    files+=("$i")
  else
    echo "check-native.sh: no such file or directory: $i" >&2
    exit 2
  fi
done

# A native run that differs from the interpreter but leaves exactly the memory the wave simulator
# leaves, run the same way (the buffers' checksums): the kernel's result depends on the order of its
# work-items (a race), which the wave machines share and the interpreter does not.
same_race() { # same_race OUTPUT PIPELINE W KERNEL FILE
  grep -q 'check: NOT equivalent to the thread-level interpreter' <<< "$1" || return 1
  local native sim
  native=$(grep '^buffer %' <<< "$1")
  sim=$(timeout "$tmo" "$reconv" sim -p "$2" --wave "$3" --kernel "$4" "${targs[@]}" "$5" "${spec[@]}" 2>/dev/null | grep '^buffer %')
  [ -n "$native" ] && [ "$native" = "$sim" ]
}

IFS=';' read -r -a plist <<< "$pipelines"
targs=()
[ -n "$target" ] && targs=(--target "$target")
targs+=("${defines[@]}")

# A run specification for a kernel signature line of `reconv print` (--guess-spec).
# shellcheck source=bench/llvm_common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../bench/llvm_common.sh"
guess_spec() { bench_guess_spec "$@"; }
declare -A ok_by runs_by
for p in "${plist[@]}"; do ok_by[$p]=0; runs_by[$p]=0; done
nfiles=0 nkernels=0 nospec=0 failures=0 declined=0 races=0 unfit=0 unfit_kernels=0 pos=-1

for f in "${files[@]}"; do
  pos=$((pos + 1))
  if [ -n "$sample" ] && [ $((pos % sn)) -ne "$sk" ]; then continue; fi
  nfiles=$((nfiles + 1))
  # the kernels (not device functions) and whether each has a run specification
  listing=$(timeout "$tmo" "$reconv" print "${targs[@]}" "$f" 2>/dev/null | grep -E '^(wave )?kernel @')
  row="$f:"
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    k=$(sed 's/^\(wave \)\{0,1\}kernel @\([^(]*\)(.*/\2/' <<< "$line")
    spec=()
    if ! grep -q '!run "' <<< "$line"; then
      nospec=$((nospec + 1))
      [ $guess -eq 1 ] || continue
      read -r -a spec <<< "$(guess_spec "$line" | tr '\n' ' ')"
      # the guess must suit the kernel: the interpreter runs it without a fault
      if ! timeout "$tmo" "$reconv" run --kernel "$k" "${targs[@]}" "$f" "${spec[@]}" > /dev/null 2>&1; then
        unfit_kernels=$((unfit_kernels + 1))
        continue
      fi
    fi
    nkernels=$((nkernels + 1))
    for p in "${plist[@]}"; do
      good=0 made=0
      for w in $waves; do
        made=$((made + 1))
        out=$(timeout "$tmo" "$reconv" sim --native -p "$p" --wave "$w" --check --kernel "$k" "${targs[@]}" "$f" "${spec[@]}" 2>&1)
        rc=$?
        if [ $rc -eq 0 ] && grep -q '^check: equivalent' <<< "$out"; then
          good=$((good + 1))
        elif ! grep -q '^check: \|^kernel @' <<< "$out" &&
             grep -qE 'error: (linearize|meld)(\[[^]]*\])?: ' <<< "$out"; then
          declined=$((declined + 1)) made=$((made - 1))
        elif [ ${#spec[@]} -gt 0 ] && grep -q 'the thread-level run faults\|has no value\|--arg .*=unsupported\|run specification' <<< "$out"; then
          unfit=$((unfit + 1)) made=$((made - 1))
        elif same_race "$out" "$p" "$w" "$k" "$f"; then
          races=$((races + 1)) made=$((made - 1))
        else
          failures=$((failures + 1))
          log="$logdir/$(basename "$f").log"
          { echo "== $f @$k, -p $p, W=$w: exit status $rc"; echo "$out"; } >> "$log"
          echo "FAIL $f @$k -p $p W=$w: $(grep -v '^  \|^buffer\|^kernel @' <<< "$out" | head -n 2 | tr '\n' ' ' | cut -c1-240)"
        fi
      done
      ok_by[$p]=$((ok_by[$p] + good))
      runs_by[$p]=$((runs_by[$p] + made))
      row="$row  $p $good/$made"
    done
  done <<< "$listing"
  [ $summary_only -eq 1 ] || echo "$row"
done

total_ok=0 total=0
for p in "${plist[@]}"; do
  echo "summary: $p: ${ok_by[$p]}/${runs_by[$p]} equivalent"
  total_ok=$((total_ok + ok_by[$p]))
  total=$((total + runs_by[$p]))
done
guessed=""
[ $guess -eq 1 ] && guessed="; $unfit_kernels kernels the interpreter cannot run under the guessed specification (not run), $unfit runs refused under it"
echo "summary: $nfiles files, $nkernels kernels run ($nospec without a run specification of their own$([ $guess -eq 1 ] && echo ', run with a guessed one' || echo ', not run')), waves $waves: $total_ok/$total native runs equivalent to the interpreter, $failures failed (log: $logdir); $declined runs declined by the pipeline, $races runs of kernels with a race (the memory the wave simulator leaves, not the interpreter's)$guessed"
[ "$failures" -eq 0 ]
