#!/usr/bin/env bash
# The nightly refresh on a real library (tools/real_targets/prepare.sh builds it and gathers its
# real inputs), in one run:
#   day 1: a cold run on 90% of the real files, --max-time DAY1 (completion is hours away on a
#          real parser; the state saved at the end is what the next night starts from);
#   fuzz:  afl-fuzz seeded with day 1's seeds for FUZZ seconds;
#   day 2: day 1's seeds + the other 10% of the files + the afl-fuzz output directory, within
#          DAY2 seconds, warm (from day 1's state, the nightly recipe) against cold (--no-state).
# Each row: wall time, executions, first-pass executions, files, bytes, labels found and
# finished, and the labels of day 2's inputs (afl-showmap -r, intended classes) the seeds keep.
#
# usage: tools/bench_nightly.sh [TARGET]   (xml json lua yaml; default xml)
# env:   CD_BUILD (./build), BENCH_DIR ($CD_BUILD/bench-real), JOBS (2), DAY1 (600), FUZZ (600),
#        DAY2 (600), REPEAT (1: day 2's pair of runs this many times, to see its spread)
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${CD_BUILD:-$SRC/build}
BIN=$BUILD/corpus-distill
BENCH=${BENCH_DIR:-$BUILD/bench-real}
JOBS=${JOBS:-2}
DAY1=${DAY1:-600}
FUZZ=${FUZZ:-600}
DAY2=${DAY2:-600}
REPEAT=${REPEAT:-1}
name=${1:-xml}
export AFL_QUIET=1 AFL_ALLOW_TMP=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_NO_UI=1
export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
unset __AFL_SHM_ID __AFL_SHM_FUZZ_ID __AFL_PERSISTENT __AFL_DEFER_FORKSRV AFL_NO_FORKSRV || true

[ -x "$BIN" ] || { echo "bench_nightly: $BIN not built (tools/setup)" >&2; exit 2; }
"$SRC/tools/real_targets/prepare.sh" "$BENCH" >/dev/null
target=$BENCH/bin/$name
[ -x "$target" ] || { echo "bench_nightly: no target '$name'" >&2; exit 2; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

now() { date +%s.%N; }
since() { echo "$(now) $1" | awk '{ printf "%.1f", $1 - $2 }'; }
row() { printf '| %s ' "$@"; printf '|\n'; }
mf() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d = d[k]
print(d)' "$1" "$2"; }

# labels DIR...: the labels of every file in the directories (afl-showmap -r, intended classes).
labels() {
    local maps
    maps=$(mktemp -d "$WORK/maps.XXXXXX")
    for d in "$@"; do
        afl-showmap -q -r -t 5000 -i "$d" -o "$maps" -- "$target" @@ >/dev/null 2>&1 || true
    done
    find "$maps" -type f -exec cat {} + | awk -F: '$1 + 0 == 0 || $2 + 0 == 0 { next }
        { c = $2 + 0; k = c >= 128 ? 8 : c >= 32 ? 7 : c >= 16 ? 6 : c >= 8 ? 5 : c >= 4 ? 4 : c
          print $1 ":" k }' | sort -u
    rm -rf "$maps"
}

# measure DAY METHOD WALL PREFIX: one row for the output PREFIX (its manifest beside it).
measure() {
    local files bytes kept
    files=$(find "$4" -type f | wc -l)
    bytes=$(find "$4" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    kept="-"
    if [ -s day2.labels ] && [ "$1" = 2 ]; then
        labels "$4" >out.labels
        kept="$(comm -12 day2.labels out.labels | wc -l) of $(wc -l <day2.labels)"
    fi
    row "$1" "$2" "$3" "$(mf "$4.manifest.json" run.executions)" \
        "$(mf "$4.manifest.json" run.first_pass_executions)" "$files" "$bytes" \
        "$(mf "$4.manifest.json" run.labels_found)" "$(mf "$4.manifest.json" run.labels_finished)" \
        "$kept" "$(mf "$4.manifest.json" state.start)"
}

mkdir tree all old new
tar --zstd -xf "$BENCH/inputs/$name.tar.zst" -C tree
while IFS= read -r -d '' f; do
    rel=${f#tree/}
    mv "$f" "all/${rel//\//_}"
done < <(find tree -type f -print0)
# Every tenth file (by name) is new on day 2.
i=0
while IFS= read -r f; do
    if [ $((i % 10)) = 9 ]; then mv "all/$f" new/; else mv "all/$f" old/; fi
    i=$((i + 1))
done < <(ls all)
echo "bench_nightly: $name, $(ls old | wc -l) files on day 1, $(ls new | wc -l) new on day 2;" \
    "day 1 ${DAY1} s, afl-fuzz ${FUZZ} s, day 2 ${DAY2} s, -j $JOBS"
echo
row day method wall_s execs first_pass_execs files bytes labels finished "day 2 input labels kept" state
row --- --- --- --- --- --- --- --- --- --- ---

start=$(now)
"$BIN" -q -j "$JOBS" --max-time "$DAY1" old -o d1/seeds -- "$target" @@ >/dev/null 2>&1 || true
measure 1 "cold, ${DAY1} s" "$(since "$start")" d1/seeds

start=$(now)
timeout $((FUZZ + 60)) afl-fuzz -V "$FUZZ" -t 5000 -i d1/seeds -o findings -- "$target" @@ \
    >afl.log 2>&1 || true
queue=$(find findings -path '*/queue/id*' -type f | wc -l)
echo "| fuzz | afl-fuzz, ${FUZZ} s | $(since "$start") | | | $queue queue entries | | | | | |"

labels d1/seeds new findings >day2.labels
for rep in $(seq "$REPEAT"); do
    for mode in warm cold; do
        rm -rf "$mode"
        mkdir "$mode"
        cp -a d1/. "$mode/"
        extra=()
        [ "$mode" = warm ] || extra=(--no-state)
        start=$(now)
        "$BIN" -q -j "$JOBS" "${extra[@]}" --max-time "$DAY2" "$mode/seeds" new findings \
            -o "$mode/seeds" -- "$target" @@ >/dev/null 2>&1 || true
        measure 2 "$mode, ${DAY2} s" "$(since "$start")" "$mode/seeds"
    done
done
