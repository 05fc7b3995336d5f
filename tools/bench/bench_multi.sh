#!/usr/bin/env bash
# Several harnesses of one format in one run, against one run per harness and afl-cmin per
# harness, side by side on one real corpus (tools/real_targets/prepare.sh builds libxml2's
# document parser "xml", streaming reader "xmlreader" and HTML parser "html" from Debian source,
# over 2,000 real XML files). Rows:
#   afl-cmin on each harness, and their sum;
#   corpus-distill on each harness alone, with EXECS_PER_FILE executions per input file each (0:
#     to the fixed point, every label finished, within CAP seconds), and the sum of their seeds;
#   corpus-distill on every harness at once, with the executions of the single runs together (or
#     to the fixed point, within CAP seconds per harness);
# each with its wall time, executions, files and bytes, and, per harness, the input labels its
# seeds keep (afl-showmap -r of the harness over the inputs that crash or hang on none of them,
# against its seeds: a single run's, or the shared run's view DIR.by-target/NAME), both without the
# labels of unstable edges. The shared run's line gives its bytes as a fraction of the sum of the
# single runs' (the goal: at most 0.7 where the harnesses share most of their language), and the
# last line each view's bytes against its harness's single run (the goal: at most 1).
#
# usage: tools/bench/bench_multi.sh [HARNESS...]   (default: xml xmlreader; any built in
#        BENCH_DIR/bin, each also as NAME-persist)
# env:   CD_BUILD (./build), BENCH_DIR ($CD_BUILD/bench-real), CORPUS (xml: the inputs' name in
#        BENCH_DIR/inputs), JOBS (2), EXECS_PER_FILE (10; 0: to the fixed point), CAP (900)
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib.sh
. "$SRC/tools/lib.sh"
BUILD=${CD_BUILD:-$SRC/build}
BIN=$BUILD/corpus-distill
BENCH=${BENCH_DIR:-$BUILD/bench-real}
CORPUS=${CORPUS:-xml}
JOBS=${JOBS:-2}
EXECS_PER_FILE=${EXECS_PER_FILE:-10}
CAP=${CAP:-900}
export AFL_QUIET=1 AFL_ALLOW_TMP=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1
unset __AFL_SHM_ID __AFL_SHM_FUZZ_ID __AFL_PERSISTENT __AFL_DEFER_FORKSRV AFL_NO_FORKSRV || true

[ -x "$BIN" ] || { echo "bench_multi: $BIN not built (tools/setup)" >&2; exit 2; }
"$SRC/tools/real_targets/prepare.sh" "$BENCH" >/dev/null
[ $# -gt 0 ] || set -- xml xmlreader
for h in "$@"; do
    [ -x "$BENCH/bin/$h" ] || { echo "bench_multi: no harness $BENCH/bin/$h" >&2; exit 2; }
done

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
mkdir in && tar -C in -xf "$BENCH/inputs/$CORPUS.tar.zst"
find in -type f | sort >files
n_files=$(wc -l <files)
budget=$((n_files * EXECS_PER_FILE))
# limit N: the budget of a run, executions or (to the fixed point) N times CAP seconds
limit() {
    if [ "$EXECS_PER_FILE" = 0 ]; then echo "--max-time $(($1 * CAP))"; else echo "--max-execs $2"; fi
}

# args H: a harness's arguments: @@ for a fork-server build, none for a persistent one (its
# test cases come through shared memory).
args() { case $1 in *-persist) ;; *) echo @@ ;; esac; }

# Inputs that crash or hang on no harness: the labels every output must keep.
mkdir clean
while read -r f; do
    bad=0
    for h in "$@"; do
        timeout 5 "$BENCH/bin/$h" "$WORK/$f" >/dev/null 2>&1 || { [ $? -ge 124 ] && bad=1; }
    done
    [ $bad = 1 ] || cp "$f" "clean/$(echo "$f" | md5sum | cut -c1-16)"
done <files

