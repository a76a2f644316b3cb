#!/usr/bin/env bash
# Calibration against LLVM's AMDGPU backend (issue #15): for every function of every kernel file,
# reconv's static counts of exec-writing and conditional scalar-branch instructions in the lowered
# kernel (`reconv opt -p reconverge,lower`) next to the same counts in `llc -mtriple=amdgcn-amd-amdhsa
# -mcpu=gfx900` output for the same LLVM IR (the kernel as clang compiled it). docs/calibration.md
# shows the table and explains the differences.
#
#   bench/llc_calibration.sh [options] [DIR|FILE...]   (default: examples/kernels tests/corpus)
#
#   --tsv          tab-separated rows (file, function, the six counts) and a total row
#   --json         one JSON object per function and line, then one with the totals
#   --opt -ON      clang's optimisation level for .cl files (default -O2)
#   --cpu CPU      llc's -mcpu (default gfx900)
#   --llc-arg ARG  one more argument for llc (repeatable), e.g. -amdgpu-skip-threshold=0
#   --reconv PATH  the reconv binary (default: `reconv` on PATH, else build/bin/reconv)
#
# .cl files are compiled for amdgcn-amd-amdhsa as reconv does (docs/llvm.md); .ll files are used
# as they are. Counted, per function:
#   reconv  setexec (exec writes); brexecz; br with a condition and switch (uniform branches)
#   llc     exec writes: any *_saveexec_*, v_cmpx_*, and every s_ instruction whose destination is
#           exec, exec_lo or exec_hi; s_cbranch_execz/execnz; the other s_cbranch_* (scc0/scc1,
#           vccz/vccnz: uniform branches). Apart, in column wwm and not among the exec writes: the
#           whole-wave saves around register spills and calls, `s_or_saveexec_b64 R, -1` and the
#           `s_mov_b64 exec, R` that restores R (register allocation, not control flow).
# Device functions (not kernels) are marked "(fn)"; the summary also gives the kernels' totals.
# Exit status 0, or 1 when a file could not be compiled, lowered or run through llc (the rows of
# the others are still printed); 2 on wrong usage.
set -euo pipefail
export LC_ALL=C
olevel=-O2
cpu=gfx900
reconv=
llcargs=()
format=table
inputs=()
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
need() { [ $# -ge 2 ] || { echo "llc_calibration.sh: $1 needs a value (see --help)" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case "$1" in
    --tsv) format=tsv; shift ;;
    --json) format=json; shift ;;
    --opt) need "$@"; olevel=$2; shift 2 ;;
    -O[0-3s]) olevel=$1; shift ;;
    --cpu) need "$@"; cpu=$2; shift 2 ;;
    --llc-arg) need "$@"; llcargs+=("$2"); shift 2 ;;
    --reconv) need "$@"; reconv=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "llc_calibration.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) inputs+=("$1"); shift ;;
  esac
