#!/usr/bin/env bash
# Long tier: the seen-set keeps to its budget over ten million executions. A trivial persistent
# target takes ten million distinct inputs streamed as a tar on stdin (nothing on disk), with
# --seen-mem 16M: the run must execute them all, report candidates forgotten, and peak below
# 64 MiB of resident memory, where remembering every hash (16 bytes each, in a table at most
# three quarters full) would take over 200 MiB.
set -u
[ "${CD_HAVE_AFL:-0}" = 1 ] || { echo "skipped: AFL++ not available"; exit 77; }
[ -x /usr/bin/time ] || { echo "skipped: /usr/bin/time not installed"; exit 77; }
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/exec_persist
[ -x "$target" ] || { echo "skipped: exec_persist missing"; exit 77; }
n=${CD_SEEN_INPUTS:-10000000}
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
err() { echo "FAIL: $*"; fail=1; }

python3 - "$n" <<'PY' | /usr/bin/time -f '%M' -o rss.txt "$bin" -q -j 1 --no-reduce \
  --seen-mem 16M --json-summary - -o seeds -- "$target" >summary.json 2>err.txt
import sys, tarfile, io
n = int(sys.argv[1])
out = tarfile.open(fileobj=sys.stdout.buffer, mode="w|", format=tarfile.USTAR_FORMAT)
for i in range(n):
    data = b"x%d" % i
    info = tarfile.TarInfo("%d" % i)
    info.size = len(data)
    out.addfile(info, io.BytesIO(data))
out.close()
PY
python3 - summary.json "$n" <<'PY' || err "summary: $(cat summary.json) $(tail -3 err.txt)"
import json, sys
j = json.load(open(sys.argv[1])); n = int(sys.argv[2])
ok = j["executions"] == n and j["inputs"] == n and j["seen_forgotten"] > 0 \
     and j["seen_set_bytes"] <= 16 << 20
sys.exit(0 if ok else 1)
PY
rss=$(tail -1 rss.txt)
[ "$rss" -lt $((64 * 1024)) ] || err "peak resident memory $rss KiB, over 64 MiB"
[ $fail = 0 ] && echo "ok: $n executions, peak $rss KiB resident"
exit $fail
