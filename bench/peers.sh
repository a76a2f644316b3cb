#!/usr/bin/env bash
# reconv's default against its peers (issue #15): on the bundled kernels, the kernel corpus and
# generated kernels, each run with its run specification, the vector, mask and scalar instructions
# the waves issue and the SIMD efficiency of four strategies of `reconv compare`:
#   ipdom                      the hardware IPDOM reconvergence stack on the original kernel
#   reconverge[auto]+lower     reconv's default
#   llvm-structurizecfg+lower  LLVM's structurizer pipeline (as AMDGPU runs it), then lower
#   llvm-structurizecfg[skip-uniform]+lower  the same with uniform regions left alone
#                              (StructurizeCFG's skip-uniform-regions), then lower
# One row per kernel, then a summary: totals per strategy, the geometric mean of auto's vector
# instructions over ipdom's, the kernels where auto issues more vector + mask instructions than
# either structurizer row (the worst listed), also per group of kernels (examples, corpus:
# tests/corpus, generated, other), and the kernels skipped or failed, with the reason. SIMD
# efficiency: active lanes per vector instruction over the wave size (in the totals: summed over
# the kernels).
#
#   bench/peers.sh [options] [DIR|FILE...]   (default: examples tests/corpus)
#
#   --gen N         also N kernels of `reconv gen --seed 1..N` (default 1000; 0: none)
#   --gen-args A    more options for reconv gen, one word each (e.g. '--blocks 32 --irreducible')
#   -j N            kernels compared at once (default 2)
#   --worst K       how many of the worst kernels the summary lists (default 10)
#   --summary       print only the summary
#   --tsv           the rows tab-separated (and the summary lines as comments, "# ...")
#   --reconv PATH   the reconv binary (default: `reconv` on PATH, else build/bin/reconv)
#
# Files: .rir, .cl and .ll, directories searched recursively; .cl and .ll are read as compare reads
# them by default (clang -O2 for amdgcn-amd-amdhsa, docs/llvm.md). A kernel is compared when it has
# a run specification (!run, or a reconv-run comment); the others are skipped. A kernel on which a
# strategy is not equivalent to the thread-level interpreter, faults, or has no row (reconv without
# the LLVM bridge has no structurizer) counts as failed and stays out of the totals; except that
# where LLVM's skip-uniform output is not reconverging (its uniformity analysis is wrong about a
# cycle-exit phi: llvm-project #216296, merged in 2026), that row alone has no numbers there, and
# the kernel is listed.
# Exit status 0, 1 when a kernel failed, 2 on wrong usage.
set -euo pipefail
export LC_ALL=C
ngen=1000
genargs=
jobs=2
worst=10
summary_only=0
tsv=0
reconv=
inputs=()
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
need() { [ $# -ge 2 ] || { echo "peers.sh: $1 needs a value (see --help)" >&2; exit 2; }; }
number() { case "$2" in ''|*[!0-9]*) echo "peers.sh: $1 wants a number, not '$2'" >&2; exit 2 ;; esac; }
while [ $# -gt 0 ]; do
  case "$1" in
    --gen) need "$@"; number "$1" "$2"; ngen=$2; shift 2 ;;
    --gen-args) need "$@"; genargs=$2; shift 2 ;;
    -j) need "$@"; number "$1" "$2"; jobs=$2; shift 2 ;;
    --worst) need "$@"; number "$1" "$2"; worst=$2; shift 2 ;;
    --summary) summary_only=1; shift ;;
    --tsv) tsv=1; shift ;;
    --reconv) need "$@"; reconv=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "peers.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) inputs+=("$1"); shift ;;
  esac
