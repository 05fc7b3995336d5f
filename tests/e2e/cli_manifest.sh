#!/usr/bin/env bash
# The manifest is valid JSON and tells the truth, checked against afl-showmap, the oracle: every
# seed's coverage labels are exactly what afl-showmap -r sees on it (raw counts classified by the
# intended ranges 1,2,3,4-7,8-15,16-31,32-127,128+, since Debian 4.04c's own classes are wrong),
# every label's best seed covers it, every label the inputs show is covered by the output, a found
# label left out of the seeds ("in": "state") is shown by no seed, the seed bytes never grew
# along the run's course, and the exact cover's figures hold together (no cover under its bound,
# nor its linear relaxation's above it; the exact cover no heavier than the greedy one; greedy
# alone with --cover-time 0).
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
corpus=${CD_SRC:?}/sample_corpora/json.tar.zst
cd_need "$target" "$corpus"
here=$(cd "$(dirname "$0")" && pwd) # showmap.py, for the Python part
cd_scratch

mkdir all in && tar --zstd -xf "$corpus" -C all || exit 1
find all -type f -size +0 | sort | head -n 40 | while read -r f; do cp "$f" in/; done

"$bin" -q -j 1 --max-execs 20000 in -o seeds -- "$target" @@
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { echo "FAIL: distill exited $rc"; exit 1; }

"$bin" -q -j 1 --no-reduce --cover-time 0 in -o greedy -- "$target" @@ ||
    { echo "FAIL: the greedy select-only run exited $?"; exit 1; }
python3 - greedy.manifest.json <<'PY' || exit 1
import json, sys
o = json.load(open(sys.argv[1]))["output"]
if o["cover_solver"] != "greedy" or o["cover_lp_bound_bytes"] != 0 or \
        o["cover_required_bytes"] != o["cover_greedy_bytes"]:
    print("FAIL: --cover-time 0: solver %s, LP bound %d, cover %d, greedy %d" % (
        o["cover_solver"], o["cover_lp_bound_bytes"], o["cover_required_bytes"],
        o["cover_greedy_bytes"]))
    sys.exit(1)
PY

AFL_QUIET=1 afl-showmap -q -r -i seeds -o seedmaps -- "$target" @@ >/dev/null 2>&1
AFL_QUIET=1 afl-showmap -q -r -i in -o inmaps -- "$target" @@ >/dev/null 2>&1

PYTHONPATH=$here python3 - seeds.manifest.json seeds seedmaps inmaps <<'PY'
import json, os, sys
from showmap import labels
manifest, seeds, seedmaps, inmaps = sys.argv[1:]
m = json.load(open(manifest))
fail = []
assert m["schema_version"] == 1

files = sorted(os.listdir(seeds))
listed = sorted(s["file"] for s in m["seeds"])
if files != listed:
    fail.append("seed dir and manifest list different files")
if m["output"]["seeds"] != len(files):
    fail.append("output.seeds is %d, dir has %d" % (m["output"]["seeds"], len(files)))
covered = set()
for s in m["seeds"]:
    cov = {l for l in s["labels"] if l[0].isdigit()}
    if len(cov) != len(s["labels"]):
        fail.append("seed %s shows an outcome label" % s["sha1"])
    mp = os.path.join(seedmaps, s["file"])
    if not os.path.exists(mp):
        if s["size"] != 0:
            fail.append("no afl-showmap output for seed %s" % s["sha1"])
        continue
    seen = labels(mp)
    covered |= seen
    if seen != cov:
        fail.append("seed %s: manifest %d labels, afl-showmap %d (only manifest: %s, only showmap: %s)"
                    % (s["sha1"], len(cov), len(seen), sorted(cov - seen)[:5], sorted(seen - cov)[:5]))
    if not set(s["best"]) <= set(s["labels"]):
        fail.append("seed %s is best for labels it does not cover" % s["sha1"])
by_sha = {s["sha1"]: s for s in m["seeds"]}
rep_sha = {r["sha1"]: r for r in m["reproducers"]}
left_out = {}
for text, l in m["labels"].items():
    if l["in"] == "state":
        left_out[text] = l
        if not l["found"] or l["size"] <= 0 or l["best"] in by_sha:
            fail.append("label %s left out: found %s, size %s" % (text, l["found"], l["size"]))
        continue
    holder = (by_sha if l["in"] == "seeds" else rep_sha).get(l["best"])
    if holder is None:
        fail.append("label %s: best %s is not among the %s" % (text, l["best"], l["in"]))
    elif text not in holder["labels"] or text not in holder["best"]:
        fail.append("label %s: its best example does not list it" % text)
