#!/usr/bin/env bash
# The one-way rule of src/ (README, "Layout"): src/ holds one folder a stage, in the order
# CMakeLists.txt lists them (CD_STAGES, then cli); a file includes by bare name only a header of its
# own folder, and by "STAGE/name" only a header of its own stage or of one before it. Nothing
# else: no "../", no folder outside that list, no source file directly under src/.
set -u
. "$(dirname "$0")/../e2e/lib.sh"
src=${CD_SRC:?CD_SRC not set}

read -r -a stages < <(sed -n 's/^set(CD_STAGES \(.*\))$/\1/p' "$src/CMakeLists.txt")
[ ${#stages[@]} -ge 2 ] || { echo "FAIL: no CD_STAGES line in CMakeLists.txt"; exit 1; }
stages+=(cli)
declare -A rank=()
for i in "${!stages[@]}"; do rank[${stages[$i]}]=$i; done

for d in "$src"/src/*; do
    name=${d##*/}
    if [ ! -d "$d" ]; then err "src/$name: a file outside every stage's folder"; continue; fi
    [ -n "${rank[$name]+x}" ] || err "src/$name: a folder that is not a stage of CD_STAGES"
done

checked=0
for f in "$src"/src/*/*.[ch]; do
    stage=${f%/*}; stage=${stage##*/}
    [ -n "${rank[$stage]+x}" ] || continue
    rel=src/$stage/${f##*/}
    while IFS= read -r inc; do
        checked=$((checked + 1))
        case $inc in
        */*/* | ../* | ./*) err "$rel includes \"$inc\": only NAME or STAGE/NAME" ;;
        */*)
            to=${inc%%/*}
            if [ -z "${rank[$to]+x}" ]; then err "$rel includes \"$inc\": no stage $to"
            elif [ "${rank[$to]}" -gt "${rank[$stage]}" ]; then
                err "$rel ($stage) includes \"$inc\" of a later stage ($to)"
            elif [ ! -f "$src/src/$inc" ]; then err "$rel includes \"$inc\", which does not exist"
            fi ;;
        *) [ -f "$src/src/$stage/$inc" ] || err "$rel includes \"$inc\" by bare name, not in src/$stage/" ;;
        esac
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done
[ "$checked" -gt 50 ] || err "only $checked includes read: the check read nothing"

# Tests and tools reach a module through its stage's folder as well.
while IFS= read -r line; do
    inc=${line#*\"}; inc=${inc%%\"*}
    case $inc in */*) [ -f "$src/src/$inc" ] || err "${line%%:*} includes \"$inc\", which does not exist" ;; esac
done < <(grep -rn --include='*.[ch]' '^#include "' "$src/tests" "$src/tools" | sed "s|^$src/||")

echo "layers: $checked includes of src/ read, stages ${stages[*]}"
[ $fail = 0 ] && echo "PASS" || exit 1
