#!/usr/bin/env bash
# For each .cl file given: compile for spir64, run every launch of `reconv equiv` once with reconv's
# interpreter and once natively (LLVM's JIT, docs/native.md), and compare the memory checksums the
# two print per run. The two share nothing but the run specification and the checksum function:
# a difference is a semantic mistake in one of them. Prints one line per file.
set -u
status=0
for f in "$@"; do
  name=$(basename "$f" .cl)
  a=$(reconv equiv --target spir64 "$f" "$f" --sizes 1,64,257 --seeds 1 2>&1 | grep -o 'checksum 0x[0-9a-f]*')
  b=$(reconv equiv --native --target spir64 "$f" "$f" --sizes 1,64,257 --seeds 1 2>&1 | grep -o 'checksum 0x[0-9a-f]*')
  if [ -z "$a" ]; then
    why=$(reconv equiv --target spir64 "$f" "$f" --sizes 64 --seeds 1 2>&1 | grep -m1 'error: ' |
          sed -e 's/.*error: //' -e 's/`.*`: /: /' -e 's/ (docs.*//')
    echo "$name: the interpreter does not run it: $why"
  elif [ "$a" = "$b" ]; then
    echo "$name: interpreter and native agree ($(echo "$a" | wc -l) runs)"
  else
    echo "$name: interpreter and native DIFFER"; status=1
  fi
done
exit $status
