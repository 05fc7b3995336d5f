#!/usr/bin/env bash
# --shard and merge on one machine, without a scheduler: the shards split the inputs by content;
# a merge keeps every label of every shard (checked in the manifests) whatever the order of its
# states, and a merge of a merge with the last shard (a tree) does too; merges sharded by label
# (merge --shard K/N) finish disjoint sets of labels and merge into one that keeps them all; a
# state that is damaged or made with other settings stops the merge with exit 4 and a message
# naming it.
set -uo pipefail
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?} target=${CD_TARGETS:?}/sample_json
export AFL_QUIET=1
W=$(mktemp -d) && tmp=$W && trap '_cd_scratch_end' EXIT # (lib.sh: manifests checked, then removed)
cd "$W" || exit 1
run() { "$bin" "$@"; local rc=$?; [ $rc -le 1 ] || err "exit $rc: $*"; }
# The checks are of labels, not of the cover: the merges after the first take the greedy cover
# (--cover-time 0), the exact solve of each taking seconds of CPU on the JSON sample.

mkdir in
tar --zstd -xf "${CD_SRC:?}/sample_corpora/json.tar.zst" -C in
for k in 1 2 3; do
    run -q -j 1 --seed 1 --max-execs 3000 --shard $k/3 in -o s$k -- "$target" @@
done
run merge -q -j 1 --max-execs 1500 s1.state s2.state s3.state -o m123 -- "$target" @@
run merge -q -j 1 --cover-time 0 --max-execs 1500 s3.state s1.state s2.state -o m312 -- "$target" @@
run merge -q -j 1 --cover-time 0 --max-execs 1500 s1.state s2.state -o m12 -- "$target" @@
run merge -q -j 1 --cover-time 0 --max-execs 1500 m12.state s3.state -o tree -- "$target" @@
run merge -q -j 1 --cover-time 0 --no-reduce s1.state s2.state s3.state -o m0 -- "$target" @@
# Fresh: within 16,000 executions each label shard must finish some labels of its own; the found
# labels' short cut copies finish first, while the default order spends its attempts on the
# labels of the largest seeds, which take longest. (At 8,000 the first shard finished none of its
# own once the shards' states came out a little differently, with the uniform pass; at 16,000 it
# finished 4.)
run merge -q -j 1 --cover-time 0 --order fresh --max-execs 16000 --shard 1/2 s1.state s2.state s3.state -o l1 -- "$target" @@
run merge -q -j 1 --cover-time 0 --order fresh --max-execs 16000 --shard 2/2 s1.state s2.state s3.state -o l2 -- "$target" @@
run merge -q -j 1 --cover-time 0 --max-execs 1000 l1.state l2.state -o l12 -- "$target" @@
python3 - <<'PY' || err "merges sharded by label overlap, or their merge lost a label"
import json
m = {n: json.load(open(n + ".manifest.json")) for n in ("m0", "l1", "l2", "l12")}
fin = {n: {k for k, v in m[n]["labels"].items() if v["finished"]} for n in m}
# labels of the merged table (m0 has them all): one found during both label shards' reductions
# may be finished in each
new1 = {k for k in fin["l1"] - fin["m0"] if k in m["m0"]["labels"]}
new2 = {k for k in fin["l2"] - fin["m0"] if k in m["m0"]["labels"]}
assert new1 and new2, (len(new1), len(new2))
assert not (new1 & new2), sorted(new1 & new2)[:5]
assert m["l1"]["settings"]["shard"] == "1/2"
missing = (set(m["l1"]["labels"]) | set(m["l2"]["labels"])) - set(m["l12"]["labels"])
assert not missing, sorted(missing)[:5]
PY
python3 - <<'PY' || err "a merge lost a label, or the shards do not split the inputs"
import json
m = {n: json.load(open(n + ".manifest.json")) for n in ("s1", "s2", "s3", "m123", "m312", "tree")}
shards = [m["s1"], m["s2"], m["s3"]]
total = {s["input"]["inputs"] + s["input"]["other_shards"] for s in shards}
assert len(total) == 1 and sum(s["input"]["inputs"] for s in shards) == total.pop(), total
union = set().union(*(s["labels"] for s in shards))
for n in ("m123", "m312", "tree"):
    assert m[n]["state"]["start"] == "merged", (n, m[n]["state"])
    missing = union - set(m[n]["labels"])
    assert not missing, (n, len(missing), sorted(missing)[:5])
    assert m[n]["settings"]["shard"] is None
PY
# The GNU parallel recipe, with this machine as its only login (":"): two shards, then the merge.
if command -v parallel >/dev/null; then
    printf '2/:\n' >hosts
    PATH=$(dirname "$bin"):$PATH "${CD_SRC:?}/tools/scale/parallel-ssh.sh" hosts pw in \
        -- -q -j 1 --max-execs 2000 -- "$target" @@ >pw.log 2>&1
    rc=$?
    [ $rc -le 1 ] || err "tools/scale/parallel-ssh.sh exited $rc: $(tail -n 3 pw.log)"
    python3 - <<'PY' || err "the GNU parallel recipe's merge lost a label"
import json
shards = [json.load(open(f"pw/shards/shard-{k}.manifest.json")) for k in (1, 2)]
m = json.load(open("pw/seeds.manifest.json"))
assert m["state"]["start"] == "merged" and [s["settings"]["shard"] for s in shards] == ["1/2", "2/2"]
missing = set().union(*(s["labels"] for s in shards)) - set(m["labels"])
assert not missing, sorted(missing)[:5]
# "2/:" is two slots: the shards ran at once, the second starting before the first ended
jobs = [l.split("\t") for l in open("pw/shards/joblog").read().splitlines()[1:]]
(s1, r1), (s2, r2) = sorted((float(j[2]), float(j[3])) for j in jobs)
assert len(jobs) == 2 and s2 < s1 + r1, jobs
PY
else
    echo "GNU parallel missing: tools/scale/parallel-ssh.sh not run"
fi
# A damaged state, and a state made with other settings (-e): exit 4, the file named.
head -c 1000 s2.state >bad.state
"$bin" merge -q -j 1 --max-execs 100 s1.state bad.state -o x -- "$target" @@ 2>out.txt
[ $? = 4 ] && grep -q "bad.state" out.txt || err "a damaged state: $(cat out.txt)"
run -q -j 1 -e --max-execs 500 --shard 2/3 in -o e2 -- "$target" @@
"$bin" merge -q -j 1 --max-execs 100 s1.state e2.state -o y -- "$target" @@ 2>out.txt
[ $? = 4 ] && grep -q "different settings" out.txt || err "states of other settings: $(cat out.txt)"
[ ! -e x ] && [ ! -e y ] || err "a failed merge wrote an output"
[ $fail = 0 ] && echo "ok: shards split the inputs; merges in any order, as a tree and by label keep every label"
exit $fail
