#!/usr/bin/env bash
# Anantpur and Govindarajan's Table 1 (CC 2014, section 6) on Rodinia 3.1's OpenCL kernels (issue 30):
# every .cl of a Rodinia checkout fetched outside the repository is compiled by clang for amdgcn at
# -O2 (as scripts/check-llvm.sh compiles .cl, with the -D the suite's host programs pass), then
# `reconv opt -p linearize` runs on it; per kernel the blocks and instructions before and after and
# the increase, with the paper's own figures beside hotspot and particlefilter, and the totals over
# the kernels linearize changes against the paper's bounds (at most 1.10x instructions, 1.27x
# blocks). Each linearized module is checked with `reconv equiv` and LLVM's verifier.
#
#   bench/rodinia.sh [--build DIR] [--opt N] [--keep DIR] RODINIA_DIR
#
# RODINIA_DIR is the checkout (or its opencl/ folder). Figures only: a refusal or a failed check is
# printed in the table and counted, and the exit status is 1 when there is one.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build opt=3 keep="" suite=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --opt) opt=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "rodinia.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) suite=$1; shift ;;
  esac
done
[ -n "$suite" ] || { echo "rodinia.sh: give the path of a Rodinia 3.1 checkout (see --help)" >&2; exit 2; }
[ -d "$suite/opencl" ] && suite=$suite/opencl
reconv=$build/bin/reconv
[ -x "$reconv" ] || { echo "rodinia.sh: $reconv is not built (make build)" >&2; exit 2; }
clang=${RECONV_CLANG:-}
if [ -z "$clang" ]; then
  if command -v llvm-config >/dev/null 2>&1 && [ -x "$(llvm-config --bindir)/clang" ]; then clang="$(llvm-config --bindir)/clang"
  elif command -v clang-14 >/dev/null 2>&1; then clang=clang-14; else clang=clang; fi
fi
optbin=$(dirname "$(command -v "$clang")")/opt
[ -x "$optbin" ] || optbin=opt-14
work=${keep:-$(mktemp -d /tmp/reconv-rodinia.XXXXXX)}
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT

mapfile -t files < <(cd "$suite" && find . -name '*.cl' | sed 's|^\./||' | sort)
[ ${#files[@]} -gt 0 ] || { echo "rodinia.sh: no .cl file under $suite" >&2; exit 2; }

# the block and work-group sizes Rodinia's host programs pass with -D (pathfinder declares its own
# BLOCK_SIZE); the includes of heartwall and srad are relative to the module's parent folder
defines=(-D RD_WG_SIZE=64 -D RD_WG_SIZE_0=64 -D RD_WG_SIZE_0_0=64 -D BSIZE=16 -D TILE=16
         -D DEFAULT_ORDER=256 -D DEFAULT_ORDER_2=256)
printf '%-44s %-22s %6s %6s %6s %7s %7s %6s  %s\n' module kernel "blk" "blk'" "x" "ins" "ins'" "x" "check"
status=0 nmod=0 nref=0 nbad=0
stats=$work/all.jsonl
: > "$stats"
for rel in "${files[@]}"; do
  nmod=$((nmod + 1))
  name=$(printf '%s' "${rel%.cl}" | tr '/+' '__')
  dir=$suite/$(dirname "$rel")
  extra=(-D BLOCK_SIZE=16)
  case "$rel" in pathfinder/*) extra=() ;; esac
  if ! "$clang" -x cl -cl-std=CL1.2 -O2 -target amdgcn-amd-amdhsa -nogpulib -emit-llvm -S \
      -cl-kernel-arg-info -fno-discard-value-names "${defines[@]}" "${extra[@]}" -I "$dir" -I "$dir/.." \
      -o "$work/$name.ll" "$suite/$rel" 2> "$work/$name.clang.log"; then
    printf '%-44s %-22s %s\n' "$rel" - "clang could not compile it"; status=1; continue
  fi
  if ! "$reconv" opt -p "linearize[opt=$opt]" "$work/$name.ll" -o "$work/$name.lin.ll" --stats --json \
      > "$work/$name.json" 2> "$work/$name.err"; then
    nref=$((nref + 1)); status=1
    printf '%-44s %-22s %s\n' "$rel" - "REFUSED: $(head -1 "$work/$name.err" | sed 's/^[^:]*: error: //' | cut -c1-160)"
    continue
  fi
  verified=ok
  "$optbin" -passes=verify -disable-output "$work/$name.lin.ll" 2> "$work/$name.verify.log" || verified=verifier-FAIL
  while IFS= read -r line; do
    k=$(printf '%s' "$line" | sed 's/^{"kernel": "\([^"]*\)".*/\1/')
    check=$verified
    case "$line" in *'"regions": 0'*) check=unchanged ;; esac
    if [ "$check" = ok ]; then
      # trace equivalence on the interpreter, on seeded inputs (the run specification is guessed:
      # a launch at which the original faults is skipped and said so)
      "$reconv" equiv --kernel "$k" --sizes 1,32,64 --seeds 2 "$work/$name.ll" "$work/$name.lin.ll" \
        > "$work/$name.$k.equiv.log" 2>&1
      case $? in
        0) check=equivalent ;;
        *) if grep -q 'NOT equivalent' "$work/$name.$k.equiv.log"; then check=NOT-equivalent; else check=not-run; fi ;;
      esac
    fi
    case "$check" in verifier-FAIL|NOT-equivalent) nbad=$((nbad + 1)); status=1 ;; esac
    printf '%s\n' "$line" | sed "s|^{|{\"module\": \"$rel\", \"check\": \"$check\", |" >> "$stats"
  done < "$work/$name.json"
