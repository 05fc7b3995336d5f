#!/usr/bin/env bash
# How well the estimate of what is left plans a run: each corpus is run to completion (every label
# finished, within CAP seconds), and its manifest's course (each point keeps the estimate as it
# stood there) gives, at the points where half, 60%, 75% and 90% of the run's executions were done,
# the estimate against the truth (the executions the run still took). Beside it, the previous
# estimate (the pace of the unfinished labels over the last quarter alone), recomputed from the
# same course. A "~" figure should be within 2x of the truth; a ">" figure is said as "at least"
# and should not be above it. The last columns: labels finished at a quarter, half and three
# quarters of the run's time, and its length. A corpus that did not complete within CAP gives no
# truth and is marked so.
#
# usage: tools/bench/bench_estimate.sh [CORPUS...]
#        CORPUS: a sample corpus with its sample target (http png json), or a real library of
#        tools/real_targets/prepare.sh (xml json lua yaml png cjson, each also as NAME-persist);
#        default: http png json cjson-persist json-persist
# env:   CD_BUILD (./build), BENCH_DIR ($CD_BUILD/bench-real), JOBS (2), CAP (1800: seconds a
#        run may take)
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${CD_BUILD:-$SRC/build}
BIN=$BUILD/corpus-distill
BENCH=${BENCH_DIR:-$BUILD/bench-real}
JOBS=${JOBS:-2}
CAP=${CAP:-1800}
export AFL_QUIET=1 AFL_ALLOW_TMP=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1
unset __AFL_SHM_ID __AFL_SHM_FUZZ_ID __AFL_PERSISTENT __AFL_DEFER_FORKSRV AFL_NO_FORKSRV || true

[ -x "$BIN" ] || { echo "bench_estimate: $BIN not built (tools/setup)" >&2; exit 2; }
[ $# -gt 0 ] || set -- http png json cjson-persist json-persist
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

printf '%-14s %9s %6s  %-27s %-27s %-27s %-27s  %s\n' corpus execs secs "at 50%: now (before)" \
    "at 60%" "at 75%" "at 90%" "finished at 25/50/75% time"
for corpus in "$@"; do
    case $corpus in
    http | png | json)
        input=$SRC/sample_corpora/$corpus.tar.zst
        target=("$BUILD/targets/sample_$corpus")
        [ "$corpus" = png ] && target+=(@@) ;;
    *)
        "$SRC/tools/real_targets/prepare.sh" "$BENCH" >/dev/null
        input=$BENCH/inputs/${corpus%-persist}.tar.zst
        target=("$BENCH/bin/$corpus")
        case $corpus in *-persist) ;; *) target+=(@@) ;; esac ;;
    esac
    [ -f "$input" ] && [ -x "${target[0]}" ] || { echo "$corpus: no inputs or target" >&2; continue; }
    out=$WORK/$corpus
    start=$(date +%s)
    rc=0
    "$BIN" -q -j "$JOBS" --no-state --max-time "$CAP" "$input" -o "$out" -- "${target[@]}" \
        >/dev/null 2>"$out.err" || rc=$?
    secs=$(($(date +%s) - start))
    python3 - "$out.manifest.json" "$corpus" "$secs" "$rc" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
name, secs, rc = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
course = m["run"]["course"]
total = m["run"]["executions"]
def before(pts):
    """The previous estimate: the unfinished labels' pace over the last quarter alone."""
    last, frm = pts[-1], None
    for p in reversed(pts[:-1]):
        frm = p
        if p[1] <= last[1] // 4 * 3:
            break
    was, now = frm[2] - frm[3], last[2] - last[3]
    if not now:
        return 0
    if was <= now or last[1] <= frm[1]:
        return None
    return (last[1] - frm[1]) / (was - now) * now + 1
cells = []
for frac in (0.5, 0.6, 0.75, 0.9):
    pts = [p for p in course if p[1] <= total * frac]
    if len(pts) < 2 or not m["run"]["complete"]:
        cells.append("-")
        continue
    p, truth = pts[-1], total - pts[-1][1]
    left, at_least = p[6], p[7]
    old = before(pts)
    now = ("not converging" if left == -1 else
           "%s%.2fx" % (">" if at_least else "~", left / truth) if left and truth else "-")
    cells.append("%s (%s)" % (now, "%.2fx" % (old / truth) if old and truth else "-"))
ms = course[-1][0] if course else 0
done = []
for frac in (0.25, 0.5, 0.75):
    pts = [p for p in course if p[0] <= ms * frac]
    done.append("%d%%" % (100 * pts[-1][3] // max(pts[-1][2], 1)) if pts else "-")
print("%-14s %9d %6d  %-27s %-27s %-27s %-27s  %s%s" % (
    name, total, secs, *cells, "/".join(done),
    "" if m["run"]["complete"] else "  (not complete: exit %d)" % rc))
PY
done
