#!/usr/bin/env bash
# Run every benchmark of a build (make bench): each prints its own figures. Benchmarks are never
# tests; their numbers go into reports, not into pass/fail decisions.
#   scripts/bench.sh [BUILD_DIR]
set -u
build=${1:-build}
shopt -s nullglob
status=0
for b in "$build"/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" || status=1
  echo
done
exit $status
