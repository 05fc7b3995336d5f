#!/usr/bin/env bash
# Shards and their merge on a real Slurm cluster: the test starts a single-node cluster on this
# machine (Debian's slurm-wlm and munge, configured in a temporary directory, on ports of its own,
# torn down at the end), submits the JSON sample corpus as a 4-task array plus the dependent merge
# job through tools/scale/slurm.sh (and again with -L: select-only shards, an array of merges by
# label shard, then the merge), and checks with afl-showmap that the merged seeds and
# reproducers cover every label the inputs cover, the seeds alone every label of the inputs that
# do not crash, that the shards split the inputs (each input in exactly one), and that the
# corpus's crashing inputs come out as reproducers. Skipped, with the reason, where Slurm cannot
# start (not root, packages missing, daemons that do not come up).
set -uo pipefail
. "$(dirname "$0")/lib.sh" && cd_need_afl
skip() { cd_skip "$@"; }
: "${CD_BIN:?}" "${CD_TARGETS:?}" "${CD_SRC:?}"
[ "$(id -u)" = 0 ] || skip "starting Slurm's daemons needs root"
for p in slurmctld slurmd munged sbatch sinfo scontrol; do
    command -v "$p" >/dev/null || skip "$p missing (tools/setup installs slurm-wlm and munge)"
