#!/usr/bin/env bash
# One run against 4 shards plus their merge (by input, and by label as tools/scale/slurm.sh -L
# does it), on the same inputs and target, side by side: wall
# time, executions, labels, seeds and bytes of each, whether the merged corpus keeps every label
# the inputs show (afl-showmap -r, classified by the intended ranges), and the wall time projected
# on 4 machines from the measured parts, beside the machine's ceiling (the single run twice at
# once against once). The single run gets EXECS executions (default
# 100 per input); each shard EXECS/4, the merge EXECS/4. The shards run two at a time, as this
# machine has two cores, so their wall times are those of a shared machine; the projection counts
# their executions at the single run's rate instead.
#
# usage: tools/bench/bench_shards.sh INPUTS.tar.zst OUT_DIR -- TARGET [ARGS...]   (CD_BIN: the tool)
# The real-target inputs come from tools/real_targets/prepare.sh.
set -euo pipefail
[ $# -ge 4 ] && [ "$3" = -- ] || { sed -n 12p "$0" >&2; exit 2; }
inputs=$(realpath "$1") out=$2
shift 3
target=("$@")
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
bin=$(realpath "${CD_BIN:-build/corpus-distill}")
export AFL_QUIET=1
rm -rf "$out" && mkdir -p "$out/in" && out=$(realpath "$out")
tar --zstd -xf "$inputs" -C "$out/in"
n=$(find "$out/in" -type f | wc -l)
execs=${EXECS:-$((n * 100))}
cd "$out"

now() { cd_now; }
timed() { # timed NAME ARGS...: runs the tool, records its wall time in NAME.wall
    local name=$1 t0 rc=0 mode=()
    shift
    [ "$1" = merge ] && { mode=(merge); shift; }
    t0=$(now)
    "$bin" "${mode[@]}" -q "$@" >"$name.log" 2>&1 || rc=$?
    [ $rc -le 1 ] || { echo "bench_shards: $name exited $rc: $(tail -n 2 "$name.log")" >&2; exit 1; }
    echo "$(now) - $t0" | bc >"$name.wall"
}
common=(-j 1 --seed 1)
timed single "${common[@]}" --max-execs "$execs" in -o single -- "${target[@]}"
# The machine's ceiling: the same run twice at once, as the shards run two at a time.
for k in 1 2; do
    timed ceiling-$k "${common[@]}" --max-execs "$execs" in -o ceiling-$k -- "${target[@]}" &
done
wait
for k in 1 2 3 4; do
    timed shard-$k "${common[@]}" --max-execs $((execs / 4)) --shard $k/4 in -o shard-$k \
        -- "${target[@]}" &
    [ $((k % 2)) = 0 ] && wait
done
wait
timed merge merge "${common[@]}" --max-execs $((execs / 4)) shard-{1,2,3,4}.state -o merged \
    -- "${target[@]}"
# By label (tools/scale/slurm.sh -L): select-only shards, merges each reducing one label shard of
# all their states (EXECS/4 each, two at a time), then the merge of those (EXECS/4).
for k in 1 2 3 4; do
    timed sel-$k "${common[@]}" --no-reduce --shard $k/4 in -o sel-$k -- "${target[@]}"
done
for k in 1 2 3 4; do
    timed part-$k merge "${common[@]}" --max-execs $((execs / 4)) --shard $k/4 \
        sel-{1,2,3,4}.state -o part-$k -- "${target[@]}" &
    [ $((k % 2)) = 0 ] && wait
done
wait
timed final merge "${common[@]}" --max-execs $((execs / 4)) part-{1,2,3,4}.state -o final \
    -- "${target[@]}"

# Labels every input shows, and those the merged and the single output keep (seeds and
# reproducers), by afl-showmap.
labels() { CD_SHOWMAP_T=5000 cd_labels "$1" "${target[@]}"; }
for o in single merged final; do
    mkdir -p "$o.all" && cp "$o"/* "$o.all/" && cp "$o".crashes/* "$o.all/" 2>/dev/null || true
done
labels in >in.labels
labels single.all >single.labels
labels merged.all >merged.labels
labels final.all >final.labels

python3 - "$execs" <<'PY'
import json, sys
execs = int(sys.argv[1])
def row(name, manifest, wall):
    m = json.load(open(manifest))
    o, r = m["output"], m["run"]
    return name, float(open(wall).read()), r["executions"], r["labels_found"], o["seeds"], o["seed_bytes"]
rows = [row("single run", "single.manifest.json", "single.wall")]
rows += [row(f"shard {k}/4", f"shard-{k}.manifest.json", f"shard-{k}.wall") for k in range(1, 5)]
rows.append(row("merge", "merged.manifest.json", "merge.wall"))
rows += [row(f"select {k}/4", f"sel-{k}.manifest.json", f"sel-{k}.wall") for k in range(1, 5)]
rows += [row(f"labels {k}/4", f"part-{k}.manifest.json", f"part-{k}.wall") for k in range(1, 5)]
rows.append(row("final merge", "final.manifest.json", "final.wall"))
print(f"budget: {execs} executions for the single run; {execs // 4} for each shard and for the merge")
print("by input: shards 1-4, merge; by label: select 1-4, labels 1-4, final merge")
print(f"{'':12} {'wall s':>8} {'execs':>9} {'labels':>7} {'seeds':>6} {'bytes':>10}")
for name, wall, ex, lab, seeds, b in rows:
    print(f"{name:12} {wall:8.1f} {ex:9} {lab:7} {seeds:6} {b:10}")
inp = set(open("in.labels").read().split())
for name in ("single", "merged", "final"):
    kept = set(open(f"{name}.labels").read().split())
    print(f"{name}: keeps {len(inp & kept)} of the {len(inp)} input labels (afl-showmap)")
single, merge, final = rows[0], rows[5], rows[-1]
for name, r, steps in (("by input", merge, rows[1:6]), ("by label", final, rows[6:])):
    total = sum(x[2] for x in steps)
    print(f"{name}: merged bytes / single bytes: {r[5] / max(single[5], 1):.3f}; last merge's "
          f"executions / single's: {r[2] / max(single[2], 1):.3f}; all executions: {total:,} "
          f"({total / max(single[2], 1):.2f}x)")
# Projection on 4 machines: the shards run at once, each at the single run's executions per
# second (the measured walls of the shards are two at a time on two cores), the slowest decides,
# then the merge as measured.
rate = single[2] / max(single[1], 1e-9)
pair = [row(f"ceiling {k}", f"ceiling-{k}.manifest.json", f"ceiling-{k}.wall") for k in (1, 2)]
ceiling = sum(r[2] / max(r[1], 1e-9) for r in pair) / rate
print(f"machine ceiling: two runs at once do {ceiling:.2f}x the executions per second of one "
      f"({rate:.0f}/s alone)")
p4 = max(r[2] for r in rows[1:5]) / rate + merge[1]
l4 = (max(r[2] for r in rows[6:10]) + max(r[2] for r in rows[10:14])) / rate + final[1]
print(f"projected wall on 4 machines at {rate:.0f} executions/s: by input {p4:.0f} s, by label "
      f"{l4:.0f} s (slowest of each step, then the last merge as measured), against "
      f"{single[1]:.0f} s on one")
PY
