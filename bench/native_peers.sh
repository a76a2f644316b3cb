#!/usr/bin/env bash
# The measured comparison (issue 27): bench_native_peers on the bundled kernels, the team's corpus,
# and, when given, a public kernel suite checked out outside the repository (Rodinia's OpenCL
# kernels, run with guessed specifications and the -D its makefiles pass).
#
#   bench/native_peers.sh [--build DIR] [--waves 8,16,32] [--repeat R] [--out DIR] [--suite DIR] [--fit]
#                         [--vector-math]
#
# Prints bench_native_peers' tables for each set, and writes the scatter plots (issued against
# time, one SVG per wave size and set) into --out (default: a temporary directory, printed). --fit
# also fits the cost model's host weights to the clock (docs/cost.md, "Two machines");
# --vector-math gives the wave rows libmvec's math, as pocl has its own.
# Figures only: nothing here passes or fails on a timing.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build waves=8,16,32 repeat=5 out="" suite="" fit=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --waves) waves=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --suite) suite=$2; shift 2 ;;
    --fit) fit="$fit --fit"; shift ;;
    --vector-math) fit="$fit --vector-math"; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "native_peers.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
bench=$build/bench/bench_native_peers
if [ ! -x "$bench" ]; then
  echo "native_peers.sh: $bench is not built (make build)" >&2
  exit 2
fi
[ -n "$out" ] || out=$(mktemp -d /tmp/reconv-native-peers.XXXXXX)
mkdir -p "$out"
common=(--waves "$waves" --repeat "$repeat" $fit)
status=0

echo "==== bundled kernels (examples/kernels)"
"$bench" "${common[@]}" --out "$out/examples" "$here/examples/kernels" || status=1
echo
echo "==== DARM's examples (examples/darm: melding on the clock, DARM's Fig. 7)"
"$bench" "${common[@]}" --out "$out/darm" "$here/examples/darm" || status=1
echo
echo "==== the team's corpus (tests/corpus), kernels with a run specification"
"$bench" "${common[@]}" --out "$out/corpus" "$here/tests/corpus" || status=1
if [ -n "$suite" ]; then
  echo
  echo "==== public suite: $suite (guessed specifications)"
  # the block sizes Rodinia's host programs pass with -D
  "$bench" "${common[@]}" --out "$out/suite" --guess-spec -D BLOCK_SIZE=16 -D RD_WG_SIZE=64 \
    -D RD_WG_SIZE_0=64 -D RD_WG_SIZE_0_0=64 -D BSIZE=16 -D TILE=16 "$suite" || status=1
fi
echo
echo "scatter plots: $out"
exit $status
