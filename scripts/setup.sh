#!/usr/bin/env bash
# Install what reconv needs and is missing, from Debian's packages; does nothing when all is there.
# Needed: a C compiler, make, cmake. Wanted: LLVM 19's development files, clang 19 and its tools
# (the LLVM bridge, OpenCL kernels; Debian 12 and 13 both have them), a C++ compiler (the opt
# plugin), graphviz (SVG pictures), valgrind (memory checks); with --tests also LLVM 14 and clang 14
# (make check runs the suite with LLVM 14 too, where Debian has it: 12 does), chromium
# (the report page's browser test), pocl with the OpenCL headers (the pocl row of
# `reconv compare --native`, a peer on this CPU), oclgrind (`reconv equiv --oclgrind`, a third
# oracle) and clang's libFuzzer (the fuzz harnesses).
set -u
missing=()
need() { # need COMMAND PACKAGE
  command -v "$1" >/dev/null 2>&1 || missing+=("$2")
}
need cc gcc
need make make
need cmake cmake
need bash bash
# LLVM N: its C API headers (llvm-N-dev), clang-N and its tools (opt-N, llc-N: llvm-N)
want_llvm() {
  [ -e "$(llvm-config-"$1" --includedir 2>/dev/null)/llvm-c/Core.h" ] || missing+=("llvm-$1-dev")
  need "clang-$1" "clang-$1"
  need "opt-$1" "llvm-$1"
}
want_llvm 19
need c++ g++
# the suite on LLVM 14 too (make check), where this Debian has it (Debian 12 does): installed on
# its own below, so that a Debian without it still gets the rest
if [ "${1:-}" = "--tests" ]; then
  main=("${missing[@]}"); missing=()
  want_llvm 14
  llvm14=("${missing[@]}"); missing=("${main[@]}")
else
  llvm14=()
fi
need dot graphviz
need valgrind valgrind
# only the tests need a browser (the report page's test opens it): `setup.sh --tests`, as make check
[ "${1:-}" = "--tests" ] && need chromium chromium
# and pocl, the OpenCL runtime for CPUs that compare --native measures against: its ICD, and the
# headers reconv-ocl-runner is built with
# and libFuzzer for clang 19, which the fuzz harnesses link (make check runs them on their seeds)
# (clang installed along with it in the same step comes without it: --no-install-recommends)
if [ "${1:-}" = "--tests" ] && { ! command -v clang-19 >/dev/null 2>&1 ||
   ! ls "$(clang-19 -print-resource-dir 2>/dev/null)"/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1; }; then
  missing+=(libclang-rt-19-dev)
fi
if [ "${1:-}" = "--tests" ]; then
  [ -e /usr/include/CL/cl.h ] || missing+=(ocl-icd-opencl-dev)
  ls /etc/OpenCL/vendors/*pocl*.icd >/dev/null 2>&1 || missing+=(pocl-opencl-icd)
  need oclgrind-kernel oclgrind
fi
if [ ${#missing[@]} -eq 0 ] && [ ${#llvm14[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "setup: not root and no sudo; please install: ${missing[*]} ${llvm14[*]}" >&2
  fi
fi
export DEBIAN_FRONTEND=noninteractive
updated=false
install() { # install WHAT PACKAGE...: apt-get install, after apt-get update when the lists lack one
  local what=$1; shift
  echo "setup: installing missing packages ($what): $*"
  $sudo apt-get install -y --no-install-recommends "$@" && return 0
  if ! $updated; then
    updated=true
    $sudo apt-get update -q && $sudo apt-get install -y --no-install-recommends "$@" && return 0
  fi
  return 1
}
if [ ${#missing[@]} -gt 0 ] && ! install "reconv's needs" "${missing[@]}"; then
  echo "setup: could not install ${missing[*]}; continuing with what is there" >&2
fi
if [ ${#llvm14[@]} -gt 0 ] && ! install "LLVM 14, for make check's second LLVM" "${llvm14[@]}"; then
  echo "setup: could not install ${llvm14[*]}; make check runs the suite with LLVM 19 only" >&2
fi
# the build itself cannot go on without a compiler, make and cmake
for c in cc make cmake; do
  command -v "$c" >/dev/null 2>&1 || { echo "setup: $c is required" >&2; exit 1; }
done
exit 0
