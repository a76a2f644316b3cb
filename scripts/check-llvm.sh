#!/usr/bin/env bash
# Check reconv's LLVM path on a directory of OpenCL C / LLVM IR files (issue #12, item 5b):
#
#   scripts/check-llvm.sh [options] DIR|FILE...
#
# For every .cl and .ll file (directories are searched recursively, files sorted):
#   imported    .cl: clang compiles it as reconv does (docs/llvm.md, "Reading OpenCL C"), its
#               `reconv-run` comments carried over as `;` comments; .ll: read as it is (a file
#               LLVM 14's `opt` cannot parse is counted as "not LLVM 14", not as a failure). Then
#               `reconv opt -p reconverge in.ll -o out.ll` must succeed.
#   verify      `opt -passes=verify out.ll` (LLVM's verifier).
#   divergence  amdgcn only: `reconv analyze --llvm-divergence out.ll --json` (LLVM's own
#               divergence analysis, print<divergence> with the target machine) must find every
#               function reconverging (thesis Def. 15). Shown as reconverging/functions.
#   identical   every function already reconverging in the input (in LLVM's eyes on amdgcn, in
#               reconv's elsewhere, where LLVM 14 has no divergence for the target) comes out
#               identical, value and block names aside (scripts/llvm-functions.awk).
#   only-CFG    every function: the multiset of its non-phi, non-terminator instructions, its
#               `define` line and the module's declarations and globals are the same in input and
#               output (scripts/llvm-instructions.awk), but for added `xor i1 %_, true` lines,
#               compares of a lowered switch (and the `or i1` joining the cases of one target),
#               and copies of a getelementptr of the function
#               (an address computed again where it is used instead of a phi of pointers).
#               Shown as functions passing/functions changed.
#   equiv       a file with a run specification, compiled for spir64: `reconv equiv in out` per
#               kernel with a specification (reconv's interpreter), and
#   native      `reconv equiv --native in out` (LLVM's JIT on this machine's CPU), skipped when
#               reconv has no --native.
# One row per file, then a summary line. A cell is "ok", "FAIL", "-" (does not apply) or a count
# passing/checked. Exit status 0 when every check passed, 1 when one failed, 2 on wrong usage.
# The messages of failed checks go to the log directory (--log), one file per input file.
#
# options:
#   --target T    clang's target for .cl files (default amdgcn-amd-amdhsa); .ll files keep theirs
#   --opt -ON     clang's optimisation level for .cl files (default -O2)
#   --reconv P    the reconv binary (default: `reconv` on PATH, else build/bin/reconv of this repo)
#   --table       print the rows as a Markdown table
#   --summary     print only the summary line (and failures' file names)
#   --log DIR     where failure messages go (default: a new directory under $TMPDIR or /tmp)
#   --no-equiv    skip the equiv and native columns
#   -D NAME[=V], -I DIR, --include FILE   passed to clang for .cl files
#   --timeout S   seconds per command (default 120)
#   --ll-triple T .ll files without a `target triple` get this one (amdgcn-amd-amdhsa gives LLVM's
#                 divergence analysis a target with divergence: LLVM's CFG tests have no triple)
#   --sample K/N  check only the files whose position in the sorted list is K modulo N (0 <= K < N)
set -u
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fnawk="$here/llvm-functions.awk"
insawk="$here/llvm-instructions.awk"

target=amdgcn-amd-amdhsa
olevel=-O2
reconv=
table=0
summary_only=0
logdir=
do_equiv=1
tmo=120
sample=
lltriple=
cflags=()
inputs=()
usage() { sed -n '2,/^set -u/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=${2:?}; shift 2 ;;
    --target=*) target=${1#*=}; shift ;;
    --opt) olevel=${2:?}; shift 2 ;;
    --opt=*) olevel=${1#*=}; shift ;;
    -O[0-3s]) olevel=$1; shift ;;
    --reconv) reconv=${2:?}; shift 2 ;;
    --reconv=*) reconv=${1#*=}; shift ;;
    --table) table=1; shift ;;
    --summary) summary_only=1; shift ;;
    --log) logdir=${2:?}; shift 2 ;;
    --log=*) logdir=${1#*=}; shift ;;
    --no-equiv) do_equiv=0; shift ;;
    --timeout) tmo=${2:?}; shift 2 ;;
    --sample) sample=${2:?}; shift 2 ;;
    --ll-triple) lltriple=${2:?}; shift 2 ;;
    -D|-I) cflags+=("$1${2:?}"); shift 2 ;;
    -D*|-I*) cflags+=("$1"); shift ;;
    --include) cflags+=(-include "${2:?}"); shift 2 ;;
    -h|--help) usage ;;
    -*) echo "check-llvm.sh: unknown option '$1'" >&2; exit 2 ;;
    *) inputs+=("$1"); shift ;;
  esac
