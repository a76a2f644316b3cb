#!/usr/bin/env bash
# Open a page of `reconv report` in a real browser (headless Chromium) and check it:
#
#   scripts/check-report.sh KERNEL SCREENSHOT.png [reconv options...]
#
# - the page renders without console errors (Chromium's log of the page's console);
# - every SVG on the page has a non-empty bounding box;
# - the comparison table's numbers equal those of `reconv compare --json` on the same kernel;
# - a screenshot of the page is saved (SCREENSHOT.png).
# A small checker page loads the report in a frame and writes what it measured into its own DOM,
# which Chromium prints (--dump-dom). Prints one line per check; exit status 0 when all hold.
set -u
export LC_ALL=C
kernel=${1:?usage: check-report.sh KERNEL SCREENSHOT.png [options]}
shot=${2:?usage: check-report.sh KERNEL SCREENSHOT.png [options]}
shift 2
browser=${RECONV_CHROMIUM:-chromium}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

reconv report "$kernel" "$@" -o "$work/report.html" || { echo "reconv report failed"; exit 1; }
reconv compare --json "$kernel" "$@" > "$work/compare.json" || { echo "reconv compare failed"; exit 1; }

cat > "$work/check.html" <<'EOF'
<!DOCTYPE html><html><body><iframe id="f" src="report.html" width="1400" height="900"></iframe>
<pre id="result"></pre>
<script>
document.getElementById('f').addEventListener('load', function () {
  var d = this.contentDocument, out = [];
  var svgs = d.querySelectorAll('svg'), empty = 0;
  for (var i = 0; i < svgs.length; i++) {
    var b = svgs[i].getBBox();
    if (!(b.width > 0 && b.height > 0)) empty++;
  }
  out.push('svgs ' + svgs.length + ' empty ' + empty);
  var rows = d.querySelectorAll('table.compare tr[data-strategy]');
  for (var r = 0; r < rows.length; r++) {
    var cells = rows[r].querySelectorAll('td[data-key]'), line = 'row ' + rows[r].getAttribute('data-strategy');
    for (var c = 0; c < cells.length; c++)
      if (cells[c].getAttribute('data-key') != 'simd_efficiency')
        line += ' ' + cells[c].getAttribute('data-key') + '=' + cells[c].textContent;
    out.push(line);
  }
  document.getElementById('result').textContent = out.join('\n');
});
</script></body></html>
EOF

flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --hide-scrollbars)
timeout 120 "$browser" "${flags[@]}" --allow-file-access-from-files --virtual-time-budget=10000 \
  --enable-logging=stderr --v=0 --dump-dom "file://$work/check.html" > "$work/dom.html" 2> "$work/log.txt"
# the measurements, back from the DOM
sed -n '/<pre id="result">/,/<\/pre>/p' "$work/dom.html" | sed 's/<pre id="result">//; s/<\/pre>.*//' | grep . > "$work/result.txt"
if ! grep -q '^svgs ' "$work/result.txt"; then
  echo "the checker page measured nothing (the browser did not load the report?)"
  sed -n '1,20p' "$work/log.txt"
  exit 1
fi
read -r _ nsvg _ nempty < <(grep '^svgs ' "$work/result.txt")
echo "svgs on the page: $nsvg, with an empty bounding box: $nempty"
[ "$nsvg" -gt 0 ] && [ "$nempty" = 0 ] || fail=1

# console errors: what the page logged at the error level ("CONSOLE" lines of Chromium's log)
nerr=$(grep -c 'CONSOLE' "$work/log.txt")
echo "console messages: $nerr"
[ "$nerr" = 0 ] || { grep 'CONSOLE' "$work/log.txt" | head -5; fail=1; }

# the table against compare --json: per strategy, every numeric column
keys="blocks flow_blocks vector_instructions scalar_instructions mask_instructions issued_instructions blocks_entered duplicate_blocks"
sed 's/}, {/}\n{/g' "$work/compare.json" | while IFS= read -r obj; do
  name=$(printf '%s' "$obj" | sed -n 's/.*"name": "\([^"]*\)".*/\1/p')
  [ -n "$name" ] || continue
  line="row $name"
  for key in $keys; do
    v=$(printf '%s' "$obj" | sed -n "s/.*\"$key\": \([0-9]*\).*/\1/p")
    [ -n "$v" ] && line="$line $key=$v"
  done
  echo "$line"
done | sort > "$work/expected_rows.txt"
grep '^row ' "$work/result.txt" | sed 's/ flow_blocks=/ flow_blocks=/' | while IFS= read -r l; do
  # the page's cells in compare --json's key order
  name=${l#row }; name=${name%% *}
  out="row $name"
  for key in $keys; do
    v=$(printf '%s\n' "$l" | tr ' ' '\n' | sed -n "s/^$key=//p")
    [ -n "$v" ] && out="$out $key=$v"
  done
  echo "$out"
done | sort > "$work/page_rows.txt"
nrows=$(grep -c . "$work/expected_rows.txt")
if cmp -s "$work/expected_rows.txt" "$work/page_rows.txt"; then
  echo "table rows equal to compare --json: $nrows of $nrows"
else
  echo "table rows differ from compare --json:"
  diff "$work/expected_rows.txt" "$work/page_rows.txt" | head -10
  fail=1
fi

mkdir -p "$(dirname "$shot")"
timeout 120 "$browser" "${flags[@]}" --window-size=1400,3000 --screenshot="$shot" "file://$work/report.html" \
  > /dev/null 2>&1
if [ -s "$shot" ]; then echo "screenshot saved"; else echo "no screenshot"; fail=1; fi
exit $fail
