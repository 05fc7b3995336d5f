#!/usr/bin/env bash
# corpus-distill shards over ssh with GNU parallel, then the merge on this machine. Every host
# must see WORK, the inputs and the target at the same paths (NFS), and have corpus-distill on its
# PATH. The test suite runs it with this machine as the only login (":" in HOSTS_FILE), so the
# sharding and the merge are tested, ssh itself is not.
#
# usage: tools/scale/parallel-ssh.sh HOSTS_FILE WORK INPUT [-- CORPUS_DISTILL_OPTION...] -- TARGET [ARGS...]
#   HOSTS_FILE: one login per line, as `parallel --sshloginfile` reads it ("4/host1" runs up to
#   4 shards there at once, ":" is this machine); one shard per slot of every host.
#   Options after the first "--" go to every shard and to the merge alike (-t, -m, -e, -j,
#   --max-time, --seed): the settings that change labels must be the same for merging.
# The merged seeds go to WORK/seeds; WORK/shards/joblog is parallel's record of the shards. A shard stopped by --max-time (exit 1) leaves a valid state;
# one that left no state makes the script fail, naming it.
set -euo pipefail
[ $# -ge 5 ] || { sed -n 7p "$0" >&2; exit 2; }
hosts=$1 work=$2 input=$3
shift 3
[ "$1" = -- ] && shift
opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
[ $# -gt 1 ] || { echo "parallel-ssh.sh: missing '-- TARGET [ARGS...]'" >&2; exit 2; }
shift
mkdir -p "$work/shards"
# Every login with its slot count ("1/" where none is given), so that --jobs 100% runs exactly
# that many shards at once on each: parallel would otherwise count a host's CPUs, and --jobs 1
# would run one shard per host at a time.
awk -F/ 'NF == 1 && $1 != "" { print "1/" $0; next } NF { print }' "$hosts" >"$work/sshlogins"
shards=$(awk -F/ 'NF == 2 { n += $1; next } NF { n += 1 } END { print n }' "$work/sshlogins")
q() { [ $# -eq 0 ] || printf '%q ' "$@"; }
# --shard K/N on each slot; parallel's {} is K.
seq 1 "$shards" | parallel --sshloginfile "$work/sshlogins" --jobs 100% --line-buffer \
    --joblog "$work/shards/joblog" \
    "corpus-distill --shard {}/$shards $(q "${opts[@]}") $(q "$input") \
     -o $(printf '%q' "$work")/shards/shard-{} -- $(q "$@")" || true
states=()
for k in $(seq 1 "$shards"); do
    [ -f "$work/shards/shard-$k.state" ] || { echo "parallel-ssh.sh: shard $k left no state" >&2; exit 4; }
    states+=("$work/shards/shard-$k.state")
done
exec corpus-distill merge "${opts[@]}" "${states[@]}" -o "$work/seeds" -- "$@"
