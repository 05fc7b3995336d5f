#!/usr/bin/env bash
# Executor benchmark: executions per second of our executor plus labels (tools/bench/bench_exec) against
# `afl-showmap -i DIR -o OUT` on the same target and the same inputs, side by side in one run:
# afl-showmap writing to tmpfs (/dev/shm) and to a directory on disk. Both are pinned to one CPU
# with taskset. Targets: sample_json (fork server, input file "@@") with the json corpus, and
# sample_http (libFuzzer harness: persistent mode, test cases in shared memory) with the http
# corpus; each corpus is copied COPIES times into one flat directory so that a run lasts long
# enough to measure. Rates are files / wall time of the whole process; the median of RUNS runs.
#
#   tools/bench/bench_exec.sh [BUILD_DIR]     (default: ./build; RUNS=3 CPU=0 JSON_COPIES=10
#                                        HTTP_COPIES=40)
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib.sh
. "$src/tools/lib.sh"
build=${1:-${CD_BUILD:-$src/build}}
driver=$build/tools/bench_exec
runs=${RUNS:-3}
cpu=${CPU:-0}

for tool in afl-showmap taskset tar zstd python3 bc; do
  command -v "$tool" >/dev/null || { echo "bench_exec.sh: $tool not found" >&2; exit 1; }
done
[ -x "$driver" ] || { echo "bench_exec.sh: $driver not built" >&2; exit 1; }

work=$(mktemp -d)
shm_dir=$(mktemp -d /dev/shm/cd-bench-XXXXXX)
trap 'rm -rf "$work" "$shm_dir"' EXIT
# afl-showmap opens any -o path starting with /dev/ as a device: reach tmpfs through a link.
ln -s "$shm_dir" "$work/tmpfs"
shm=$work/tmpfs

now() { cd_now; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# afl-showmap must have written one map per input, or its rate means nothing.
check_out() {
  local got
  got=$(find "$1" -type f 2>/dev/null | wc -l)
  [ "$got" -ge "$2" ] || echo "bench_exec.sh: afl-showmap wrote $got of $2 maps in $1" >&2
}

# bench NAME TARGET COPIES [@@]: prints one result line.
bench() {
  local name=$1 target=$2 copies=$3 arg=${4:-}
  local x=$work/$name-x one=$work/$name-one in=$work/$name-in
  mkdir -p "$x" "$one" "$in"
  tar --zstd -xf "$src/sample_corpora/$name.tar.zst" -C "$x"
  # One flat copy of the non-empty inputs, under unique names.
  python3 - "$x" "$one" <<'PY'
import os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(src) for f in fs)
for i, p in enumerate(q for q in paths if os.path.getsize(q) > 0):
    shutil.copyfile(p, os.path.join(dst, "%06d" % i))
PY
  # Inputs that hang cost the timeout whoever runs them: leave them out.
  local f
  for f in $("$driver" -H -t 200 "$one" -- "$target" $arg); do rm -f "$one/$f"; done
  # COPIES hard links of each, so that a run lasts long enough to measure.
  python3 - "$one" "$in" "$copies" <<'PY'
import os, sys
one, dst, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
for c in range(copies):
    for f in sorted(os.listdir(one)):
        os.link(os.path.join(one, f), os.path.join(dst, "c%03d_%s" % (c, f)))
PY
  local n
  n=$(find "$in" -type f | wc -l)
  local ours=() tmpfs=() disk=() t0 t1 r
  for ((r = 0; r < runs; r++)); do
    t0=$(now)
    taskset -c "$cpu" "$driver" "$in" -- "$target" $arg >"$work/ours.log"
    t1=$(now)
    ours+=("$(echo "$n / ($t1 - $t0)" | bc -l)")
    rm -rf "$shm/out"
    t0=$(now)
    AFL_QUIET=1 taskset -c "$cpu" afl-showmap -q -r -m none -t 1000 -i "$in" -o "$shm/out" \
      -- "$target" $arg >/dev/null 2>&1 || true
    t1=$(now)
    tmpfs+=("$(echo "$n / ($t1 - $t0)" | bc -l)")
    check_out "$shm/out" "$n"
    rm -rf "$work/out"
    t0=$(now)
    AFL_QUIET=1 taskset -c "$cpu" afl-showmap -q -r -m none -t 1000 -i "$in" -o "$work/out" \
      -- "$target" $arg >/dev/null 2>&1 || true
    t1=$(now)
    disk+=("$(echo "$n / ($t1 - $t0)" | bc -l)")
    check_out "$work/out" "$n"
  done
  local mo mt md
  mo=$(printf '%s\n' "${ours[@]}" | median)
  mt=$(printf '%s\n' "${tmpfs[@]}" | median)
  md=$(printf '%s\n' "${disk[@]}" | median)
  printf '%-12s %7d %12.0f %16.0f %16.0f %8.1fx %8.1fx\n' "$name" "$n" "$mo" "$mt" "$md" \
    "$(echo "$mo / $mt" | bc -l)" "$(echo "$mo / $md" | bc -l)"
  echo "  ($name, last run of bench_exec: $(cat "$work/ours.log"))"
  rm -rf "$x" "$one" "$in" "$work/out" "$shm/out"
}

echo "execs/s, median of $runs runs, pinned to CPU $cpu"
printf '%-12s %7s %12s %16s %16s %9s %9s\n' corpus inputs ours showmap-tmpfs showmap-disk \
  vs-tmpfs vs-disk
bench json "$build/targets/sample_json" "${JSON_COPIES:-10}" @@
bench http "$build/targets/sample_http" "${HTTP_COPIES:-40}"