done
export AFL_QUIET=1
W=$(mktemp -d)
W=$(cd "$W" && pwd)
stop_cluster() {
    for f in "$W"/run/slurmd.pid "$W"/run/slurmctld.pid "$W"/munge/munged.pid; do
        [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
    done
    sleep 1
    for f in "$W"/run/slurmd.pid "$W"/run/slurmctld.pid "$W"/munge/munged.pid; do
        [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
    done
    rm -rf "$W"
}
trap stop_cluster EXIT

# The cluster: munge with a key of its own, one node with this machine's CPUs, no cgroups, no
# accounting; ports picked from the pid so that two runs at once do not meet. Every address is
# 127.0.0.1: the host name need not resolve (a fresh machine or container often lacks it in
# /etc/hosts).
mkdir -p "$W"/{state,spool,log,run,munge}
host=$(hostname -s)
port=$((20000 + ($$ % 20000) * 2))
dd if=/dev/urandom of="$W/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$W/munge/munge.key"
export SLURM_CONF=$W/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=cdtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$W/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/run/slurmctld.pid
SlurmdPidFile=$W/run/slurmd.pid
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.log
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
munged --force --socket="$W/munge/munge.socket" --key-file="$W/munge/munge.key" \
    --pid-file="$W/munge/munged.pid" --log-file="$W/munge/munged.log" \
    --seed-file="$W/munge/seed" || skip "munged did not start"
slurmctld -i || skip "slurmctld did not start: $(tail -n 3 "$W/log/slurmctld.log" 2>/dev/null)"
slurmd -N "$host" || skip "slurmd did not start: $(tail -n 3 "$W/log/slurmd.log" 2>/dev/null)"
# At most 30 s for the node to come up; each query is bounded too.
state() { timeout 5 sinfo -h -o %t 2>/dev/null; }
for _ in $(seq 30); do
    [ "$(state)" = idle ] && break
    sleep 1
done
[ "$(state)" = idle ] ||
    skip "the Slurm node did not come up: $(state); $(tail -n 2 "$W/log/slurmd.log")"

# The JSON sample corpus (it holds two crashing inputs), unpacked for afl-showmap.
cd "$W" || exit 1
mkdir in
tar --zstd -xf "$CD_SRC/sample_corpora/json.tar.zst" -C in
target=$CD_TARGETS/sample_json
# Budgets in executions, not seconds, so that no verdict depends on the machine's speed: each
# shard and each merge 20,000 (a few seconds here), two at a time.
timeout 600 "$CD_SRC/tools/scale/slurm.sh" -N 4 -W -b "$CD_BIN" -o "$W/seeds" -i "$W/in" \
    -- -j 1 --max-execs 4000 -- "$target" @@ >submit.log 2>&1
rc=$?
[ $rc = 124 ] && { echo "FAIL: the jobs did not end within 10 minutes: $(squeue 2>&1 | tail -n 3)"; exit 1; }
[ $rc = 0 ] || [ $rc = 1 ] || {
    err "the merge job ended with $rc: $(cat submit.log shards/merge.log seeds.shards/merge.log 2>/dev/null | tail -n 5)"
}
[ -f seeds.manifest.json ] || { echo "FAIL: no merged manifest"; cat submit.log; exit 1; }

# Every input in exactly one shard.
python3 - seeds.shards/shard-{1,2,3,4}.manifest.json <<'PY' || err "the shards do not split the inputs"
import json, sys
ms = [json.load(open(p)) for p in sys.argv[1:]]
total = {m["input"]["inputs"] + m["input"]["other_shards"] for m in ms}
assert len(total) == 1, total
assert sum(m["input"]["inputs"] for m in ms) == total.pop()
assert all(m["input"]["inputs"] > 0 for m in ms)
assert [m["settings"]["shard"] for m in ms] == ["1/4", "2/4", "3/4", "4/4"]
PY
grep -q '"start":"merged"\|"start": "merged"' seeds.manifest.json || err "the merge did not start from the states"

labels() { cd_labels "$1" "$target" @@; } # labels DIR: the union of the labels of its files
mkdir -p plain all
for f in $(find in -type f); do
    timeout 2 "$target" "$f" >/dev/null 2>&1 && cp "$f" "plain/$(echo "$f" | tr / _)"
done
cp seeds/* all/
cp seeds.crashes/crash-* all/ 2>/dev/null
labels in >in.labels
labels plain >plain.labels
labels seeds >seeds.labels
labels all >out.labels
missing=$(comm -23 in.labels out.labels | wc -l)
[ "$missing" = 0 ] || err "$missing input labels not in the merged seeds and reproducers"
missing=$(comm -23 plain.labels seeds.labels | wc -l)
[ "$missing" = 0 ] || err "$missing labels of non-crashing inputs not in the merged seeds"
ls seeds.crashes/crash-* >/dev/null 2>&1 || err "no crash reproducer in the merged output"
for f in seeds.crashes/crash-*; do
    timeout 2 "$target" "$f" >/dev/null 2>&1
    [ $? -ge 128 ] || err "reproducer $f does not crash"
done

# -L: two select-only shards, two merges each reducing one label shard of both, then the merge.
timeout 600 "$CD_SRC/tools/scale/slurm.sh" -N 2 -L -W -b "$CD_BIN" -o "$W/byl" -i "$W/in" \
    -- -j 1 --max-execs 4000 -- "$target" @@ >submit-l.log 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || err "-L: the merge job ended with $rc: $(tail -n 5 submit-l.log byl.shards/merge.log 2>/dev/null)"
python3 - <<'PY' || err "-L: the steps did not run as described"
import json
shards = [json.load(open(f"byl.shards/shard-{k}.manifest.json")) for k in (1, 2)]
parts = [json.load(open(f"byl.shards/part-{k}.manifest.json")) for k in (1, 2)]
m = json.load(open("byl.manifest.json"))
assert all(s["settings"]["no_reduce"] for s in shards)
assert [p["settings"]["shard"] for p in parts] == ["1/2", "2/2"]
assert all(p["state"]["start"] == "merged" for p in parts) and m["state"]["start"] == "merged"
PY
mkdir -p byl.all && cp byl/* byl.all/ && cp byl.crashes/crash-* byl.all/ 2>/dev/null
missing=$(comm -23 in.labels <(labels byl.all) | wc -l)
[ "$missing" = 0 ] || err "-L: $missing input labels not in the merged seeds and reproducers"
[ $fail = 0 ] && echo "ok: 4 shards and their merge on Slurm: $(wc -l <in.labels) input labels kept in $(ls seeds | wc -l) seeds"
exit $fail
