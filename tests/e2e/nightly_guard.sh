#!/usr/bin/env bash
# A night never makes the corpus worse. In the nightly pattern (-q, the seed directory also an
# input), after a good first night: a rebuild that aborts on every input, one that stops after
# the first byte and a forgotten @@ (a target that reads only the file its argument names) are
# each refused with exit 7 and one line under -q naming the cause and the figures, yesterday's
# seeds, reproducers, manifest and state byte for byte as they were, the night's output in
# seeds.rejected; a missing input ends the run before anything is written (exit 4) unless marked
# optional; the next good night runs, keeps the night it replaced as a generation, and restore
# puts that back whole; --accept-collapse takes a collapse; a cold run whose every input crashes
# writes nothing where -o points; --tar keeps its archive; cmin warns of the same traces as
# afl-cmin does.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
good=${CD_TARGETS:?}/night_good
abort=$CD_TARGETS/night_abort
early=$CD_TARGETS/night_early
corpus=${CD_SRC:?}/sample_corpora/http.tar.zst
cd_need "$good" "$abort" "$early" "$corpus"
cd_scratch

mkdir all in findings && tar --zstd -xf "$corpus" -C all || exit 1
# 80 inputs, a handful of seconds a night anywhere; executions bound the runs, never time.
find all -type f | sort | head -n 80 | while read -r f; do cp "$f" in/; done
find all -type f | sort | sed -n '81,100p' | while read -r f; do cp "$f" findings/; done
# Every file the output is made of, with its bytes: seeds, reproducers, manifest, state.
snap() {
    (for d in seeds seeds.crashes; do [ -d $d ] && find $d -type f; done
     ls seeds.manifest.json seeds.state) | sort | xargs sha1sum
}
night() { "$bin" -q -j 1 --max-execs 3000 "$@"; }

cp "$good" target
night in -o seeds -- ./target @@ 2>day1.err
rc=$?
[ $rc -le 1 ] || err "the good first night exited $rc: $(cat day1.err)"
[ -s day1.err ] && err "the good first night printed under -q: $(cat day1.err)"
seeds=$(ls seeds | wc -l)
[ "$seeds" -gt 10 ] || err "the good first night kept $seeds seeds (premise)"
snap >day1.snap

# refused NAME EXPECTED-TEXT TARGET ARGS...: a night in the nightly pattern that must be refused.
refused() {
    local name=$1 text=$2
    shift 2
    cp "$1" target
    shift
    night --json-summary seeds findings -o seeds -- ./target "$@" >"$name.json" 2>"$name.err"
    local rc=$?
    [ $rc = 7 ] || err "$name: exit $rc, expected 7 (a refused collapse)"
    [ "$(wc -l <"$name.err")" = 1 ] || err "$name: stderr under -q is not one line: $(cat "$name.err")"
    grep -q "refused: $text" "$name.err" || err "$name: no '$text' in: $(cat "$name.err")"
    grep -q "the last $seeds seeds in 'seeds' kept; this run's output is in 'seeds.rejected'" \
        "$name.err" || err "$name: the line does not say what was kept: $(cat "$name.err")"
    snap | cmp -s - day1.snap || err "$name: yesterday's output changed"
    [ -f seeds.rejected/manifest.json ] || err "$name: no manifest in seeds.rejected"
    [ -d seeds.rejected/seeds ] || err "$name: no seed directory in seeds.rejected"
    ok "$name: refused, yesterday's output byte for byte"
}
refused abort "every one of [0-9]* inputs crashed or hung on './target' (crash:SIGABRT)" \
    "$abort" @@
[ "$(cd_json abort.json guard)" = crashes ] || err "abort: --json-summary guard $(cd_json abort.json guard)"
[ "$(cd_json abort.json exit_code)" = 7 ] || err "abort: --json-summary exit_code $(cd_json abort.json exit_code)"
[ "$(cd_json seeds.rejected/manifest.json run guard)" = crashes ] ||
    err "abort: the rejected manifest's run.guard is $(cd_json seeds.rejected/manifest.json run guard)"
refused early "the new seeds show [0-9]* edges\? on './target' against [0-9]* the last seeds showed" \
    "$early" @@
[ "$(cd_json early.json guard)" = edges ] || err "early: --json-summary guard $(cd_json early.json guard)"
refused noargs "every one of [0-9]* inputs showed the same labels on './target': its arguments hold no @@ and it never read its standard input" \
    "$good"
[ "$(cd_json noargs.json guard)" = same-traces ] || err "noargs: guard $(cd_json noargs.json guard)"

