#!/usr/bin/env bash
# Files the tool reads may be hostile, its own formats included, and no option writes over what
# it did not write: a seed key carrying markup in the source coverage record and a line number
# of 2^32 - 1 are refused (the report neither runs script nor grows without end); --state and
# --manifest naming a user's file are refused and the file kept; a file given as the state that
# is no state is read no further than its first bytes; merge refuses one state named twice; a manifest whose seed
# directory is /etc and whose seeds are named passwd is refused, and audit reads seeds only beside
# the manifest; a report directory with a planted link is rewritten without writing through it;
# -o inside an input operand never makes the run's own files its inputs; escapes in a usage error
# or a program name never reach the terminal raw.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
cov=${CD_TARGETS:?}/sample_json.cov
cd_need "$target" "$cov"
cd_scratch
cd_forged+=(evil.manifest.json) # a manifest forged to be refused
# expect CODE WHAT COMMAND...: the command exits CODE, with one line on stderr
expect() {
  local code=$1 what=$2 rc
  shift 2
  "$@" >out.txt 2>err.txt
  rc=$?
  if [ $rc != "$code" ]; then
    err "$what: exit $rc, not $code: $(head -c 300 err.txt)"
  elif [ "$(wc -l <err.txt)" -lt 1 ]; then
    err "$what: no message"
  else
    ok "$what: exit $code ($(tail -n 1 err.txt | head -c 160))"
  fi
}

mkdir in
printf '{"a": [1, 2.5, "x"], "b": {"c": null}}' >in/a.json
printf '[true, false, "\\u00e9"]' >in/b.json
"$bin" -q -j 1 --max-execs 1500 in -o seeds -- "$target" @@
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { echo "FAIL: distill exited $rc"; exit 1; }
"$bin" audit seeds.manifest.json --coverage "$cov" --uncovered >/dev/null 2>&1 ||
  err "audit --coverage failed on a sound manifest"
[ -f seeds.source.json ] || { echo "FAIL: no source coverage record"; exit 1; }

# 1. A seed key with markup in the record, and 2. a line number of 2^32 - 1.
cp seeds.source.json good.source.json
python3 - seeds.source.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
k = next(iter(j["seeds"]))
j["seeds"]['"><script>alert(1)</script>'] = j["seeds"][k]
json.dump(j, open(sys.argv[1], "w"))
PY
expect 4 "record with a seed key holding markup" "$bin" audit seeds.manifest.json --html r1
[ ! -e r1 ] || ! grep -rq '<script>' r1 || err "script reached the report"
for line in 4294967295 2000000000; do
  python3 - good.source.json seeds.source.json $line <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
n = int(sys.argv[3])
j["files"].append("/nonexistent/huge.c")
j["lines"].append([1, n])
for s in j["seeds"].values():
    if "lines" in s:
        s["lines"].append([n])
json.dump(j, open(sys.argv[2], "w"))
PY
  rm -rf r2
  timeout 60 "$bin" audit seeds.manifest.json --html r2 >/dev/null 2>err.txt
  rc=$?
  size=$(du -sk r2 2>/dev/null | cut -f1)
  if [ $rc = 124 ] || [ "${size:-0}" -gt 20000 ] || { [ $line = 2000000000 ] && [ $rc != 0 ]; }; then
    err "a line number of $line: exit $rc, ${size:-0} KiB of report"
  else
    ok "a line number of $line: exit $rc, ${size:-0} KiB of report"
  fi
done
cp good.source.json seeds.source.json

# 7. A record naming a file that is no source of the coverage build: never read into the report,
# with or without the build given.
python3 - good.source.json seeds.source.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["files"].append("/etc/passwd")
j["lines"].append([1])
for s in j["seeds"].values():
    if "lines" in s:
        s["lines"].append([])
json.dump(j, open(sys.argv[2], "w"))
PY
for with_cov in no yes; do
  rm -rf r9
  if [ $with_cov = yes ]; then
    "$bin" audit seeds.manifest.json --coverage "$cov" --html r9 >/dev/null 2>err.txt
  else
    "$bin" audit seeds.manifest.json --html r9 >/dev/null 2>err.txt
  fi
  if grep -rq 'root:' r9 2>/dev/null; then
    err "a record naming /etc/passwd (--coverage: $with_cov): its text reached the report"
  else
    ok "a record naming /etc/passwd (--coverage: $with_cov): not read"
  fi
done
"$bin" audit seeds.manifest.json --coverage "$cov" --html r10 >/dev/null 2>&1
cp good.source.json seeds.source.json
"$bin" audit seeds.manifest.json --coverage "$cov" --html r10 >/dev/null 2>&1 &&
  grep -q 'parse' r10/file-*.html && ok "the build's own sources are shown with --coverage" ||
  err "a sound record with --coverage: no source text in the report"

# 3. --state and --manifest never replace a user's file.
echo "precious settings" >important.conf
cp important.conf mine.json
expect 5 "--state naming a user's file" \
  "$bin" -q -j 1 --max-execs 200 in -o s3 --state important.conf -- "$target" @@
expect 5 "--manifest naming a user's file" \
  "$bin" -q -j 1 --max-execs 200 in -o s4 --manifest mine.json -- "$target" @@
{ [ "$(cat important.conf)" = "precious settings" ] && [ "$(cat mine.json)" = "precious settings" ]; } ||
  err "a user's file was replaced"

