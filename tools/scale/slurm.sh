#!/usr/bin/env bash
# Distills on a Slurm cluster: a job array of N shards (each `corpus-distill --shard K/N` over all
# the inputs, keeping the ones whose content falls in its shard) and a merge job that starts when
# every shard has ended (`corpus-distill merge` over the shards' states), so the seeds cover what
# one run over all the inputs covers. Shared storage is a directory every node sees (NFS, a
# mounted bucket): the inputs, WORK and OUT must be on it; nothing else is assumed.
#
# usage: tools/scale/slurm.sh [-N SHARDS] [-L] [-w WORK] [-b BIN] [-S SBATCH_ARG]... [-W]
#            -o OUT -i INPUT [-i INPUT]... [-- CORPUS_DISTILL_OPTION...] -- TARGET [ARGS...]
#   -N  shards (default 4): the array's tasks, as many as Slurm runs at once
#   -w  the shards' outputs and job scripts (default OUT.shards)
#   -b  the corpus-distill binary (default: the one on PATH)
#   -S  an argument for both sbatch calls (repeat it: -S --partition=big -S --time=4:00:00)
#   -W  wait for the merge and exit with its status (sbatch --wait)
#   -L  share out the reduction by label: the shards only select (--no-reduce, seconds), a
#       second array of N merges each reduces one label shard of all their states (merge
#       --shard K/N), and the last merge folds those. Shards of one corpus share most labels,
#       so sharding by input alone has every shard reduce nearly every label; by label, each
#       label is reduced once.
#   options after the first "--" go to every shard and to the merge alike (-t, -m, -e, -j,
#   --max-time, --seed): the settings that change labels must be the same for merging.
# A shard that stops at --max-time (exit 1) leaves a valid state and the merge goes on; one that
# fails (no state) makes the merge fail with a message naming it. Prints the two job ids.
set -euo pipefail

die() { echo "slurm.sh: $*" >&2; exit 2; }
shards=4 work= bin=$(command -v corpus-distill || true) out= wait=0 by_label=0
inputs=() sbatch_args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case $1 in
    -N) shards=$2; shift 2 ;;
    -w) work=$2; shift 2 ;;
    -b) bin=$2; shift 2 ;;
    -S) sbatch_args+=("$2"); shift 2 ;;
    -W) wait=1; shift ;;
    -L) by_label=1; shift ;;
    -o) out=$2; shift 2 ;;
    -i) inputs+=("$2"); shift 2 ;;
    *) die "unknown option '$1' (usage: the top of this script)" ;;
    esac
done
[ $# -gt 0 ] && shift
opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
[ $# -gt 1 ] || die "missing '-- TARGET [ARGS...]'"
shift
target=("$@")
[ -n "$out" ] || die "missing -o OUT"
[ ${#inputs[@]} -gt 0 ] || die "missing -i INPUT"
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "-N needs a number of shards"
[ -n "$bin" ] && [ -x "$bin" ] || die "corpus-distill not found (name it with -b)"
command -v sbatch >/dev/null || die "sbatch not found: is this a Slurm submit host?"
work=${work:-$out.shards}
mkdir -p "$work"
abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
bin=$(abs "$bin") work=$(abs "$work") out=$(abs "$out")
for k in "${!inputs[@]}"; do inputs[k]=$(abs "${inputs[k]}"); done
case ${target[0]} in */*) target[0]=$(abs "${target[0]}") ;; esac

# The job scripts quote every word with printf %q, so paths and arguments pass through as given.
q() { [ $# -eq 0 ] || printf '%q ' "$@"; }
# With -L the shards only select, and what the merge folds are the label shards' states.
select=() part=shard
[ $by_label = 1 ] && select=(--no-reduce) part=part
# gather STEP PREFIX: job script lines that collect PREFIX-1.state .. PREFIX-N.state into states,
# or end the job STEP (exit 4) naming the first one missing.
gather() {
    cat <<EOF
states=()
for k in \$(seq 1 $shards); do
    f=$2-\$k
    [ -f "\$f.state" ] || { echo "$1: \$f left no state (see \$f.log)" >&2; exit 4; }
    states+=("\$f.state")
done
EOF
}
cat >"$work/shard.sh" <<EOF
#!/usr/bin/env bash
# One shard of the array: task K of $shards.
cd $(q "$work")
exec $(q "$bin") --shard "\$SLURM_ARRAY_TASK_ID/$shards" $(q "${select[@]}") $(q "${opts[@]}") $(q "${inputs[@]}") -o "shard-\$SLURM_ARRAY_TASK_ID" -- $(q "${target[@]}")
EOF
cat >"$work/reduce.sh" <<EOF
#!/usr/bin/env bash
# With -L: task K reduces label shard K of every shard's state.
cd $(q "$work")
$(gather reduce shard)
exec $(q "$bin") merge --shard "\$SLURM_ARRAY_TASK_ID/$shards" $(q "${opts[@]}") "\${states[@]}" -o "part-\$SLURM_ARRAY_TASK_ID" -- $(q "${target[@]}")
EOF
cat >"$work/merge.sh" <<EOF
#!/usr/bin/env bash
# The merge: every shard's state into one corpus.
cd $(q "$work")
$(gather merge "$part")
exec $(q "$bin") merge $(q "${opts[@]}") "\${states[@]}" -o $(q "$out") -- $(q "${target[@]}")
EOF
chmod +x "$work/shard.sh" "$work/reduce.sh" "$work/merge.sh"

# Slurm expands every % of an --output path: the work directory's own are doubled.
logs=${work//%/%%}
array=$(sbatch --parsable "${sbatch_args[@]}" --array="1-$shards" --job-name=cd-shard \
        --output="$logs/shard-%a.log" "$work/shard.sh")
array=${array%%;*}
echo "shards: job $array ($shards tasks, logs in $work)"
if [ $by_label = 1 ]; then
    array=$(sbatch --parsable "${sbatch_args[@]}" --array="1-$shards" --job-name=cd-reduce \
            --dependency="afterany:$array" --output="$logs/part-%a.log" "$work/reduce.sh")
    array=${array%%;*}
    echo "label shards: job $array ($shards tasks), after the shards"
fi
merge_args=("${sbatch_args[@]}" --dependency="afterany:$array" --job-name=cd-merge
            --output="$logs/merge.log")
[ $wait = 1 ] && merge_args+=(--wait)
echo "merge: after them, output $out"
set +e
merge=$(sbatch --parsable "${merge_args[@]}" "$work/merge.sh")
rc=$?
set -e
echo "merge: job ${merge%%;*}"
exit $rc