# A missing operand (an unmounted findings directory): exit 4 before anything is written.
cp "$good" target
rm -rf seeds.rejected
night seeds findings gone -o seeds -- ./target @@ 2>missing.err
rc=$?
[ $rc = 4 ] || err "missing input: exit $rc, expected 4"
grep -q "input 'gone': No such file or directory" missing.err || err "missing input: $(cat missing.err)"
snap | cmp -s - day1.snap || err "missing input: yesterday's output changed"
[ -e seeds.rejected ] && err "missing input: something was written"
# ... marked optional in --inputs-from: a warning under -q, and the night runs.
printf 'findings\n?gone\n' >list
night seeds --inputs-from list -o seeds -- ./target @@ 2>optional.err
rc=$?
[ $rc -le 1 ] || err "optional input: exit $rc: $(cat optional.err)"
grep -q "warning: optional input 'gone' skipped" optional.err || err "optional input: $(cat optional.err)"

# That good night replaced day 1, kept as the one generation; restore puts day 1 back whole.
[ "$(ls seeds.generations | wc -l)" = 1 ] || err "generations after the good night: $(ls seeds.generations)"
snap >day2.snap
cmp -s day1.snap day2.snap && err "the good night changed nothing (premise)"
"$bin" restore --list seeds >list.out || err "restore --list exited $?"
grep -q "seeds" list.out || err "restore --list: $(cat list.out)"
"$bin" restore -q seeds || err "restore exited $?"
snap | cmp -s - day1.snap || err "restore did not put day 1 back byte for byte"
"$bin" restore -q seeds || err "a second restore exited $?"
snap | cmp -s - day2.snap || err "a second restore did not undo the first"
ok "a good night runs, its predecessor kept; restore and its undo"

# --accept-collapse: a harness rewritten on purpose.
cp "$abort" target
night --accept-collapse --json-summary seeds findings -o seeds -- ./target @@ >accept.json 2>accept.err
rc=$?
[ $rc -le 1 ] || err "--accept-collapse: exit $rc: $(cat accept.err)"
grep -q "taken all the same (--accept-collapse)" accept.err || err "--accept-collapse: $(cat accept.err)"
[ "$(cd_json accept.json guard_accepted)" = True ] || err "--accept-collapse: guard_accepted $(cd_json accept.json guard_accepted)"
[ "$(ls seeds | wc -l)" = 0 ] || err "--accept-collapse: the crashing night's seeds were not taken"
"$bin" restore -q seeds && snap | cmp -s - day2.snap || err "restore after an accepted collapse"

# No yesterday: a cold run whose every input crashes writes nothing where -o points.
cp "$abort" target
night in -o cold -- ./target @@ 2>cold.err
rc=$?
[ $rc = 7 ] || err "cold crashing run: exit $rc"
grep -q "nothing written to 'cold'" cold.err || err "cold crashing run: $(cat cold.err)"
[ -e cold ] && err "cold crashing run: 'cold' was written"

# --tar: the archive stays, the night's goes aside as seeds.rejected/seeds.tar.zst.
cp "$good" target
night --tar in -o t -- ./target @@ 2>/dev/null
sum=$(sha1sum t.tar.zst t.manifest.json)
cp "$early" target
night --tar t.tar.zst findings -o t -- ./target @@ 2>tar.err
rc=$?
[ $rc = 7 ] || err "--tar: a night of the early build exited $rc: $(cat tar.err)"
[ "$(sha1sum t.tar.zst t.manifest.json)" = "$sum" ] || err "--tar: the archive or manifest changed"
[ -f t.rejected/seeds.tar.zst ] || err "--tar: no t.rejected/seeds.tar.zst"

# A manifest and a state named elsewhere: restore takes the same options and puts them back.
cp "$good" target
night in -o r --manifest r-m.json --state r-st -- ./target @@ 2>/dev/null
sum=$(sha1sum r-m.json r-st)
night r findings -o r --manifest r-m.json --state r-st -- ./target @@ 2>/dev/null
[ "$(sha1sum r-m.json r-st)" != "$sum" ] || err "a second night changed nothing (premise)"
"$bin" restore -q --manifest r-m.json --state r-st r || err "restore --manifest --state exited $?"
[ "$(sha1sum r-m.json r-st)" = "$sum" ] || err "restore did not put back the manifest and state named elsewhere"

# cmin with a forgotten @@: afl-cmin's warning, with the reason.
cp "$good" target
"$bin" cmin -i in -o cmin_out -- ./target >cmin.out 2>cmin.err
grep -q "showed the same labels.*@@" cmin.err || err "cmin: no same-traces warning: $(cat cmin.err)"
exit $fail
