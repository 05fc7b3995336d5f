#!/usr/bin/env bash
# The bash completion the build generates from the option tables (build/corpus-distill.bash):
# every option --help all shows completes from its prefix, and so does every option "audit --help"
# shows after "audit"; --order offers exactly the orders the tool accepts; -o offers directories
# only, --state files; names with blanks and glob characters come whole; after "--" the first
# word is a command and the next ones offer @@.
set -u
. "$(dirname "$0")/../e2e/lib.sh"
bin=${CD_BIN:?CD_BIN not set}
script=${CD_BUILD:?CD_BUILD not set}/corpus-distill.bash
[ -s "$script" ] || { echo "FAIL: $script was not generated"; exit 1; }
# shellcheck disable=SC1090
. "$script"
complete -p corpus-distill >/dev/null 2>&1 || err "the script registers no completion"

# comp WORD...: the candidates bash would offer for the last WORD, one per line.
comp() {
    COMP_WORDS=(corpus-distill "$@")
    COMP_CWORD=$#
    COMPREPLY=()
    _corpus_distill
    printf '%s\n' "${COMPREPLY[@]}"
}

# Every option of --help's option lines (the usage lines name audit's too), completed from all
# but its last character.
opts=$("$bin" --help all | grep '^  -' | grep -oE '(^|[][ ,(|])--?[a-zA-Z][a-zA-Z-]*' | sed 's/^[][ ,(|]//' | sort -u)
[ "$(printf '%s\n' "$opts" | wc -l)" -ge 30 ] || err "too few options in --help all: $opts"
for o in $opts; do
    comp in "${o%?}" | grep -qx -- "$o" || err "option $o does not complete from '${o%?}'"
done
aopts=$("$bin" audit --help | sed -n 's/^  \(-\{1,2\}[a-zA-Z][a-zA-Z-]*\).*/\1/p' | sort -u)
[ "$(printf '%s\n' "$aopts" | wc -l)" -ge 8 ] || err "too few options in audit --help"
for o in $aopts; do
    comp audit m.json "${o%?}" | grep -qx -- "$o" || err "audit option $o does not complete"
done
comp audit m.json --s | grep -qx -- --shard && err "a run option completes after audit"

# --order: exactly the orders the parser takes.
orders=$(comp --order "" | sort)
[ "$(printf '%s\n' "$orders" | wc -l)" -ge 4 ] || err "--order offers: $orders"
for v in $orders; do
    "$bin" --order "$v" --help >/dev/null 2>&1 || err "--order offers '$v', which the tool refuses"
done

# --help: the groups it takes, each of which prints a page.
groups=$(comp --help "" | sort)
[ "$(printf '%s\n' "$groups" | wc -l)" -ge 7 ] || err "--help offers: $groups"
for g in $groups; do
    "$bin" --help "$g" >/dev/null 2>&1 || err "--help offers '$g', which the tool refuses"
done
[ "$(comp --help bu)" = budget ] || err "--help bu offers $(comp --help bu | tr '\n' ' ')"

# -o: directories only; --state: files too.
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/outdir" && : >"$tmp/outfile"
cd "$tmp" || exit 1
[ "$(comp -o out)" = outdir ] || err "-o offers $(comp -o out | tr '\n' ' ')"
[ "$(comp --state out | sort | tr '\n' ' ')" = "outdir outfile " ] ||
    err "--state offers $(comp --state out | tr '\n' ' ')"

# Names with blanks and glob characters are offered whole, as inputs and as option arguments.
mkdir "my seeds" && : >"in put*.json" && : >"in putA.json"
[ "$(comp -o my)" = "my seeds" ] || err "-o offers a split name: $(comp -o my | tr '\n' '|')"
[ "$(comp in -o s in | sort | tr '\n' '|')" = "in put*.json|in putA.json|" ] ||
    err "inputs offered split or globbed: $(comp in -o s in | tr '\n' '|')"
[ "$(comp --state 'in put*' | tr '\n' '|')" = "in put*.json|" ] ||
    err "--state offers $(comp --state 'in put*' | tr '\n' '|')"

# After "--": the target is a command, then @@ among its arguments.
comp in -o s -- bas | grep -qx bash || err "no command offered after --"
comp in -o s -- ./t @ | grep -qx @@ || err "@@ not offered as a target argument"
# After a further "--": another target, a command again.
comp in -o s -- ./t @@ -- bas | grep -qx bash || err "no command offered after a second --"

[ $fail = 0 ] && echo "ok: $(printf '%s\n' "$opts" | wc -l) options and $(printf '%s\n' \
    "$aopts" | wc -l) audit options complete"
exit $fail
