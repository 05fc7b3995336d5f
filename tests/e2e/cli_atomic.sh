#!/usr/bin/env bash
# Replacing a corpus is atomic: a run killed with SIGKILL mid-way leaves the old corpus exactly as
# it was (same files, same contents, nothing added), the next run recognises the directory as its
# own, replaces it and clears what the killed run left beside it; -o naming an input works. Two
# runs on the same -o at once: the second stops at once (exit 5, one line), the first is unharmed.
# The @@ input file a killed run left in TMPDIR is removed by the next run; a live run's is not.
# Created files honour the umask.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
corpus=${CD_SRC:?}/sample_corpora/json.tar.zst
cd_need "$target" "$corpus"
cd_scratch
snapshot() { (cd "$1" && find . -mindepth 1 | sort | xargs -r sha1sum); }

mkdir all in tmpdir && tar --zstd -xf "$corpus" -C all || exit 1
export TMPDIR=$tmp/tmpdir
# Another live process's input file, which no run may take for a leftover.
touch "tmpdir/.cd-input-$$-AbCdEf"
find all -type f | sort | head -n 10 | while read -r f; do cp "$f" in/; done

"$bin" -q -j 1 --max-execs 3000 in -o seeds -- "$target" @@
rc=$?
{ [ $rc = 0 ] || [ $rc = 1 ]; } || { echo "FAIL: first run exited $rc"; exit 1; }
before=$(snapshot seeds)
[ -n "$before" ] || err "first run wrote no seeds"

# A bigger run over the whole corpus, killed hard while it works.
"$bin" -q -j 1 all -o seeds -- "$target" @@ &
pid=$!
sleep 4
kill -9 "$pid"
wait "$pid" 2>/dev/null
[ "$(snapshot seeds)" = "$before" ] || err "the old corpus changed after SIGKILL"
ls -A tmpdir | grep -q "^\.cd-input-$pid-" || err "no input file of the killed run to clear (test premise)"

# The next run (naming the corpus as one of its inputs) replaces it and leaves nothing beside it.
"$bin" -q -j 1 --max-execs 3000 seeds in -o seeds -- "$target" @@
rc=$?
{ [ $rc = 0 ] || [ $rc = 1 ]; } || err "run after the kill exited $rc"
leftovers=$(find . -maxdepth 1 -name '.seeds.*')
[ -z "$leftovers" ] || err "left beside the corpus: $leftovers"
[ "$(ls -A tmpdir)" = ".cd-input-$$-AbCdEf" ] || err "TMPDIR after the next run: $(ls -A tmpdir)"
find seeds -mindepth 1 | grep -q . || err "corpus empty after the replacement"
find seeds -mindepth 1 -type f | sed 's|.*/||' | grep -qvE '^[0-9a-f]{40}$' && err "non-seed file in corpus"
# A second run on the same -o while one works: refused at once, whatever the first is doing.
"$bin" -q -j 1 all -o seeds -- "$target" @@ &
pid=$!
# (however slow the machine: as long as the first run lives)
while kill -0 "$pid" 2>/dev/null && [ ! -e .seeds.lock ]; do sleep 0.1; done
[ -e .seeds.lock ] || err "the first run never took its lock (premise)"
start=$(date +%s)
"$bin" -q -j 1 in -o seeds -- "$target" @@ 2>second.txt
rc=$?
[ $rc = 5 ] || err "second run on the same -o: exit $rc, expected 5"
[ $(( $(date +%s) - start )) -le 5 ] || err "second run did not stop at once"
grep -q "another corpus-distill run is writing 'seeds'" second.txt || err "message: $(cat second.txt)"
[ "$(wc -l <second.txt)" = 1 ] || err "second run's message is not one line"
kill -INT "$pid"
wait "$pid"
rc=$?
{ [ $rc = 0 ] || [ $rc = 1 ]; } || err "first run exited $rc after the second was refused"
[ ! -e .seeds.lock ] || err "lock file left after the run"
find seeds -mindepth 1 | grep -q . || err "corpus empty after the first run"
# Created files honour the umask.
(umask 077 && "$bin" -q -j 1 --max-execs 2000 in -o private -- "$target" @@)
modes=$(stat -c '%a' private private.manifest.json "$(find private -type f | head -n 1)" | sort -u)
[ "$modes" = "$(printf '600\n700')" ] || err "modes under umask 077: $(echo $modes)"
[ $fail = 0 ] && echo "ok"
exit $fail