# unstable H: edges whose labels differ between two afl-showmap runs of harness H over clean/.
# labels DIR H: the labels of H over DIR, without those edges.
unstable() {
    local a b
    a=$(mktemp -d "$WORK/m.XXXXXX") b=$(mktemp -d "$WORK/m.XXXXXX")
    afl-showmap -q -r -t 5000 -i clean -o "$a" -- "$BENCH/bin/$1" $(args "$1") >/dev/null 2>&1 || true
    afl-showmap -q -r -t 5000 -i clean -o "$b" -- "$BENCH/bin/$1" $(args "$1") >/dev/null 2>&1 || true
    for f in "$a"/*; do
        diff <(cd_classify <"$f") <(cd_classify <"$b/${f##*/}" 2>/dev/null) | sed -n 's/^[<>] //p'
    done | cut -d: -f1 | sort -u
    rm -rf "$a" "$b"
}
labels() {
    local maps
    maps=$(mktemp -d "$WORK/m.XXXXXX")
    afl-showmap -q -r -t 5000 -i "$1" -o "$maps" -- "$BENCH/bin/$2" $(args "$2") >/dev/null 2>&1 || true
    find "$maps" -type f -exec cat {} + | cd_classify | sort -u |
        awk -F: -v f="$WORK/unstable.$2" 'BEGIN { while ((getline e < f) > 0) u[e + 0] = 1 }
            !(($1 + 0) in u)'
    rm -rf "$maps"
}
for h in "$@"; do
    unstable "$h" >"unstable.$h"
    labels clean "$h" >"in.$h"
done

# kept DIR H: "kept/all" of H's input labels that DIR shows.
kept() {
    labels "$1" "$2" >"out.$$"
    echo "$(comm -12 "in.$2" "out.$$" | wc -l)/$(wc -l <"in.$2")"
    rm -f "out.$$"
}

printf 'corpus %s: %d files, %s B; harnesses: %s; %d clean\n' "$CORPUS" "$n_files" \
    "$(cd_bytes in)" "$*" "$(ls clean | wc -l)"
printf '%-28s %8s %10s %6s %10s  %s\n' run wall_s execs files bytes "input labels kept"

cmin_sum=0
for h in "$@"; do
    t0=$(cd_now)
    afl-cmin -i in -o "cmin.$h" -t 5000 -- "$BENCH/bin/$h" $(args "$h") >/dev/null 2>&1 || true
    b=$(cd_bytes "cmin.$h")
    cmin_sum=$((cmin_sum + b))
    printf '%-28s %8s %10s %6d %10d  %s\n' "afl-cmin $h" "$(cd_since "$t0")" - \
        "$(ls "cmin.$h" | wc -l)" "$b" "$h $(kept "cmin.$h" "$h")"
done
printf '%-28s %8s %10s %6s %10d\n' "afl-cmin, sum" - - - "$cmin_sum"

single_sum=0
single_execs=0
for h in "$@"; do
    t0=$(cd_now)
    "$BIN" in -o "one.$h" -j "$JOBS" -q --no-state $(limit 1 "$budget") --json-summary -- \
        "$BENCH/bin/$h" $(args "$h") >"one.$h.json" || true
    b=$(cd_bytes "one.$h")
    e=$(cd_json "one.$h.json" executions)
    single_sum=$((single_sum + b))
    single_execs=$((single_execs + e))
    printf '%-28s %8s %10d %6d %10d  %s%s\n' "corpus-distill $h" "$(cd_since "$t0")" "$e" \
        "$(ls "one.$h" | wc -l)" "$b" "$h $(kept "one.$h" "$h")" \
        "$(cd_json "one.$h.json" complete | sed 's/True/, complete/; s/False//')"
done
printf '%-28s %8s %10d %6s %10d\n' "corpus-distill, sum" - "$single_execs" - "$single_sum"

cmd=()
for h in "$@"; do
    cmd+=(-- "$BENCH/bin/$h")
    [ -z "$(args "$h")" ] || cmd+=(@@)
done
t0=$(cd_now)
"$BIN" in -o all -j "$JOBS" -q --no-state $(limit $# "$single_execs") --json-summary "${cmd[@]}" \
    >all.json || true
wall=$(cd_since "$t0")
b=$(cd_bytes all)
keep=""
for h in "$@"; do
    keep="$keep $h $(kept "all.by-target/$h" "$h") ($(cd_bytes "all.by-target/$h") B)"
done
printf '%-28s %8s %10d %6d %10d %s\n' "corpus-distill, all at once" "$wall" \
    "$(cd_json all.json executions)" "$(ls all | wc -l)" "$b" "$keep"
python3 - "$b" "$single_sum" "$cmin_sum" all.json <<'PY'
import json, sys
b, single, cmin, j = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), json.load(open(sys.argv[4]))
print("shared seeds: %.3f of the single runs' sum, %.3f of afl-cmin's sum; %d runs on the other "
      "targets (%.1f%% of the executions); complete: %s"
      % (b / single, b / cmin, j["other_target_executions"],
         100 * j["other_target_executions"] / max(j["executions"], 1), j["complete"]))
PY
# Each harness's view against its single run (the goal: at most 1).
views=""
for h in "$@"; do
    views="$views $h $(awk -v a="$(cd_bytes "all.by-target/$h")" -v b="$(cd_bytes "one.$h")" \
        'BEGIN { printf "%.3fx", b ? a / b : 0 }')"
done
echo "views against the single runs:$views"