done
[ ${#inputs[@]} -gt 0 ] || { echo "check-llvm.sh: no input (DIR or FILE)" >&2; exit 2; }
case "$olevel" in -O[0-3s]) ;; *) echo "check-llvm.sh: --opt must be -O0..-O3 or -Os" >&2; exit 2 ;; esac
if [ -z "$reconv" ]; then
  if command -v reconv >/dev/null 2>&1; then reconv=$(command -v reconv)
  elif [ -x "$here/../build/bin/reconv" ]; then reconv="$here/../build/bin/reconv"
  else echo "check-llvm.sh: no reconv on PATH; give --reconv PATH" >&2; exit 2; fi
fi
# shellcheck source=scripts/llvm_tools.sh
. "$here/llvm_tools.sh"
clang=$(llvm_tool "$reconv" clang)
optbin=$(llvm_tool "$reconv" opt)
for t in "$reconv" "$clang" "$optbin"; do
  command -v "$t" >/dev/null 2>&1 || { echo "check-llvm.sh: '$t' not found" >&2; exit 2; }
done
have_native=0
"$reconv" equiv --help 2>/dev/null | grep -q -- '--native' && have_native=1

files=()
for i in "${inputs[@]}"; do
  if [ -d "$i" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$i" -type f \( -name '*.cl' -o -name '*.ll' \) | sort)
  elif [ -f "$i" ]; then files+=("$i")
  else echo "check-llvm.sh: no such file or directory: $i" >&2; exit 2; fi
done
[ ${#files[@]} -gt 0 ] || { echo "check-llvm.sh: no .cl or .ll file in ${inputs[*]}" >&2; exit 2; }
if [ -n "$sample" ]; then
  case "$sample" in [0-9]*/[1-9]*) ;; *) echo "check-llvm.sh: --sample wants K/N" >&2; exit 2 ;; esac
  sk=${sample%/*}; sn=${sample#*/}
  [ "$sk" -lt "$sn" ] || { echo "check-llvm.sh: --sample K/N wants K < N" >&2; exit 2; }
  picked=()
  for i in "${!files[@]}"; do [ $((i % sn)) -eq "$sk" ] && picked+=("${files[$i]}"); done
  files=("${picked[@]}")
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/check-llvm-work.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -z "$logdir" ]; then logdir=$(mktemp -d "${TMPDIR:-/tmp}/check-llvm-log.XXXXXX"); else mkdir -p "$logdir"; fi

# totals
nfiles=0; nimported=0; nnot14=0; nverify=0; nfail_files=0
div_ok=0; div_all=0; id_ok=0; id_all=0; cfg_ok=0; cfg_all=0
eq_ok=0; eq_all=0; nat_ok=0; nat_all=0
failed=()

row() { # file imported verify divergence identical only-CFG equiv native
  [ $summary_only = 1 ] && return
  if [ $table = 1 ]; then printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@"
  else printf '%-48s %-9s %-7s %-10s %-9s %-8s %-7s %s\n' "$@"; fi
}
if [ $summary_only = 0 ]; then
  if [ $table = 1 ]; then
    echo "| file | imported | verify | divergence | identical | only-CFG | equiv | native |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
  else
    row file imported verify divergence identical only-CFG equiv native
  fi
fi

# run CMD... with the timeout; its output goes to $work/msg
run() { timeout "$tmo" "$@" >"$work/msg" 2>&1; }
# note a failure of file $f: the check's name, then the message in $work/msg
note() { { echo "== $1: $2"; cat "$work/msg"; echo; } >>"$log"; }

