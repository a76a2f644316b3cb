# Sourced by the scripts that run LLVM's tools beside reconv: the clang, opt and llc to run are
# those of the LLVM reconv was built with (its `--version` names their directory), so that a
# reconv built with LLVM 19 is compared with LLVM 19's structurizer and compiles with clang 19.
#
#   llvm_tool RECONV NAME   prints the path of NAME (clang, opt, llc, ...): RECONV's LLVM's, else
#                           NAME on PATH, else NAME-14; RECONV_CLANG overrides clang

llvm_tool() {
  local reconv=$1 name=$2 dir
  if [ "$name" = clang ] && [ -n "${RECONV_CLANG:-}" ]; then echo "$RECONV_CLANG"; return; fi
  dir=$("$reconv" --version 2>/dev/null | sed -n 's/.*tools in \(.*\))$/\1/p')
  if [ -n "$dir" ] && [ -x "$dir/$name" ]; then echo "$dir/$name"
  elif command -v "$name" >/dev/null 2>&1; then echo "$name"
  else echo "$name-14"; fi
}
