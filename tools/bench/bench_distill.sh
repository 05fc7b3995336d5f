#!/usr/bin/env bash
# Side-by-side benchmark on the same targets and inputs: corpus-distill (full run, with a time
# budget), corpus-distill --no-reduce, afl-cmin, and afl-cmin followed by afl-tmin on each file it
# kept. For each: wall time, target executions, output files, output bytes, and coverage labels
# of the output by afl-showmap -r, classified by the intended ranges (1, 2, 3, 4-7, 8-15, 16-31,
# 32-127, 128+; Debian 4.04c's own classes drop counts such as 5 or 12). Under the full run, a row
# with what its seeds cost for the input's labels alone (a greedy pick by labels per byte): the
# full run keeps labels the input never showed, and this row compares with afl-cmin at equal
# coverage.
#
# afl-cmin aborts without output when the last input it processes crashed or hung, and drops
# crashing and hanging inputs anyway (timeouts even with -A). So afl-cmin and afl-tmin get the
# inputs minus those that crash or hang when run once (checked beforehand, 1 s limit), while
# corpus-distill gets every input and writes crashes apart; its labels are counted on the seed
# directory only, so every column counts what a fuzzer would be given.
#
# With -e (edge coverage only, hit counts ignored) the same again in edge mode: corpus-distill -e
# against afl-cmin -e and afl-cmin -e + afl-tmin -e, labels counted as edges.
#
# A corpus NAME-xK (json-x6, say) is generated with tools/gen_corpora.py --scale K: K differently
# seeded copies of the NAME sample pile, for runs on a few thousand files. The corpora json-debian,
# json-real and png-debian are real files made by others, fetched with apt-get download: the .json
# files of at most 1 MiB in Debian's python3-botocore package (AWS service models and their
# examples; 1,491 files), the same with node-caniuse-db's (browser support data) added (2,279
# files), and the .png files of at most 64 KiB in adwaita-icon-theme (icons).
#
# usage: tools/bench/bench_distill.sh [CORPUS...]   (json png http json-x6 json-debian json-real
#        png-debian; default the first three)
# env:   CD_BUILD (build dir, default ./build), BUDGET (seconds for the full run, default 60),
#        JOBS (workers for corpus-distill, default 1), TMIN_LIMIT (seconds per afl-tmin, 60),
#        MODES (hits, edges or both; default both)
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib.sh
. "$SRC/tools/lib.sh"
BUILD=${CD_BUILD:-$SRC/build}
BIN=$BUILD/corpus-distill
TARGETS=$BUILD/targets
BUDGET=${BUDGET:-60}
JOBS=${JOBS:-1}
TMIN_LIMIT=${TMIN_LIMIT:-60}
MODES=${MODES:-both}
export AFL_QUIET=1 AFL_ALLOW_TMP=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1
unset __AFL_SHM_ID __AFL_SHM_FUZZ_ID __AFL_PERSISTENT __AFL_DEFER_FORKSRV AFL_NO_FORKSRV || true

for tool in afl-cmin afl-tmin afl-showmap; do
    command -v "$tool" >/dev/null || { echo "bench_distill: $tool not found (Debian package afl++)" >&2; exit 2; }
done
[ -x "$BIN" ] || { echo "bench_distill: $BIN not built" >&2; exit 2; }
[ $# -gt 0 ] || set -- json png http

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" # afl-tmin writes its temporary input into the current directory

now() { cd_now; }
since() { cd_since "$1"; }

# traces DIR TARGET [ARGS...]: a new directory with afl-showmap's trace of every file of DIR,
# each named as its file.
traces() {
    local dir=$1 maps
    shift
    maps=$(mktemp -d "$WORK/maps.XXXXXX")
    afl-showmap -q -r -t 2000 -i "$dir" -o "$maps" -- "$@" >/dev/null 2>&1 || true
    echo "$maps"
}

# trace_labels MAPS [named]: the labels of the traces in MAPS (EDGES=1: edges), distinct, one per
# line; with named, every file's own labels as "FILE LABEL" lines.
trace_labels() {
    local named=0
    [ "${2:-}" = named ] && named=1
    find "$1" -type f -print0 | EDGES=${EDGES:-0} NAMED=$named xargs -0r bash -c '. "$0"; cd_classify "$@"' \
        "$SRC/tools/lib.sh" | sort -u
}

# label_list DIR TARGET [ARGS...]: the distinct labels over the files of DIR, one per line.
label_list() {
    local maps
    maps=$(traces "$@")
    trace_labels "$maps"
    rm -rf "$maps"
}
n_labels() { label_list "$@" | wc -l; }

# input_cover DIR MAPS WANTED: "files bytes labels" of a few files of DIR (their traces in MAPS)
# that together show every label of the file WANTED (one per line) that DIR shows, picked
# greedily by new labels per byte: what the seeds of DIR cost for the input's coverage alone.
input_cover() {
    trace_labels "$2" named | python3 -c '
import os, sys
seeds, want = sys.argv[1], set(open(sys.argv[2]).read().split())
shows = {}
for line in sys.stdin:
    name, label = line.split()
    if label in want:
        shows.setdefault(name, set()).add(label)
size = {name: os.path.getsize(os.path.join(seeds, name)) for name in shows}
left = set().union(*shows.values())
files = total = labels = 0
while left:
    name = max(shows, key=lambda n: (len(shows[n] & left) / max(size[n], 1), -size[n]))
    new = shows[name] & left
    left -= new
    files, total, labels = files + 1, total + size[name], labels + len(new)
print(files, total, labels)' "$1" "$3"
}

n_files() { find "$1" -type f | wc -l; }
n_bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }

