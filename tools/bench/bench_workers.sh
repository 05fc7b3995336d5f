#!/usr/bin/env bash
# Worker scaling: corpus-distill at each -j level on the same inputs and target, in one run.
#  1. first pass: --no-reduce over many distinct inputs (each input under 4 KiB that neither
#     crashes nor hangs when run once, written VARIANTS times with 0, 1, 2 ... spaces appended).
#     Every level runs exactly the same executions, so executions per second compare directly:
#     this is the execution-bound run. Median of ROUNDS runs per level; the levels take turns
#     within each round, so a machine that slows down for a while slows every level alike.
#     The machine's own ceiling comes beside it: N independent -j 1 runs at once, each held to
#     its own CPU with taskset. What N processes of this kind gain together on this machine is
#     the most N workers of one run could gain.
#  2. budget: the whole corpus with the same execution budget (--max-execs). Which candidates a
#     reduction runs, and so what each execution costs, differs between levels. Beside it, the
#     machine's ceiling for reduction work: N copies of the -j 1 budget run at once, one per CPU.
#  3. complete: three small inputs run to completion (at most 300 s).
#  4. edges: the whole corpus with -e (edge labels) run to completion (at most 300 s): a complete
#     run on a whole corpus that takes seconds, not the minutes of the hit-count labels.
# Reports wall time, executions and executions per second from each run's manifest, and for 2 to 4
# the labels found (the input's labels among them): coverage at each level.
#
# usage: tools/bench/bench_workers.sh [CORPUS]   (json, png or http; default json)
# env:   CD_BUILD (build dir, default ./build), EXECS (budget, default 20000), JOBS ("1 2"),
#        VARIANTS (copies of each input in the first-pass set, default 100), ROUNDS (default 3)
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib.sh
. "$SRC/tools/lib.sh"
BUILD=${CD_BUILD:-$SRC/build}
BIN=$BUILD/corpus-distill
EXECS=${EXECS:-20000}
JOBS=${JOBS:-1 2}
VARIANTS=${VARIANTS:-100}
ROUNDS=${ROUNDS:-3}
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

# The first-pass set, as one tar.
mkdir -p "$WORK/many"
while IFS= read -r -d '' f; do
    rc=0
    (timeout 1 "$target" "$f") >/dev/null 2>&1 || rc=$?
    [ "$rc" -lt 124 ] && [ -s "$f" ] && cp "$f" "$WORK/many/$(echo "${f#"$WORK/all/"}" | tr / _)"
done < <(find "$WORK/all" -type f -size -4096c -print0) 2>/dev/null
python3 - "$WORK/many" "$WORK/many.tar" "$VARIANTS" <<'PY'
import io, os, sys, tarfile
src, dst, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = sorted(os.listdir(src))
with tarfile.open(dst, "w") as t:
    for v in range(k):
        for name in names:
            data = open(os.path.join(src, name), "rb").read() + b" " * v
            info = tarfile.TarInfo("%03d/%s" % (v, name))
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
PY

now() { cd_now; }
run_field() {
    python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["run"][sys.argv[2]]))' "$1" "$2"
}
row() { printf '%-10s %-26s %4s %8s %10s %9s %s\n' "$@"; }

row corpus run jobs wall_s execs execs/s note
read -ra cpus < <(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0)))')
# One first-pass run of "$@" with output prefix $1; prints "wall executions" from its manifest.
first_run() {
    local out=$1
    shift
    "$@" -q --no-state --no-reduce "$WORK/many.tar" -o "$out" -- "$target" "${args[@]}" >/dev/null 2>&1 || true
    echo "$(run_field "$out.manifest.json" wall_time_s) $(run_field "$out.manifest.json" executions)"
    rm -rf "$out" "$out.manifest.json" "$out.crashes"
}
# One budget run of "$@" (the whole corpus, --max-execs EXECS, --seed 1) with output prefix $1;
# prints "wall executions", the wall time measured outside as in the -j rows.
budget_run() {
    local out=$1 t0
    shift
    t0=$(now)
    "$@" -q --no-state --seed 1 --max-execs "$EXECS" "$SRC/sample_corpora/$n.tar.zst" -o "$out" -- "$target" \
        "${args[@]}" >/dev/null 2>&1 || true
    echo "$(echo "$(now) $t0" | awk '{ printf "%.2f", $1 - $2 }') $(run_field "$out.manifest.json" executions)"
    rm -rf "$out" "$out.manifest.json" "$out.crashes"
}
# side_by_side N RUN: N independent -j 1 runs of RUN (first_run or budget_run) at once, run i held
# to the i-th allowed CPU; prints the wall time of the slowest and the executions of all.
side_by_side() {
    local copies=$1 run=$2 i
    for i in $(seq 0 $((copies - 1))); do
        "$run" "$WORK/out-side-$i" taskset -c "${cpus[$i]}" "$BIN" -j 1 >"$WORK/pair-$i" &
    done
    wait
    cat "$WORK"/pair-* | awk '{ if ($1 > w) w = $1; e += $2 } END { printf "%.3f %d\n", w, e }'
    rm -f "$WORK"/pair-*
}
for _ in $(seq "$ROUNDS"); do
    for j in $JOBS; do
        first_run "$WORK/out-first-$j" "$BIN" -j "$j" >>"$WORK/first-$j"
        if [ "$j" -gt 1 ] && [ "$j" -le "${#cpus[@]}" ]; then
            side_by_side "$j" first_run >>"$WORK/side-by-side-$j"
        fi
    done
