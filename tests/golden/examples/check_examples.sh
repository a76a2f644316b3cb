#!/usr/bin/env bash
# Checks every example kernel under examples/ (found by glob, so new examples are covered without
# editing this file). Run from the repository root by the golden tests in this directory.
#
#   check_examples.sh verify   each example verifies, and printing what `reconv print` wrote gives
#                              the same text again (print(parse(print(x))) == print(x))
#   check_examples.sh run      each example runs with its own !run specification at 1, 64 and 4096
#                              work-items without a fault (the buffers follow the launch: COUNT N)
#
# One line per example; the exit status is 1 when any example fails.
set -u
mode=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
mapfile -t files < <(find examples -name '*.rir' | LC_ALL=C sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "no examples found under examples/" >&2
  exit 1
fi
for f in "${files[@]}"; do
  case "$mode" in
    verify)
      if ! reconv verify -q "$f" 2>"$tmp/err"; then
        echo "$f: FAILED to verify"; cat "$tmp/err"; status=1; continue
      fi
      if ! reconv print "$f" -o "$tmp/p1.rir" 2>"$tmp/err" ||
         ! reconv print "$tmp/p1.rir" -o "$tmp/p2.rir" 2>>"$tmp/err"; then
        echo "$f: FAILED to print"; cat "$tmp/err"; status=1; continue
      fi
      if ! cmp -s "$tmp/p1.rir" "$tmp/p2.rir"; then
        echo "$f: print round trip differs"; diff -u "$tmp/p1.rir" "$tmp/p2.rir" | head -20
        status=1; continue
      fi
      echo "$f: valid, print round trip identical"
      ;;
    run)
      ok=1
      for n in 1 64 4096; do
        if ! reconv run "$f" --global "$n" >"$tmp/out" 2>&1; then
          echo "$f: FAULT with $n work-items"; tail -5 "$tmp/out"; ok=0; status=1; break
        fi
      done
      [ $ok = 1 ] && echo "$f: runs at 1, 64 and 4096 work-items"
      ;;
    *)
      echo "usage: check_examples.sh verify|run" >&2
      exit 2
      ;;
  esac
done
exit $status
