#!/usr/bin/env bash
# Audit in source terms, checked by running the seeds on the coverage build with llvm-cov as the
# oracle: --coverage records the functions, lines and branch directions each seed and reproducer
# reaches beside the manifest (as llvm-cov reports them) and measures nothing twice; --function and --line name seeds that really reach the place (the first
# one is run again and llvm-cov asked); --uncovered lists a function none of the inputs reaches
# and no function a seed reaches; a place no seed reaches exits 1; a reproducer that crashes is
# recorded as measured by nothing, and one both a seed and a reproducer once; without a record,
# audit asks for --coverage (exit 4); --diff
# tells the functions and lines a later corpus reaches that an earlier one did not; an audit run
# from another directory finds the seeds beside the manifest.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
cov=${CD_TARGETS:?}/sample_json.cov
cd_need "$target" "$cov"
command -v llvm-cov >/dev/null && command -v llvm-profdata >/dev/null ||
  { echo "FAIL: llvm-cov or llvm-profdata missing (Debian package llvm)"; exit 1; }
cd_scratch

# Inputs that reach neither URLs nor e-mail addresses, and one that crashes the target (the
# documented SIGSEGV: a member named "crash" at nesting depth 3).
mkdir in
printf '{"a": [1, 2.5, "x"], "b": {"c": null}}' >in/a.json
printf '[true, false, "\\u00e9"]' >in/b.json
printf '{"":{"":{"crash":0}}}' >in/crash.json
"$bin" -q -j 1 --max-execs 2000 in -o seeds -- "$target" @@
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { echo "FAIL: distill exited $rc"; exit 1; }

"$bin" audit seeds.manifest.json --function parse_value >out.txt 2>err.txt
[ $? = 4 ] && grep -q "run audit with --coverage" err.txt || err "no record: $(cat err.txt)"

"$bin" audit seeds.manifest.json --coverage "$cov" >summary.txt 2>err.txt ||
  err "--coverage exited $?: $(cat err.txt)"
[ -f seeds.source.json ] || err "no record beside the manifest"
n_examples=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]));
print(len(m["seeds"]) + len(m["reproducers"]))' seeds.manifest.json)
grep -q "source coverage: $n_examples examples measured now, $n_examples in all" err.txt ||
  err "not every seed and reproducer measured: $(cat err.txt)"
"$bin" audit seeds.manifest.json --coverage "$cov" >/dev/null 2>err.txt
grep -q "0 examples measured now, $n_examples in all" err.txt || err "measured again: $(cat err.txt)"
if [ -d seeds.crashes ] && [ -n "$(ls seeds.crashes)" ]; then
  grep -q "no profile (it crashed" summary.txt || err "the crash reproducer was not told apart"
else
  err "the crashing input left no reproducer"
fi

# reaches FILE FUNCTION LINE: whether running seed FILE on the coverage build reaches the function
# (or, with LINE, that line), by llvm-cov's own export.
reaches() {
  rm -f one.profraw
  LLVM_PROFILE_FILE=one.profraw "$cov" "$1" >/dev/null 2>&1
  llvm-profdata merge -sparse -o one.profdata one.profraw &&
    llvm-cov export -format=lcov -instr-profile one.profdata "$cov" >one.lcov || return 1
  if [ -n "${3:-}" ]; then
    grep -Eq "^DA:$3,[1-9]" one.lcov
  else
    grep -Eq "^FNDA:[1-9][0-9]*,(sample_json.c:)?$2\$" one.lcov
  fi
}

"$bin" audit seeds.manifest.json --function parse_array >out.txt || err "--function parse_array: exit $?"
first=$(head -n 1 out.txt | cut -d' ' -f1)
[ -n "$first" ] && reaches "seeds/$first" parse_array || err "--function: $first does not reach parse_array"
# ... and the record holds for it exactly the lines and branch directions llvm-cov reports taken.
python3 - seeds.source.json "$first" one.lcov <<'PY' || err "record of $first differs from llvm-cov"
import json, sys
rec = json.load(open(sys.argv[1])); s = rec["seeds"][sys.argv[2]]
lines, brs = set(), set()
for l in open(sys.argv[3]):
    if l.startswith("DA:") and int(l[3:].split(",")[1]) > 0:
        lines.add(int(l[3:].split(",")[0]))
    if l.startswith("BRDA:"):
        line, block, d, taken = l[5:].strip().split(",")
        if taken not in ("-", "0"):
            brs.add((int(line), int(block), int(d)))
got_lines = set(sum(s["lines"], []))
got_brs = {tuple(rec["branches"][i][1:]) for i in s["branches"]}
sys.exit(0 if got_lines == lines and got_brs == brs and brs else 1)
PY

line=$(grep -n '^static int parse_array(' "${CD_SRC:?}/tests/targets/sample_json.c" | cut -d: -f1)
line=$((line + 3)) # its "p->i++;"
"$bin" audit seeds.manifest.json --line "sample_json.c:$line" >out.txt || err "--line: exit $?"
first=$(head -n 1 out.txt | cut -d' ' -f1)
[ -n "$first" ] && reaches "seeds/$first" "" "$line" || err "--line: $first does not reach line $line"

