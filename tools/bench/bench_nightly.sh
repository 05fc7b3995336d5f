#!/usr/bin/env bash
# The nightly refresh, in one run, on real files:
#   day 1:  a cold run on 90% of the files, to completion (or DAY1 seconds when DAY1 > 0: on the
#           real libraries of tools/real_targets completion is hours away);
#   resume: the same run again, killed with SIGKILL just after the first checkpoint past half of
#           day 1's wall time, then started again with the same command until it ends; its
#           executions (the state's count: the kill comes within moments of a checkpoint, so
#           hardly any work is lost uncounted) against day 1's;
#   fuzz:   afl-fuzz seeded with day 1's seeds for FUZZ seconds;
#   day 2:  day 1's seeds + the other 10% of the files + the afl-fuzz output directory, warm (from
#           day 1's state: the nightly recipe) against cold (--no-state), each to completion (or
#           DAY2 seconds), REPEAT times.
# Each row: wall time, executions, first-pass executions, files, bytes, labels found and finished,
# and the labels of day 2's inputs (afl-showmap -r, intended classes) that the seeds and the
# reproducers keep.
#
# usage: tools/bench/bench_nightly.sh [CORPUS]
#        json-real (default): the sample JSON parser on the 2,279 real .json files of at most
#          1 MiB in Debian's python3-botocore and node-caniuse-db (apt-get download);
#        xml json lua yaml: the real libraries and files of tools/real_targets/prepare.sh.
# env:   CD_BUILD (./build), BENCH_DIR ($CD_BUILD/bench-real), JOBS (2), DAY1 (0), FUZZ (600),
#        DAY2 (0), CAP (7200: most seconds of a run "to completion"), CHECKPOINT (5), REPEAT (1)
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib.sh
. "$SRC/tools/lib.sh"
BUILD=${CD_BUILD:-$SRC/build}
BIN=$BUILD/corpus-distill
BENCH=${BENCH_DIR:-$BUILD/bench-real}
JOBS=${JOBS:-2}
DAY1=${DAY1:-0}
FUZZ=${FUZZ:-600}
DAY2=${DAY2:-0}
CAP=${CAP:-7200}
CHECKPOINT=${CHECKPOINT:-5}
REPEAT=${REPEAT:-1}
name=${1:-json-real}
export AFL_QUIET=1 AFL_ALLOW_TMP=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_NO_UI=1
export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
unset __AFL_SHM_ID __AFL_SHM_FUZZ_ID __AFL_PERSISTENT __AFL_DEFER_FORKSRV AFL_NO_FORKSRV || true

