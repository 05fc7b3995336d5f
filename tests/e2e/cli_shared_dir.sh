#!/usr/bin/env bash
# A run over a directory others may write in: links planted where the tool expects its own lock,
# reproducer directory, seed directory, manifest or state, and FIFOs there, are refused with one
# line naming them, and nothing is created or written through them; another user's lock or old
# corpus aside is not taken as ours; the sweep of stale temp files neither follows a planted
# directory link nor removes another user's files; audit --html previews an example only when it
# is the regular file the manifest names (a link to a secret, a FIFO, a file of other bytes are
# not shown, and the report still ends); --inputs-from and --target-from take paths with blanks
# and glob characters whole; a link, a FIFO or another user's directory planted where the run keeps
# its generations or a refused night's output is refused, the output kept; as root, a directory
# another user owns is refused unless
# --allow-root, and so is one any directory on the way up to "/" lets another user decide (theirs,
# writable by others, or sticky with the output still to be made); a symbolic link of another
# user's in an output's path is refused.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_bugs
[ -x "$target" ] || cd_skip "sample_bugs not built"
cd_scratch
# refused WHAT PATTERN COMMAND...: exits 5 with one line on stderr that matches PATTERN
refused() {
  local what=$1 pat=$2 rc
  shift 2
  "$@" >out.txt 2>err.txt
  rc=$?
  if [ $rc != 5 ]; then
    err "$what: exit $rc, not 5: $(head -c 300 err.txt)"
  elif ! grep -q -- "$pat" err.txt; then
    err "$what: the message does not say '$pat': $(head -c 300 err.txt)"
  else
    ok "$what: refused ($(tail -n 1 err.txt | head -c 150))"
  fi
}

mkdir in elsewhere camp
printf 'echo:hello' >in/a
printf 'name:abcdefghijklmnopqrstuvwxyz' >in/b    # a heap overflow in sample_bugs
printf 'num:12345' >in/c
run() { "$bin" -q -j 1 --max-execs 600 "$@"; }

# 1. A link as the lock: the run neither creates nor opens what it points to.
ln -s "$tmp/elsewhere/nologin" camp/.seeds.lock
refused "a link as the lock" "symbolic link" run in -o camp/seeds -- "$target" @@
[ ! -e elsewhere/nologin ] || err "the lock link's target was created"
[ ! -e camp/seeds ] || err "a refused run wrote seeds"
rm camp/.seeds.lock

# 1b. A FIFO as the lock, and links and FIFOs as the manifest and the state: refused, nothing
#     read from or written through them.
mkfifo camp/.seeds.lock
refused "a FIFO as the lock" "not a regular file" run in -o camp/seeds -- "$target" @@
rm camp/.seeds.lock
for f in seeds.manifest.json seeds.state; do
    ln -s "$tmp/elsewhere/$f" "camp/$f"
    refused "a link as $f" "$f" run in -o camp/seeds -- "$target" @@
    [ ! -e "elsewhere/$f" ] || err "$f was written through its link"
    rm "camp/$f" && mkfifo "camp/$f"
    refused "a FIFO as $f" "$f" timeout 60 "$bin" -q -j 1 --max-execs 600 in -o camp/seeds -- "$target" @@
    rm "camp/$f"
done

# 2. A link as the reproducer directory: refused before the run, nothing written there, and a
#    stale temp file in the linked directory survives the sweep.
ln -s "$tmp/elsewhere" camp/seeds.crashes
printf 'x' >elsewhere/.victim.tmp-abcdef
touch -d '2 hours ago' elsewhere/.victim.tmp-abcdef
refused "a link as the reproducer directory" "seeds.crashes" run in -o camp/seeds -- "$target" @@
[ -z "$(ls elsewhere | grep -v nologin)" ] || err "files written through the link: $(ls elsewhere)"
[ -e elsewhere/.victim.tmp-abcdef ] || err "the sweep removed a temp file through the link"
rm camp/seeds.crashes

# 3. A link as the seed directory is refused and what it points to stays as it was.
ln -s "$tmp/elsewhere" camp/seeds
refused "a link as the seed directory" "camp/seeds" run in -o camp/seeds -- "$target" @@
[ "$(ls -A elsewhere)" = ".victim.tmp-abcdef" ] || err "the seed link's target changed: $(ls -A elsewhere)"
rm camp/seeds

