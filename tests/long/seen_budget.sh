#!/usr/bin/env bash
# Long tier: the seen-set keeps to its budget over ten million executions. A trivial persistent
# target takes ten million distinct inputs streamed as a tar on stdin (nothing on disk), with
# --seen-mem 16M: the run must execute them all, report candidates forgotten, and peak below
# 64 MiB of resident memory, where remembering every hash (16 bytes each, in a table at most
# three quarters full) would take over 200 MiB.
set -u
. "$(dirname "$0")/../e2e/lib.sh" && cd_need_afl
[ -x /usr/bin/time ] || cd_skip "/usr/bin/time not installed"
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/exec_persist
cd_need "$target"
n=${CD_SEEN_INPUTS:-10000000}
cd_scratch

python3 - "$n" <<'PY' | /usr/bin/time -f '%M' -o rss.txt "$bin" -q -j 1 --no-reduce \
  --seen-mem 16M --json-summary - -o seeds -- "$target" >summary.json 2>err.txt
import sys
# ustar blocks written by hand: tarfile would keep every member in memory
n = int(sys.argv[1])
out = sys.stdout.buffer
zero = bytes(512)
for i in range(n):
    data = b"x%d" % i
    h = bytearray(512)
    h[0:100] = (b"%d" % i).ljust(100, b"\0")
    h[100:108] = b"0000644\0"
    h[108:116] = h[116:124] = b"0000000\0"
    h[124:136] = b"%011o\0" % len(data)
    h[136:148] = b"00000000000\0"
    h[148:156] = b" " * 8
    h[156:157] = b"0"
    h[257:265] = b"ustar\x0000"
    h[148:156] = b"%06o\0 " % sum(h)
    out.write(h)
    out.write(data.ljust(512, b"\0"))
out.write(zero * 2)
PY
python3 - summary.json "$n" <<'PY' || err "summary: $(cat summary.json) $(tail -3 err.txt)"
import json, sys
j = json.load(open(sys.argv[1])); n = int(sys.argv[2])
# every input ran once, plus the second runs of those that showed a new label (rechecks)
ok = j["executions"] == n + j["recheck_executions"] and j["inputs"] == n \
     and j["recheck_executions"] < 100 and j["seen_forgotten"] > 0 \
     and j["seen_set_bytes"] <= 16 << 20
sys.exit(0 if ok else 1)
PY
rss=$(tail -1 rss.txt)
[ "$rss" -lt $((64 * 1024)) ] || err "peak resident memory $rss KiB, over 64 MiB"
[ $fail = 0 ] && echo "ok: $n executions, peak $rss KiB resident"
exit $fail
