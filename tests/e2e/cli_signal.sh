#!/usr/bin/env bash
# SIGINT and SIGTERM end a run gracefully: exit 1, a complete valid output of the best examples so
# far, the manifest marked incomplete and stopped by a signal; a second SIGINT changes nothing.
set -u
[ "${CD_HAVE_AFL:-0}" = 1 ] || { echo "skipped: AFL++ not available"; exit 77; }
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
corpus=${CD_SRC:?}/sample_corpora/json.tar.zst
[ -x "$target" ] && [ -f "$corpus" ] || { echo "skipped: sample_json or its corpus missing"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
err() { echo "FAIL: $*"; fail=1; }

for sig in INT TERM; do
  "$bin" -q -j 1 "$corpus" -o "seeds-$sig" -- "$target" @@ &
  pid=$!
  sleep 4
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
sys.exit(0 if ok else 1)
PY
done
[ $fail = 0 ] && echo "ok"
exit $fail
