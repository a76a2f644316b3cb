# A small run specification guessed from a signature line of `reconv print` (sourced by scripts
# that run functions nobody wrote a specification for: tests/golden/compare/every_function.sh,
# scripts/check-llvm-tests.sh). `--global 8 --local 4`, then per parameter: a buffer of 64 i32 of
# small random values for a pointer (a local buffer in address space 3), 0.5 for a float, B (default
# 1) for an i1, 3 for another integer. One word a line.
guess_spec() { # guess_spec SIGNATURE-LINE [B]
  local params
  params=$(sed -E 's/^(wave )?(kernel|function [^@]*) @[^(]*\((.*)\)( !run "[^"]*")? \{$/\3/' <<< "$1")
  echo "--global"; echo 8; echo "--local"; echo 4
  local IFS=','
  for p in $params; do
    p=${p# }
    local name=${p##*%} type=${p% %*}
    echo "--arg"
    case "$type" in
      "ptr addrspace(3)") echo "$name=local:i32[64]" ;;
      ptr*) echo "$name=i32[64]:rand(7,0,7)" ;;
      f16|f32|f64) echo "$name=0.5" ;;
      i1) echo "$name=${2:-1}" ;;
      *) echo "$name=3" ;;
    esac
  done
}
