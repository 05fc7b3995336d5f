#!/usr/bin/env bash
# Long tier: the nightly run feeds a campaign that keeps running. A real afl-fuzz main instance
# runs with -F seeds/ (a foreign sync directory, read again at every sync: AFL_SYNC_TIME=1 makes
# that every 30 s for a main node); while it runs, the nightly command replaces seeds/ over day 1's
# seeds plus new inputs; the instance then imports the new seeds (queue entries named
# "sync:seeds_0") and its queue shows every edge the new seeds show. Long because it waits for
# afl-fuzz's sync period (about a minute of afl-fuzz at full speed).
set -u
. "$(dirname "$0")/../e2e/lib.sh" && cd_need_afl
cd_need_cmd afl-fuzz "afl-fuzz not found"
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
corpus=${CD_SRC:?}/sample_corpora/json.tar.zst
[ -x "$target" ] && [ -f "$corpus" ] || cd_skip "sample_json or its corpus missing"
tmp=$(mktemp -d)
fz_pid=
cleanup() {
    [ -n "$fz_pid" ] && kill "$fz_pid" 2>/dev/null && wait "$fz_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1

# Day 1 on the valid records only; the new inputs of day 2 are the other kinds of document.
mkdir all day1 new && tar --zstd -xf "$corpus" -C all || exit 1
cp all/valid/* day1/
find all -type f ! -path 'all/valid/*' ! -path 'all/bugs/*' -size -8k -exec cp {} new/ \;
"$bin" -q -j 1 --max-execs 20000 day1 -o seeds -- "$target" @@
rc=$?
[ $rc -le 1 ] || { echo "FAIL: day 1 exited $rc"; exit 1; }

# The campaign: its own copy of day 1's seeds as -i, seeds/ as the foreign directory.
cp -r seeds start
AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 \
    AFL_SYNC_TIME=1 AFL_QUIET=1 afl-fuzz -M main -i start -o fz -F "$tmp/seeds" -V 240 \
    -- "$target" @@ >afl.log 2>&1 &
fz_pid=$!
for _ in $(seq 600); do
    [ -f fz/main/fuzzer_stats ] && break
    kill -0 "$fz_pid" 2>/dev/null || break
    sleep 0.2
done
[ -f fz/main/fuzzer_stats ] || { echo "FAIL: afl-fuzz did not start: $(tail -n 5 afl.log)"; exit 1; }
before=$(find fz/main/queue -name '*sync:seeds_0*' | wc -l)

# The nightly run, as the cron line and the systemd service run it: yesterday's seeds plus the
# new inputs, the same output. seeds/ is replaced whole while afl-fuzz reads it.
sleep 1 # new seeds' mtimes must pass the last import's second
"$bin" -q -j 1 --max-execs 20000 seeds new -o seeds -- "$target" @@
rc=$?
[ $rc -le 1 ] || err "the nightly run exited $rc"
# The seeds day 2 added, and their edges.
mkdir added
for f in seeds/*; do [ -e "start/${f##*/}" ] || cp "$f" added/; done
[ -n "$(ls added)" ] || err "day 2 added no seed (premise)"
EDGES=1 cd_labels added "$target" @@ >added.edges

# afl-fuzz imports them at its next sync: within its 30 s period and the 240 s run.
imported=0
for _ in $(seq 1200); do
    imported=$(find fz/main/queue -name '*sync:seeds_0*' | wc -l)
    [ "$imported" -gt "$before" ] && break
    kill -0 "$fz_pid" 2>/dev/null || break
    sleep 0.2
done
[ "$imported" -gt "$before" ] ||
    err "afl-fuzz imported nothing from the replaced seeds/ ($before before the nightly run)"
sleep 2 # let the sync in progress finish
kill "$fz_pid" 2>/dev/null
wait "$fz_pid" 2>/dev/null
fz_pid=
EDGES=1 cd_labels fz/main/queue "$target" @@ >queue.edges
missing=$(comm -23 <(sort added.edges) <(sort queue.edges) | wc -l)
[ "$(wc -l <added.edges)" -gt 0 ] || err "the added seeds show no edge (premise)"
[ "$missing" = 0 ] || err "$missing edges of the new seeds are not in afl-fuzz's queue"
[ $fail = 0 ] && echo "ok: afl-fuzz imported $((imported - before)) of the $(ls added | wc -l)" \
    "seeds the nightly run added; its queue shows all $(wc -l <added.edges) of their edges"
exit $fail