"$bin" audit seeds.manifest.json --function valid_url >out.txt
[ $? = 1 ] || err "--function valid_url: no seed reaches it, yet exit 0: $(cat out.txt)"

"$bin" audit seeds.manifest.json --uncovered >out.txt || err "--uncovered: exit $?"
grep -q "sample_json.c:valid_url" out.txt || err "--uncovered misses valid_url: $(cat out.txt)"
grep -q "sample_json.c:parse_array" out.txt && err "--uncovered lists parse_array, which seeds reach"
"$bin" audit seeds.manifest.json --uncovered --json >out.json || err "--uncovered --json: exit $?"
python3 - out.json <<'PY' || err "--uncovered --json: bad counts"
import json, sys
j = json.load(open(sys.argv[1]))
names = [f["name"] for x in j["files"] for f in x["functions"]]
ok = (0 < j["functions_uncovered"] == len(names) < j["functions"]
      and 0 < j["lines_uncovered"] < j["lines"] and 0 < j["branches_uncovered"] < j["branches"]
      and "sample_json.c:valid_url" in names)
sys.exit(0 if ok else 1)
PY
# --diff in source terms: a later corpus whose inputs hold a URL gains valid_url.
mkdir in2 && cp in/a.json in/b.json in2/ && printf '{"url": "https://example.org/a"}' >in2/u.json
"$bin" -q -j 1 --max-execs 2000 in2 -o seeds2 -- "$target" @@
"$bin" audit seeds2.manifest.json --diff seeds.manifest.json >out.txt 2>err.txt
grep -q "no source coverage recorded in 'seeds2.source.json'" err.txt ||
  err "--diff without the new record: no warning: $(cat err.txt)"
"$bin" audit seeds2.manifest.json --coverage "$cov" >/dev/null 2>&1 || err "--coverage seeds2"
"$bin" audit seeds2.manifest.json --diff seeds.manifest.json >out.txt || err "--diff: exit $?"
grep -q "^+ function sample_json.c:valid_url$" out.txt || err "--diff misses valid_url: $(cat out.txt)"
grep -q "^- function .*parse_array" out.txt && err "--diff loses parse_array"
"$bin" audit seeds2.manifest.json --diff seeds.manifest.json --json >out.json || err "--diff --json"
python3 - out.json <<'PY' || err "--diff --json: bad source part: $(head -c 300 out.json)"
import json, sys
s = json.load(open(sys.argv[1]))["source"]
ok = ("sample_json.c:valid_url" in s["functions_gained"] and s["functions_new"] > 0
      and not any(f.endswith("parse_array") for f in s["functions_lost"])
      and all(":" in l for l in s["lines_gained"]) and len(s["lines_gained"]) > 0
      and len(s["branches_gained"]) > 0
      and all(b.rsplit(":", 1)[1] in ("true", "false") for b in s["branches_gained"]))
sys.exit(0 if ok else 1)
PY
# From another directory, the seeds are found beside the manifest.
rm -f seeds.source.json && mkdir elsewhere
(cd elsewhere && "$bin" audit ../seeds.manifest.json --coverage "$cov" >/dev/null 2>../err.txt) ||
  err "audit from another directory: $(cat err.txt)"
grep -q "$n_examples examples measured now" err.txt || err "from elsewhere: $(cat err.txt)"
# One example both a seed and a reproducer (the smaller of two inputs: best for labels of the JSON
# target, and for the crash of a target that aborts on every input) is measured once.
abort=${CD_TARGETS:?}/night_abort
if [ -x "$abort" ]; then
  mkdir in2 && cp in/a.json in/b.json in2/ # none crashing the JSON target
  "$bin" -q -j 1 --no-reduce --all-best --accept-collapse --no-state in2 -o both -- "$target" @@ \
    -- "$abort" @@ 2>/dev/null
  python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))
sys.exit(0 if {e["sha1"] for e in m["seeds"]} & {e["sha1"] for e in m["reproducers"]} else 1)' \
    both.manifest.json || err "no example both a seed and a reproducer (premise)"
  "$bin" audit both.manifest.json --coverage "$cov" >/dev/null 2>err.txt ||
    err "an example both a seed and a reproducer: $(cat err.txt)"
fi
# A libFuzzer-style sample, which takes its input on stdin (no @@): its coverage build's driver
# reads stdin the same way.
http=${CD_TARGETS:?}/sample_http
if [ -x "$http" ] && [ -x "$http.cov" ]; then
  mkdir hin
  printf 'GET /a?b=1 HTTP/1.1\r\nHost: x\r\n\r\n' >hin/get.txt
  printf 'POST / HTTP/1.0\r\nContent-Length: 2\r\n\r\nab' >hin/post.txt
  "$bin" -q -j 1 --max-execs 1000 hin -o hseeds -- "$http"
  "$bin" audit hseeds.manifest.json --coverage "$http.cov" >/dev/null 2>err.txt ||
    err "--coverage on the HTTP sample: $(cat err.txt)"
  "$bin" audit hseeds.manifest.json --function LLVMFuzzerTestOneInput >out.txt ||
    err "no HTTP seed reaches LLVMFuzzerTestOneInput: $(cat out.txt)"
else
  err "the HTTP sample or its coverage build is missing"
fi
[ $fail = 0 ] && echo "ok"
exit $fail
