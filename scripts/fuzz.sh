#!/usr/bin/env bash
# Build and run the libFuzzer harnesses of tests/fuzz (tests/fuzz/README.md).
#
#   scripts/fuzz.sh [BUILD_DIR]           every harness for FUZZ_TIME seconds (default 60): make fuzz
#   scripts/fuzz.sh --check [BUILD_DIR]   every harness on its seeds, then FUZZ_CHECK_TIME seconds
#                                         (default 3) from a fixed seed: make check
#
# FUZZ_ONLY="parse llvm" runs only those harnesses. The harnesses are built in BUILD_DIR (default
# build-fuzz) with the first of $FUZZ_CC, clang, clang-19, clang-14, clang-15 that links
# -fsanitize=fuzzer,address,undefined; the library is instrumented too (CMake -DRECONV_FUZZ=ON
# -DRECONV_SANITIZE=ON). Without such a compiler --check says so and passes (setup.sh --tests
# installs libclang-rt-19-dev, clang 19's libFuzzer); the plain run fails.
#
# Seeds: the .rir files under examples/ and tests/golden/ (fuzz_llvm: the .ll files, and the .rir
# ones exported to LLVM IR by $RECONV, default build/bin/reconv, when it is there), and
# tests/fuzz/seeds/NAME/ when there is one. A long run keeps its corpus in $FUZZ_CORPUS/NAME
# (default BUILD_DIR/corpus, outside the repository's files) and writes what it finds to
# BUILD_DIR/crashes/; the check keeps nothing. Either exits 1 when a harness finds a problem (its
# log, BUILD_DIR/NAME.log, says which input and what went wrong), 2 when a harness does not build.
set -u
cd "$(dirname "$0")/.."
check=false
if [ "${1:-}" = "--check" ]; then
  check=true
  shift
fi
build=${1:-build-fuzz}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
reconv=${RECONV:-build/bin/reconv} # a reconv CLI with the LLVM bridge, for fuzz_llvm's seeds

# ---- a compiler with libFuzzer ----
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; return (int)n & 0; }\n' \
  >"$probe/probe.c"
cc=""
for c in ${FUZZ_CC:-} clang clang-19 clang-14 clang-15; do
  command -v "$c" >/dev/null 2>&1 || continue
  if "$c" -fsanitize=fuzzer,address,undefined "$probe/probe.c" -o "$probe/probe" >/dev/null 2>&1; then
    cc=$c
    break
  fi
done
if [ -z "$cc" ]; then
  echo "fuzz.sh: no compiler links -fsanitize=fuzzer (clang with libFuzzer: Debian's libclang-rt-19-dev);" \
       "the fuzz harnesses are not built" >&2
  $check && exit 0
  exit 2
fi

# ---- build ----
if [ ! -f "$build/CMakeCache.txt" ]; then
  mkdir -p "$build"
  if ! CC=$cc cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRECONV_FUZZ=ON -DRECONV_SANITIZE=ON \
       >"$build/cmake.log" 2>&1; then
    cat "$build/cmake.log" >&2
    rm -f "$build/CMakeCache.txt"
    exit 2
  fi
fi
echo "fuzz.sh: building the harnesses with $cc in $build (log: $build/build.log)"
if ! cmake --build "$build" -j "$jobs" --target fuzzers >"$build/build.log" 2>&1; then
  grep -E 'error|Error' "$build/build.log" | head -n 20 >&2
  echo "fuzz.sh: the fuzz harnesses do not build; see $build/build.log" >&2
  exit 2
fi

# ---- run ----
shopt -s nullglob
fuzzers=("$build"/fuzz_*)
mkdir -p "$build/crashes"
status=0
for f in "${fuzzers[@]}"; do
  [ -f "$f" ] && [ -x "$f" ] || continue
  name=$(basename "$f")
  short=${name#fuzz_}
  if [ -n "${FUZZ_ONLY:-}" ] && ! [[ " $FUZZ_ONLY " == *" $short "* ]]; then continue; fi
  seeds="$build/seeds/$name"
  rm -rf "$seeds"
  mkdir -p "$seeds"
  pattern='*.rir'
  [ "$name" = fuzz_llvm ] && pattern='*.ll'
  find examples tests/golden -name "$pattern" -type f -exec cp {} "$seeds/" \; 2>/dev/null
  if [ "$name" = fuzz_llvm ] && [ -x "$reconv" ]; then # and the .rir kernels as export writes them
    while IFS= read -r rir; do
      ll="$seeds/$(tr / _ <<<"${rir%.rir}").ll"
      "$reconv" print "$rir" -o "$ll" >/dev/null 2>&1 || rm -f "$ll"
    done < <(find examples tests/golden -name '*.rir' -type f | sort)
  fi
  [ -d "tests/fuzz/seeds/$short" ] && cp "tests/fuzz/seeds/$short"/* "$seeds/" 2>/dev/null
  case "$short" in # the generator harnesses read 8 bytes: blocks-3, exits-1, loops, nesting-1,
  reconverge|linearize|wave) # irreducible|switches<<1, divergence (x%5/4), two choices; a text
    i=0                      # seed gives 62 blocks, these some other shapes
    for g in '05 00 00 00 00 04 00 10' '0d 00 02 01 00 02 01 21' '15 01 03 02 01 03 02 3f' \
             '1d 02 04 03 03 04 03 40' '09 00 01 00 02 01 04 07' '27 00 05 03 01 04 05 45' \
             '00 00 00 00 00 00 00 00' '3b 01 05 03 03 02 02 7f'; do
      printf "$(sed 's/\([0-9a-f][0-9a-f]\) */\\x\1/g' <<<"$g")" >"$seeds/gen-$i"
      i=$((i + 1))
    done ;;
  esac
  nseeds=$(find "$seeds" -type f | wc -l)
  dict=() # tests/fuzz/NAME.dict for fuzz_NAME, when there is one
  [ -f "tests/fuzz/$short.dict" ] && dict=(-dict="tests/fuzz/$short.dict")
  if $check; then
    corpus=$(mktemp -d "$probe/corpus.XXXXXX")
    time=${FUZZ_CHECK_TIME:-3}
    fixed=(-seed=1)
  else
    corpus="${FUZZ_CORPUS:-$build/corpus}/$name"
    time=${FUZZ_TIME:-60}
    fixed=()
    echo "fuzz.sh: running $name for ${time}s (corpus $corpus, $nseeds seeds)"
  fi
  mkdir -p "$corpus"
  log="$build/$name.log"
  if ! "$f" "$corpus" "$seeds" "${dict[@]}" "${fixed[@]}" -max_total_time="$time" -max_len=65536 -timeout=20 \
       -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$build/crashes/$name-" >"$log" 2>&1; then
    if grep -q 'INITED' "$log"; then
      echo "fuzz.sh: $name found a problem; see $log and $build/crashes/" >&2
    else
      echo "fuzz.sh: $name dies on its seeds ($seeds); see $log" >&2
    fi
    grep -v '^INFO\|^#[0-9]' "$log" | head -n 40 >&2
    status=1
    continue
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  final=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\)\/\([^ ]*\).*/cov \1, ft \2, corpus \3 inputs (\4)/p' \
        <<<"$final")
  if $check; then
    echo "fuzz.sh: $name: $nseeds seeds and ${time}s: ${execs:-?} executions, ${cov:-?}, no finding"
  else
    echo "fuzz.sh: $name: ${execs:-?} executions in ${time}s, ${cov:-?}, no finding"
  fi
done
exit $status
