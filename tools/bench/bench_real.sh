#!/usr/bin/env bash
# The engine's benchmark on real libraries with real inputs (tools/real_targets/prepare.sh builds
# them from Debian source with afl-clang-fast and gathers 1,000 to 2,000 real files of each format
# from Debian packages). For each target, in one run, side by side on the same inputs:
#   afl-cmin; afl-cmin + afl-tmin (smallest kept file first, within TMIN_BUDGET seconds in all,
#   the rest kept as afl-cmin left them: a large file alone can take afl-tmin longer than that); corpus-distill --no-reduce; corpus-distill with --max-time
#   of each of TIMES and with --max-execs of each of EXECS_PER_FILE times the input files, in each
#   order of ORDERS; and, with CAP > 0, a run to completion capped at CAP seconds. With OLD naming
#   another corpus-distill binary (an earlier build), each of those runs is made with it too, next
#   to ours.
# Each row: wall time, executions, files, bytes, the input's labels the output keeps (afl-showmap
# -r on the output, classified by the intended ranges 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+) and
# all its labels, both without the labels of unstable edges (those whose labels differ for some
# input between two afl-showmap runs over the inputs: json-c and Lua seed their hashes at random,
# and such labels come and go whoever keeps the file); each run of ours adds the key points of its course (seed bytes at 1, 2, 5 and 10
# minutes of the manifest's series).
#
# The afl-cmin row gives the corpus's shape (bytes per file, the ten largest files' share); each of
# our rows its executions per second, its bytes against afl-cmin's, how its seed cover was solved
# (the exact solver's verdict, its gap to the bound, its time, and the greedy cover of the same
# examples), the size-bound bytes (seeds kept only for hit counts that shorter seeds show fewer of), the found
# labels left out of the seeds, and whether its seed bytes ever grew along the run.
#
# usage: tools/bench/bench_real.sh [TARGET...]  (xml json lua yaml png cjson, each also as
#        NAME-persist, the libAFLDriver build; default xml json lua yaml png cjson)
# env:   CD_BUILD (default ./build), BENCH_DIR (default $CD_BUILD/bench-real), JOBS (2),
#        TIMES ("60 600"), EXECS_PER_FILE ("10 100"), ORDERS ("cover"); each may be
#        set empty to leave its runs out,
#        TMIN_BUDGET (600), CAP (0: no completion run), OLD (an earlier corpus-distill)
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib.sh
. "$SRC/tools/lib.sh"
BUILD=${CD_BUILD:-$SRC/build}
BIN=$BUILD/corpus-distill
BENCH=${BENCH_DIR:-$BUILD/bench-real}
JOBS=${JOBS:-2}
TIMES=${TIMES-60 600}
EXECS_PER_FILE=${EXECS_PER_FILE-10 100}
ORDERS=${ORDERS-cover}
OLD=${OLD:-}
TMIN_BUDGET=${TMIN_BUDGET:-600}
CAP=${CAP:-0}
export AFL_QUIET=1 AFL_ALLOW_TMP=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1
unset __AFL_SHM_ID __AFL_SHM_FUZZ_ID __AFL_PERSISTENT __AFL_DEFER_FORKSRV AFL_NO_FORKSRV || true

[ -x "$BIN" ] || { echo "bench_real: $BIN not built (tools/setup)" >&2; exit 2; }
# prepare.sh installs the build tools it needs (as root) and builds the targets once.
"$SRC/tools/real_targets/prepare.sh" "$BENCH" >/dev/null
[ $# -gt 0 ] || set -- xml json lua yaml png cjson

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" # afl-tmin writes its temporary input into the current directory

now() { cd_now; }
since() { cd_since "$1"; }

classify() { cd_classify; }

# labels DIR TARGET: the labels of every file in DIR, distinct, but those of the unstable edges
# in $WORK/unstable.edges.
labels() {
    local maps
    maps=$(mktemp -d "$WORK/maps.XXXXXX")
    afl-showmap -q -r -t 5000 -i "$1" -o "$maps" -- "$2" $file_arg >/dev/null 2>&1 || true
    find "$maps" -type f -exec cat {} + | classify | sort -u |
        awk -F: -v f="$WORK/unstable.edges" 'BEGIN { while ((getline e < f) > 0) u[e + 0] = 1 }
            !(($1 + 0) in u)'
    rm -rf "$maps"
}

# unstable DIR TARGET: the edges whose labels differ for some file of DIR between two afl-showmap
# runs, one per line.
unstable() {
    local a b f
    a=$(mktemp -d "$WORK/maps.XXXXXX") b=$(mktemp -d "$WORK/maps.XXXXXX")
    afl-showmap -q -r -t 5000 -i "$1" -o "$a" -- "$2" $file_arg >/dev/null 2>&1 || true
    afl-showmap -q -r -t 5000 -i "$1" -o "$b" -- "$2" $file_arg >/dev/null 2>&1 || true
    for f in "$a"/*; do
        [ -f "$b/${f##*/}" ] || continue
        comm -3 <(classify <"$f" | sort) <(classify <"$b/${f##*/}" | sort) | tr -d '\t' | cut -d: -f1
    done | sort -nu
    rm -rf "$a" "$b"
}

