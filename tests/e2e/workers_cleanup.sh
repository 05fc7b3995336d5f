#!/usr/bin/env bash
# Four workers on two-core machines: a -j 4 run on part of the HTTP sample reaches completion, and neither
# it nor a -j 4 run on the JSON sample stopped by SIGINT leaves a target process or a shared-memory
# segment behind (segments are found by the creator pid, processes by a variable in their
# environment that only this test sets), nor does SIGKILL of a run on a persistent-mode target
# (whose children stop themselves between runs) or on a hanging one: the targets die with the
# tool. -j 64 with inherited descriptors sees what -j 1 sees. AFL_NO_AFFINITY leaves the targets
# unbound.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
cd_need_cmd ipcs "ipcs not installed"
bin=${CD_BIN:?CD_BIN not set}
targets=${CD_TARGETS:?}
corpora=${CD_SRC:?}/sample_corpora
cd_need "$targets/sample_http" "$targets/sample_json"
cd_scratch
export CD_TEST_MARK=$tmp

marked() { # the pids whose environment holds CD_TEST_MARK, this shell and its subshells aside
  local f p
  for f in /proc/[0-9]*/environ; do
    p=${f#/proc/}; p=${p%/environ}
    [ "$p" = $$ ] || [ "$p" = "$BASHPID" ] && continue
    grep -qzx "CD_TEST_MARK=$CD_TEST_MARK" "$f" 2>/dev/null && echo "$p"
  done
}

leftovers() { # leftovers PID WHAT: no segment created by PID, no process from this test
  local segs procs
  segs=$(ipcs -m -p | awk -v p="$1" '$3 == p' | wc -l)
  [ "$segs" = 0 ] || err "$2: $segs shared-memory segments of pid $1 left"
  procs=$(marked)
  [ -z "$procs" ] || { err "$2: processes left: $(echo $procs)"; kill -9 $procs 2>/dev/null; }
}

# The API requests and the planted bugs of the HTTP sample (its hang among them), packed again: its
# large documents would add minutes of reduction on a slow machine and nothing to the check.
mkdir http && tar --zstd -xf "$corpora/http.tar.zst" -C http && tar -C http --zstd -cf http.tar.zst api bugs ||
  err "could not repack the HTTP sample"
"$bin" -q -j 4 --seed 1 --max-time 240 http.tar.zst -o http-seeds -- "$targets/sample_http" &
pid=$!
wait $pid
rc=$?
[ $rc = 0 ] || err "-j 4 on the HTTP sample exited $rc, not 0 (complete)"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if m["run"]["complete"] and m["settings"]["jobs"] == 4 else 1)' \
  http-seeds.manifest.json || err "the -j 4 manifest does not say complete with 4 jobs"
leftovers $pid "-j 4 run"

"$bin" -q -j 4 --seed 1 "$corpora/json.tar.zst" -o json-seeds -- "$targets/sample_json" @@ &
pid=$!
while kill -0 $pid 2>/dev/null && [ -z "$(marked)" ]; do sleep 0.1; done
sleep 1
[ -n "$(marked)" ] || err "no target process found while the run goes on: the check is blind"
kill -INT $pid
wait $pid
rc=$?
[ $rc = 1 ] || err "-j 4 stopped by SIGINT exited $rc, not 1 (incomplete)"
[ -n "$(ls json-seeds 2>/dev/null)" ] || err "no seeds written after SIGINT"
leftovers $pid "-j 4 run stopped by SIGINT"

# AFL_NO_AFFINITY, as for afl-fuzz: no target of the run is bound to a CPU, and -v says so.
AFL_NO_AFFINITY=1 "$bin" -v -j 2 --seed 1 "$corpora/json.tar.zst" -o noaff-seeds -- \
  "$targets/sample_json" @@ 2>noaff.err &
pid=$!
while kill -0 $pid 2>/dev/null && [ -z "$(marked)" ]; do sleep 0.1; done
bound=""
for p in $(marked); do
  [ "$p" = $pid ] && continue
  cpus=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/$p/status 2>/dev/null)
  case $cpus in ""|*[-,]*) ;; *) [ "$(nproc)" -gt 1 ] && bound="$bound $p:$cpus" ;; esac
done
kill -INT $pid
wait $pid
[ -z "$bound" ] || err "AFL_NO_AFFINITY=1: targets bound to one CPU:$bound"
grep -q '2 workers$' noaff.err || err "AFL_NO_AFFINITY=1: -v does not say the workers are unbound"
leftovers $pid "-j 2 run with AFL_NO_AFFINITY stopped by SIGINT"

# SIGKILL: nothing in the tool runs, yet its targets must not outlive it: a persistent target's
# stopped child, and a child that hangs (the timeout is the tool's to enforce).
if [ -x "$targets/exec_persist" ]; then
  mkdir kin
  for i in $(seq 1 300); do printf 'count:%d' "$i" > "kin/c$i"; printf 'ab%dcd' "$i" > "kin/s$i"; done
  printf 'hang' > kin/zz-hang
  for t in exec_persist exec_basic; do
    "$bin" -q -j 2 -t 200000 kin -o "kill-$t" -- "$targets/$t" &
    pid=$!
    while kill -0 $pid 2>/dev/null && [ -z "$(marked)" ]; do sleep 0.1; done
    [ -n "$(marked)" ] || err "SIGKILL on $t: no target process found: the check is blind"
    sleep 1
    kill -KILL $pid
    wait $pid 2>/dev/null
    for _ in $(seq 1 50); do [ -z "$(marked)" ] && break; sleep 0.1; done
    leftovers $pid "SIGKILL of a run on $t"
  done
fi

# -j 64 with a stdin target, 50 inherited descriptors and stdin closed: hundreds of descriptors in
# the tool, so that its pipes and input files take the numbers the target's stdin and fork-server
# channels (0, 198, 199) need. The labels must be those of -j 1.
mkdir in
for i in $(seq 1 500); do printf 'count:%d' "$i" > "in/c$i"; printf 'ab%dcd' "$i" > "in/s$i"; done
labels_of() {
  python3 -c 'import json, sys; print(sorted(json.load(open(sys.argv[1]))["labels"]))' "$1"
}
"$bin" -q -j 1 --no-reduce in -o one -- "$targets/exec_basic" || err "-j 1 on a stdin target failed"
(
  for fd in $(seq 300 349); do eval "exec $fd</dev/null"; done
  exec 0<&-
  "$bin" -q -j 64 --no-reduce in -o many -- "$targets/exec_basic"
) || err "-j 64 with 50 inherited descriptors and stdin closed failed"
[ -s one.manifest.json ] &&
  [ "$(labels_of one.manifest.json)" = "$(labels_of many.manifest.json)" ] ||
  err "-j 64 with inherited descriptors does not see the labels -j 1 sees"
leftovers $$ "-j 64 run"

[ $fail = 0 ] && echo "ok: -j 4 completes on part of the HTTP sample; nothing left after it, after" \
  "SIGINT or after SIGKILL; -j 64 with inherited descriptors sees the labels of -j 1"
exit $fail
