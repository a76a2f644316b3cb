#!/usr/bin/env bash
# Golden-test runner, in the spirit of LLVM's lit: a test file carries its commands on lines
# containing "RUN:"; the runner runs each from the repository root with bash and compares their
# combined output with FILE.expected.
#
#   run.sh check FILE    exit 0 when the output matches, 1 (with a diff) when not, 77 to skip
#   run.sh update FILE   write FILE.expected from the current output (scripts/update-golden.sh)
#
# Where the output depends on the LLVM reconv was built with (LLVM IR printed, clang's code), an
# expectation for LLVM N may stand beside the default one as FILE.expected.llvmN: the runner checks
# against it when reconv's LLVM is N. FILE.expected is the output with LLVM 14 (the older of the two
# LLVMs make check tests; the default build takes LLVM 19, CMakeLists.txt); update with another LLVM
# writes FILE.expected.llvmN only where that LLVM's output differs from FILE.expected (and removes
# it where it no longer does). Update with LLVM 14 first: make update-golden BUILD=build-llvm14.
#
# In a command: %s is the test file, %S its directory, %t a scratch file path, %T a scratch dir,
# %{opaque-pointers} the flag that makes LLVM's tools read `ptr` IR (-opaque-pointers on LLVM 14,
# nothing on LLVM 15 and later, where pointers are opaque only and the flag is gone) and
# %{lower-switch} the new pass manager's name of LowerSwitch (lowerswitch on LLVM 14, lower-switch
# since LLVM 15).
# Each command's output (stdout, then stderr) is followed by "[exit N]" when N is not 0.
# "REQUIRES: llvm", "REQUIRES: llc", "REQUIRES: dot", "REQUIRES: chromium", "REQUIRES: pocl",
# "REQUIRES: oclgrind" or "REQUIRES: plugin" skip the test when reconv lacks the LLVM bridge, or
# LLVM's llc, graphviz, the chromium browser, pocl (its OpenCL platform, and reconv-ocl-runner built
# beside reconv), oclgrind (Debian's oclgrind, its oclgrind-kernel, linked with reconv's LLVM;
# "REQUIRES: oclgrind-kernel": installed, whatever its LLVM) or the LLVM pass plugin
# (lib/libreconv-plugin.so of the build, RECONV_BUILD_DIR or the one of the reconv on PATH) is missing.
set -u
mode=$1
file=$2
expected="$file.expected"
# the major version of reconv's LLVM ("reconv 0.1.0 (with llvm 19.1.7, tools in ...)"), if any
llvm_major=$(reconv --version 2>/dev/null | sed -n 's/.*with llvm \([0-9][0-9]*\)\..*/\1/p')
default_llvm=14
per_version=""
opaque_pointers_flag=""
lower_switch_pass=lower-switch
[ "$llvm_major" = 14 ] && { opaque_pointers_flag=-opaque-pointers; lower_switch_pass=lowerswitch; }
[ -n "$llvm_major" ] && [ "$llvm_major" != "$default_llvm" ] && per_version="$file.expected.llvm$llvm_major"

if grep -q 'REQUIRES:.*llvm' "$file" && ! reconv --version 2>/dev/null | grep -q 'llvm'; then
  echo "skipped: reconv was built without the LLVM bridge"; exit 77
fi
# "REQUIRES: llvm-N": reconv's LLVM is N or later (IR with an intrinsic older LLVMs do not know)
min_llvm=$(sed -n 's/.*REQUIRES:.*llvm-\([0-9][0-9]*\).*/\1/p' "$file" | head -n 1)
if [ -n "$min_llvm" ] && [ -n "$llvm_major" ] && [ "$llvm_major" -lt "$min_llvm" ]; then
  echo "skipped: needs LLVM $min_llvm or later, reconv was built with LLVM $llvm_major"; exit 77
fi
if grep -q 'REQUIRES:.*llc' "$file" && ! command -v llc >/dev/null 2>&1 && ! command -v llc-14 >/dev/null 2>&1 \
   && ! { command -v llvm-config >/dev/null 2>&1 && [ -x "$(llvm-config --bindir)/llc" ]; }; then
  echo "skipped: LLVM's llc is not installed"; exit 77
fi
if grep -q 'REQUIRES:.*dot' "$file" && ! command -v dot >/dev/null 2>&1; then
  echo "skipped: graphviz is not installed"; exit 77
fi
if grep -q 'REQUIRES:.*chromium' "$file" && ! command -v chromium >/dev/null 2>&1; then
  echo "skipped: no browser: Debian's chromium is not installed (make check installs it)"; exit 77
