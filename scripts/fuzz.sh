#!/usr/bin/env bash
# Run every libFuzzer harness of a fuzz build (make fuzz builds build-fuzz and calls this) for
# FUZZ_TIME seconds each (default 60), starting from a seed corpus made of the .rir files under
# examples/ and tests/golden/. The corpus grows in BUILD_DIR/corpus/NAME between runs; crashes are
# written to BUILD_DIR/crashes/ and make the script exit 1. Turn each crash into a regression test
# in tests/unit (tests/fuzz/README.md says how).
#
#   scripts/fuzz.sh [BUILD_DIR]        FUZZ_TIME=600 scripts/fuzz.sh build-fuzz
set -u
cd "$(dirname "$0")/.."
build=${1:-build-fuzz}
time=${FUZZ_TIME:-60}
jobs=${FUZZ_JOBS:-1}
shopt -s nullglob
fuzzers=("$build"/fuzz_*)
if [ ${#fuzzers[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz_* executables in $build (configure with -DRECONV_FUZZ=ON and CC=clang)" >&2
  exit 2
fi
mkdir -p "$build/crashes"
status=0
for f in "${fuzzers[@]}"; do
  [ -x "$f" ] || continue
  name=$(basename "$f")
  corpus="$build/corpus/$name"
  seeds="$build/seeds/$name"
  mkdir -p "$corpus" "$seeds"
  # the seeds are refreshed on every run so that new examples and tests join the corpus
  find examples tests/golden -name '*.rir' -type f -exec cp {} "$seeds/" \; 2>/dev/null
  dict=() # tests/fuzz/NAME.dict for fuzz_NAME, when there is one
  [ -f "tests/fuzz/${name#fuzz_}.dict" ] && dict=(-dict="tests/fuzz/${name#fuzz_}.dict")
  echo "fuzz.sh: running $name for ${time}s (corpus $corpus)"
  par=()
  [ "$jobs" -gt 1 ] && par=(-jobs="$jobs" -workers="$jobs")
  if ! "$f" "$corpus" "$seeds" "${dict[@]}" "${par[@]}" -max_total_time="$time" \
       -max_len=65536 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
       -artifact_prefix="$build/crashes/$name-" 2>"$build/$name.log"; then
    echo "fuzz.sh: $name found a problem; see $build/$name.log and $build/crashes/" >&2
    tail -n 40 "$build/$name.log" >&2
    status=1
  else
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)|cov:' "$build/$name.log" | tail -n 3
  fi
done
exit $status
