#!/usr/bin/env bash
# Worker scaling: corpus-distill at each -j level on the same inputs and target, in one run.
#  1. first pass: --no-reduce over many distinct inputs (each input under 4 KiB that neither
#     crashes nor hangs when run once, written VARIANTS times with 0, 1, 2 ... spaces appended).
#     Every level runs exactly the same executions, so executions per second compare directly:
#     this is the execution-bound run. Median of ROUNDS runs per level.
#  2. budget: the whole corpus with the same execution budget (--max-execs). Which candidates a
#     reduction runs, and so what each execution costs, differs between levels.
#  3. complete: three small inputs run to completion (at most 300 s).
#  4. edges: the whole corpus with -e (edge labels) run to completion (at most 300 s): a complete
#     run on a whole corpus that takes seconds, not the minutes of the hit-count labels.
# Reports wall time, executions and executions per second from each run's manifest.
#
# usage: tools/bench_workers.sh [CORPUS]   (json, png or http; default json)
# env:   CD_BUILD (build dir, default ./build), EXECS (budget, default 20000), JOBS ("1 2"),
#        VARIANTS (copies of each input in the first-pass set, default 100), ROUNDS (default 3)
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
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

now() { date +%s.%N; }
run_field() {
    python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["run"][sys.argv[2]]))' "$1" "$2"
}
row() { printf '%-10s %-26s %4s %8s %10s %9s %s\n' "$@"; }

row corpus run jobs wall_s execs execs/s note
for j in $JOBS; do
    runs="" # one "wall executions" line per round
    for r in $(seq "$ROUNDS"); do
        out=$WORK/out-first-$j-$r
        "$BIN" -q -j "$j" --no-reduce "$WORK/many.tar" -o "$out" -- "$target" "${args[@]}" >/dev/null 2>&1 || true
        runs+="$(run_field "$out.manifest.json" wall_time_s) $(run_field "$out.manifest.json" executions)"$'\n'
        rm -rf "$out" "$out.manifest.json" "$out.crashes"
    done
    read -r wall execs < <(printf '%s' "$runs" | sort -n | awk -v n="$ROUNDS" 'NR == int((n + 1) / 2) { printf "%.3f %d\n", $1, $2 }')
    row "$n" "first pass, median of $ROUNDS" "$j" "$wall" "$execs" \
        "$(awk -v e="$execs" -v w="$wall" 'BEGIN { printf "%.0f", e / w }')" \
        "walls:$(printf '%s' "$runs" | awk '{ printf " %.3f", $1 }')"
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
        "$BIN" -q -j "$j" --seed 1 "${extra[@]}" "$input" -o "$out" -- "$target" "${args[@]}" || rc=$?
        wall=$(echo "$(now) $t0" | awk '{ printf "%.2f", $1 - $2 }')
        execs=$(run_field "$out.manifest.json" executions)
        rate=$(awk -v e="$execs" -v w="$wall" 'BEGIN { printf "%.0f", e / w }')
        row "$n" "$label" "$j" "$wall" "$execs" "$rate" \
            "exit $rc, complete=$(run_field "$out.manifest.json" complete), $(find "$out" -type f | wc -l) seeds"
    done
done
