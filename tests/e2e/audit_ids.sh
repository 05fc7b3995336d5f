#!/usr/bin/env bash
# Edge IDs: with a target built by afl-clang-lto, whose AFL_LLVM_DOCUMENT_IDS file names the
# function of every edge, a run given the file (--ids, or the variable) records each label's
# function in the manifest, and audit --label and --seed say which function a label is in, from
# the manifest or from --ids; checked against the file and with the coverage build as the oracle
# (the label's best seed really reaches that function, by llvm-cov).
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
cov=${CD_TARGETS:?}/sample_json.cov
src=${CD_SRC:?}/tests/targets/sample_json.c
cd_need_cmd afl-clang-lto "afl-clang-lto missing"
cd_need "$cov"
cd_scratch

AFL_LLVM_DOCUMENT_IDS="$tmp/ids.txt" AFL_QUIET=1 afl-clang-lto -O2 -w -o lto "$src" >/dev/null 2>&1
[ -x lto ] && [ -s ids.txt ] || { echo "FAIL: afl-clang-lto did not build the target or its ID file"; exit 1; }
mkdir in
printf '{"a": [1, 2.5, "x"], "b": {"c": null}}' >in/a.json
printf '{"url": "https://example.org/a", "email": "a@b.org"}' >in/u.json
"$bin" -q -j 1 --no-reduce in -o seeds -- ./lto @@ || { echo "FAIL: distill exited $?"; exit 1; }
"$bin" -q -j 1 --no-reduce --ids ids.txt in -o named -- ./lto @@ ||
  { echo "FAIL: distill --ids exited $?"; exit 1; }
AFL_LLVM_DOCUMENT_IDS=ids.txt "$bin" -q -j 1 --no-reduce in -o env -- ./lto @@ ||
  { echo "FAIL: distill with AFL_LLVM_DOCUMENT_IDS exited $?"; exit 1; }

# Every label the ID file documents: its function, and the best seed's, checked by llvm-cov.
python3 - seeds.manifest.json ids.txt >labels.txt <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
doc = {}
for line in open(sys.argv[2]):
    f = dict(x.split("=", 1) for x in line.split() if "=" in x)
    doc.setdefault(int(f["edgeID"]), f["Function"])
for label, l in sorted(m["labels"].items()):
    if label[0].isdigit() and int(label.split(":")[0]) in doc and l["in"] == "seeds":
        print(label, l["best"], doc[int(label.split(":")[0])])
PY
[ "$(wc -l <labels.txt)" -ge 20 ] || err "fewer than 20 documented labels: $(wc -l <labels.txt)"
# The manifests of the runs given the file name every documented label's function, and only those.
for out in named env; do
  python3 - $out.manifest.json seeds.manifest.json labels.txt <<'PY' || err "$out: functions differ"
import json, sys
m, plain = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want = {l.split()[0]: l.split()[2] for l in open(sys.argv[3])}
got = {k: v["function"] for k, v in m["labels"].items() if "function" in v}
assert not any("function" in v for v in plain["labels"].values()), "a run without the file"
for k, fn in want.items():
    assert got.get(k) == fn, (k, got.get(k), fn)
assert all(k[0].isdigit() for k in got), "an outcome label with a function"
PY
done
checked=0
while read -r label best fn; do
  "$bin" audit seeds.manifest.json --label "$label" --ids ids.txt --json >out.json ||
    { err "--label $label --ids: exit $?"; continue; }
  got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("function", ""))' out.json)
  [ "$got" = "$fn" ] || err "--label $label: function '$got', the ID file says '$fn'"
  "$bin" audit named.manifest.json --label "$label" >out.txt ||
    { err "--label $label on the manifest with functions: exit $?"; continue; }
  grep -qx "in function $fn" out.txt || err "--label $label without --ids: $(head -3 out.txt)"
  case $checked in 0|5|10|15)
    rm -f p.profraw
    LLVM_PROFILE_FILE=p.profraw "$cov" "seeds/$best" >/dev/null 2>&1
    llvm-profdata merge -sparse -o p.profdata p.profraw &&
      llvm-cov export -format=lcov -instr-profile p.profdata "$cov" >p.lcov
    grep -Eq "^FNDA:[1-9][0-9]*,(sample_json.c:)?$fn\$" p.lcov ||
      err "label $label: its best seed $best does not reach $fn"
  esac
  checked=$((checked + 1))
done < <(head -n 20 labels.txt)
"$bin" audit seeds.manifest.json --seed "$(head -n 1 labels.txt | cut -d' ' -f2)" --ids ids.txt >out.txt
grep -q " in main$" out.txt || err "--seed --ids names no function: $(head -5 out.txt)"
printf 'nothing here\n' >bad.txt
"$bin" audit named.manifest.json --seed "$(head -n 1 labels.txt | cut -d' ' -f2)" >out.txt
grep -q " in main$" out.txt || err "--seed on the manifest with functions: $(head -5 out.txt)"
"$bin" -q -j 1 --no-reduce --ids bad.txt in -o bad -- ./lto @@ 2>err.txt
[ $? = 4 ] && grep -q "bad.txt.*documents no edge" err.txt && [ ! -e bad ] ||
  err "distill --ids with a file that is no ID file: $(cat err.txt)"
AFL_LLVM_DOCUMENT_IDS=bad.txt "$bin" -j 1 --no-reduce in -o bad2 -- ./lto @@ 2>err.txt ||
  err "distill with AFL_LLVM_DOCUMENT_IDS naming no ID file: exit $?"
grep -q "warning: AFL_LLVM_DOCUMENT_IDS" err.txt || err "no warning for a bad AFL_LLVM_DOCUMENT_IDS"
"$bin" audit seeds.manifest.json --seed "$(head -n 1 labels.txt | cut -d' ' -f2)" --ids bad.txt >/dev/null 2>err.txt
[ $? = 4 ] && grep -q "documents no edge" err.txt || err "a file that is no ID file: $(cat err.txt)"
[ $fail = 0 ] && echo "ok ($checked labels)"
exit $fail