# "name reconverging" lines from reconv analyze --json
reconverging_of() {
  sed -n 's/^{"kernel": "\([^"]*\)".*"reconverging": \([a-z]*\),.*/\1 \2/p' "$1"
}

for f in "${files[@]}"; do
  nfiles=$((nfiles + 1))
  rel=${f#./}
  log="$logdir/$(printf '%s' "$rel" | tr '/ ' '__').log"
  rm -f "$log"
  in="$work/in.ll"; out="$work/out.ll"
  rm -f "$in" "$out"
  bad=0
  # ---- imported
  case "$f" in
    *.cl)
      if ! run "$clang" -x cl -cl-std=CL1.2 "$olevel" -target "$target" -emit-llvm -S \
            -cl-kernel-arg-info -fno-discard-value-names -gline-tables-only \
            $(case "$target" in amdgcn*|nvptx*) echo -nogpulib ;; esac) "${cflags[@]}" -o "$work/cc.ll" -- "$f"; then
        note clang "clang could not compile the file"
        row "$rel" "clang-FAIL" - - - - - -; nfail_files=$((nfail_files + 1)); failed+=("$rel"); continue
      fi
      # the run specifications, as LLVM IR comments (docs/llvm.md, "Run specifications")
      { sed -n 's|^[[:space:]]*//[[:space:]]*\(reconv-run.*\)$|; \1|p; s|^[[:space:]]*/\*[[:space:]]*\(reconv-run.*\)\*/[[:space:]]*$|; \1|p' "$f"
        cat "$work/cc.ll"; } > "$in" ;;
    *)
      if [ -n "$lltriple" ] && ! grep -q '^target triple' "$f"; then
        { echo "target triple = \"$lltriple\""; cat "$f"; } > "$in"
      else cp "$f" "$in"; fi
      if ! run "$optbin" -passes=verify -disable-output "$in"; then
        nnot14=$((nnot14 + 1)); note "not LLVM 14" "opt cannot read or verify the input"
        row "$rel" "not-LLVM14" - - - - - -; continue
      fi ;;
  esac
  # LLVM's own round trip of the input is the reference the output is compared with: LLVM 14's
  # parser resets the attributes of intrinsic declarations (it drops `mustprogress` from them),
  # which no tool that reads and writes the module can keep.
  if ! run "$optbin" -S "$in" -o "$work/ref.ll"; then
    note "opt -S" "opt cannot read the input"
    row "$rel" FAIL - - - - - -; nfail_files=$((nfail_files + 1)); failed+=("$rel"); continue
  fi
  triple=$(sed -n 's/^target triple = "\(.*\)"$/\1/p' "$in" | head -1)
  if ! run "$reconv" opt -p reconverge "$in" -o "$out"; then
    note "reconv opt -p reconverge" "import, reconverge or export failed"
    row "$rel" FAIL - - - - - -; nfail_files=$((nfail_files + 1)); failed+=("$rel"); continue
  fi
  nimported=$((nimported + 1))
  # ---- verify
  if run "$optbin" -passes=verify -disable-output "$out"; then v=ok; nverify=$((nverify + 1))
  else v=FAIL; bad=1; note verify "LLVM's verifier rejects the output"; fi
  # ---- which functions reconverge, before and after
  amd=0; case "$triple" in amdgcn*) amd=1 ;; esac
  divopt=(); [ $amd = 1 ] && divopt=(--llvm-divergence)
  if run "$reconv" analyze "${divopt[@]}" --json "$in"; then reconverging_of "$work/msg" > "$work/rin"
  else note "analyze input" "reconv analyze failed on the input"; : > "$work/rin"; bad=1; fi
  # A cross-check with LLVM's printed verdicts themselves: a function with a divergent `switch`
  # is not reconverging (Def. 15 wants two successors). (reconv's --llvm-divergence reads a
  # block's verdict from the last printed line of its terminator, which for a switch is its
  # closing `]`, so it takes every switch for uniform.)
  : > "$work/swin"; : > "$work/swout"
  if [ $amd = 1 ]; then
    divsw() { "$optbin" -passes='print<divergence>' -disable-output "$1" 2>&1 |
      awk '/^.Divergence Analysis. for function / { f = $NF; gsub(/^.|.:$/, "", f) }
           /^DIVERGENT: +switch / { print f }' | sort -u; }
    divsw "$work/ref.ll" > "$work/swin"
    divsw "$out" > "$work/swout"
    awk -v sw="$(tr '\n' ' ' < "$work/swin")" 'BEGIN { n = split(sw, a, " "); for (i = 1; i <= n; i++) s[a[i]] = 1 }
      { print $1, ($1 in s ? "false" : $2) }' "$work/rin" > "$work/rin2"
    mv "$work/rin2" "$work/rin"
  fi
  d=-
  if [ $amd = 1 ]; then
    if run "$reconv" analyze --llvm-divergence --json "$out"; then
      reconverging_of "$work/msg" | awk -v sw="$(tr '\n' ' ' < "$work/swout")" '
        BEGIN { n = split(sw, a, " "); for (i = 1; i <= n; i++) s[a[i]] = 1 }
        { print $1, ($1 in s ? "false" : $2) }' > "$work/rout"
      [ -s "$work/swout" ] && sed 's/^/a divergent switch (print<divergence>) in @/' "$work/swout" >> "$work/msg"
      n=$(wc -l < "$work/rout"); k=$(grep -c ' true$' "$work/rout")
      div_all=$((div_all + n)); div_ok=$((div_ok + k)); d="$k/$n"
      if [ "$k" != "$n" ] || [ "$n" = 0 ]; then
        bad=1; d="FAIL $k/$n"
        grep -h '"reconverging": false\|^a divergent switch' "$work/msg" | sed 's/"divergent_values".*//' > "$work/msg2"; mv "$work/msg2" "$work/msg"
        note divergence "LLVM's divergence analysis finds functions not reconverging in the output"
      fi
    else d=FAIL; bad=1; note divergence "reconv analyze --llvm-divergence failed on the output"; fi
  fi
  # ---- identical: functions reconverging in the input
  awk -f "$fnawk" "$work/ref.ll" | sort > "$work/fin"
  awk -f "$fnawk" "$out" | sort > "$work/fout"
  n=0; k=0; : > "$work/msg"
  while read -r name verdict; do
    [ "$verdict" = true ] || continue
    n=$((n + 1))
    a=$(grep -F -- "@$name	" "$work/fin"); b=$(grep -F -- "@$name	" "$work/fout")
    if [ -n "$a" ] && [ "$a" = "$b" ]; then k=$((k + 1))
    else
      echo "@$name differs:" >>"$work/msg"
      diff <(printf '%s\n' "$a" | cut -f2- | sed 's/\\n/\n/g') <(printf '%s\n' "$b" | cut -f2- | sed 's/\\n/\n/g') | head -40 >>"$work/msg"
    fi
  done < "$work/rin"
  id_all=$((id_all + n)); id_ok=$((id_ok + k)); idc="$k/$n"
  if [ "$k" != "$n" ]; then idc="FAIL $k/$n"; bad=1; note identical "functions reconverging in the input changed"; fi
  # ---- only-CFG: instruction multisets of the changed functions
  changed=$(join -t '	' -j1 <(cut -f1,2 "$work/fin") <(cut -f1,2 "$work/fout") 2>/dev/null | awk -F'\t' '$2 != $3 { print $1 }' | sort -u)
  awk -f "$insawk" "$work/ref.ll" | sort > "$work/iin"
  awk -f "$insawk" "$out" | sort > "$work/iout"
  # lines lost, and lines added that are not the negation of an i1
  { comm -23 "$work/iin" "$work/iout" | sed 's/^/lost:  /'
    comm -13 "$work/iin" "$work/iout" | grep -v -E '	(%_ = )?xor i1 %_, true$' |
      awk -F'\t' -v sw="$(awk -f "$insawk" -v switches=1 "$work/ref.ll" | tr '\n' ' ')" '
        # a divergent switch becomes a tree of compare-and-branch blocks: compares of the switch
        # condition with its case values are part of its lowering, in a function with a switch
        BEGIN { n = split(sw, a, " "); for (i = 1; i <= n; i++) has[a[i]] = 1 }
        FNR == NR { if ($2 ~ /^%_ = getelementptr /) gep[$0] = 1; next }
        ($1 in has) && $2 ~ /^%_ = icmp (eq|ne|[su](lt|le|gt|ge)) i[0-9]+ %_, -?[0-9]+$/ { next }
        ($1 in has) && $2 ~ /^%_ = or i1 %_, %_$/ { next }  # cases of one target, joined
        # an address computed again where it is used, instead of a phi of pointers
        # (src/transform/remat_addresses.c): a copy of a getelementptr of the function
        ($0 in gep) { next }
        { print }' "$work/iin" - | sed 's/^/added: /'; } > "$work/msg"
  n=$(printf '%s\n' "$changed" | grep -c .)
  badfns=$(sed 's/^[a-z]*: *//; s/	.*//' "$work/msg" | sort -u)
  nb=$(printf '%s\n' "$badfns" | grep -c .)
  # a difference outside the changed functions (the module's lines, an unchanged function) counts too
  extra=$(printf '%s\n' "$badfns" | grep -v -x -F -f <(printf '%s\n' "$changed" | grep . || echo '@@none') | grep -c .)
  cfg_all=$((cfg_all + n + extra)); cfg_ok=$((cfg_ok + n + extra - nb)); cc="$((n + extra - nb))/$((n + extra))"
  if [ "$nb" != 0 ]; then cc="FAIL $cc"; bad=1; note only-CFG "instructions other than blocks, terminators and phis changed"; fi
  # ---- equiv (spir64 with a run specification)
  e=-; nt=-
  if [ $do_equiv = 1 ] && grep -q '^; *reconv-run' "$in" && case "$triple" in spir*) true ;; *) false ;; esac; then
    kernels=$(sed -n 's/^define [^@]*spir_kernel [^@]*@\([-A-Za-z0-9._$]*\)(.*/\1/p' "$in")
    if grep -q '^; *reconv-run:' "$in"; then ks=$kernels
    else ks=$(sed -n 's/^; *reconv-run(\([^)]*\)).*/\1/p' "$in" | sort -u); fi
    en=0; ek=0; nn=0; nk=0
    for kn in $ks; do
      en=$((en + 1))
      if run "$reconv" equiv --kernel "$kn" "$in" "$out"; then ek=$((ek + 1))
      else note "equiv $kn" "reconv equiv: not equivalent, or the interpreter cannot run it"; fi
      if [ $have_native = 1 ]; then
        if run "$reconv" equiv --native --kernel "$kn" "$in" "$out"; then nn=$((nn + 1)); nk=$((nk + 1))
        elif grep -q "unknown option" "$work/msg"; then have_native=0
        else nn=$((nn + 1)); note "native $kn" "reconv equiv --native: the native runs differ, or failed"; fi
      fi
    done
    eq_all=$((eq_all + en)); eq_ok=$((eq_ok + ek)); e="$ek/$en"
    [ "$ek" != "$en" ] && { e="FAIL $e"; bad=1; }
    if [ "$nn" -gt 0 ]; then
      nat_all=$((nat_all + nn)); nat_ok=$((nat_ok + nk)); nt="$nk/$nn"
      [ "$nk" != "$nn" ] && { nt="FAIL $nt"; bad=1; }
    fi
  fi
  row "$rel" ok "$v" "$d" "$idc" "$cc" "$e" "$nt"
  if [ $bad = 1 ]; then nfail_files=$((nfail_files + 1)); failed+=("$rel"); fi
done

desc="$target $olevel${sample:+, sample $sample}"
echo "summary ($desc): $nfiles files: imported $nimported/$((nfiles - nnot14))$([ $nnot14 -gt 0 ] && echo " ($nnot14 not LLVM 14)"), verify $nverify/$nimported, divergence $div_ok/$div_all functions, identical $id_ok/$id_all, only-CFG $cfg_ok/$cfg_all, equiv $eq_ok/$eq_all, native $nat_ok/$nat_all; $nfail_files files with failures"
if [ $nfail_files -gt 0 ]; then
  [ $summary_only = 1 ] && printf '  failed: %s\n' "${failed[@]}"
  echo "messages: $logdir" >&2
  exit 1
fi
exit 0