done
# Prints "wall executions" of the median round in file $1.
median() { sort -n "$1" | awk -v n="$ROUNDS" 'NR == int((n + 1) / 2) { printf "%.3f %d\n", $1, $2 }'; }
base_rate= # the first level's median rate
first_j=${JOBS%% *}
for j in $JOBS; do
    for kind in first side-by-side; do
        [ -f "$WORK/$kind-$j" ] || continue
        read -r wall execs < <(median "$WORK/$kind-$j")
        rate=$(awk -v e="$execs" -v w="$wall" 'BEGIN { printf "%.0f", e / w }')
        [ -n "$base_rate" ] || base_rate=$rate
        if [ "$kind" = first ]; then
            label="first pass, median of $ROUNDS" jobs=$j
        else
            label="$j x -j 1 at once, median" jobs="$j x 1"
        fi
        row "$n" "$label" "$jobs" "$wall" "$execs" "$rate" \
            "$(awk -v r="$rate" -v b="$base_rate" 'BEGIN { printf "%.2fx", r / b }') -j $first_j; walls:$(awk '{ printf " %.3f", $1 }' "$WORK/$kind-$j")"
    done
done
for what in budget complete edges; do
    for j in $JOBS; do
        out=$WORK/out-$what-$j
        if [ "$what" = budget ]; then
            input=$SRC/sample_corpora/$n.tar.zst
            extra=(--max-execs "$EXECS")
            label="all inputs, $EXECS execs"
        elif [ "$what" = complete ]; then
            input=$WORK/small
            extra=(--max-time 300)
            label="3 small inputs, to end"
        else
            input=$SRC/sample_corpora/$n.tar.zst
            extra=(-e --max-time 300)
            label="all inputs, -e, to end"
        fi
        t0=$(now)
        rc=0
        "$BIN" -q -j "$j" --no-state --seed 1 "${extra[@]}" "$input" -o "$out" -- "$target" "${args[@]}" || rc=$?
        wall=$(echo "$(now) $t0" | awk '{ printf "%.2f", $1 - $2 }')
        execs=$(run_field "$out.manifest.json" executions)
        rate=$(awk -v e="$execs" -v w="$wall" 'BEGIN { printf "%.0f", e / w }')
        [ "$j" = "$first_j" ] && kind_base=$rate
        row "$n" "$label" "$j" "$wall" "$execs" "$rate" \
            "$(awk -v r="$rate" -v b="$kind_base" 'BEGIN { printf "%.2fx", r / b }') -j $first_j, exit $rc, complete=$(run_field "$out.manifest.json" complete), $(find "$out" -type f | wc -l) seeds, labels $(run_field "$out.manifest.json" labels_found) (input's $(run_field "$out.manifest.json" labels_input))"
        # The machine's ceiling for reduction work: j copies of the -j 1 budget run at once.
        if [ "$what" = budget ] && [ "$j" -gt 1 ] && [ "$j" -le "${#cpus[@]}" ]; then
            read -r wall execs < <(side_by_side "$j" budget_run)
            rate=$(awk -v e="$execs" -v w="$wall" 'BEGIN { printf "%.0f", e / w }')
            row "$n" "budget: $j x -j 1 at once" "$j x 1" "$wall" "$execs" "$rate" \
                "$(awk -v r="$rate" -v b="$kind_base" 'BEGIN { printf "%.2fx", r / b }') -j $first_j"
        fi
    done
done