done
# the table and the totals over the kernels linearize changes; the paper's Table 1 beside the
# kernels it measured (PTX instructions and blocks, after its optimisations)
awk -v nmod="$nmod" -v nref="$nref" -v nbad="$nbad" '
function num(key,   m) { if (match($0, "\"" key "\": [0-9]+")) { m = substr($0, RSTART, RLENGTH); sub(/.*: /, "", m); return m + 0 } return -1 }
function str(key,   m) { if (match($0, "\"" key "\": \"[^\"]*\"")) { m = substr($0, RSTART, RLENGTH); sub(/^[^:]*: "/, "", m); sub(/"$/, "", m); return m } return "" }
{
  mod = str("module"); k = str("kernel"); b0 = num("blocks_before"); b1 = num("blocks_after")
  i0 = num("instructions_before"); i1 = num("instructions_after"); changed = num("regions") > 0
  paper = ""
  if (mod ~ /^hotspot\// && k == "hotspot") paper = "paper: ins 1.04x, blk 1.27x"
  if (mod ~ /^particlefilter\//) paper = "paper (particlefilter): ins 1.10x, blk 1.20x"
  if (changed) {
    tb0 += b0; tb1 += b1; ti0 += i0; ti1 += i1; nchanged++
    if (i0 >= 50 && i1 > 1.3 * i0) worst = worst sprintf("  %s @%s %.2fx\n", mod, k, i1 / i0)
  } else nsame++
  printf "%-44s %-22s %6d %6d %6.2f %7d %7d %6.2f  %s%s\n", mod, k, b0, b1, b1 / b0, i0, i1, i1 / i0,
         str("check"), paper == "" ? "" : "  [" paper "]"
}
END {
  printf "\n%d modules: %d refused by linearize, %d failed a check; %d kernels changed, %d left as they were\n",
         nmod, nref, nbad, nchanged, nsame
  if (nchanged)
    printf "changed kernels in total: blocks %d -> %d (%.2fx, bound 1.27x), instructions %d -> %d (%.2fx, bound 1.10x)\n",
           tb0, tb1, tb1 / tb0, ti0, ti1, ti1 / ti0
  if (worst != "") printf "kernels of 50 or more instructions above 1.3x:\n%s", worst
}' "$stats"
echo "work files: $work${keep:+ (kept)}"
exit $status
