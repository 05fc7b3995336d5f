#!/usr/bin/env bash
# Distillation end to end on the sample corpora with 4 workers, checked against afl-showmap: every
# sample within an execution budget (to completion in the long tier, CD_DISTILL_FULL=1), the
# output (seeds and reproducers) covers every label the
# input set covered, the seeds alone every label of the inputs that do not crash, no output file
# is larger than the largest input, a planted crash comes out as a small reproducer and never as
# a seed, a complete run is reproducible with the same seed, a budgeted -j 1 run's seeds weigh no
# more than the select-only output's,
# with -e a JSON subset reaches completion and keeps every input edge, --no-reduce keeps every
# label, and SIGINT mid-run still leaves a valid output. No verdict depends on the machine's speed:
# budgets are executions, and completion is asked only of inputs small enough for any machine. Labels are
# afl-showmap -r raw counts classified by the intended ranges (1, 2, 3, 4-7, 8-15, 16-31, 32-127,
# 128+), never by afl-showmap's own classes: Debian's 4.04c drops counts such as 5 or 12.
set -euo pipefail

. "$(dirname "$0")/lib.sh" && cd_need_afl
: "${CD_BIN:?}" "${CD_TARGETS:?}" "${CD_SRC:?}"
export AFL_QUIET=1
unset __AFL_SHM_ID __AFL_SHM_FUZZ_ID __AFL_PERSISTENT __AFL_DEFER_FORKSRV AFL_NO_FORKSRV || true
# The sample corpora run with 4 workers for EXECS executions each; in the long tier
# (CD_DISTILL_FULL=1) they must reach completion instead: the PNG and HTTP samples within
# COMPLETE_BUDGET seconds, the JSON sample, whose 30-70 KB crawl dumps take many minutes to
# reduce, within JSON_BUDGET. The tiny set and the -e subset below run to completion anywhere.
FULL=${CD_DISTILL_FULL:-0}
EXECS=${CD_DISTILL_EXECS:-3000}
COMPLETE_BUDGET=${CD_DISTILL_COMPLETE_BUDGET:-400}
JSON_BUDGET=${CD_DISTILL_JSON_BUDGET:-1200}

WORK=$(mktemp -d)
bg_pid=
cleanup() {
    local rc=$?
    [ -n "$bg_pid" ] && kill "$bg_pid" 2>/dev/null || true
    tmp=$WORK
    (exit $rc); _cd_scratch_end # (lib.sh: manifests checked, then removed, the status kept)
}
trap cleanup EXIT
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# labels DIR TARGET [ARGS...]: the union of the labels of every file in DIR, one per line.
labels() { cd_labels "$@"; }

# run_one TARGET FILE: the target's exit status on FILE (every sample target takes the input as
# its argument, the libFuzzer one too), or 124 when it is still running after a second.
run_one() {
    local rc=0
    timeout 1 "$1" "$2" >/dev/null 2>&1 || rc=$?
    echo "$rc"
}

# hang_coverage MANIFEST: the coverage labels timeout reproducers show, one per line: none is
# expected, since a run stopped by the timeout shows no coverage (afl-showmap writes no map for it).
hang_coverage() {
    python3 - "$1" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for r in m["reproducers"]:
    if r["file"].startswith("timeout-"):
        for label in r["labels"]:
            if label != "timeout":
                print(label)
PY
}

# check_covered NAME IN OUT INPUTS OUTPUT: every label of file IN is in file OUT; INPUTS and
# OUTPUT name both sides in the report.
check_covered() {
    local name=$1 in=$2 out=$3 inputs=$4 output=$5 missing n_in
    comm -23 "$in" "$out" >"$in.missing" || true
    missing=$(wc -l <"$in.missing")
    n_in=$(wc -l <"$in")
    if [ "$n_in" -lt 50 ]; then
        fail "$name: only $n_in labels of $inputs: the oracle did not run"
    elif [ "$missing" != 0 ]; then
        fail "$name: $missing of the $n_in labels of $inputs missing from $output:" \
            "$(head -5 "$in.missing" | tr '\n' ' ')"
    else
        ok "$name: all $n_in labels of $inputs shown by $output ($(wc -l <"$out") there)"
    fi
}

