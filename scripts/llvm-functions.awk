# Print each function definition of an LLVM IR text file as one record:
#   @FUNCTION <TAB> normalised text (lines joined by a literal "\n")
# so that two modules can be compared function by function, value and block names aside:
#   - `; preds = ...` comments and blank lines are dropped;
#   - metadata references !N are replaced by their definitions, resolved two levels deep (two
#     modules may number the same metadata differently);
#   - attribute group references #N are replaced by their contents;
#   - local value and block names (%x, %"x y", %0, and a block's label `x:`) are renamed %v1, %v2 ...
#     in order of first appearance, so a function whose values are named differently but whose
#     text is otherwise the same prints the same. Named types (%struct.S, defined at the top level
#     with `= type`) keep their names.
# Used by scripts/check-llvm.sh: `reconv opt -p reconverge` must leave every function that is
# already reconverging identical (docs/llvm.md, "The module stays the source of truth").
#   awk -f scripts/llvm-functions.awk FILE.ll
# Written for POSIX awk (mawk included): RSTART and RLENGTH are global, so each match() result is
# used before anything else can call match() again.
function resolve(s, depth,   out, id, rest) {
  out = ""
  while (match(s, /![0-9]+/)) {
    id = substr(s, RSTART + 1, RLENGTH - 1)
    out = out substr(s, 1, RSTART - 1)
    rest = substr(s, RSTART + RLENGTH) # before the recursion, which moves RSTART and RLENGTH
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
# Rename the local names of one line; `map` and `nmap` hold the function's renaming so far.
function rename(s,   out, tok, rest) {
  out = ""
  while (match(s, /%("[^"]*"|[-A-Za-z0-9._$]+)/)) {
    tok = substr(s, RSTART, RLENGTH)
    out = out substr(s, 1, RSTART - 1)
    rest = substr(s, RSTART + RLENGTH)
    if (tok in types) out = out tok
    else {
      if (!(tok in map)) map[tok] = "%v" (++nmap)
      out = out map[tok]
    }
    s = rest
  }
  return out s
}
/^%("[^"]*"|[-A-Za-z0-9._$]+) = type / { types[$1] = 1; next }
/^![0-9]+ = / { id = substr($1, 2); d = $0; sub(/^![0-9]+ = (distinct )?/, "", d); md[id] = d; next }
/^attributes #[0-9]+ = / { id = $2; d = $0; sub(/^attributes #[0-9]+ = /, "", d); attr[id] = d; next }
/^define / {
  inf = 1; name = $0; sub(/^[^@]*@/, "@", name); sub(/\(.*/, "", name) # return attributes such as range(i32 0, 8) come before @name
  nf++; names[nf] = name; nl[nf] = 1; body[nf, 1] = $0
  next
}
inf && /^}/ { inf = 0; next }
inf {
  l = $0
  sub(/[ ]*; preds = .*/, "", l)
  if (l ~ /^[ ]*$/ || l ~ /^[ ]*;/) next
  # a block label `name:` is the block's %name
  if (l ~ /^("[^"]*"|[-A-Za-z0-9._$]+):/) l = "%" l
  body[nf, ++nl[nf]] = l
}
END {
  for (f = 1; f <= nf; f++) {
    split("", map); nmap = 0
    t = ""
    for (i = 1; i <= nl[f]; i++) t = t (i > 1 ? "\\n" : "") rename(attrs(resolve(body[f, i], 2)))
    print names[f] "\t" t
  }
}