# 4. A clean run; then another user's stale temp file in the reproducer directory stays (as
#    root only: a file can be given away).
run in -o camp/seeds -- "$target" @@
[ $? -le 1 ] || err "clean run failed"
[ -n "$(ls camp/seeds.crashes 2>/dev/null)" ] || err "no reproducer written"
if [ "$(id -u)" = 0 ]; then
    printf 'x' >camp/seeds.crashes/.other.tmp-ghijkl
    chown nobody camp/seeds.crashes/.other.tmp-ghijkl
    touch -d '2 hours ago' camp/seeds.crashes/.other.tmp-ghijkl
    printf 'x' >camp/seeds.crashes/.mine.tmp-mnopqr
    touch -d '2 hours ago' camp/seeds.crashes/.mine.tmp-mnopqr
    run in -o camp/seeds -- "$target" @@
    [ -e camp/seeds.crashes/.other.tmp-ghijkl ] || err "the sweep removed another user's file"
    [ ! -e camp/seeds.crashes/.mine.tmp-mnopqr ] || err "the sweep left a stale temp file of ours"
    ok "the sweep removes only this user's stale temp files"
    # another user's lock, and another user's old corpus aside (never put back as ours)
    : >camp/.seeds.lock && chown nobody camp/.seeds.lock
    refused "another user's lock" "not a regular file of this user's" run in -o camp/seeds -- "$target" @@
    rm camp/.seeds.lock
    mv camp/seeds camp/seeds.mine && mkdir camp/.seeds.old-abcdef && chown nobody camp/.seeds.old-abcdef
    : >camp/.seeds.old-abcdef/planted
    run in -o camp/seeds -- "$target" @@
    [ ! -e camp/seeds/planted ] || err "another user's directory was put back as the corpus"
    [ -e camp/.seeds.old-abcdef/planted ] || err "another user's directory was removed"
    rm -rf camp/seeds camp/.seeds.old-abcdef && mv camp/seeds.mine camp/seeds
else
    echo "not root: another user's file in the sweep not checked"
fi

# 5. audit --html previews only the examples the manifest names, as they are.
printf 'TOP-SECRET-KEY\n' >secret
cp -r camp rep
seed=$(ls rep/seeds | head -n 1)
repro=$(ls rep/seeds.crashes | grep -v '^\.' | head -n 1)
rm "rep/seeds/$seed" && ln -s "$tmp/secret" "rep/seeds/$seed"
rm "rep/seeds.crashes/$repro" && mkfifo "rep/seeds.crashes/$repro"
timeout 60 "$bin" audit rep/seeds.manifest.json --html rep/report >out.txt 2>err.txt
rc=$?
[ $rc = 0 ] || err "audit --html with a link and a FIFO exited $rc: $(head -c 300 err.txt)"
if grep -rq "TOP-SECRET" rep/report; then
    err "the report shows a file a seed's link points to"
else
    ok "audit --html: a link and a FIFO under example names are not previewed, the report ends"
fi
grep -q "symbolic link" "rep/report/seed-$seed.html" || err "the seed's page does not say why it shows no preview"
cp -r camp rep2 && rm -rf rep2/seeds.crashes
timeout 60 "$bin" audit rep2/seeds.manifest.json --html rep2/report >out.txt 2>err.txt ||
    err "audit --html without a reproducer directory exited $?"
grep -q "Preview</h2><p>none: cannot read" rep2/report/crashes.html ||
    err "without a reproducer directory the report does not say why it shows no preview"
# A seed whose bytes are not the ones the manifest names is not shown either.
cp -r camp rep3
seed=$(ls rep3/seeds | head -n 1)
printf 'OTHER-BYTES' >"rep3/seeds/$seed.x" && truncate -s "$(stat -c %s "rep3/seeds/$seed")" "rep3/seeds/$seed.x"
mv "rep3/seeds/$seed.x" "rep3/seeds/$seed"
"$bin" audit rep3/seeds.manifest.json --html rep3/report >out.txt 2>err.txt || err "audit --html exited $?"
if grep -q "OTHER-BYTES" "rep3/report/seed-$seed.html"; then
    err "the report previews a file whose content is not the seed's"
else
    ok "a file of other bytes under a seed's name is not previewed"
fi

# 6. Lists without word splitting: an input and a target path with blanks and a '*'.
mkdir "in put*" "tgt dir"
printf 'echo:from the list' >"in put*/x"
cp "$target" "tgt dir/the target"
printf '# the inputs\n%s\n\n%s\n' "$tmp/in put*" "$tmp/in" >inputs.txt
printf '%s\n@@\n' "$tmp/tgt dir/the target" >target.txt
run --inputs-from inputs.txt --target-from target.txt -o lists -- || true
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["input"]["inputs"])' lists.manifest.json 2>/dev/null)
[ "${n:-0}" = 4 ] && ok "--inputs-from and --target-from keep names whole" ||
    err "--inputs-from/--target-from: ${n:-no} inputs taken, expected 4"