done
case "$olevel" in -O[0-3s]) ;; *) echo "llc_calibration.sh: --opt must be -O0..-O3 or -Os" >&2; exit 2 ;; esac
# shellcheck source=bench/llvm_common.sh
. "$(dirname "${BASH_SOURCE[0]}")/llvm_common.sh"
root=$(cd "$bench_dir/.." && pwd)
[ ${#inputs[@]} -gt 0 ] || inputs=("$root/examples/kernels" "$root/tests/corpus")
bench_find_tools llc_calibration.sh need-llc
bench_inputs llc_calibration.sh "${inputs[@]}"
[ ${#bench_files[@]} -gt 0 ] || { echo "llc_calibration.sh: no .cl or .ll file in ${inputs[*]}" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/llc-calibration.XXXXXX")
trap 'rm -rf "$work"' EXIT

# "function kind setexec brexecz br" per function of a lowered .rir module (kind: k kernel, f function)
count_reconv() {
  awk '
    /^wave (kernel|function)/ { if (name != "") print name, kind, s, z, b
                                kind = ($2 == "kernel" ? "k" : "f")
                                name = $0; sub(/^[^@]*@/, "", name); sub(/\(.*/, "", name); s = z = b = 0; next }
    /^[ \t]+setexec[ \t]/ { s++ }
    /^[ \t]+brexecz[ \t]/ { z++ }
    /^[ \t]+br[ \t].*,/ || /^[ \t]+switch[ \t]/ { b++ }
    END { if (name != "") print name, kind, s, z, b }' "$1"
}
# "function exec-writes cbranch-exec cbranch-other wwm" per function of llc's assembly
count_llc() {
  bench_asm_instructions "$1" | awk '
    $1 != name { if (name != "") print name, w, e, o, m; name = $1; w = e = o = m = 0; split("", saved) }
    { op = $2; ops = $0; sub(/^[^ ]+ [^ ]+[ \t]*/, "", ops); gsub(/[ \t]/, "", ops)
      n = split(ops, a, ","); dst = a[1]; src = (n >= 2 ? a[2] : "")
      if (op ~ /^s_or_saveexec_b(32|64)$/ && src == "-1") { saved[dst] = 1; m++ }
      else if (op ~ /^s_mov_b(32|64)$/ && dst ~ /^exec(_lo)?$/ && (src in saved)) { delete saved[src]; m++ }
      else if (op ~ /saveexec/ || op ~ /^v_cmpx_/ || (op ~ /^s_/ && dst ~ /^exec(_lo|_hi)?$/)) w++
      if (op ~ /^s_cbranch_exec/) e++; else if (op ~ /^s_cbranch_/) o++ }
    END { if (name != "") print name, w, e, o, m }'
}

: > "$work/rows"   # file function kind setexec brexecz br exec-writes execz/nz scc/vcc wwm
nerr=0
for f in "${bench_files[@]}"; do
  rel=${f#"$root"/}
  case "$f" in
    *.cl) if ! bench_compile_cl "$f" "$work/in.ll" "$olevel" 2>"$work/err"; then
            echo "$rel: clang failed: $(head -1 "$work/err")" >&2; nerr=$((nerr + 1)); continue; fi ;;
    *) cp "$f" "$work/in.ll" ;;
  esac
  if ! "$reconv" opt -p reconverge,lower "$work/in.ll" -o "$work/out.rir" 2>"$work/err"; then
    echo "$rel: reconv opt -p reconverge,lower failed: $(head -1 "$work/err")" >&2; nerr=$((nerr + 1)); continue
  fi
  if ! bench_llc "$work/in.ll" "$work/in.s" "$cpu" ${llcargs[@]+"${llcargs[@]}"} 2>"$work/err"; then
    echo "$rel: llc failed: $(head -1 "$work/err")" >&2; nerr=$((nerr + 1)); continue
  fi
  count_reconv "$work/out.rir" | sort > "$work/r"
  count_llc "$work/in.s" | sort > "$work/l"
  # every function of either side; a count the other side lacks is "-"
  join -a 1 -a 2 -e - -o 0,1.2,1.3,1.4,1.5,2.2,2.3,2.4,2.5 "$work/r" "$work/l" | sed "s|^|$rel |" >> "$work/rows"
done

awk -v format="$format" -v nerr="$nerr" -v nfiles="${#bench_files[@]}" '
  function add(a, i, v) { if (v != "-") a[i] += v }
  function js(v) { return v == "-" ? "null" : v }
  BEGIN { OFS = "\t"
    if (format == "table")
      printf "%-44s %-30s %27s   %37s\n", "file", "function", "reconv: setexec brexecz br", "llc: exec-writes execz/nz scc/vcc wwm"
    else if (format == "tsv")
      print "file", "function", "kind", "reconv_setexec", "reconv_brexecz", "reconv_br", "llc_exec_writes", "llc_cbranch_exec", "llc_cbranch_other", "llc_wwm" }
  { n++; if ($3 == "k") nk++
    for (i = 4; i <= 9; i++) { add(t, i, $i); if ($3 == "k") add(tk, i, $i) }
    add(t, 10, $10); if ($3 == "k") add(tk, 10, $10)
    fn = $2 ($3 == "f" ? " (fn)" : "")
    if (format == "table")
      printf "%-44s %-30s %15s %7s %3s   %17s %9s %7s %3s\n", $1, fn, $4, $5, $6, $7, $8, $9, $10
    else if (format == "tsv") print $1, $2, ($3 == "-" ? "" : $3), $4, $5, $6, $7, $8, $9, $10
    else printf "{\"file\": \"%s\", \"function\": \"%s\", \"kernel\": %s, \"reconv\": {\"setexec\": %s, \"brexecz\": %s, \"br\": %s}, \"llc\": {\"exec_writes\": %s, \"cbranch_exec\": %s, \"cbranch_other\": %s, \"wwm\": %s}}\n", \
      $1, $2, ($3 == "k" ? "true" : $3 == "f" ? "false" : "null"), js($4), js($5), js($6), js($7), js($8), js($9), js($10) }
  END {
    for (i = 4; i <= 10; i++) { t[i] += 0; tk[i] += 0 }
    if (format == "table") {
      printf "%-44s %-30s %15d %7d %3d   %17d %9d %7d %3d\n", "total", n " functions", t[4], t[5], t[6], t[7], t[8], t[9], t[10]
      printf "%-44s %-30s %15d %7d %3d   %17d %9d %7d %3d\n", "total of the kernels", nk " kernels", tk[4], tk[5], tk[6], tk[7], tk[8], tk[9], tk[10]
      printf "summary: %d files, %d functions (%d kernels), %d errors; exec writes reconv %d / llc %d (kernels %d / %d), conditional branches reconv %d (brexecz %d, br %d) / llc %d (execz/nz %d, scc/vcc %d)\n", \
        nfiles, n, nk, nerr, t[4], t[7], tk[4], tk[7], t[5] + t[6], t[5], t[6], t[8] + t[9], t[8], t[9]
    } else if (format == "tsv") {
      print "total", n, "", t[4], t[5], t[6], t[7], t[8], t[9], t[10]
      print "total of the kernels", nk, "k", tk[4], tk[5], tk[6], tk[7], tk[8], tk[9], tk[10]
    } else printf "{\"total\": {\"files\": %d, \"functions\": %d, \"kernels\": %d, \"errors\": %d, \"reconv\": {\"setexec\": %d, \"brexecz\": %d, \"br\": %d}, \"llc\": {\"exec_writes\": %d, \"cbranch_exec\": %d, \"cbranch_other\": %d, \"wwm\": %d}, \"kernels_only\": {\"reconv\": {\"setexec\": %d, \"brexecz\": %d, \"br\": %d}, \"llc\": {\"exec_writes\": %d, \"cbranch_exec\": %d, \"cbranch_other\": %d, \"wwm\": %d}}}}\n", \
      nfiles, n, nk, nerr, t[4], t[5], t[6], t[7], t[8], t[9], t[10], tk[4], tk[5], tk[6], tk[7], tk[8], tk[9], tk[10] }' "$work/rows"
[ "$nerr" -eq 0 ]
