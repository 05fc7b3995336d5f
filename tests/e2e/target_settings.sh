#!/usr/bin/env bash
# Settings of one target among several (-t NAME=MS, -m NAME=MB): each reaches that target's
# executor alone (the manifest's target entry shows its timeout; a memory limit too low for one
# target stops the run naming that target, not the other), each is part of that target's
# identity in the state (a later run with another value reruns that target only, the other keeps
# its labels), and a name no target has is a usage error.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
json=$CD_TARGETS/sample_json
http=$CD_TARGETS/sample_http
cd_need "$json" "$http"
cd_scratch
mkdir in
tar --zstd -xf "$CD_SRC/sample_corpora/json.tar.zst" -C in || exit 1
# settings STATE: the identity line a state holds
settings() { python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read(); o = 16
n = struct.unpack_from('<I', b, o)[0]; o += 4 + n
n = struct.unpack_from('<I', b, o)[0]; print(b[o + 4:o + 4 + n].decode())
PY
}

"$bin" -q -j 1 --no-reduce -t sample_http=500 -m sample_json=2048 in -o s -- "$json" @@ -- "$http" ||
  err "two targets with their own settings exited $?"
[ "$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))
print(" ".join("%s:%d" % (t["name"], t["timeout_ms"]) for t in m["targets"]))' s.manifest.json |
     sed 's/sample_json:[0-9]*/sample_json:calibrated/')" = "sample_json:calibrated sample_http:500" ] ||
  err "the timeout of one target reached another, or not its own"
line=$(settings s.state)
printf '%s\n' "$line" | grep -q "^target [0-9a-f]* map_size=[0-9]* mem_limit_mb=2048 args=@@$" &&
  printf '%s\n' "$line" | grep -q "^target [0-9a-f]* map_size=[0-9]* timeout_ms=500 args=$" &&
  printf '%s\n' "$line" | head -1 | grep -q "^timeout_ms=0; mem_limit_mb=0;" ||
  err "the identity does not hold each target's own settings: $line"

# Another timeout for sample_http: that target reruns, sample_json keeps its labels.
"$bin" -j 1 --no-reduce -t sample_http=800 -m sample_json=2048 in -o s -- "$json" @@ -- "$http" \
  2>e1 || err "the second run exited $?"
grep -q "target 'sample_http' changed or added" e1 || err "no rerun of the changed target: $(cat e1)"
"$bin" -j 1 --no-reduce -t sample_http=800 -m sample_json=2048 in -o s -- "$json" @@ -- "$http" \
  2>e2 || err "the third run exited $?"
grep -q "warm start from 's.state'" e2 && ! grep -q "changed" e2 ||
  err "the same settings did not start warm: $(cat e2)"

# A memory limit too low for one target names that target.
"$bin" -q -j 1 --no-reduce -m sample_http=1 in -o low -- "$json" @@ -- "$http" 2>e3
rc=$?
[ $rc = 3 ] && grep -q "sample_http.*memory limit of 1 MB" e3 && ! grep -q "sample_json" e3 ||
  err "a memory limit of one target: exit $rc, $(cat e3)"

# A name no target has.
"$bin" -q in -o x -t nosuch=5 -- "$json" @@ -- "$http" 2>e4
[ $? = 2 ] && grep -q "no target is named 'nosuch' (the targets: 'sample_json', 'sample_http')" e4 ||
  err "an unknown target's setting: $(cat e4)"

[ $fail = 0 ] && echo "ok"
exit $fail