"$bin" --inputs-from inputs.txt -o lists2 -- -- "$target" @@ >out.txt 2>err.txt
[ $? = 2 ] || err "an empty target between two '--' is not a usage error"

# 6b. What a run keeps beside its output (DIR.generations, the outputs it replaced; DIR.rejected,
#     a refused night's output): a link, a FIFO or another user's directory planted there is
#     refused with one line, nothing goes through it, and the output stays as it was.
mkdir keep beyond && run in -o keep/seeds -- "$target" @@
sums() { (cd keep && find seeds seeds.manifest.json seeds.state -type f | sort | xargs sha1sum); }
sums >keep.sums
printf 'echo:another night' >in/d # something new, so that the night replaces the output
planted() { # planted NAME WHAT COMMAND...: refused, output unchanged, nothing in beyond/
    local name=$1 what=$2
    shift 2
    refused "$what as keep/$name" "$name" "$@"
    sums | cmp -s - keep.sums || err "$what as keep/$name: the output changed"
    [ -z "$(ls -A beyond)" ] || err "$what as keep/$name: written through: $(ls -A beyond)"
    rm -rf "keep/$name"
}
ln -s "$tmp/beyond" keep/seeds.generations
planted seeds.generations "a link" run in keep/seeds -o keep/seeds -- "$target" @@
mkfifo keep/seeds.generations
planted seeds.generations "a FIFO" timeout 60 "$bin" -q -j 1 in -o keep/seeds -- "$target" @@
# A night refused (a target that crashes on every input) meets the same at DIR.rejected.
crasher=${CD_TARGETS:?}/night_abort
if [ -x "$crasher" ]; then
    ln -s "$tmp/beyond" keep/seeds.rejected
    if [ "$(id -u)" = 0 ]; then chown -h nobody keep/seeds.rejected; fi
    planted seeds.rejected "a link" run keep/seeds -o keep/seeds -- "$crasher" @@
    mkfifo keep/seeds.rejected
    planted seeds.rejected "a FIFO" timeout 60 "$bin" -q -j 1 keep/seeds -o keep/seeds -- "$crasher" @@
fi
if [ "$(id -u)" = 0 ]; then
    mkdir keep/seeds.generations && chown nobody keep/seeds.generations
    planted seeds.generations "another user's directory" run in keep/seeds -o keep/seeds -- "$target" @@
fi
rm in/d

# 7. As root, another user's directory is refused unless --allow-root.
if [ "$(id -u)" = 0 ]; then
    mkdir other && chown nobody other
    refused "root in another user's directory" "allow-root" run in -o other/seeds -- "$target" @@
    [ ! -e other/seeds ] || err "a refused root run wrote seeds"
    run --allow-root in -o other/seeds -- "$target" @@
    [ $? -le 1 ] || err "--allow-root run failed"
    # A link another user planted where the output's path has a directory yet to be made.
    mkdir shared && chmod 1777 shared && mkdir victim
    ln -s "$tmp/victim" shared/new && chown -h nobody shared/new
    refused "another user's link in the output's path" "symbolic link of another user's" \
        run --allow-root in -o shared/new/seeds -- "$target" @@
    [ -z "$(ls -A victim)" ] || err "files written through another user's link: $(ls -A victim)"
    # Any directory on the way, up to "/", whether the output exists yet or not: another
    # user's two levels up, one others can write in, a sticky one where the rest is still to be
    # made (another user could make it first); a sticky one over a directory of root's is safe.
    mkdir -p other/deep && chown root other/deep
    refused "root under another user's directory, two levels up" "run as root in '$tmp/other'" \
        run in -o other/deep/new/seeds -- "$target" @@
    [ ! -e other/deep/new ] || err "a refused root run made directories"
    mkdir -p ww/x && chmod 777 ww
    refused "root under a directory others can write" "run as root in '$tmp/ww'" \
        run in -o ww/x/seeds -- "$target" @@
    refused "root where others can make the output's directory first" "run as root in '$tmp/shared'" \
        run in -o shared/notyet/seeds -- "$target" @@
    mkdir shared/roots
    run in -o shared/roots/seeds -- "$target" @@
    [ $? -le 1 ] || err "root under a sticky directory, in a directory of its own, was refused"
else
    echo "not root: the root refusal not checked"
fi

[ $fail = 0 ] && echo "ok: nothing planted beside the output is followed"
exit $fail
