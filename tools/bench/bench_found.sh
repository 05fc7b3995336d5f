#!/usr/bin/env bash
# Whether leaving found labels out of the seeds costs a fuzzing campaign anything: corpus-distill
# runs once on a real library's inputs (tools/real_targets/prepare.sh) with the default rule
# (found labels seeded only where worth their bytes) and once with --keep-found, at the same
# budget and seed; then afl-fuzz fuzzes from each output for SECONDS, TRIALS times, two campaigns
# at a time (one per seed set, so that both see the same machine). Each row: the seeds' files and
# bytes, and per trial afl-fuzz's edges_found at the end, with the median.
#
# usage: tools/bench/bench_found.sh [TARGET]   (xml, json, lua, yaml, png, cjson; default xml)
# env:   CD_BUILD (./build), BENCH_DIR ($CD_BUILD/bench-real), EXECS_PER_FILE (10),
#        SECONDS_EACH (60), TRIALS (3)
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${CD_BUILD:-$SRC/build}
BIN=$BUILD/corpus-distill
BENCH=${BENCH_DIR:-$BUILD/bench-real}
EXECS_PER_FILE=${EXECS_PER_FILE:-10}
SECONDS_EACH=${SECONDS_EACH:-60}
TRIALS=${TRIALS:-3}
name=${1:-xml}
export AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_NO_UI=1 AFL_QUIET=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
unset __AFL_SHM_ID __AFL_SHM_FUZZ_ID __AFL_PERSISTENT __AFL_DEFER_FORKSRV AFL_NO_FORKSRV || true

[ -x "$BIN" ] || { echo "bench_found: $BIN not built (tools/setup)" >&2; exit 2; }
"$SRC/tools/real_targets/prepare.sh" "$BENCH" >/dev/null
target=$BENCH/bin/$name
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/in"
tar --zstd -xf "$BENCH/inputs/$name.tar.zst" -C "$WORK/in"
n=$(find "$WORK/in" -type f | wc -l)

distill() { # distill OUT [OPTION...]
    local out=$1
    shift
    "$BIN" -q -j 2 --no-state --seed 1 --max-execs $((EXECS_PER_FILE * n)) "$@" "$WORK/in" \
        -o "$WORK/$out" -- "$target" @@ || [ $? = 1 ]
}
distill rule
distill all --keep-found

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
edges() { awk -F: '/^edges_found/ { gsub(/ /, "", $2); print $2 }' "$1/default/fuzzer_stats"; }

declare -A found
for t in $(seq 1 "$TRIALS"); do
    for kind in rule all; do
        timeout $((SECONDS_EACH + 60)) afl-fuzz -V "$SECONDS_EACH" -t 1000 -i "$WORK/$kind" \
            -o "$WORK/fuzz-$kind-$t" -- "$target" @@ >/dev/null 2>&1 &
    done
    wait
    for kind in rule all; do
        found[$kind]="${found[$kind]:-} $(edges "$WORK/fuzz-$kind-$t")"
    done
done

printf '| %s ' target seeds files bytes "labels left out" "edges_found per trial" median; printf '|\n'
printf '| %s ' --- --- --- --- --- --- ---; printf '|\n'
for kind in rule all; do
    files=$(find "$WORK/$kind" -type f | wc -l)
    bytes=$(find "$WORK/$kind" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    left=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["output"]["labels_left_out"])' \
        "$WORK/$kind.manifest.json")
    med=$(echo "${found[$kind]}" | tr ' ' '\n' | grep . | median)
    printf '| %s ' "$name" "$([ $kind = rule ] && echo default || echo --keep-found)" "$files" \
        "$bytes" "$left" "${found[$kind]# }" "$med"
    printf '|\n'
done
