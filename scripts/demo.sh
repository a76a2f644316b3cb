#!/usr/bin/env bash
# reconv's main job on a bundled example: read a kernel, check it, and draw its CFG.
set -euo pipefail
reconv=${1:-build/bin/reconv}
cd "$(dirname "$0")/.."
example=examples/thesis/fig4_8a.rir
out=demo-out
mkdir -p "$out"
echo "== reconv verify $example"
"$reconv" verify "$example"
echo "== reconv print $example"
"$reconv" print "$example"
"$reconv" dot "$example" -o "$out/fig4_8a.dot"
if command -v dot >/dev/null 2>&1; then
  dot -Tsvg "$out/fig4_8a.dot" -o "$out/fig4_8a.svg"
  echo "== CFG picture: $out/fig4_8a.svg"
else
  echo "== CFG picture: $out/fig4_8a.dot (install graphviz for SVG)"
fi
