#!/usr/bin/env bash
# SIGINT and SIGTERM end a run gracefully: exit 1, a complete valid output of the best examples so
# far, the manifest marked incomplete and stopped by a signal (its cover named "stopped"); a second
# SIGINT changes nothing.
# A FIFO operand nobody writes to holds no run: SIGINT and --max-time end it within seconds, an
# idle one is skipped with a line naming it, and one that is written to is an input. The same holds
# for "-" (stdin) with a writer that never writes.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
corpus=${CD_SRC:?}/sample_corpora/json.tar.zst
cd_need "$target" "$corpus"
cd_scratch

for sig in INT TERM; do
  "$bin" -q -j 1 "$corpus" -o "seeds-$sig" -- "$target" @@ &
  pid=$!
  sleep 2
  kill -"$sig" "$pid"
  [ "$sig" = INT ] && sleep 0.2 && kill -INT "$pid" 2>/dev/null
  wait "$pid"
  rc=$?
  [ $rc = 1 ] || err "SIG$sig: exit $rc, expected 1"
  python3 - "seeds-$sig.manifest.json" "seeds-$sig" <<'PY' || err "SIG$sig: bad output"
import json, os, sys
m = json.load(open(sys.argv[1]))
files = sorted(os.listdir(sys.argv[2]))
ok = (not m["run"]["complete"] and m["run"]["stopped_by"] == "signal" and files
      and files == sorted(s["file"] for s in m["seeds"]))
# the cover asked for (--cover-time's default) and cut short is named so, not "greedy"
if m["output"]["cover_solver"] != "stopped":
    print("cover_solver %s after a signal" % m["output"]["cover_solver"])
    ok = False
sys.exit(0 if ok else 1)
PY
done
mkfifo fifo && printf '{"a": [1]}' >a.json
"$bin" -q fifo a.json -o fifo-int -- "$target" @@ 2>/dev/null &
pid=$!
sleep 1
start=$(date +%s)
kill -INT "$pid"
wait "$pid"
rc=$?
[ $(( $(date +%s) - start )) -le 5 ] || err "FIFO: SIGINT took over 5 s"
[ $rc = 1 ] || err "FIFO and SIGINT: exit $rc, expected 1"
start=$(date +%s)
"$bin" --max-time 2 fifo a.json -o fifo-time -- "$target" @@ 2>fifo.txt
rc=$?
[ $(( $(date +%s) - start )) -le 8 ] || err "FIFO: --max-time 2 took over 8 s"
[ $rc = 1 ] || err "FIFO and --max-time: exit $rc, expected 1"
grep -q "skipping 'fifo': nothing written to it" fifo.txt || err "FIFO message: $(cat fifo.txt)"
# "-" with a writer that never writes (this shell holds the pipe open): SIGINT ends the run
# within seconds too.
mkfifo stdin-pipe && exec 8<>stdin-pipe
"$bin" -q - -o stdin-int -- "$target" @@ <stdin-pipe 2>/dev/null &
pid=$!
sleep 1
kill -INT "$pid"
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
  err "stdin nobody writes to: still running 5 s after SIGINT"
  kill -KILL "$pid"
fi
wait "$pid"
[ $? != 0 ] || err "stdin nobody writes to, SIGINT: exit 0"
exec 8>&-
(sleep 1; printf '{"b": {}}' >fifo) &
"$bin" -q --json-summary fifo -o fifo-data -- "$target" @@ >fifo.json
rc=$?
[ $rc = 0 ] || err "written FIFO: exit $rc"
grep -q '"inputs": 1, "input_bytes": 9,' fifo.json || err "written FIFO: $(cat fifo.json)"
[ $fail = 0 ] && echo "ok"
exit $fail