done
[ "$jobs" -ge 1 ] || { echo "peers.sh: -j wants at least 1" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
if [ -z "$reconv" ]; then
  if command -v reconv >/dev/null 2>&1; then reconv=$(command -v reconv)
  elif [ -x "$root/build/bin/reconv" ]; then reconv="$root/build/bin/reconv"
  else echo "peers.sh: no reconv on PATH; give --reconv PATH" >&2; exit 2; fi
fi
command -v "$reconv" >/dev/null 2>&1 || { echo "peers.sh: '$reconv' not found" >&2; exit 2; }
reconv=$(command -v "$reconv")
[ ${#inputs[@]} -gt 0 ] || inputs=("$root/examples" "$root/tests/corpus")
files=()
for i in "${inputs[@]}"; do
  if [ -d "$i" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$i" -type f \( -name '*.rir' -o -name '*.cl' -o -name '*.ll' \) | sort)
  elif [ -f "$i" ]; then files+=("$i")
  else echo "peers.sh: no such file or directory: $i" >&2; exit 2; fi
done
work=$(mktemp -d "${TMPDIR:-/tmp}/peers.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---- one job: a file, or gen:SEED. Prints one line per kernel, tab-separated:
#   ok    SOURCE KERNEL WAVE  then per strategy: vector mask scalar active-lane-instructions
#   skip  SOURCE KERNEL REASON
#   fail  SOURCE KERNEL REASON
export PEERS_RECONV=$reconv PEERS_WORK=$work PEERS_ROOT=$root PEERS_GENARGS=$genargs
peers_job() {
  local job=$1 src file dir kernels k out rc
  dir=$(mktemp -d "$PEERS_WORK/job.XXXXXX")
  if [ "${job#gen:}" != "$job" ]; then
    src="gen --seed ${job#gen:}${PEERS_GENARGS:+ $PEERS_GENARGS}"; file="$dir/gen.rir"
    # shellcheck disable=SC2086 # --gen-args is a list of words
    if ! "$PEERS_RECONV" gen --seed "${job#gen:}" $PEERS_GENARGS -o "$file" 2>"$dir/err"; then
      printf 'fail\t%s\t-\treconv gen: %s\n' "$src" "$(head -1 "$dir/err")"; rm -rf "$dir"; return 0; fi
  else src=${job#"$PEERS_ROOT"/}; file=$job; fi
  # the kernels and whether each has a run specification, as reconv reads the file
  if ! "$PEERS_RECONV" print "$file" -o "$dir/m.rir" 2>"$dir/err"; then
    printf 'fail\t%s\t-\treconv print: %s\n' "$src" "$(head -1 "$dir/err")"; rm -rf "$dir"; return 0; fi
  kernels=$(sed -n 's/^kernel @\([^( ]*\)(.*/\1/p' "$dir/m.rir")
  [ -n "$kernels" ] || printf 'skip\t%s\t-\tno kernel\n' "$src"
  for k in $kernels; do
    if ! grep -q "^kernel @$k(.* !run \"" "$dir/m.rir"; then
      printf 'skip\t%s\t%s\tno run specification\n' "$src" "$k"; continue; fi
    rc=0
    out=$("$PEERS_RECONV" compare --json --kernel "$k" \
          --only 'ipdom,reconverge[auto]+lower,llvm-structurizecfg+lower,llvm-structurizecfg[skip-uniform]+lower' \
          "$file" 2>"$dir/err") || rc=$?
    if [ -z "$out" ]; then
      printf 'fail\t%s\t%s\treconv compare (exit %s): %s\n' "$src" "$k" "$rc" "$(head -1 "$dir/err")"; continue; fi
    printf '%s\n' "$out" | awk -v src="$src" -v k="$k" '
      function num(s, key) { if (!match(s, "\"" key "\": [-0-9.e]+")) return ""; s = substr(s, RSTART, RLENGTH); sub(/.*: /, "", s); return s }
      function str(s, key) { if (!match(s, "\"" key "\": \"[^\"]*\"")) return ""; s = substr(s, RSTART, RLENGTH); sub(/^[^:]*: "/, "", s); sub(/"$/, "", s); return s }
      { wave = num($0, "wave"); n = split($0, part, /\{"name": "/)
        for (i = 2; i <= n; i++) { name = part[i]; sub(/".*/, "", name); row[name] = part[i] }
        want[1] = "ipdom"; want[2] = "reconverge[auto]+lower"; want[3] = "llvm-structurizecfg+lower"
        want[4] = "llvm-structurizecfg[skip-uniform]+lower"
        line = ""; bad = ""
        for (i = 1; i <= 4; i++) {
          s = row[want[i]]
          if (s == "") { if (bad == "") bad = want[i] ": no row (reconv without the LLVM bridge?)"; continue }
          # LLVM 19 and older call some cycle-exit phis of constants uniform (llvm-project #216296,
          # merged 2026): skipping a region on that leaves a divergent branch unstructured, which
          # lower[norepair] refuses; such a kernel has no numbers on that row, and is counted
          if (i == 4 && str(s, "verdict") ~ /is not reconverging/) { line = line "\t-\t-\t-\t-"; continue }
          if (str(s, "verdict") != "equivalent" && bad == "") bad = want[i] ": " str(s, "verdict")
          line = line "\t" num(s, "vector_instructions") "\t" num(s, "mask_instructions") "\t" num(s, "scalar_instructions") "\t" num(s, "active_lane_instructions") }
        if (bad != "") printf "fail\t%s\t%s\t%s\n", src, k, bad
        else printf "ok\t%s\t%s\t%s%s\n", src, k, wave, line }'
  done
  rm -rf "$dir"
}
export -f peers_job

# shellcheck disable=SC2016 # $1 is the job, expanded by the child bash
{ for f in "${files[@]}"; do printf '%s\0' "$f"; done
  for ((s = 1; s <= ngen; s++)); do printf 'gen:%d\0' "$s"; done
} | xargs -0 -r -n 1 -P "$jobs" bash -c 'peers_job "$1"' peers_job > "$work/lines" \
  || { echo "peers.sh: a comparison job died (see the messages above)" >&2; exit 1; }

# jobs finish in any order: put the rows back in the order of the inputs, then the seeds
{ for f in "${files[@]}"; do printf '%s\n' "${f#"$root"/}"; done
  for ((s = 1; s <= ngen; s++)); do printf 'gen --seed %d%s\n' "$s" "${genargs:+ $genargs}"; done
} | awk 'NR == FNR { order[$0] = NR; next } { print order[$2] "\t" $0 }' - FS='\t' "$work/lines" \
  | sort -t "$(printf '\t')" -k1,1n -k4,4 | cut -f2- > "$work/sorted"

awk -F '\t' -v tsv="$tsv" -v summary_only="$summary_only" -v worst="$worst" -v out="$work/worse" -v out_skip="$work/worse_skip" '
  function pct(a, v, w) { return v > 0 ? sprintf("%.1f%%", 100 * a / (v * w)) : "-" }
  BEGIN { OFS = "\t"
    if (!summary_only && tsv)
      print "source", "kernel", "ipdom_vector", "ipdom_mask", "ipdom_scalar", "ipdom_simd_eff", "auto_vector", "auto_mask", "auto_scalar", "auto_simd_eff", "struct_vector", "struct_mask", "struct_scalar", "struct_simd_eff", "skip_vector", "skip_mask", "skip_scalar", "skip_simd_eff" > "/dev/stdout"
    else if (!summary_only)
      printf "%-40s %-24s %24s   %32s   %32s   %32s\n", "source", "kernel", "ipdom: vector mask scalar", "auto: vector mask scalar SIMD", "structurizer: vector mask scalar SIMD", "skip-uniform: vector mask scalar SIMD"
  }
  $1 == "ok" {
    n++; w = $4
    has_skip = $17 != "-"; if (!has_skip) { nskip_bad++; skip_bad[nskip_bad] = $2 " @" $3 }
    for (s = 0; s < 4; s++) { v[s] = $(5 + 4 * s); m[s] = $(6 + 4 * s); c[s] = $(7 + 4 * s); a[s] = $(8 + 4 * s)
      if (s == 3 && !has_skip) continue
      tv[s] += v[s]; tm[s] += m[s]; tc[s] += c[s]; ta[s] += a[s]; tw[s] += v[s] * w }
    if (has_skip) { nsu++; su_auto += v[1] + m[1] + c[1] }
    if (!summary_only && tsv)
      printf "%s\t%s\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", $2, $3, v[0], m[0], c[0], pct(a[0], v[0], w), v[1], m[1], c[1], pct(a[1], v[1], w), v[2], m[2], c[2], pct(a[2], v[2], w), v[3], m[3], c[3], (has_skip ? pct(a[3], v[3], w) : "-")
    else if (!summary_only)
      printf "%-40s %-24s %10d %6d %6d   %10d %6d %6d %7s   %10d %6d %6d %7s   %10s %6s %6s %7s\n", $2, $3, v[0], m[0], c[0], v[1], m[1], c[1], pct(a[1], v[1], w), v[2], m[2], c[2], pct(a[2], v[2], w), v[3], m[3], c[3], (has_skip ? pct(a[3], v[3], w) : "-")
    g = ($2 ~ /^gen / ? "generated" : $2 ~ /^tests\/corpus\// ? "corpus" : $2 ~ /^examples\// ? "examples" : "other"); gn[g]++
    if (v[0] > 0 && v[1] > 0) { lg += log(v[1] / v[0]); ng++; glg[g] += log(v[1] / v[0]); gng[g]++ } else if (v[0] == 0 && v[1] == 0) ng0++; else nz++
    if (v[1] + m[1] > v[2] + m[2]) { gworse[g]++; nworse++; printf "%d\t%s\t%s\t%d\t%d\n", (v[1] + m[1]) - (v[2] + m[2]), $2, $3, v[1] + m[1], v[2] + m[2] > out }
    if (has_skip && v[1] + m[1] > v[3] + m[3]) { nworse_skip++; printf "%d\t%s\t%s\t%d\t%d\n", (v[1] + m[1]) - (v[3] + m[3]), $2, $3, v[1] + m[1], v[3] + m[3] > out_skip }
    if (v[1] > v[0]) nmorev++
    next }
  $1 == "skip" { nskip++; why["skipped (" $4 ")"]++; skipped[nskip] = $2 " @" $3 ": " $4; next }
  $1 == "fail" { nfail++; r = $4; i = index(r, ": "); if (i) { j = index(substr(r, i + 2), ": "); if (j) r = substr(r, 1, i + j) }
                 why["failed (" r ")"]++; failed[nfail] = $2 " @" $3 ": " $4; next }
  END {
    p = (tsv ? "# " : "")
    if (!summary_only) print ""
    printf "%ssummary: %d kernels compared, %d skipped, %d failed\n", p, n, nskip, nfail
    names[0] = "ipdom"; names[1] = "reconverge[auto]+lower"; names[2] = "llvm-structurizecfg+lower"
    names[3] = "llvm-structurizecfg[skip-uniform]+lower"
    printf "%s%-40s %12s %12s %12s %12s %9s\n", p, "strategy", "vector", "mask", "scalar", "issued", "SIMD eff"
    for (s = 0; s < 4; s++)
      printf "%s%-40s %12d %12d %12d %12d %9s\n", p, names[s], tv[s], tm[s], tc[s], tv[s] + tm[s] + tc[s], (tw[s] > 0 ? sprintf("%.1f%%", 100 * ta[s] / tw[s]) : "-")
    printf "%sgeomean(auto vector / ipdom vector): %s over %d kernels (%d with no vector instruction in either left out%s)\n", p, \
      (ng > 0 ? sprintf("%.4f", exp(lg / ng)) : "-"), ng, ng0, (nz > 0 ? sprintf(", %d with none in only one", nz) : "")
    printf "%skernels where auto issues more vector instructions than ipdom: %d\n", p, nmorev
    printf "%skernels where auto issues more vector + mask than the structurizer: %d\n", p, nworse
    printf "%skernels where auto issues more vector + mask than the structurizer with uniform regions skipped: %d\n", p, nworse_skip
    if (nskip_bad) {
      printf "%sllvm-structurizecfg[skip-uniform]+lower: its total over %d kernels (auto issues %d there); on %d LLVM left a divergent branch unstructured (a cycle-exit phi its uniformity analysis calls uniform, llvm-project #216296), which lower refuses:\n", p, nsu, su_auto, nskip_bad
      for (i = 1; i <= nskip_bad && i <= 20; i++) printf "%s  not reconverging: %s\n", p, skip_bad[i]
    }
    for (g in gn) printf "%s  %-10s %5d kernels: geomean(auto vector / ipdom vector) %s, auto vector + mask above the structurizer on %d\n", p, g, gn[g], \
      (gng[g] > 0 ? sprintf("%.4f", exp(glg[g] / gng[g])) : "-"), gworse[g] | "sort"
    close("sort")
    for (r in why) printf "%s  %5d %s\n", p, why[r], r | "sort -k2"
    close("sort")
    for (i = 1; i <= nfail && i <= 50; i++) printf "%s  failed: %s\n", p, failed[i]
    if (nfail > 50) printf "%s  ... and %d more failed\n", p, nfail - 50
    for (i = 1; i <= nskip && i <= 50; i++) printf "%s  skipped: %s\n", p, skipped[i]
    if (nskip > 50) printf "%s  ... and %d more skipped\n", p, nskip - 50
  }' "$work/sorted"
p=; [ "$tsv" = 1 ] && p="# "
for w in worse:structurizer worse_skip:"structurizer with uniform regions skipped"; do
  [ -s "$work/${w%%:*}" ] || continue
  echo "${p}worst $worst (auto vector + mask - ${w#*:} vector + mask, then the two):"
  sort -t "$(printf '\t')" -k1,1nr "$work/${w%%:*}" | head -n "$worst" \
    | awk -F '\t' -v p="$p" '{ printf "%s  +%d  %s @%s: %d vs %d\n", p, $1, $2, $3, $4, $5 }'
done
! grep -q '^fail' "$work/sorted"
