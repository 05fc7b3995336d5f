#!/usr/bin/env bash
# A non-empty directory corpus-distill did not write is never replaced without --force: exit 5, a
# clear message, the directory untouched and nothing left beside it; --force replaces it and moves
# the old one aside. A file another tool wrote into our own directory under a seed's name (as
# libFuzzer does) is never deleted: the run refuses, unless the directory is also an input. The
# root and the home directory are refused even with --force.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
cd_need "$target"
cd_scratch

mkdir in mine && printf '{"a": [1, 2]}' >in/a.json && printf '[]' >in/b.json
echo "my notes" >mine/notes.txt
"$bin" -q in -o mine -- "$target" @@ 2>err.txt
rc=$?
[ $rc = 5 ] || err "foreign dir: exit $rc, expected 5"
grep -q "refusing to replace 'mine'.*(--force moves it aside)" err.txt || err "message: $(cat err.txt)"
[ "$(ls -A mine)" = "notes.txt" ] && [ "$(cat mine/notes.txt)" = "my notes" ] || err "foreign dir touched"
[ -z "$(find . -maxdepth 1 -name '.mine.*')" ] || err "temp dir left beside"
[ ! -e mine.manifest.json ] || err "manifest written for a refused run"

# Files named like seeds do not make it ours without our manifest naming it.
mkdir hexes && echo x >hexes/0123456789abcdef0123456789abcdef01234567
"$bin" -q in -o hexes -- "$target" @@ 2>/dev/null
rc=$?
[ $rc = 5 ] || err "hex-named foreign dir: exit $rc, expected 5"

# A plain file is refused even with --force.
echo data >afile
"$bin" -q --force in -o afile -- "$target" @@ 2>/dev/null
rc=$?
[ $rc = 5 ] || err "plain file: exit $rc, expected 5"
[ "$(cat afile)" = data ] || err "plain file touched"

"$bin" -q --force in -o mine -- "$target" @@ 2>err.txt
rc=$?
{ [ $rc = 0 ] || [ $rc = 1 ]; } || err "--force: exit $rc"
[ ! -e mine/notes.txt ] || err "--force kept the foreign file in the corpus"
aside=$(find . -maxdepth 1 -name 'mine.replaced-*')
[ -n "$aside" ] && [ "$(cat "$aside/notes.txt")" = "my notes" ] || err "--force lost the old directory"
grep -q "moved it to '.*mine.replaced-" err.txt || err "--force message: $(cat err.txt)"
# ... and now it is ours: a rerun without --force is allowed.
"$bin" -q in -o mine -- "$target" @@
rc=$?
{ [ $rc = 0 ] || [ $rc = 1 ]; } || err "rerun on our own dir: exit $rc"
# Another tool's find in our directory, under a SHA-1 name: never deleted.
find_name=0123456789abcdef0123456789abcdef01234567
printf '{"found": [true]}' >mine/$find_name
printf '{"b": {}}' >in/c.json
"$bin" -q in -o mine -- "$target" @@ 2>err.txt
rc=$?
[ $rc = 5 ] || err "unlisted file: exit $rc, expected 5"
grep -q "1 file in it (first '$find_name')" err.txt || err "unlisted message: $(cat err.txt)"
[ "$(wc -l <err.txt)" = 1 ] || err "unlisted message is not one line"
[ "$(cat mine/$find_name)" = '{"found": [true]}' ] || err "unlisted file lost"
# ... and with the directory as an input too, the file is an input and is counted.
"$bin" --json-summary in mine -o mine -- "$target" @@ >sum.json 2>err.txt
rc=$?
{ [ $rc = 0 ] || [ $rc = 1 ]; } || err "directory as input: exit $rc"
grep -q '"unlisted_inputs": 1' sum.json || err "summary: $(cat sum.json)"
grep -q "1 file in 'mine' that its manifest did not list was taken as input" err.txt ||
    err "unlisted count line: $(cat err.txt)"
# The root and the home directory are never an output, not even with --force (which would move
# them aside with everything in them).
mkdir home && printf keep >home/file
for out in / home; do
  HOME=$PWD/home "$bin" -q --force in -o "$out" -- "$target" @@ 2>err.txt
  rc=$?
  [ $rc = 5 ] || err "-o $out --force: exit $rc, expected 5"
  grep -q "refusing to write seeds to '$out'" err.txt || err "-o $out: $(cat err.txt)"
done
[ "$(cat home/file)" = keep ] && [ "$(ls -A home)" = file ] || err "the home directory changed"
[ $fail = 0 ] && echo "ok"
exit $fail
