#!/usr/bin/env bash
# -f FILE, afl's fixed input path: a target that reads one named file (its path written in its
# arguments, no @@) gives the labels and seeds the same target gives with @@; the file is made by
# the tool and gone after; a file or a link already at that path is refused (exit 3) and left as
# it was; as root, a path in another user's directory is refused (exit 5); -f with workers or several targets is a usage error; cmin -f keeps the files cmin keeps
# with @@.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=$CD_TARGETS/sample_json
corpus=$CD_SRC/sample_corpora/json.tar.zst
cd_need "$target" "$corpus"
cd_scratch
cd "$tmp" || exit 1

labels() { python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))
print(" ".join(sorted(m["labels"]))); print(" ".join(s["sha1"] for s in m["seeds"]))' "$1"; }

"$bin" -q -j 1 --no-reduce "$corpus" -o at -- "$target" @@ || err "@@ run exited $?"
"$bin" -q --no-reduce "$corpus" -o fixed -f in.json -- "$target" in.json ||
  err "-f run exited $?"
[ "$(labels at.manifest.json)" = "$(labels fixed.manifest.json)" ] ||
  err "-f gave other labels or seeds than @@"
[ "$(cd_json fixed.manifest.json settings jobs)" = 1 ] || err "-f ran more than one worker"
[ ! -e in.json ] || err "-f left its file behind"

# A reduction through the fixed file too: it ends, keeps its labels, removes the file.
"$bin" -q --max-execs 3000 "$corpus" -o reduced -f "$tmp/in2.json" -- "$target" "$tmp/in2.json"
rc=$?
{ [ $rc = 0 ] || [ $rc = 1 ]; } || err "-f reduction exited $rc"
[ ! -e in2.json ] || err "-f left its file behind after a reduction"

# A file of the user's at that path, or a link there, is never written over.
printf 'mine\n' >mine.json
"$bin" -q --no-reduce "$corpus" -o o1 -f mine.json -- "$target" mine.json 2>e1
rc=$?
[ $rc = 3 ] || err "-f over an existing file exited $rc, not 3"
grep -q "mine.json.*exists" e1 || err "no line naming the existing file: $(cat e1)"
[ "$(cat mine.json)" = mine ] || err "-f wrote over the user's file"
ln -s mine.json link.json
"$bin" -q --no-reduce "$corpus" -o o2 -f link.json -- "$target" link.json 2>/dev/null
rc=$?
[ $rc = 3 ] || err "-f through a link exited $rc, not 3"
[ "$(cat mine.json)" = mine ] && [ -L link.json ] || err "-f followed or removed a link"
mkfifo fifo.json
timeout 20 "$bin" -q --no-reduce "$corpus" -o o3 -f fifo.json -- "$target" fifo.json 2>/dev/null
rc=$?
[ $rc = 3 ] && [ -p fifo.json ] || err "-f at a FIFO: exit $rc, or the FIFO was touched"
[ ! -e o1 ] && [ ! -e o2 ] && [ ! -e o3 ] || err "a refused -f run wrote an output"

# As root, -f in a directory another user can write in is refused (exit 5) as an output there
# is: that user could swap what the target reads, or plant links.
if [ "$(id -u)" = 0 ]; then
  mkdir other && chown nobody other && chmod 755 other
  "$bin" -q --no-reduce "$corpus" -o o4 -f other/in.json -- "$target" other/in.json 2>e5
  rc=$?
  [ $rc = 5 ] && grep -q "refusing to run as root in '.*other'" e5 ||
    err "-f in another user's directory as root: exit $rc, $(cat e5)"
  [ ! -e other/in.json ] && [ ! -e o4 ] || err "a refused -f run made its file or its output"
fi

# Usage errors: one file serves one run of one target.
"$bin" -q "$corpus" -o o3 -j 2 -f x.json -- "$target" x.json 2>/dev/null
[ $? = 2 ] || err "-f with -j 2 is not a usage error"
"$bin" -q "$corpus" -o o3 -f x.json -- "$target" x.json -- "$target" @@ 2>/dev/null
[ $? = 2 ] || err "-f with two targets is not a usage error"

# cmin -f: the files cmin keeps with @@.
mkdir in && tar --zstd -xf "$corpus" -C in
"$bin" cmin -i in -o c-at -- "$target" @@ >/dev/null 2>&1 || err "cmin @@ failed"
"$bin" cmin -i in -o c-f -f "$tmp/c.json" -- "$target" "$tmp/c.json" >/dev/null 2>&1 ||
  err "cmin -f failed"
[ "$(ls c-at)" = "$(ls c-f)" ] || err "cmin -f kept other files than cmin @@"
[ ! -e c.json ] || err "cmin -f left its file behind"

[ $fail = 0 ] && echo "ok"
exit $fail