fi

if grep -q 'REQUIRES:.*pocl' "$file" && ! { ls /etc/OpenCL/vendors/*pocl*.icd >/dev/null 2>&1 &&
   [ -x "$(dirname "$(command -v reconv)")/reconv-ocl-runner" ]; }; then
  echo "skipped: pocl is not installed, or reconv-ocl-runner was not built (make check installs both)"; exit 77
fi

if grep -q 'REQUIRES:.*plugin' "$file" && ! [ -f "${RECONV_BUILD_DIR:-$(dirname "$(command -v reconv)")/..}/lib/libreconv-plugin.so" ]; then
  echo "skipped: the LLVM pass plugin was not built (it needs a C++ compiler and LLVM's C++ headers; docs/llvm.md)"; exit 77
fi

if grep -q 'REQUIRES:.*oclgrind' "$file" && ! command -v oclgrind-kernel >/dev/null 2>&1; then
  echo "skipped: oclgrind is not installed (make check installs it: scripts/setup.sh --tests)"; exit 77
fi
# "REQUIRES: oclgrind" also needs oclgrind to read the bitcode reconv writes: the LLVM oclgrind is
# linked with (Debian's: 14) is reconv's; "REQUIRES: oclgrind-kernel" needs the program only
oclgrind_llvm=$(ldd "$(command -v oclgrind-kernel 2>/dev/null || echo /nonexistent)" 2>/dev/null |
                sed -n 's/.*libLLVM-\([0-9][0-9]*\).*/\1/p' | head -n 1)
if grep -qE 'REQUIRES:.*oclgrind([[:space:],]|$)' "$file" && [ -n "$oclgrind_llvm" ] && [ -n "$llvm_major" ] &&
   [ "$oclgrind_llvm" != "$llvm_major" ]; then
  echo "skipped: oclgrind reads LLVM $oclgrind_llvm's bitcode, and reconv writes LLVM $llvm_major's"; exit 77
fi

tmpdir=$(mktemp -d)
trap 'rm -rf "$tmpdir"' EXIT
actual="$tmpdir/actual"
: > "$actual"
n=0
while IFS= read -r line; do
  cmd=${line#*RUN:}
  cmd=${cmd#"${cmd%%[![:space:]]*}"}
  n=$((n + 1))
  cmd=${cmd//%\{opaque-pointers\}/$opaque_pointers_flag}
  cmd=${cmd//%\{lower-switch\}/$lower_switch_pass}
  cmd=${cmd//%s/$file}
  cmd=${cmd//%S/$(dirname "$file")}
  cmd=${cmd//%t/$tmpdir/t$n}
  cmd=${cmd//%T/$tmpdir}
  bash -c "$cmd" >"$tmpdir/out" 2>"$tmpdir/err" </dev/null
  rc=$?
  cat "$tmpdir/out" "$tmpdir/err" >> "$actual"
  [ $rc -ne 0 ] && echo "[exit $rc]" >> "$actual"
done < <(grep -E 'RUN:' "$file")
if [ $n -eq 0 ]; then
  echo "$file: no RUN: line" >&2
  exit 1
fi

case "$mode" in
  update)
    if [ -n "$per_version" ] && [ -f "$expected" ]; then
      # another LLVM than the default: its own expectation only where its output differs
      if cmp -s "$actual" "$expected"; then
        [ -f "$per_version" ] && { rm -f "$per_version"; echo "removed:   $per_version (same as $expected)"; }
        echo "unchanged: $expected"
      elif [ -f "$per_version" ] && cmp -s "$actual" "$per_version"; then
        echo "unchanged: $per_version"
      else
        cp "$actual" "$per_version"
        echo "updated:   $per_version"
      fi
    elif [ -f "$expected" ] && cmp -s "$actual" "$expected"; then
      echo "unchanged: $expected"
    else
      cp "$actual" "$expected"
      echo "updated:   $expected"
    fi
    ;;
  check)
    [ -n "$per_version" ] && [ -f "$per_version" ] && expected=$per_version
    if [ ! -f "$expected" ]; then
      echo "$file: missing $expected (write it with: make update-golden TESTS=$file)" >&2
      cat "$actual"
      exit 1
    fi
    if ! diff -u "$expected" "$actual"; then
      echo "$file: output differs from $expected" >&2
      exit 1
    fi
    ;;
  *) echo "usage: run.sh check|update FILE" >&2; exit 2 ;;
esac
exit 0
