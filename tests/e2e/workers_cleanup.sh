#!/usr/bin/env bash
# Four workers on two-core machines: a -j 4 run on the HTTP sample reaches completion, and neither
# it nor a -j 4 run on the JSON sample stopped by SIGINT leaves a target process or a shared-memory
# segment behind (segments are found by the creator pid, processes by a variable in their
# environment that only this test sets).
set -u
[ "${CD_HAVE_AFL:-0}" = 1 ] || { echo "skipped: AFL++ not available"; exit 77; }
command -v ipcs >/dev/null || { echo "skipped: ipcs not installed"; exit 77; }
bin=${CD_BIN:?CD_BIN not set}
targets=${CD_TARGETS:?}
corpora=${CD_SRC:?}/sample_corpora
[ -x "$targets/sample_http" ] && [ -x "$targets/sample_json" ] || { echo "skipped: targets missing"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export CD_TEST_MARK=$tmp
fail=0
err() { echo "FAIL: $*"; fail=1; }

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

"$bin" -q -j 4 --seed 1 --max-time 240 "$corpora/http.tar.zst" -o http-seeds \
  -- "$targets/sample_http" &
pid=$!
wait $pid
rc=$?
[ $rc = 0 ] || err "-j 4 on the HTTP sample exited $rc, not 0 (complete)"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if m["run"]["complete"] and m["settings"]["jobs"] == 4 else 1)' \
  http-seeds.manifest.json || err "the -j 4 manifest does not say complete with 4 jobs"
leftovers $pid "-j 4 run"

"$bin" -q -j 4 --seed 1 "$corpora/json.tar.zst" -o json-seeds -- "$targets/sample_json" @@ &
pid=$!
sleep 4
[ -n "$(marked)" ] || err "no target process found while the run goes on: the check is blind"
kill -INT $pid
wait $pid
rc=$?
[ $rc = 1 ] || err "-j 4 stopped by SIGINT exited $rc, not 1 (incomplete)"
[ -n "$(ls json-seeds 2>/dev/null)" ] || err "no seeds written after SIGINT"
leftovers $pid "-j 4 run stopped by SIGINT"

[ $fail = 0 ] && echo "ok: -j 4 completes on the HTTP sample; nothing left after it or after SIGINT"
exit $fail
