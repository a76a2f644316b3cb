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
for t in "${tests[@]}"; do bash tests/golden/run.sh update "$t"; done
