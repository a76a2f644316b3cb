# Print every instruction of every function of an LLVM IR text file that is not a phi or a
# terminator, one per line: "@function<TAB>instruction", with metadata references !N replaced by
# their definitions (two levels deep), attribute groups #N by their contents, and value names by %_
# (a use SSA repair routed through a new phi names another value), so that two modules that number
# them differently print the same. Sorted, the lines of an input and of reconv's output must be the
# same multiset: reconv changes only blocks, terminators and phis (docs/llvm.md).
# Each function's `define` line (its attributes, parameters and metadata) is printed as one more
# line of the function, and the module's declarations and global variables as lines of "<module>",
# so that a change to them shows too.
#   awk -f scripts/llvm-instructions.awk FILE.ll | sort
# With -v switches=1 it prints instead the names of the functions that contain a `switch`.
# The instructions reconv may add (the negation of a flow condition, `xor i1 %_, true`) are the
# caller's business: scripts/check-llvm.sh allows those as extra lines of the output.
function resolve(s, depth,   out, id, rest) {
  out = ""
  while (match(s, /![0-9]+/)) {
    id = substr(s, RSTART + 1, RLENGTH - 1)
    out = out substr(s, 1, RSTART - 1)
    rest = substr(s, RSTART + RLENGTH) # RSTART and RLENGTH are global: the recursion changes them
    if (depth > 0 && (id in md)) out = out "{" resolve(md[id], depth - 1) "}"
    else out = out "!?"
    s = rest
  }
  return out s
}
function attrs(s,   out, id, rest) {
  out = ""
  while (match(s, /#[0-9]+/)) {
    id = substr(s, RSTART, RLENGTH)
    out = out substr(s, 1, RSTART - 1)
    rest = substr(s, RSTART + RLENGTH)
    out = out "[" attr[id] "]"
    s = rest
  }
  return out s
}
/^![0-9]+ = / { id = substr($1, 2); d = $0; sub(/^![0-9]+ = (distinct )?/, "", d); md[id] = d; next }
/^attributes #[0-9]+ = / { id = $2; d = $0; sub(/^attributes #[0-9]+ = /, "", d); attr[id] = d; next }
/^define / {
  inf = 1; name = $0; sub(/^[^@]*@/, "@", name); sub(/\(.*/, "", name) # return attributes such as range(i32 0, 8) come before @name
  l = $0; sub(/ *\{ *$/, "", l)
  gsub(/%[-A-Za-z0-9._$]+/, "%_", l)
  gsub(/%"[^"]*"/, "%_", l)
  lines[++n] = name "\t" l
  next
}
/^(declare |@)/ { lines[++n] = "<module>\t" $0; next }
inf && /^}/ { inf = 0; next }
inf && /^  / {
  l = $0
  sub(/^  */, "", l)
  if (switches && l ~ /^switch /) { if (!(name in sw)) print name; sw[name] = 1 }
  if (l ~ /^%[^ ]+ = phi / || l ~ /^(br|switch|ret|unreachable|indirectbr|resume) / || l == "ret void" || l == "unreachable") next
  if (l ~ /^\]/ || l ~ /^i[0-9]+ /) next # the case lines of a switch
  gsub(/%[-A-Za-z0-9._$]+/, "%_", l)
  gsub(/%"[^"]*"/, "%_", l)
  n++
  lines[n] = name "\t" l
}
END { if (!switches) for (i = 1; i <= n; i++) print attrs(resolve(lines[i], 2)) }
