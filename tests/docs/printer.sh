#!/usr/bin/env bash
# One printer: every byte the command line puts on the terminal goes through src/cli/cli_msgs.c
# (cli_msg, cli_warn, cli_line, cli_status, the JSON printers, cli_text for our own help and
# completion text), which shows paths as given and escapes what a file, a manifest or a target
# could have put in a value. Any other file of src/cli/ calling stdio's printers directly fails
# this test (cli_audit_html.c writes files, through its HTML escaper, and stays out of it).
set -u
. "$(dirname "$0")/../e2e/lib.sh"
src=${CD_SRC:?CD_SRC not set}/src/cli
n=0
for f in "$src"/*.c; do
    case ${f##*/} in cli_msgs.c|cli_audit_html.c) continue ;; esac
    n=$((n + 1))
    hits=$(grep -nE '(^|[^a-z_])(printf|puts|putchar|vprintf|fprintf|vfprintf)\(|(^|[^a-z_])(fputs|fputc|putc|fwrite)\([^;]*\b(stdout|stderr)\b' "$f")
    [ -z "$hits" ] || err "${f##*/} prints past the printer: $(head -n 3 <<<"$hits")"
done
[ "$n" -gt 10 ] || err "only $n files of src/cli read (premise)"
# The printer itself: a line with an escape in a value comes out escaped.
out=$("${CD_BIN:?}" restore --list "$(printf 'x\033[2Jy')" 2>&1)
grep -q $'\033' <<<"$out" && err "a path with an escape reached the terminal raw: $(cat -v <<<"$out")"
[ $fail = 0 ] && ok "src/cli prints through the printer alone ($n files)"
exit $fail
