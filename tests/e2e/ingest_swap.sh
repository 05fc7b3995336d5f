#!/usr/bin/env bash
# The input walk goes through descriptors: a subdirectory of an input swapped for a link to a
# directory the user did not name (files of the same names, bytes of someone else's) while runs
# walk it, again and again, never makes those bytes an input: no seed, reproducer or manifest of
# the runs holds them. Whatever the timing, the walk opens each entry relative to the directory
# it listed, which a link put in its place cannot redirect.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
cd_need "$target"
cd_scratch

# secret/ holds what the target crashes on (sample_json's planted SIGSEGV), so that a byte of it
# read as an input shows as a reproducer, whatever labels the rest shows.
mkdir -p in/sub secret
for i in $(seq -w 1 400); do
    printf '{"k%s": [%s, "v"]}' "$i" "$i" >"in/sub/f$i.json"
    printf '{"":{"":{"crash":%s}}} SECRET-%s' "$i" "$i" >"secret/f$i.json"
done
printf '[1, 2]' >in/a.json
# The attacker: swaps in/sub for a link to secret/ and back, half the time each, for as long as
# the runs last (a minute at most).
ln -s ../secret in/lnk
python3 - <<'PY' &
import os, time
end = time.monotonic() + 60
while time.monotonic() < end and not os.path.exists("stop"):
    os.rename("in/sub", "in/real"); os.rename("in/lnk", "in/sub")
    time.sleep(0.0002)
    os.rename("in/sub", "in/lnk"); os.rename("in/real", "in/sub")
    time.sleep(0.0002)
PY
swapper=$!
for r in 1 2 3 4 5 6; do
    "$bin" -q -j 1 --no-reduce --no-state in -o "out$r" -- "$target" @@ 2>/dev/null
done
touch stop
wait $swapper
leaked=$( (grep -rl 'SECRET-' out? out?.crashes; ls -d out?.crashes/*) 2>/dev/null | head -n 3)
[ -z "$leaked" ] || err "bytes from behind a swapped-in link became inputs: $leaked"
ran=$(ls -d out?.manifest.json 2>/dev/null | wc -l)
[ "$ran" -ge 1 ] || err "no run wrote a manifest (premise)"
# The link planted in the walk's way is refused where met: a subdirectory that is a link.
walked=$(cat out?.manifest.json | python3 -c 'import json,sys
d=json.JSONDecoder(); t=sys.stdin.read(); i=0; n=0
while i < len(t):
    m, i = d.raw_decode(t, i)
    n += m["input"]["inputs"] - 1
    while i < len(t) and t[i].isspace(): i += 1
print(n)')
echo "inputs read from in/sub over the runs: $walked"

[ $fail = 0 ] && ok "no byte from behind a swapped-in link was taken ($ran runs)"
exit $fail