# 13. A big file that is no state is read no further than its first bytes (a state's own fields
# are checked by the unit tests).
head -c 100000000 /dev/zero >big.bin
/usr/bin/time -f %M -o rss.txt "$bin" -q -j 1 --max-execs 100 --no-reduce in -o s6 --state big.bin \
  --force -- "$target" @@ 2>/dev/null
rss=$(tail -n 1 rss.txt)
[ "${rss:-999999}" -lt 60000 ] && ok "a 100 MB file that is no state: ${rss} KiB at most" ||
  err "a 100 MB file that is no state took ${rss} KiB"

# 11. One state named twice.
expect 4 "merge of one state named twice" \
  "$bin" merge -q -j 1 --max-execs 100 seeds.state seeds.state -o m -- "$target" @@
cp seeds.state copy.state
expect 4 "merge of a state and its copy" \
  "$bin" merge -q -j 1 --max-execs 100 seeds.state copy.state -o m -- "$target" @@

# 7. A manifest naming /etc and seeds named passwd; audit reads beside the manifest only.
python3 - seeds.manifest.json evil.manifest.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["output"]["seed_dir"] = "/etc"
m["seeds"][0]["file"] = "passwd"
json.dump(m, open(sys.argv[2], "w"))
PY
expect 4 "a manifest whose seed is named passwd" "$bin" audit evil.manifest.json --html r7
python3 - seeds.manifest.json etc.manifest.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["output"]["seed_dir"] = "/etc"
json.dump(m, open(sys.argv[2], "w"))
PY
"$bin" audit etc.manifest.json --coverage "$cov" --html r7 >/dev/null 2>err.txt
grep -q "cannot read 'etc/" err.txt && ok "a manifest naming /etc: its seeds looked for beside it" ||
  err "a manifest naming /etc: $(head -c 300 err.txt)"

# 8. A planted link in an earlier report is not written through.
"$bin" audit seeds.manifest.json --html r8 >/dev/null 2>&1 || err "first report failed"
echo "victim" >victim.txt
rm -f r8/file-0.html && ln -s "$tmp/victim.txt" r8/file-0.html
"$bin" audit seeds.manifest.json --html r8 >/dev/null 2>err.txt || err "rewriting the report: $(cat err.txt)"
[ "$(cat victim.txt)" = "victim" ] && [ ! -L r8/file-0.html ] &&
  ok "a planted link in the report directory: not followed" || err "the report wrote through a link"

# 6. -o inside an input operand, twice.
mkdir d
cp in/*.json d/
for run in 1 2; do
  "$bin" -q -j 1 --max-execs 1500 d -o d/seeds -- "$target" @@
  rc=$?
  [ $rc = 0 ] || [ $rc = 1 ] || err "run $run with -o inside its input exited $rc"
done
python3 - d/seeds.manifest.json <<'PY' && ok "-o inside an input: no seed from the run's own files" ||
import json, sys
m = json.load(open(sys.argv[1]))
bad = [s["origin"] for s in m["seeds"] + m["reproducers"]
       if "seeds" in s["origin"].replace("d/seeds/", "")]
sys.exit(1 if bad or m["input"]["inputs"] != 2 else 0)
PY
  err "-o inside an input: the run read its own outputs ($(python3 -c 'import json; m=json.load(open("d/seeds.manifest.json")); print(m["input"]["inputs"], [s["origin"] for s in m["seeds"]][:5])'))"

# Escapes never reach the terminal raw: a --targets name and an option carrying one in a usage
# error, and audit --diff's label lines naming a single target's program whose name holds one.
esc=$(printf '\033')
printf 'bad%s[2J: %s @@\n' "$esc" "$target" >targets.txt
"$bin" in-e -o e1 --targets targets.txt 2>err.txt
[ $? = 2 ] || err "a --targets name with an escape is not a usage error"
grep -q "$esc" err.txt && err "a usage error echoed a raw escape: $(cat -v err.txt)"
"$bin" "--x${esc}[2J" in -o e1 -- "$target" @@ 2>err.txt
grep -q "$esc" err.txt && err "an unknown option echoed a raw escape: $(cat -v err.txt)"
mkdir -p in-e && printf '{"a": [1]}' >in-e/a.json
cp "$target" "t${esc}[31m" && printf '\0' >>"t${esc}[31m" # another SHA-1: named by its program
"$bin" -q -j 1 --no-reduce in-e -o one -- "./t${esc}[31m" @@ &&
  "$bin" -q -j 1 --no-reduce in-e -o two -- "$target" @@ -- "$target" @@ ||
  err "the runs for --diff failed (premise)"
"$bin" audit two.manifest.json --diff one.manifest.json >out.txt 2>err.txt
grep -q '^[+-] ' out.txt || err "audit --diff listed no label (premise): $(cat -v out.txt | head -3)"
grep -q "$esc" out.txt err.txt && err "audit --diff printed a raw escape: $(grep "$esc" out.txt | cat -v | head -2)"

[ $fail = 0 ] && echo "ok: hostile records, states and manifests refused; nothing of the user's replaced"
exit $fail
