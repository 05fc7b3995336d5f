#!/usr/bin/env bash
# Worker scaling: corpus-distill at -j 1 and -j 2 on the same inputs and target, with the same
# execution budget (--max-execs), then three small inputs run to completion (at most 300 s). Reports wall
# time, executions and executions per second from each run's manifest.
#
# usage: tools/bench_workers.sh [CORPUS]   (json, png or http; default json)
# env:   CD_BUILD (build dir, default ./build), EXECS (budget, default 20000), JOBS ("1 2")
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${CD_BUILD:-$SRC/build}
BIN=$BUILD/corpus-distill
EXECS=${EXECS:-20000}
JOBS=${JOBS:-1 2}
n=${1:-json}
target=$BUILD/targets/sample_$n
args=()
[ "$n" = http ] || args=(@@)
[ -x "$BIN" ] && [ -x "$target" ] || { echo "bench_workers: build the tool and targets first" >&2; exit 2; }
unset __AFL_SHM_ID __AFL_SHM_FUZZ_ID __AFL_PERSISTENT __AFL_DEFER_FORKSRV AFL_NO_FORKSRV || true

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The small set: the three smallest inputs over 23 bytes (a complete run on a whole
# corpus takes far longer than a benchmark should).
mkdir -p "$WORK/all" "$WORK/small"
tar --zstd -xf "$SRC/sample_corpora/$n.tar.zst" -C "$WORK/all"
find "$WORK/all" -type f -size +23c -printf '%s %p\n' | sort -n | sed -n 1,3p | while read -r _ f; do
    cp "$f" "$WORK/small/$(basename "$f")"
done

now() { date +%s.%N; }
run_field() {
    python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["run"][sys.argv[2]]))' "$1" "$2"
}
row() { printf '%-10s %-26s %4s %8s %10s %9s %s\n' "$@"; }

row corpus run jobs wall_s execs execs/s note
for what in budget complete; do
    for j in $JOBS; do
        out=$WORK/out-$what-$j
        if [ "$what" = budget ]; then
            input=$SRC/sample_corpora/$n.tar.zst
            extra=(--max-execs "$EXECS")
            label="all inputs, $EXECS execs"
        else
            input=$WORK/small
            extra=(--max-time 300)
            label="3 small inputs, to end"
        fi
        t0=$(now)
        rc=0
        "$BIN" -q -j "$j" --seed 1 "${extra[@]}" "$input" -o "$out" -- "$target" "${args[@]}" || rc=$?
        wall=$(echo "$(now) $t0" | awk '{ printf "%.2f", $1 - $2 }')
        execs=$(run_field "$out.manifest.json" executions)
        rate=$(awk -v e="$execs" -v w="$wall" 'BEGIN { printf "%.0f", e / w }')
        row "$n" "$label" "$j" "$wall" "$execs" "$rate" \
            "exit $rc, complete=$(run_field "$out.manifest.json" complete), $(find "$out" -type f | wc -l) seeds"
    done
done
