#!/usr/bin/env bash
# Regenerate golden expectations deliberately: for the given tests, or all of tests/golden.
# Review the diff (git diff tests/golden) before committing.
set -eu
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
  mapfile -t tests < <(grep -rlE 'RUN:' tests/golden --include='*.rir' --include='*.ll' \
                         --include='*.cl' --include='*.test' | sort)
else
  tests=("$@")
fi
# the environment of the tests (CMakeLists.txt): reconv's LLVM's tools first on PATH, so that an
# update with a reconv built with LLVM 19 runs clang 19 and opt 19
llvm_bindir=$(reconv --version 2>/dev/null | sed -n 's/.*tools in \(.*\))$/\1/p')
[ -n "$llvm_bindir" ] && PATH="$(dirname "$(command -v reconv)"):$llvm_bindir:$PATH"
export RECONV_BUILD_DIR="${RECONV_BUILD_DIR:-$(cd "$(dirname "$(command -v reconv)")/.." && pwd)}"
for t in "${tests[@]}"; do bash tests/golden/run.sh update "$t"; done
