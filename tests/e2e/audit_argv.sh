#!/usr/bin/env bash
# Nothing a manifest says is run: a manifest handed over by someone else carries options and a
# shell command in every field (the target's arguments, the settings, the directories, the
# origins), and the coverage build audit --coverage runs receives its own command line only: the
# example's file alone by default, the arguments after '--' when given (@@ the file), never a
# word of the manifest's; nothing the planted command would do happens.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
cd_need "$target"
cd_scratch

mkdir in
printf '{"a": [1, 2]}' >in/a.json
printf '[true]' >in/b.json
"$bin" -q -j 1 --no-reduce in -o seeds -- "$target" @@
[ $? -le 1 ] || { echo "FAIL: distill failed"; exit 1; }
# The planted manifest: a libFuzzer coverage build would run ';touch PWNED;' through system()
# given -jobs=1; any build would write where -output names.
python3 - seeds.manifest.json "$PWD" <<'EOF'
import json, sys
path, here = sys.argv[1], sys.argv[2]
bad = "-jobs=1 ;touch %s/PWNED;" % here
m = json.load(open(path))
m["target"]["argv"] = [m["target"]["argv"][0], bad, "-output=%s/EVIL" % here, "@@", "$(touch PWNED2)"]
for k in list(m["settings"]):
    if isinstance(m["settings"][k], str):
        m["settings"][k] = bad
m["input"]["operands"] = [bad]
for s in m["seeds"]:
    s["origin"] = bad
json.dump(m, open(path, "w"))
EOF
# A stand-in coverage build: it writes each argument it gets on a line, and no profile.
cat >cov <<'EOF'
#!/bin/sh
for a in "$0" "$@"; do printf '%s\n' "$a"; done >>"$ARGV_LOG"
printf 'env %s\n' "$(env | grep -c PWNED)" >>"$ARGV_LOG"
EOF
chmod +x cov
export ARGV_LOG=$PWD/argv.log
"$bin" audit seeds.manifest.json --coverage ./cov >out.txt 2>err.txt
[ -s argv.log ] || err "the coverage build never ran (premise): $(cat err.txt)"
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["seeds"]))' seeds.manifest.json)
runs=$(grep -c '^\./cov$' argv.log)
[ "$runs" -ge "$n" ] || err "the coverage build ran $runs times for $n seeds (premise)"
grep -v '^\./cov$' argv.log | grep -v '^env 0$' >args.txt
bad=$(grep -v '^/.*corpus-distill-cov\.[^/]*/[^/]*$' args.txt | head -n 3)
[ -z "$bad" ] || err "the coverage build got other arguments than the example's file: $bad"
grep -q 'env [1-9]' argv.log && err "a manifest value reached the coverage build's environment"

# The arguments after '--', '@@' the example's file (the record of the first run dropped: it
# holds every example already).
: >argv.log
rm -f seeds.source.json
"$bin" audit seeds.manifest.json --coverage ./cov -- -runs=1 @@ >out.txt 2>err.txt
grep -q '^-runs=1$' argv.log || err "'-- -runs=1 @@': no -runs=1 given: $(head -n 4 argv.log)"
grep -v '^\./cov$' argv.log | grep -v '^env 0$' | grep -v '^-runs=1$' >args.txt
bad=$(grep -v '^/.*corpus-distill-cov\.[^/]*/[^/]*$' args.txt | head -n 3)
[ -z "$bad" ] || err "'-- -runs=1 @@': other arguments: $bad"
"$bin" audit seeds.manifest.json -- -runs=1 >/dev/null 2>err.txt
[ $? = 2 ] || err "arguments after '--' without --coverage are not a usage error"

for f in PWNED PWNED2 EVIL; do [ -e "$f" ] && err "the planted manifest made '$f'"; done
[ $fail = 0 ] && ok "the coverage build received its own command line only"
exit $fail
