#!/usr/bin/env bash
# Wave-mode `reconv sim` and `reconv compare` on every function (kernels and device functions)
# of every .ll and .rir file under tests/ and examples/ (issue 29, item 1): each must end with
# exit status 0, or 1 with a message, never by a signal (a device function launched as a kernel
# once crashed them). A function without a run specification gets a small guessed one, as
# `reconv run` accepts for a device function: buffers of i32 for pointers, 3 for integers.
# Prints one line per offender and a summary line of counts.
set -u
functions=0 by_signal=0 silent=0 runs=0
guess() { # guess SIGNATURE-LINE: --global and an --arg per parameter
  local params
  params=$(sed -E 's/^(wave )?(kernel|function [^@]*) @[^(]*\((.*)\)( !run "[^"]*")? \{$/\3/' <<< "$1")
  echo "--global 8 --local 4"
  local IFS=','
  for p in $params; do
    p=${p# }
    local name=${p##*%} type=${p% %*}
    case "$type" in
      "ptr addrspace(3)") echo "--arg $name=local:i32[64]" ;;
      ptr*) echo "--arg $name=i32[64]:rand(7,0,7)" ;;
      f16|f32|f64) echo "--arg $name=0.5" ;;
      *) echo "--arg $name=3" ;;
    esac
  done
}
while IFS= read -r f; do
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    name=$(sed -E 's/^(wave )?(kernel|function [^@]*) @([^(]*)\(.*/\3/' <<< "$line")
    functions=$((functions + 1))
    spec=()
    grep -q '!run "' <<< "$line" || read -r -a spec <<< "$(guess "$line" | tr '\n' ' ')"
    for cmd in "sim --wave 8" "compare --wave 8"; do
      runs=$((runs + 1))
      # shellcheck disable=SC2086
      out=$(timeout 60 reconv $cmd --kernel "$name" "$f" "${spec[@]}" 2>&1)
      rc=$?
      if [ $rc -gt 1 ] && [ $rc -ne 2 ]; then
        by_signal=$((by_signal + 1)); echo "$f @$name: reconv ${cmd%% *}: exit $rc"
      elif [ $rc -ne 0 ] && [ -z "$out" ]; then
        silent=$((silent + 1)); echo "$f @$name: reconv ${cmd%% *}: exit $rc with no message"
      fi
    done
  done < <(reconv print "$f" 2>/dev/null | grep -E '^(wave )?(kernel|function [^@]*) @')
done < <(find tests examples \( -name '*.ll' -o -name '*.rir' \) -path "${1:-*}" | LC_ALL=C sort)
echo "$functions functions, $runs runs: $by_signal ended by a signal, $silent failed without a message"
[ $by_signal -eq 0 ] && [ $silent -eq 0 ]