[ -x "$BIN" ] || { echo "bench_nightly: $BIN not built (tools/setup)" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

mkdir "$WORK/tree"
if [ "$name" = json-real ]; then
    target=$BUILD/targets/sample_json
    mkdir "$WORK/deb"
    for p in python3-botocore node-caniuse-db; do
        (cd "$WORK/deb" && apt-get download "$p" >/dev/null 2>&1) ||
            { echo "bench_nightly: apt-get download $p failed" >&2; exit 2; }
        dpkg-deb -x "$WORK/deb/$p"_*.deb "$WORK/deb/x"
    done
    (cd "$WORK/deb/x" && find . -name '*.json' -size -1025k -exec cp --parents {} "$WORK/tree" \;)
    rm -rf "$WORK/deb"
else
    "$SRC/tools/real_targets/prepare.sh" "$BENCH" >/dev/null
    target=$BENCH/bin/$name
    tar --zstd -xf "$BENCH/inputs/$name.tar.zst" -C "$WORK/tree"
fi
[ -x "$target" ] || { echo "bench_nightly: no target for '$name'" >&2; exit 2; }
cd "$WORK"

now() { cd_now; }
since() { cd_since "$1"; }
row() { printf '| %s ' "$@"; printf '|\n'; }
mf() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d = d[k]
print(d)' "$1" "$2"; }
# budget SECONDS: the options of a run "to completion" (capped) or of a time budget
budget() { if [ "$1" -gt 0 ]; then echo "--max-time $1"; else echo "--max-time $CAP"; fi; }
# state_execs FILE: the executions a state file counts (its header: magic, version, 0, two
# strings, runs, executions)
state_execs() {
    python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
at = 16
for _ in range(2):
    (n,) = struct.unpack_from('<I', b, at)
    at += 4 + n
print(struct.unpack_from('<Q', b, at + 8)[0])
EOF
}

# labels DIR...: the labels of every file in the directories (afl-showmap -r, intended classes).
labels() {
    local maps
    maps=$(mktemp -d "$WORK/maps.XXXXXX")
    for d in "$@"; do
        afl-showmap -q -r -t 5000 -i "$d" -o "$maps" -- "$target" @@ >/dev/null 2>&1 || true
    done
    find "$maps" -type f -exec cat {} + | cd_classify | sort -u
    rm -rf "$maps"
}

# measure DAY METHOD WALL PREFIX [EXECS]: one row for the output PREFIX (its manifest beside it).
measure() {
    local files bytes kept
    files=$(find "$4" -type f | wc -l)
    bytes=$(find "$4" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    kept="-"
    if [ -s day2.labels ] && [ "$1" = 2 ]; then
        # a label only crashing inputs show is kept by a reproducer, beside the seeds
        labels "$4" "$4.crashes" >out.labels
        kept="$(comm -12 day2.labels out.labels | wc -l) of $(wc -l <day2.labels)"
    fi
    row "$1" "$2" "$3" "${5:-$(mf "$4.manifest.json" run.executions)}" \
        "$(mf "$4.manifest.json" run.first_pass_executions)" "$files" "$bytes" \
        "$(mf "$4.manifest.json" run.labels_found)" "$(mf "$4.manifest.json" run.labels_finished)" \
        "$kept" "$(mf "$4.manifest.json" state.start); $(mf "$4.manifest.json" run.complete)"
}

mkdir all old new
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
    "day 1 $([ "$DAY1" -gt 0 ] && echo "${DAY1} s" || echo "to completion"), afl-fuzz ${FUZZ} s," \
    "day 2 $([ "$DAY2" -gt 0 ] && echo "${DAY2} s" || echo "to completion"), -j $JOBS"
echo
row day method wall_s execs first_pass_execs files bytes labels finished "day 2 input labels kept" \
    "state; complete"
row --- --- --- --- --- --- --- --- --- --- ---

# shellcheck disable=SC2046
start=$(now)
"$BIN" -q -j "$JOBS" $(budget "$DAY1") old -o d1/seeds -- "$target" @@ >/dev/null 2>&1 || true
wall1=$(since "$start")
measure 1 cold "$wall1" d1/seeds

# Killed halfway (just after a checkpoint), then resumed with the same command.
half=$(awk -v w="$wall1" 'BEGIN { printf "%d", w / 2 }')
cmd=("$BIN" -q -j "$JOBS" --checkpoint "$CHECKPOINT" $(budget "$DAY1") old -o k/seeds -- "$target" @@)
start=$(now)
"${cmd[@]}" >/dev/null 2>&1 &
pid=$!
sleep "$half"
mark=$(date +%s.%N)
while kill -0 "$pid" 2>/dev/null; do
    if [ -f k/seeds.state ] && [ "$(stat -c %.9Y k/seeds.state)" \> "$mark" ]; then
        kill -9 "$pid"
        break
    fi
    sleep 0.02
done
wait "$pid" 2>/dev/null || true
killed=$(since "$start")
at_kill=$(state_execs k/seeds.state)
start=$(now)
"${cmd[@]}" >/dev/null 2>&1 || true
measure 1 "killed at ${killed} s ($at_kill execs), resumed" "$(awk -v a="$killed" -v b="$(since "$start")" \
    'BEGIN { printf "%.1f", a + b }')" k/seeds "$(state_execs k/seeds.state)"

start=$(now)
timeout $((FUZZ + 120)) afl-fuzz -V "$FUZZ" -t 5000 -i d1/seeds -o findings -- "$target" @@ \
    >afl.log 2>&1 || true
queue=$(find findings -path '*/queue/id*' -type f | wc -l)
row fuzz "afl-fuzz, ${FUZZ} s" "$(since "$start")" "" "" "$queue in its queue" "" "" "" "" ""

labels d1/seeds new findings >day2.labels
for rep in $(seq "$REPEAT"); do
    for mode in warm cold; do
        rm -rf "$mode"
        mkdir "$mode"
        cp -a d1/. "$mode/"
        extra=()
        [ "$mode" = warm ] || extra=(--no-state)
        start=$(now)
        # shellcheck disable=SC2046
        "$BIN" -q -j "$JOBS" "${extra[@]}" $(budget "$DAY2") "$mode/seeds" new findings \
            -o "$mode/seeds" -- "$target" @@ >/dev/null 2>&1 || true
        measure 2 "$mode" "$(since "$start")" "$mode/seeds"
    done
done