# covers NAME INDIR OUTDIR TARGET [ARGS...]: OUTDIR and its reproducers show every label of INDIR.
covers() {
    local name=$1 indir=$2 outdir=$3 all
    shift 3
    all="$WORK/all.$name"
    mkdir -p "$all"
    cp "$outdir"/* "$all"/ 2>/dev/null || true
    [ -d "$outdir.crashes" ] && cp "$outdir.crashes"/* "$all"/ 2>/dev/null || true
    labels "$indir" "$@" >"$WORK/in.$name.labels"
    labels "$all" "$@" >"$WORK/out.$name.labels"
    hang_coverage "$outdir.manifest.json" >"$WORK/hung.$name.labels"
    if [ -s "$WORK/hung.$name.labels" ]; then
        fail "$name: timeout reproducers show coverage:" \
            "$(head -3 "$WORK/hung.$name.labels" | tr '\n' ' ')"
    fi
    check_covered "$name" "$WORK/in.$name.labels" "$WORK/out.$name.labels" "the inputs" \
        "the seeds and reproducers"
}

# seed_covers NAME CLEAN OUTDIR TARGET [ARGS...]: after covers NAME, the seeds alone show every
# label of the inputs in CLEAN, those that neither crash nor hang. afl-fuzz refuses a crashing
# seed, so a label such an input showed must not be held by a shorter crash.
seed_covers() {
    local name=$1 clean=$2 outdir=$3
    shift 3
    labels "$clean" "$@" >"$WORK/in.$name.clean"
    labels "$outdir" "$@" >"$WORK/out.$name.seeds"
    check_covered "$name" "$WORK/in.$name.clean" "$WORK/out.$name.seeds" \
        "the inputs that do not crash" "the seeds alone"
}

largest() { find "$1" -type f -printf '%s\n' | sort -n | tail -1; }

target_args() { # the arguments after the target: @@ for file-reading targets
    case $1 in
    http) echo "" ;;
    *) echo "@@" ;;
    esac
}

# --- each sample corpus, with a time budget ---------------------------------------------------
for n in json png http; do
    target="$CD_TARGETS/sample_$n"
    [ -x "$target" ] || { fail "target sample_$n was not built"; continue; }
    in="$WORK/in/$n"
    mkdir -p "$in" "$WORK/hangs/$n" "$WORK/out"
    tar --zstd -xf "$CD_SRC/sample_corpora/$n.tar.zst" -C "$in"
    # Inputs that hang give coverage that depends on when they were killed: they run through the
    # tool but stay out of the comparison.
    # Each input runs once here: those that neither crash nor hang are copied for seed_covers.
    args=$(target_args "$n")
    mkdir -p "$WORK/clean.$n"
    while IFS= read -r -d '' f; do
        rc=$(run_one "$target" "$f")
        if [ "$rc" = 124 ]; then
            mv "$f" "$WORK/hangs/$n/$(basename "$f").$RANDOM"
        elif [ "$rc" -lt 124 ]; then
            cp "$f" "$WORK/clean.$n/$(basename "$f").$RANDOM"
        fi
    done < <(find "$in" -type f -print0)
    cp "$WORK/hangs/$n"/* "$in"/ 2>/dev/null || true
    out="$WORK/out/$n"
    rc=0
    budget=(--max-execs "$EXECS")
    if [ "$FULL" = 1 ]; then
        budget=(--max-time "$COMPLETE_BUDGET")
        [ "$n" != json ] || budget=(--max-time "$JSON_BUDGET")
    fi
    # shellcheck disable=SC2086
    "$CD_BIN" -q -j 4 --seed 1 "${budget[@]}" "$in" -o "$out" -- "$target" $args || rc=$?
    if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
        fail "$n: corpus-distill exited $rc"
        continue
    fi
    [ -f "$out.manifest.json" ] || fail "$n: no manifest"
    if [ "$FULL" != 1 ]; then
        ok "$n: -j 4 ran ${budget[*]} (exit $rc)"
    elif [ "$rc" = 0 ] && python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["run"]; sys.exit(0 if r["complete"] else 1)' "$out.manifest.json"; then
        ok "$n: -j 4 reached completion"
    else
        fail "$n: -j 4 did not reach completion in ${budget[*]} s (exit $rc)"
    fi
    for f in "$WORK/hangs/$n"/*; do
        [ -e "$f" ] && rm -f "$in/$(basename "$f")"
    done
    # shellcheck disable=SC2086
    covers "$n" "$in" "$out" "$target" $args
    # shellcheck disable=SC2086
    seed_covers "$n" "$WORK/clean.$n" "$out" "$target" $args
    if [ "$(largest "$out")" -gt "$(largest "$in")" ]; then
        fail "$n: an output file of $(largest "$out") bytes, the largest input has $(largest "$in")"
    else
        ok "$n: largest output file $(largest "$out") bytes <= largest input $(largest "$in")"
    fi
done

# --- a budgeted run's seeds weigh no more than the select-only output's --------------------------
# One worker and a seed fix the run, and the budget is executions, so the verdict is the same on
# any machine.
if [ -d "$WORK/in/json" ]; then
    for mode in no-reduce budget; do
        args=(--no-reduce)
        [ "$mode" = no-reduce ] || args=(--max-execs 4000)
        rc=0
        "$CD_BIN" -q -j 1 --seed 3 "${args[@]}" "$WORK/in/json" -o "$WORK/anytime-$mode" -- \
            "$CD_TARGETS/sample_json" @@ || rc=$?
        [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "anytime $mode: corpus-distill exited $rc"
    done
    sel=$(find "$WORK/anytime-no-reduce" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    got=$(find "$WORK/anytime-budget" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    if [ "$got" -le "$sel" ] && [ "$sel" -gt 0 ]; then
        ok "anytime: 4,000 executions leave $got seed bytes, select-only $sel"
    else
        fail "anytime: 4,000 executions leave $got seed bytes, more than select-only $sel"
    fi
    covers anytime "$WORK/in/json" "$WORK/anytime-budget" "$CD_TARGETS/sample_json" @@
fi

# --- -e: edge labels; a JSON subset to completion with 4 workers --------------------------------
# Every edge an input showed is shown by the output, and the manifest counts edges, not hits. The
# subset (the 40 smallest sample files, the whole sample in the long tier) completes in seconds.
if [ -d "$WORK/in/json" ]; then
    rc=0
    edges_in="$WORK/in/json"
    if [ "$FULL" != 1 ]; then
        edges_in="$WORK/in/json-small"
        mkdir -p "$edges_in"
        find "$WORK/in/json" -type f -printf '%s %p\n' | sort -n | sed -n 1,40p | cut -d' ' -f2- |
            while IFS= read -r f; do cp "$f" "$edges_in/"; done
    fi
    "$CD_BIN" -q -j 4 --seed 1 -e "$edges_in" -o "$WORK/edges" -- \
        "$CD_TARGETS/sample_json" @@ || rc=$?
    if [ "$rc" != 0 ]; then
        fail "-e: corpus-distill exited $rc, expected 0 (complete)"
    else
        ok "-e: -j 4 reached completion on $(find "$edges_in" -type f | wc -l) JSON sample files"
        mkdir -p "$WORK/all.edges"
        cp "$WORK/edges"/* "$WORK/edges.crashes"/* "$WORK/all.edges"/ 2>/dev/null || true
        labels "$edges_in" "$CD_TARGETS/sample_json" @@ | cut -d: -f1 | sort -u >"$WORK/in.edges"
        labels "$WORK/all.edges" "$CD_TARGETS/sample_json" @@ | cut -d: -f1 | sort -u >"$WORK/out.edges"
        missing=$(comm -23 "$WORK/in.edges" "$WORK/out.edges" | wc -l)
        n_in=$(wc -l <"$WORK/in.edges")
        if [ "$n_in" -lt 50 ] || [ "$missing" != 0 ]; then
            fail "-e: $missing of $n_in input edges missing from the output"
        else
            ok "-e: all $n_in input edges covered ($(wc -l <"$WORK/out.edges") in the output)"
        fi
        if python3 - "$WORK/edges.manifest.json" "$(wc -l <"$WORK/out.edges")" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
# found edges left out of the seeds (kept in the state) are not in the output's files
cov = [l for l, v in m["labels"].items() if l[:1].isdigit() and v["in"] != "state"]
ok = m["settings"]["edges_only"] and cov and all(l.endswith(":1") for l in cov)
sys.exit(0 if ok and len(cov) == int(sys.argv[2]) else 1)
PY
        then
            ok "-e: the manifest lists the output's edges, each as one class-1 label"
        else
            fail "-e: the manifest's coverage labels are not the output's edges, each class 1"
        fi
    fi
fi

# --- --no-reduce: a selection that keeps every label -------------------------------------------
if [ -d "$WORK/in/json" ]; then
    rc=0
    "$CD_BIN" -q -j 1 --no-reduce "$WORK/in/json" -o "$WORK/nr" -- "$CD_TARGETS/sample_json" @@ ||
        rc=$?
    if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
        fail "--no-reduce: corpus-distill exited $rc"
    else
        covers no-reduce "$WORK/in/json" "$WORK/nr" "$CD_TARGETS/sample_json" @@
        nin=$(find "$WORK/in/json" -type f | wc -l)
        nout=$(find "$WORK/nr" -type f | wc -l)
        [ "$nout" -lt "$nin" ] && ok "--no-reduce: $nout of $nin inputs kept" ||
            fail "--no-reduce: $nout files out of $nin inputs"
        # every kept file is an input as it was
        for f in "$WORK/nr"/*; do
            s=$(sha1sum <"$f" | cut -d' ' -f1)
            [ "$s" = "$(basename "$f")" ] || fail "--no-reduce: $(basename "$f") is not named by its SHA-1"
        done
    fi
fi

# --- a complete run on a tiny set with a planted crash -------------------------------------------
tiny="$WORK/tiny"
mkdir -p "$tiny"
printf '%s' '{"a":[1,2]}' >"$tiny/a.json"
printf '%s' '"x"' >"$tiny/b.json"
printf '%s' '{"":{"":{"crash":0}}}' >"$tiny/planted.json"
for i in 1 2; do
    rc=0
    "$CD_BIN" -q -j 1 --seed 7 "$tiny" -o "$WORK/tiny$i" -- "$CD_TARGETS/sample_json" @@ || rc=$?
    [ "$rc" = 0 ] || fail "tiny run $i: exit status $rc, expected 0 (complete)"
done
if grep -q '"complete": true' "$WORK/tiny1.manifest.json"; then
    ok "tiny: the manifest says complete"
else
    fail "tiny: the manifest does not say complete"
fi
if [ "$(ls "$WORK/tiny1")" = "$(ls "$WORK/tiny2")" ] && [ -n "$(ls "$WORK/tiny1")" ]; then
    ok "tiny: same seed, same $(ls "$WORK/tiny1" | wc -l) seeds"
else
    fail "tiny: two runs with the same seed wrote different seed sets"
fi
covers tiny "$tiny" "$WORK/tiny1" "$CD_TARGETS/sample_json" @@
repro=
for f in "$WORK/tiny1.crashes"/crash-*; do
    [ -e "$f" ] || continue
    if [ "$(run_one "$CD_TARGETS/sample_json" "$f")" -ge 128 ]; then
        repro=$f
    fi
done
if [ -z "$repro" ]; then
    fail "tiny: no crash reproducer that crashes the target"
elif [ "$(stat -c %s "$repro")" -ge 21 ]; then
    fail "tiny: the reproducer has $(stat -c %s "$repro") bytes, the planted crash 21"
else
    ok "tiny: planted 21-byte crash reduced to a $(stat -c %s "$repro")-byte reproducer"
fi
for f in "$WORK/tiny1"/*; do
    [ "$(run_one "$CD_TARGETS/sample_json" "$f")" -ge 128 ] && fail "tiny: seed $(basename "$f") crashes"
done

# --- hangs with one worker: the same seed and budget give the same output ----------------------
# A hang's coverage depends on when it was stopped, and whether a candidate runs past the
# calibrated timeout depends on the machine: neither may change what a seeded run writes.
if [ -x "$CD_TARGETS/sample_http" ]; then
    hung="$WORK/hung"
    mkdir -p "$hung/all" "$hung/in"
    tar --zstd -xf "$CD_SRC/sample_corpora/http.tar.zst" -C "$hung/all"
    cp "$hung/all"/bugs/* "$hung/all"/api/call_001* "$hung/in"/
    for i in 1 2; do
        rc=0
        "$CD_BIN" -q -j 1 --seed 3 --max-execs 15000 "$hung/in" -o "$hung/out$i" -- \
            "$CD_TARGETS/sample_http" || rc=$?
        [ "$rc" -le 1 ] || fail "hangs: run $i exited $rc, expected 0 or 1"
    done
    hang_repro=$(find "$hung/out1.crashes" -name 'timeout-*' | sed -n 1p)
    if [ -z "$hang_repro" ]; then
        fail "hangs: no timeout reproducer"
    elif [ "$(run_one "$CD_TARGETS/sample_http" "$hang_repro")" != 124 ]; then
        fail "hangs: the timeout reproducer $(basename "$hang_repro") does not hang"
    elif diff -r "$hung/out1" "$hung/out2" >/dev/null &&
        diff -r "$hung/out1.crashes" "$hung/out2.crashes" >/dev/null; then
        ok "hangs: same seed, same $(ls "$hung/out1" | wc -l) seeds and the same reproducers," \
            "the timeout one $(stat -c %s "$hang_repro") bytes"
    else
        fail "hangs: two -j 1 runs with the same seed wrote different outputs"
    fi
fi

# --- SIGINT mid-run: a valid, incomplete output -------------------------------------------------
if [ -d "$WORK/in/png" ]; then
    # The signal comes once the reduction has started (its first progress line), so that every
    # input ran, however fast the machine is.
    "$CD_BIN" -j 1 "$WORK/in/png" -o "$WORK/int" -- "$CD_TARGETS/sample_png" @@ 2>"$WORK/int.log" &
    bg_pid=$!
    while kill -0 "$bg_pid" 2>/dev/null && ! grep -q ' reduce: ' "$WORK/int.log"; do
        sleep 0.2
    done
    kill -INT "$bg_pid" 2>/dev/null || true
    rc=0
    wait "$bg_pid" || rc=$?
    bg_pid=
    if [ "$rc" != 1 ]; then
        fail "SIGINT: exit status $rc, expected 1 (incomplete)"
    elif ! grep -q '"stopped_by": "signal"' "$WORK/int.manifest.json"; then
        fail "SIGINT: the manifest does not say stopped by a signal"
    else
        ok "SIGINT: exit status 1, manifest stopped_by signal"
        covers sigint "$WORK/in/png" "$WORK/int" "$CD_TARGETS/sample_png" @@
    fi
fi

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all distillation checks passed"
