# shellcheck shell=bash
# Shared by the bench scripts that drive clang and llc (bench/llc_memory.sh,
# bench/llc_calibration.sh). Sourced, not run; every name starts with bench_.
#
#   bench_find_tools PROG [need-llc]  sets reconv (kept when already set, else `reconv` on PATH,
#                                     else build/bin/reconv of this repository), clang and llc;
#                                     PROG names the script in error messages (exit 2)
#   bench_inputs PROG DIR|FILE...     sets the array bench_files to the .cl and .ll files
#                                     (directories searched recursively, sorted); exit 2 on a
#                                     missing input
#   bench_compile_cl SRC OUT [-ON [ARG..]]  clang compiles SRC for amdgcn-amd-amdhsa as reconv
#                                     does (docs/llvm.md, "Reading OpenCL C"), LLVM IR text to
#                                     OUT; ARG.. (-D, -I) go to clang
#   bench_llc IN.ll OUT.s CPU [ARG..] llc -mtriple=amdgcn-amd-amdhsa -mcpu=CPU -O2 [ARG..]
#   bench_asm_instructions FILE.s     one line per instruction of a function's body in llc's
#                                     assembly: "function opcode operands" (directives, labels
#                                     and comments aside; the body is from the function's label
#                                     to its .Lfunc_end)
#   bench_guess_spec LINE             a run specification (one option a line) for a kernel
#                                     signature line of `reconv print`: 256 work-items in groups
#                                     of 64, global buffers of 16384 small random integers, local
#                                     ones of 1024, integers 16, floats 0.5

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

bench_find_tools() {
  local prog=$1 need_llc=${2:-}
  if [ -z "${reconv:-}" ]; then
    if command -v reconv >/dev/null 2>&1; then reconv=$(command -v reconv)
    elif [ -x "$bench_dir/../build/bin/reconv" ]; then reconv="$bench_dir/../build/bin/reconv"
    else echo "$prog: no reconv on PATH; give --reconv PATH" >&2; exit 2; fi
  fi
  command -v "$reconv" >/dev/null 2>&1 || { echo "$prog: '$reconv' not found" >&2; exit 2; }
  # shellcheck source=scripts/llvm_tools.sh
  . "$bench_dir/../scripts/llvm_tools.sh"
  clang=$(llvm_tool "$reconv" clang)
  llc=$(llvm_tool "$reconv" llc)
  if [ -n "$need_llc" ]; then
    command -v "$clang" >/dev/null 2>&1 || { echo "$prog: clang not found (set RECONV_CLANG)" >&2; exit 2; }
    command -v "$llc" >/dev/null 2>&1 || { echo "$prog: llc not found (LLVM's llc, with the AMDGPU target)" >&2; exit 2; }
  fi
}

bench_inputs() {
  local prog=$1 i f; shift
  bench_files=()
  for i in "$@"; do
    if [ -d "$i" ]; then
      while IFS= read -r f; do bench_files+=("$f"); done < <(find "$i" -type f \( -name '*.cl' -o -name '*.ll' \) | LC_ALL=C sort)
    elif [ -f "$i" ]; then bench_files+=("$i")
    else echo "$prog: no such file or directory: $i" >&2; exit 2; fi
  done
}

bench_compile_cl() {
  local src=$1 out=$2 olevel=${3:--O2}
  shift $(($# < 3 ? $# : 3))
  "$clang" -x cl -cl-std=CL1.2 "$olevel" -target amdgcn-amd-amdhsa -nogpulib -emit-llvm -S \
    -cl-kernel-arg-info -fno-discard-value-names "$@" -o "$out" -- "$src"
}

bench_llc() {
  local in=$1 out=$2 cpu=$3; shift 3
  "$llc" -mtriple=amdgcn-amd-amdhsa -mcpu="$cpu" -O2 "$@" "$in" -o "$out"
}

bench_asm_instructions() {
  awk '
    /^\t\.type\t.*,@function/ { name = $2; sub(/,.*/, "", name); next }
    name != "" && $0 ~ "^" name ":" { inf = 1; next }
    inf && /^\.Lfunc_end/ { inf = 0; name = ""; next }
    inf && /^[ \t]+[a-z][a-z0-9_]*([ \t]|$)/ { sub(/^[ \t]+/, ""); sub(/[ \t]*;.*/, ""); print name, $0 }' "$1"
}

bench_guess_spec() { # bench_guess_spec LINE
  local params
  params=$(sed -E 's/^(wave )?kernel @[^(]*\((.*)\)( !run "[^"]*")? \{$/\2/' <<< "$1")
  echo "--global 256 --local 64"
  local IFS=','
  for p in $params; do
    p=${p# }
    local name=${p##*%} type=${p% %*}
    case "$type" in
      "ptr addrspace(3)") echo "--arg $name=local:i32[1024]" ;;
      ptr*) echo "--arg $name=i32[16384]:rand(7,0,15)" ;;
      f32|f64|f16) echo "--arg $name=0.5" ;;
      i*) echo "--arg $name=16" ;;
      *) echo "--arg $name=unsupported" ;;
    esac
  done
}
