#!/usr/bin/env bash
# Wave-mode `reconv sim` and `reconv compare` on every function (kernels and device functions)
# of every .ll and .rir file under tests/ and examples/ (issue 29, item 1): each must end with
# exit status 0, or 1 with a message, never by a signal (a device function launched as a kernel
# once crashed them). A function without a run specification gets a small guessed one, as
# `reconv run` accepts for a device function (scripts/guess-spec.sh).
# Prints one line per offender and a summary line of counts.
set -u
functions=0 by_signal=0 silent=0 runs=0
# shellcheck source=../../../scripts/guess-spec.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/guess-spec.sh"
while IFS= read -r f; do
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    name=$(sed -E 's/^(wave )?(kernel|function [^@]*) @([^(]*)\(.*/\3/' <<< "$line")
    functions=$((functions + 1))
    spec=()
    grep -q '!run "' <<< "$line" || mapfile -t spec < <(guess_spec "$line")
    for cmd in "sim --wave 8" "compare --wave 8"; do
      runs=$((runs + 1))
      # shellcheck disable=SC2086
      # a generous limit: the sanitizer build on two loaded cores is slow (exit 124 is named)
      out=$(timeout 600 reconv $cmd --kernel "$name" "$f" "${spec[@]}" 2>&1)
      rc=$?
      if [ $rc -eq 124 ]; then
        by_signal=$((by_signal + 1)); echo "$f @$name: reconv ${cmd%% *}: timed out after 600 s"
      elif [ $rc -gt 1 ] && [ $rc -ne 2 ]; then
        by_signal=$((by_signal + 1)); echo "$f @$name: reconv ${cmd%% *}: exit $rc"
      elif [ $rc -ne 0 ] && [ -z "$out" ]; then
        silent=$((silent + 1)); echo "$f @$name: reconv ${cmd%% *}: exit $rc with no message"
      fi
    done
  done < <(reconv print "$f" 2>/dev/null | grep -E '^(wave )?(kernel|function [^@]*) @')
done < <(find tests examples \( -name '*.ll' -o -name '*.rir' \) -path "${1:-*}" | LC_ALL=C sort)
# the counts go to standard error (the golden test keeps only the verdict: the corpus grows)
echo "$functions functions, $runs runs: $by_signal ended by a signal, $silent failed without a message" >&2
if [ $by_signal -eq 0 ] && [ $silent -eq 0 ] && [ $functions -gt 0 ]; then
  echo "every function: sim and compare ended with exit status 0, or 1 and a message"
else
  exit 1
fi
