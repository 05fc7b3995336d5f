#!/usr/bin/env bash
# Unstable edges, against afl-showmap: exec_unstable keeps a count from run to run, so a few of
# its edges differ between two runs of one input (afl-showmap run twice on one file finds them).
# A run must find exactly those (none of the edges the input decides), leave their labels out of
# the manifest and the seeds, still cover every other label the inputs show, keep them in its
# state for the next run, and find none on the same target run stable; under
# AFL_NO_STARTUP_CALIBRATION a select-only run runs each input once.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/exec_unstable
cd_need "$target"
here=$(cd "$(dirname "$0")" && pwd) # showmap.py, for the Python part
cd_scratch
export EXEC_UNSTABLE_COUNT=$tmp/count AFL_QUIET=1
echo 0 >count

python3 - <<'PY'
import os, random
r = random.Random(5)
os.mkdir("in")
for i in range(40):
    n = r.choice([1, 3, 8, 20, 60, 200])
    open("in/f%02d" % i, "wb").write(bytes(r.choice(b"abxy0123456789ABCDEF{}") for _ in range(n)))
PY
for k in 1 2; do afl-showmap -q -r -o twice$k -- "$target" in/f05 >/dev/null 2>&1; done

"$bin" -q -j 1 --seed 1 in -o cold -- "$target" @@ || { echo "FAIL: cold run exited $?"; exit 1; }
"$bin" -q -j 1 --seed 1 in -o cold -- "$target" @@ || { echo "FAIL: warm run exited $?"; exit 1; }
"$bin" -q -j 2 --no-state in -o two -- "$target" @@ || { echo "FAIL: -j 2 run exited $?"; exit 1; }
afl-showmap -q -r -i in -o inmaps -- "$target" @@ >/dev/null 2>&1
afl-showmap -q -r -i cold -o seedmaps -- "$target" @@ >/dev/null 2>&1
env -u EXEC_UNSTABLE_COUNT "$bin" -q -j 1 --no-reduce --no-state in -o stable -- "$target" @@ ||
    { echo "FAIL: stable run exited $?"; exit 1; }
AFL_NO_STARTUP_CALIBRATION=1 "$bin" -q -j 1 --no-reduce --no-state in -o once -- "$target" @@ ||
    { echo "FAIL: run without second runs exited $?"; exit 1; }

PYTHONPATH=$here python3 - <<'PY'
import json, sys
from showmap import edge, labels, labels_of_dir
fail = []

a, b = labels("twice1"), labels("twice2")
flicker = sorted({edge(l) for l in a ^ b})
if len(flicker) < 4:
    fail.append("afl-showmap saw %d unstable edges, the target has more" % len(flicker))
for name in ("cold", "two"):
    m = json.load(open(name + ".manifest.json"))
    found = m["run"]["unstable_edges"]
    if name == "cold" and found != flicker:
        fail.append("cold: unstable edges %s, afl-showmap %s" % (found, flicker))
    if not set(found) <= set(flicker):
        fail.append("%s: stable edges marked unstable: %s" % (name, sorted(set(found) - set(flicker))))
    if not found:
        fail.append("%s: no unstable edge found" % name)
    if name == "two" and m["run"]["recheck_executions"] <= 0:
        fail.append("%s: no input ran twice" % name)
    shown = list(m["labels"]) + [t for s in m["seeds"] for t in s["labels"]]
    left = [t for t in shown if t[0].isdigit() and edge(t) in found]
    if left:
        fail.append("%s: labels of unstable edges kept: %s" % (name, left[:5]))
    if name == "cold" and m["state"]["start"] != "warm":
        fail.append("second run started %s, not warm" % m["state"]["start"])
stable_in = {l for l in labels_of_dir("inmaps") if edge(l) not in flicker}
stable_out = {l for l in labels_of_dir("seedmaps") if edge(l) not in flicker}
if not stable_in <= stable_out:
    fail.append("input labels not covered by the seeds: %s" % sorted(stable_in - stable_out)[:5])
s = json.load(open("stable.manifest.json"))
if s["run"]["unstable_edges"]:
    fail.append("the stable target: unstable edges %s" % s["run"]["unstable_edges"])
o = json.load(open("once.manifest.json"))["run"]
if o["recheck_executions"] or o["executions"] != o["first_pass_executions"] or o["unstable_edges"]:
    fail.append("AFL_NO_STARTUP_CALIBRATION: %d second runs, %d executions for %d inputs, unstable %s"
                % (o["recheck_executions"], o["executions"], o["first_pass_executions"],
                   o["unstable_edges"]))
print("unstable edges %s; %d stable input labels, all covered" % (flicker, len(stable_in)))
if fail:
    print("FAIL:\n  " + "\n  ".join(fail))
    sys.exit(1)
PY