manifest_field() { # manifest_field FILE KEY: a number from the manifest's "run" object
    python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["run"][sys.argv[2]]))' "$1" "$2"
}

row() { printf '%-8s %-30s %8s %10s %7s %10s %7s %s\n' "$@"; }

# compare hits|edges: corpus-distill (full, --no-reduce on every input, --no-reduce on afl-cmin's
# inputs), afl-cmin, and afl-cmin + afl-tmin on corpus $n, counting labels (hits) or edges (-e).
compare() {
    local emode=() tag="" out src extra t0 t1 rc wall note reps cmin tmin execs cut f done_execs
    local cf cb cl maps wanted=$WORK/$n/wanted-$1
    EDGES=0
    if [ "$1" = edges ]; then
        emode=(-e) EDGES=1 tag=" -e"
        label_list "$clean" "$target" "${args[@]}" >"$wanted"
        row "$n" "input (all), edges" - - - - "$(n_labels "$in" "$target" "${args[@]}")" ""
        row "$n" "input (no crash/hang), edges" - - - - "$(wc -l <"$wanted")" ""
    fi
    # no-reduce-clean: the inputs afl-cmin gets, so that the first pass's speed compares with
    # afl-cmin's on the same inputs (a hang costs us a 1 s confirmation run, as in afl-fuzz, and
    # afl-cmin is not given the hangs).
    for mode in full no-reduce no-reduce-clean; do
        out=$WORK/$n/cd-$1-$mode
        src=$in
        extra=(--max-time "$BUDGET")
        [ "$mode" = full ] || extra=(--no-reduce)
        [ "$mode" = no-reduce-clean ] && src=$clean
        t0=$(now)
        rc=0
        "$BIN" -q -j "$JOBS" --no-state --seed 1 "${emode[@]}" "${extra[@]}" "$src" -o "$out" -- \
            "$target" "${args[@]}" || rc=$?
        wall=$(since "$t0")
        note="exit $rc, complete=$(manifest_field "$out.manifest.json" complete)"
        reps=0
        [ -d "$out.crashes" ] && reps=$(n_files "$out.crashes")
        note="$note, $reps reproducers apart"
        maps=$(traces "$out" "$target" "${args[@]}")
        row "$n" "corpus-distill$tag $mode" "$wall" "$(manifest_field "$out.manifest.json" executions)" \
            "$(n_files "$out")" "$(n_bytes "$out")" "$(trace_labels "$maps" | wc -l)" "$note"
        if [ "$mode" = full ]; then
            # The full run keeps labels the input never showed; its bytes for the input's
            # labels alone compare with afl-cmin's at equal coverage.
            read -r cf cb cl < <(input_cover "$out" "$maps" "$wanted")
            row "$n" "  its seeds for input labels" - - "$cf" "$cb" "$cl" \
                "of $(wc -l <"$wanted") input labels; greedy by labels per byte"
        fi
        rm -rf "$maps"
    done

    cmin=$WORK/$n/cmin-$1
    t0=$(now)
    rc=0
    afl-cmin "${emode[@]}" -i "$clean" -o "$cmin" -- "$target" "${args[@]}" >"$WORK/$n/cmin.log" 2>&1 ||
        rc=$?
    wall=$(since "$t0")
    row "$n" "afl-cmin$tag" "$wall" "$(n_files "$clean")" "$(n_files "$cmin")" "$(n_bytes "$cmin")" \
        "$(n_labels "$cmin" "$target" "${args[@]}")" "exit $rc; execs = one showmap run per input"

    tmin=$WORK/$n/tmin-$1
    mkdir -p "$tmin"
    execs=$(n_files "$clean")
    cut=0
    t1=$(now)
    for f in "$cmin"/*; do
        [ -f "$f" ] || continue
        rc=0
        timeout "$TMIN_LIMIT" afl-tmin "${emode[@]}" -i "$f" -o "$tmin/$(basename "$f")" -- \
            "$target" "${args[@]}" >"$WORK/$n/tmin.log" 2>&1 || rc=$?
        if [ ! -s "$tmin/$(basename "$f")" ]; then
            cp "$f" "$tmin/$(basename "$f")" # afl-tmin gave up: keep the file as afl-cmin chose it
            cut=$((cut + 1))
        fi
        done_execs=$(sed 's/\x1b\[[0-9;]*m//g' "$WORK/$n/tmin.log" |
            awk -F: '/Number of execs done/ { gsub(/ /, "", $2); print $2 }' | tail -1)
        execs=$((execs + ${done_execs:-0}))
    done
    wall=$(awk -v a="$wall" -v b="$(since "$t1")" 'BEGIN { printf "%.1f", a + b }')
    row "$n" "afl-cmin$tag + afl-tmin$tag" "$wall" "$execs" "$(n_files "$tmin")" "$(n_bytes "$tmin")" \
        "$(n_labels "$tmin" "$target" "${args[@]}")" "$cut files kept unminimised (limit ${TMIN_LIMIT}s)"
}

# debian_files SUFFIX MAX_KIB OUT PACKAGE...: the files named *SUFFIX of at most MAX_KIB KiB in
# the Debian packages, as one tar.zst.
debian_files() {
    local d=$WORK/debian suffix=$1 max_kib=$2 out=$3 p
    shift 3
    mkdir -p "$d/x"
    for p in "$@"; do
        (cd "$d" && apt-get download "$p" >/dev/null 2>&1) ||
            { echo "bench_distill: apt-get download $p failed" >&2; exit 2; }
        dpkg-deb -x "$d/$p"_*.deb "$d/x"
    done
    (cd "$d/x" && find . -name "*$suffix" -size "-$((max_kib + 1))k" -print0 | sort -z |
        tar --null -T - -cf -) | zstd -q -o "$out"
    rm -rf "$d"
}

row corpus method wall_s execs files bytes labels note
for n in "$@"; do
    EDGES=0
    base=${n%%-*}
    target=$TARGETS/sample_$base
    args=()
    [ "$base" = http ] || args=(@@)
    in=$WORK/$n/in
    clean=$WORK/$n/clean
    mkdir -p "$in" "$clean"
    archive=$SRC/sample_corpora/$n.tar.zst
    case $n in
    *-x[0-9]*)
        python3 "$SRC/tools/gen_corpora.py" -o "$WORK" --only "$base" --scale "${n#*-x}"
        archive=$WORK/$n.tar.zst ;;
    json-debian)
        debian_files .json 1024 "$WORK/$n.tar.zst" python3-botocore
        archive=$WORK/$n.tar.zst ;;
    json-real)
        debian_files .json 1024 "$WORK/$n.tar.zst" python3-botocore node-caniuse-db
        archive=$WORK/$n.tar.zst ;;
    png-debian)
        debian_files .png 64 "$WORK/$n.tar.zst" adwaita-icon-theme
        archive=$WORK/$n.tar.zst ;;
    esac
    # Flattened, each file named by its path: afl-showmap -i names its traces by base name, so
    # equal names in different directories (every part of a NAME-xK pile) would overwrite each
    # other's traces, in afl-cmin too, and silently lose their labels.
    mkdir -p "$WORK/$n/tree"
    tar --zstd -xf "$archive" -C "$WORK/$n/tree"
    while IFS= read -r -d '' f; do
        rel=${f#"$WORK/$n/tree"/}
        mv "$f" "$in/${rel//\//_}"
    done < <(find "$WORK/$n/tree" -type f -print0)
    rm -rf "$WORK/$n/tree"
    dropped=0
    while IFS= read -r -d '' f; do
        rc=0
        (timeout 1 "$target" "$f") >/dev/null 2>&1 || rc=$?
        if [ "$rc" -ge 124 ] || [ ! -s "$f" ]; then
            dropped=$((dropped + 1))
        else
            cp "$f" "$clean/"
        fi
    done < <(find "$in" -type f -print0) 2>/dev/null

    row "$n" "input (all)" - - "$(n_files "$in")" "$(n_bytes "$in")" \
        "$(n_labels "$in" "$target" "${args[@]}")" ""
    label_list "$clean" "$target" "${args[@]}" >"$WORK/$n/wanted-hits"
    row "$n" "input (no crash/hang)" - - "$(n_files "$clean")" "$(n_bytes "$clean")" \
        "$(wc -l <"$WORK/$n/wanted-hits")" "$dropped dropped"

    for labels_mode in hits edges; do
        [ "$MODES" = both ] || [ "$MODES" = "$labels_mode" ] || continue
        compare "$labels_mode"
    done
done