row() { printf '| %s ' "$@"; printf '|\n'; }

# measure NAME METHOD WALL EXECS DIR NOTE: one row for the output directory DIR.
measure() {
    local files bytes all kept
    files=$(find "$5" -type f | wc -l)
    bytes=$(find "$5" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    labels "$5" "$target" > "$WORK/out.labels"
    all=$(wc -l < "$WORK/out.labels")
    kept=$(comm -12 "$WORK/in.labels" "$WORK/out.labels" | wc -l)
    row "$1" "$2" "$3" "$4" "$files" "$bytes" "$kept of $(wc -l < "$WORK/in.labels")" "$all" "$6"
}

# course MANIFEST: the seed bytes at 60, 120, 300 and 600 s of the run's course.
course() {
    python3 - "$1" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))["run"]["course"]
out = []
for t in (60, 120, 300, 600):
    pts = [p for p in c if p[0] <= t * 1000]
    if pts and c[-1][0] >= t * 1000 - 5000:
        out.append("%ds %d" % (t, pts[-1][4]))
print(", ".join(out))
EOF
}

# ours NAME METHOD ARGS...: a run of corpus-distill on the inputs with ARGS, measured; with OLD,
# the same run of the earlier build next.
ours() {
    one "$BIN" "$@"
    [ -z "$OLD" ] || { local name=$1 method=$2; shift 2; one "$OLD" "$name" "old: $method" "$@"; }
}

# one BINARY NAME METHOD ARGS...: one run of that corpus-distill.
one() {
    local bin=$1 name=$2 method=$3 start wall execs note
    shift 3
    rm -rf "$WORK/o" "$WORK/o.crashes" "$WORK/o.manifest.json"
    start=$(now)
    "$bin" -q -j "$JOBS" --no-state "$in" -o "$WORK/o" "$@" -- "$target" $file_arg >/dev/null 2>&1 || true
    wall=$(since "$start")
    execs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["executions"])' \
        "$WORK/o.manifest.json")
    note=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))
o, r = m["output"], m["run"]
c = [p[4] for p in r["course"]]
grew = any(b > a for a, b in zip(c, c[1:])) or (c and o["seed_bytes"] > c[-1])
req, bound = o.get("cover_required_bytes", 0), o["cover_bound_bytes"]
solve = "cover %s, %.2f%% over its bound %d (%d ms), greedy %d" % (
    o["cover_solver"], 100.0 * (req - bound) / bound if bound and req else 0, bound,
    o["cover_solve_ms"], o["cover_greedy_bytes"]) if "cover_solver" in o else \
    "cover bound %d" % bound
print("%.0f execs/s; %.2fx afl-cmin; select-only %d, %s, size-bound %d; %d found "
      "labels left out (%d B); seed bytes %s; %d unstable edges, %s" % (
      r["executions"] / max(r["wall_time_s"], 1e-9), o["seed_bytes"] / max(int(sys.argv[2]), 1),
      o["select_only_bytes"], solve, o.get("size_bound_bytes", 0),
      o.get("labels_left_out", 0), o.get("left_out_bytes", 0),
      "grew along the run" if grew else "never grew", len(r["unstable_edges"]),
      "complete" if r["complete"] else "incomplete"))' \
        "$WORK/o.manifest.json" "$cmin_bytes")
    measure "$name" "$method" "$wall" "$execs" "$WORK/o" "$note; $(course "$WORK/o.manifest.json")"
}