if m["run"]["labels_found"] != len(m["labels"]):
    fail.append("run.labels_found disagrees with labels")
for r in m["reproducers"]:
    covered |= {l for l in r["labels"] if l[0].isdigit()}
inputs = set()
for f in os.listdir(inmaps):
    inputs |= labels(os.path.join(inmaps, f))
# sample_json is deterministic: inputs with new labels ran twice, and no edge differed
if m["run"]["unstable_edges"] != [] or m["run"]["recheck_executions"] <= 0:
    fail.append("unstable edges %s after %d second runs of a deterministic target"
                % (m["run"]["unstable_edges"], m["run"]["recheck_executions"]))
crash_only = {t for t, l in m["labels"].items() if l.get("crash_only")}
if m["output"]["labels_left_out"] + m["output"]["crash_only_labels"] != len(left_out):
    fail.append("output.labels_left_out %d + crash_only_labels %d, labels say %d"
                % (m["output"]["labels_left_out"], m["output"]["crash_only_labels"], len(left_out)))
if len(crash_only) != m["output"]["crash_only_labels"]:
    fail.append("%d labels marked crash_only, output says %d" % (len(crash_only),
                m["output"]["crash_only_labels"]))
if set(left_out) & covered:
    fail.append("labels left out yet shown by a seed: %s" % sorted(set(left_out) & covered)[:5])
course = [p[4] for p in m["run"]["course"]]
if any(b > a for a, b in zip(course, course[1:])) or (course and m["output"]["seed_bytes"] > course[-1]):
    fail.append("seed bytes grew along the run: %s, then %d" % (course, m["output"]["seed_bytes"]))
if course and course[0] > m["output"]["select_only_bytes"]:
    fail.append("the course starts above the select-only bytes")
o = m["output"]
if o["cover_solver"] not in ("optimal", "capped"):
    fail.append("the exact cover of 40 inputs gave nothing back: %s" % o["cover_solver"])
if not (0 < o["cover_lp_bound_bytes"] <= o["cover_bound_bytes"] <= o["cover_required_bytes"]
        <= o["cover_greedy_bytes"]) or o["cover_required_bytes"] > o["seed_bytes"]:
    fail.append("cover figures out of order: LP %d, bound %d, cover %d, greedy %d, seeds %d" % (
        o["cover_lp_bound_bytes"], o["cover_bound_bytes"], o["cover_required_bytes"],
        o["cover_greedy_bytes"], o["seed_bytes"]))
if o["cover_solver"] == "optimal" and o["cover_bound_bytes"] != o["cover_required_bytes"]:
    fail.append("an optimal cover of %d bytes above its bound %d" % (o["cover_required_bytes"],
                o["cover_bound_bytes"]))
left = m["run"]["execs_left"]
for p in m["run"]["course"]:  # ms, execs, labels, finished, seed bytes, unfinished bytes, left, at least
    if len(p) != 8 or p[7] not in (0, 1) or (p[2] == p[3] and (p[5] or p[6] or p[7])):
        fail.append("course point %r: not 8 numbers, or an estimate with every label finished"
                    % (p,))
        break
if left is not None and (not isinstance(left, int) or left <= 0 or m["run"]["complete"]):
    fail.append("run.execs_left is %r" % (left,))
if not isinstance(m["run"]["execs_left_at_least"], bool) or (
        left is None and m["run"]["execs_left_at_least"]):
    fail.append("run.execs_left_at_least is %r beside %r" % (m["run"]["execs_left_at_least"], left))
# labels only crashing inputs show may stay in the state: one reproducer per bug, hang, signal
missing = inputs - covered - crash_only
if missing:
    fail.append("%d input labels not covered by the output, e.g. %s" % (len(missing), sorted(missing)[:5]))
for f in fail[:20]:
    print("FAIL:", f)
print("seeds %d, labels %d, input labels %d, covered %d, left out %d"
      % (len(files), len(m["labels"]), len(inputs), len(covered), len(left_out)))
sys.exit(1 if fail else 0)
PY
# a manifest of an earlier version, whose course points hold five numbers, is still read
python3 -c 'import json, sys
m = json.load(open(sys.argv[1])); m["run"]["course"] = [p[:5] for p in m["run"]["course"]]
json.dump(m, open("old.manifest.json", "w"))' seeds.manifest.json &&
    "$bin" audit old.manifest.json >/dev/null ||
    { echo "FAIL: a manifest with five-number course points is not read"; exit 1; }
