#!/usr/bin/env bash
# Install what reconv needs and is missing, from Debian's packages; does nothing when all is there.
# Needed: a C compiler, make, cmake. Wanted: LLVM's development files and clang (the LLVM bridge,
# OpenCL kernels), graphviz (SVG pictures), valgrind (memory checks); with --tests also chromium
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
if ! { command -v llvm-config >/dev/null 2>&1 || command -v llvm-config-14 >/dev/null 2>&1; } ||
   ! [ -e "$( (llvm-config --includedir || llvm-config-14 --includedir) 2>/dev/null)/llvm-c/Core.h" ]; then
  missing+=(llvm-dev)
fi
need clang clang
need opt llvm
need dot graphviz
need valgrind valgrind
# only the tests need a browser (the report page's test opens it): `setup.sh --tests`, as make check
[ "${1:-}" = "--tests" ] && need chromium chromium
# and pocl, the OpenCL runtime for CPUs that compare --native measures against: its ICD, and the
# headers reconv-ocl-runner is built with
# and libFuzzer for clang 14, which the fuzz harnesses link (make check runs them on their seeds)
# (clang installed along with it in the same step comes without it: --no-install-recommends)
if [ "${1:-}" = "--tests" ] && { ! command -v clang >/dev/null 2>&1 ||
   ! ls "$(clang -print-resource-dir 2>/dev/null)"/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1; }; then
  missing+=(libclang-rt-14-dev)
fi
if [ "${1:-}" = "--tests" ]; then
  [ -e /usr/include/CL/cl.h ] || missing+=(ocl-icd-opencl-dev)
  ls /etc/OpenCL/vendors/*pocl*.icd >/dev/null 2>&1 || missing+=(pocl-opencl-icd)
  need oclgrind-kernel oclgrind
fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing missing packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "setup: not root and no sudo; please install: ${missing[*]}" >&2
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y --no-install-recommends "${missing[@]}"; then
  $sudo apt-get update -q && $sudo apt-get install -y --no-install-recommends "${missing[@]}" ||
    echo "setup: could not install ${missing[*]}; continuing with what is there" >&2
fi
# the build itself cannot go on without a compiler, make and cmake
for c in cc make cmake; do
  command -v "$c" >/dev/null 2>&1 || { echo "setup: $c is required" >&2; exit 1; }
done
exit 0
