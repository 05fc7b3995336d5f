#!/usr/bin/env bash
# corpus-distill shards over ssh with GNU parallel, then the merge on this machine. Not run by any
# test here: a recipe to adapt. Every host must see WORK, the inputs and the target at the same
# paths (NFS), and have corpus-distill on its PATH.
#
# usage: tools/scale/parallel-ssh.sh HOSTS_FILE WORK INPUT -- TARGET [ARGS...]
#   HOSTS_FILE: one ssh login per line, as `parallel --sshloginfile` reads it ("4/host1" runs up
#   to 4 shards there at once); one shard per slot of every host.
set -euo pipefail
hosts=$1 work=$2 input=$3
shift 3
[ "${1:-}" = -- ] && shift
shards=$(awk -F/ 'NF == 2 { n += $1; next } NF { n += 1 } END { print n }' "$hosts")
mkdir -p "$work/shards"
# --shard K/N on each slot; exit 1 (stopped by --max-time) still leaves a valid state.
seq 1 "$shards" | parallel --sshloginfile "$hosts" --jobs 1 --line-buffer \
    "corpus-distill --shard {}/$shards -j 1 --max-time 2h $(printf '%q' "$input") \
     -o $(printf '%q' "$work")/shards/shard-{} -- $(printf '%q ' "$@")" || true
states=()
for k in $(seq 1 "$shards"); do
    [ -f "$work/shards/shard-$k.state" ] || { echo "shard $k left no state" >&2; exit 4; }
    states+=("$work/shards/shard-$k.state")
done
exec corpus-distill merge -j "$(nproc)" --max-time 2h "${states[@]}" -o "$work/seeds" -- "$@"
