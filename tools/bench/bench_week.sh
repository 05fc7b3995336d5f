#!/usr/bin/env bash
# A week of nights on a corpus that does not finish in one: NIGHTS runs of --max-time NIGHT
# seconds each on the same inputs and output, the state carried from night to night as the
# nightly recipe carries it. Each row: the night, its wall time and executions, the labels and
# how many are finished, the executions left the tool estimates at the end of the night (the
# work of the unfinished labels' examples, cd_result_execs_left), the seed bytes against afl-cmin's on the same inputs (run once,
# first), and whether the run was complete. The table shows whether the nights converge: the
# unfinished labels falling night after night and the seeds never growing.
#
# usage: tools/bench/bench_week.sh [TARGET]
#        TARGET: a real library of tools/real_targets/prepare.sh (xml json lua yaml png cjson,
#        each also as NAME-persist), default lua
# env:   CD_BUILD (./build), BENCH_DIR ($CD_BUILD/bench-real), JOBS (2), NIGHTS (7),
#        NIGHT (3600: seconds a night)
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib.sh
. "$SRC/tools/lib.sh"
BUILD=${CD_BUILD:-$SRC/build}
BIN=$BUILD/corpus-distill
BENCH=${BENCH_DIR:-$BUILD/bench-real}
JOBS=${JOBS:-2}
NIGHTS=${NIGHTS:-7}
NIGHT=${NIGHT:-3600}
name=${1:-lua}
export AFL_QUIET=1 AFL_ALLOW_TMP=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1

[ -x "$BIN" ] || { echo "bench_week: $BIN not built (tools/setup)" >&2; exit 2; }
"$SRC/tools/real_targets/prepare.sh" "$BENCH" >/dev/null
target=$BENCH/bin/$name
case $name in *-persist) file_arg= ;; *) file_arg=@@ ;; esac
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/in"
tar --zstd -xf "$BENCH/inputs/${name%-persist}.tar.zst" -C "$WORK/in"

# afl-cmin drops crashing and hanging inputs (and its bytes are the yardstick): it runs on the
# inputs a plain run of the target survives within 5 s.
mkdir -p "$WORK/clean"
while IFS= read -r -d '' f; do
    rc=0
    (timeout 5 "$BENCH/bin/${name%-persist}" "$f") >/dev/null 2>&1 || rc=$?
    [ "$rc" -ge 124 ] || cp "$f" "$WORK/clean/$(printf '%s' "${f#"$WORK/in/"}" | tr / _)"
done < <(find "$WORK/in" -type f -print0)
afl-cmin -i "$WORK/clean" -o "$WORK/cmin" -t 5000 -- "$target" $file_arg >/dev/null 2>&1 || true
cmin_bytes=$(cd_bytes "$WORK/cmin")
echo "afl-cmin: $(find "$WORK/cmin" -type f | wc -l) files, $cmin_bytes bytes"

printf '| night | wall_s | execs | labels | finished | execs left (estimate) | seed bytes | x afl-cmin | complete |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
for night in $(seq 1 "$NIGHTS"); do
    start=$(cd_now)
    "$BIN" -q -j "$JOBS" --max-time "$NIGHT" --json-summary "$WORK/in" -o "$WORK/seeds" \
        -- "$target" $file_arg >"$WORK/summary.json" 2>/dev/null || true
    wall=$(cd_since "$start")
    python3 - "$WORK/summary.json" "$night" "$wall" "$cmin_bytes" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
left = s.get("execs_left")
print("| %s | %s | %d | %d | %d | %s | %d | %.3f | %s |" % (
    sys.argv[2], sys.argv[3], s["executions"], s["labels"], s["labels_finished"],
    "-" if left is None else "%d" % left, s["seed_bytes"],
    s["seed_bytes"] / max(int(sys.argv[4]), 1), "yes" if s["complete"] else "no"))
EOF
done