row target method wall_s execs files bytes "input labels kept" labels note
row --- --- --- --- --- --- --- --- ---
for name in "$@"; do
    target=$BENCH/bin/$name
    # A persistent build (libAFLDriver) takes its test cases through shared memory: given a file
    # argument, Debian's driver aborts under afl-showmap.
    case $name in *-persist) file_arg= ;; *) file_arg=@@ ;; esac
    in=$WORK/$name/in
    clean=$WORK/$name/clean
    mkdir -p "$in" "$clean" "$WORK/$name/tree"
    tar --zstd -xf "$BENCH/inputs/${name%-persist}.tar.zst" -C "$WORK/$name/tree"
    # Flattened, each file named by its path: afl-showmap and afl-cmin name outputs by base name.
    while IFS= read -r -d '' f; do
        rel=${f#"$WORK/$name/tree"/}
        mv "$f" "$in/${rel//\//_}"
    done < <(find "$WORK/$name/tree" -type f -print0)
    # afl-cmin drops crashing and hanging inputs, and writes nothing when the last one does.
    while IFS= read -r -d '' f; do
        rc=0
        (timeout 5 "$BENCH/bin/${name%-persist}" "$f") >/dev/null 2>&1 || rc=$?
        [ "$rc" -ge 124 ] || cp "$f" "$clean/"
    done < <(find "$in" -type f -print0)
    n_in=$(find "$in" -type f | wc -l)
    unstable "$in" "$target" > "$WORK/unstable.edges"
    labels "$in" "$target" > "$WORK/in.labels"
    measure "$name" input "" "" "$in" "$(( n_in - $(find "$clean" -type f | wc -l) )) crash or hang; \
$(wc -l < "$WORK/unstable.edges") unstable edges (afl-showmap twice)"

    start=$(now)
    afl-cmin -i "$clean" -o "$WORK/cmin" -t 5000 -- "$target" $file_arg >/dev/null 2>&1 || true
    cmin_bytes=$(find "$WORK/cmin" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    # The corpus's shape: bytes per afl-cmin file, and the share of its ten largest files.
    shape=$(find "$WORK/cmin" -type f -printf '%s\n' | sort -rn | awk '{ s += $1; n++ }
        NR <= 10 { top += $1 } END { if (n) printf "%.1f KB a file, ten largest %.0f%% of the bytes",
        s / n / 1000, 100 * top / s }')
    measure "$name" afl-cmin "$(since "$start")" "" "$WORK/cmin" "$shape"
    start=$(now)
    tmin_end=$(( $(date +%s) + TMIN_BUDGET ))
    mkdir -p "$WORK/tmin"
    tmin_done=0
    while IFS= read -r f; do
        left=$(( tmin_end - $(date +%s) ))
        if [ "$left" -gt 0 ] &&
            timeout "$left" afl-tmin -t 5000 -i "$f" -o "$WORK/tmin/$(basename "$f")" -- "$target" $file_arg \
                >/dev/null 2>&1; then
            tmin_done=$((tmin_done + 1))
        else
            cp "$f" "$WORK/tmin/"
        fi
    done < <(find "$WORK/cmin" -type f -printf '%s %p\n' | sort -n | cut -d' ' -f2-)
    measure "$name" "afl-cmin + afl-tmin" "$(since "$start")" "" "$WORK/tmin" \
        "$tmin_done of $(find "$WORK/cmin" -type f | wc -l) files minimized within ${TMIN_BUDGET} s"
    rm -rf "$WORK/cmin" "$WORK/tmin"

    ours "$name" "ours --no-reduce" --no-reduce
    for order in $ORDERS; do
        for t in $TIMES; do
            ours "$name" "ours $order, ${t} s" --order "$order" --max-time "$t"
        done
        for k in $EXECS_PER_FILE; do
            ours "$name" "ours $order, $k execs/file" --order "$order" --max-execs $((k * n_in))
        done
        [ "$CAP" -eq 0 ] || ours "$name" "ours $order, to completion (cap ${CAP} s)" \
            --order "$order" --max-time "$CAP"
    done
    rm -rf "${WORK:?}/$name"
done
