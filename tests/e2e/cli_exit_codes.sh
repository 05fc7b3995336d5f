#!/usr/bin/env bash
# Exit codes and quiet modes: usage errors 2 (one line and the --help hint), a missing or
# uninstrumented target 3, no usable input 4; a complete run exits 0, prints nothing with -q, and a
# rerun on the same data changes nothing; --json-summary is JSON, on failing exits too; audit
# answers about seeds, labels and differences (warning when only one side counted edges only, -e);
# --tar writes the same seeds as one archive; an input the target cannot take is skipped; a tight
# --seen-mem bounds the seen-set and reports what it forgot; a target that breaks after the first
# pass still gets the best examples so far written, with exit 3; out of memory exits 6.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
cd_need "$target"
cd_scratch
expect() { # expect CODE ARGS...: runs the tool, checks the exit code
  local want=$1; shift
  "$bin" "$@" >out.txt 2>err.txt
  local rc=$?
  [ $rc = "$want" ] || err "'$*' exited $rc, expected $want: $(head -c 300 err.txt)"
}

mkdir in empty && printf '{"a": [1, 2]}' >in/a.json && printf 'null' >in/b.json

expect 2
grep -q '^Usage: corpus-distill' err.txt || err "the bare command does not print the usage"
expect 2 in
grep -q "try 'corpus-distill --help'" err.txt || err "usage error without the --help hint"
expect 2 --bogus in -o s -- "$target" @@
[ "$(wc -l <err.txt)" = 2 ] || err "usage error is not one line plus the hint"
expect 2 in -o s "$target" @@
expect 2 in -- "$target" @@
expect 2 -t abc in -o s -- "$target" @@
expect 2 --max-input-size 12X in -o s -- "$target" @@
expect 2 audit
expect 0 --help
expect 0 -V
grep -q '^corpus-distill ' out.txt || err "-V prints no version"

expect 3 -q in -o s -- ./no-such-target @@
grep -q "no-such-target" err.txt || err "missing target message does not name it"
expect 3 -q in -o s -- /bin/true @@
expect 4 -q empty -o s -- "$target" @@
# --json-summary also speaks on a failing exit: its code and the one-line message
for c in "2 in -- $target @@" "2 in -o s --jobs 2 -- $target @@" "3 in -o s -- /bin/true @@" "4 empty -o s -- $target @@"; do
  set -- $c
  want=$1; shift
  expect "$want" -q --json-summary "$@"
  python3 -c 'import json,sys; d=json.load(open("out.txt")); sys.exit(d["exit_code"] != int(sys.argv[1]) or d["complete"] or not d["error"])' "$want" ||
    err "--json-summary on exit $want: $(cat out.txt)"
done
grep -q "no inputs in 'empty'" err.txt || err "no-input message: $(cat err.txt)"
expect 4 -q no-such-dir -o s -- "$target" @@
[ ! -e s ] || err "an output dir was created by a failed run"

# An explicit timeout keeps a loaded machine from turning slow runs into timeout labels, which
# would make the runs differ for reasons that have nothing to do with the output. Cold runs
# (--no-state): a warm rerun starts from the first run's table instead (cli_state.sh).
expect 0 -q -j 1 -t 5000 --no-state in -o seeds -- "$target" @@
[ -s out.txt ] || [ -s err.txt ] && err "-q printed something on success"
first=$(ls seeds)
expect 0 -q -j 1 -t 5000 --no-state in -o seeds -- "$target" @@
[ "$(ls seeds)" = "$first" ] || err "a rerun on the same data changed the corpus"

expect 0 -q -j 1 --json-summary in -o seeds2 -- "$target" @@
python3 -c 'import json,sys; d=json.load(open("out.txt")); sys.exit(d["exit_code"] != 0 or d["seeds"] < 1)' ||
  err "--json-summary: $(cat out.txt)"

expect 0 -j 1 --no-reduce in -o seeds3 -- "$target" @@
grep -q "in: 2 inputs" err.txt || err "summary does not count the inputs: $(cat err.txt)"
grep -q "selected, not reduced (--no-reduce)" err.txt || err "--no-reduce summary: $(cat err.txt)"

# An input past what a shared-memory target takes is skipped with a warning naming it, never run
# as garbage (it once came out as a crash reproducer).
persist=${CD_TARGETS}/exec_persist
if [ -x "$persist" ]; then
  mkdir big && head -c 1100000 /dev/zero >big/huge && printf 'abc' >big/small
  expect 0 --no-reduce --max-input-size 2000000 big -o bigseeds -- "$persist"
  grep -q "warning: skipping 'big/huge': input of 1100000 bytes" err.txt ||
    err "undeliverable input: $(cat err.txt)"
  [ ! -e bigseeds.crashes ] || err "an undeliverable input left a reproducer"
  [ "$(ls bigseeds)" = "$(printf abc | sha1sum | cut -c1-40)" ] || err "seeds: $(ls bigseeds)"
fi

# audit
seed=$(ls seeds | head -n 1)
expect 0 audit seeds.manifest.json
grep -q "${seed:0:12}" out.txt || err "audit overview does not list seed $seed"
expect 0 audit seeds.manifest.json --seed "${seed:0:8}"
label=$(sed -n 's/^  \([0-9]\{6\}:[1-8]\).*/\1/p' out.txt | head -n 1)
[ -n "$label" ] || err "audit --seed lists no labels"
expect 0 audit seeds.manifest.json --label "$label" --json
python3 -c 'import json,sys; d=json.load(open("out.txt")); sys.exit(sys.argv[1] not in d["covered_by"])' "$seed" ||
  err "audit --label does not list the seed covering it"
expect 1 audit seeds.manifest.json --label 999999:8
# Names in a manifest never reach the terminal raw: control bytes are printed escaped.
python3 - <<'PY'
import json
m = json.load(open("seeds.manifest.json"))
m["seeds"][0]["origin"] = "evil\x1b]0;title\x07\x1b[31mred"
json.dump(m, open("evil.manifest.json", "w"))
PY
expect 0 audit evil.manifest.json
! grep -q $'\x1b' out.txt || err "audit printed a raw escape byte"
grep -qF 'evil\x1b]0;title\x07\x1b[31mred' out.txt || err "audit did not show the escaped name: $(cat out.txt)"
expect 0 audit seeds.manifest.json --diff seeds3.manifest.json --json
python3 -c 'import json,sys; d=json.load(open("out.txt")); sys.exit(bool(not d["gained"] or d["lost"]))' ||
  err "reduction gained no labels over --no-reduce, or lost some: $(head -c 300 out.txt)"
expect 0 -q -j 1 -e --no-reduce in -o seeds4 -- "$target" @@
python3 -c 'import json,sys; d=json.load(open("seeds4.manifest.json")); sys.exit(not d["settings"]["edges_only"] or any(l[0].isdigit() and not l.endswith(":1") for l in d["labels"]))' ||
  err "-e: the manifest does not say edges_only or has a label of class above 1"
expect 0 audit seeds4.manifest.json --diff seeds3.manifest.json
grep -q "warning: .*counts hit counts, the manifest edges only" err.txt ||
  err "audit --diff across -e and hit counts does not warn: $(cat err.txt)"
expect 4 audit no-such.json

# --tar: the same seeds in one archive, the same bytes on a rerun, usable as the next input
expect 0 -q -j 1 -t 5000 --no-state --tar in -o packed -- "$target" @@
[ ! -e packed ] || err "--tar also wrote a directory"
[ "$(tar --zstd -tf packed.tar.zst | sort)" = "$(ls seeds)" ] || err "--tar holds other seeds than the directory"
sum=$(sha1sum <packed.tar.zst)
expect 0 -q -j 1 -t 5000 --no-state --tar packed.tar.zst -o packed -- "$target" @@
[ "$(sha1sum <packed.tar.zst)" = "$sum" ] || err "--tar rerun changed the archive"
# A seen-set budget far below what the run needs: the table stays within it, forgets instead, and
# says so in the summary, the JSON summary and the manifest; the output still keeps every label.
corpus=${CD_SRC:?}/sample_corpora/json.tar.zst
expect 1 -j 1 --seed 3 --seen-mem 4k --max-execs 4000 --json-summary "$corpus" -o tight \
  -- "$target" @@
grep -q "candidates forgotten" err.txt || err "--seen-mem 4k: no forgotten line: $(cat err.txt)"
python3 - out.txt tight.manifest.json <<'PY' || err "--seen-mem 4k: bad counts"
import json, sys
j = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2]))
ok = (0 < j["seen_set_bytes"] <= 4096 and j["seen_forgotten"] > 0
      and m["run"]["seen_forgotten"] == j["seen_forgotten"] and m["settings"]["seen_mem"] == 4096
      and j["labels"] == len(m["labels"]) and m["run"]["labels_found"] >= m["run"]["labels_input"])
sys.exit(0 if ok else 1)
PY
expect 2 in -o s --seen-mem 100 -- "$target" @@

# A target that breaks for good after the first pass (a fake fork server allowed three runs in all,
# across restarts): exit 3 with the error on stderr, yet the best examples so far are written as a
# valid, incomplete output whose manifest names the error.
# The stand-in shows every input one trace, which the guard against a collapse refuses (exit 7, as
# the tests of tests/e2e/nightly_guard.sh): taken here all the same.
mkdir late-in && printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' >late-in/a && printf 'bbbbbbbbbbbb' >late-in/b
expect 7 -j 1 late-in -o late7 -- "${CD_TARGETS:?}/exec_fake_fs" "budget:99:$tmp/runs7"
grep -q "refused: every one of 2 inputs showed the same labels" err.txt ||
  err "a target blind to its input: no refusal line: $(cat err.txt)"
[ -e late7 ] && err "a target blind to its input: '-o late7' was written"
expect 3 -j 1 --accept-collapse --json-summary late-in -o late -- "${CD_TARGETS:?}/exec_fake_fs" "budget:3:$tmp/runs"
grep -q "could not be restarted.*writing the best examples found so far" err.txt ||
  err "late failure: no error line: $(cat err.txt)"
python3 - out.txt late.manifest.json late <<'PY' || err "late failure: bad output: $(cat out.txt)"
import json, os, sys
j = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2])); r = m["run"]
ok = (j["exit_code"] == 3 and "restarted" in j["error"] and r["stopped_by"] == "error"
      and "restarted" in r["error"] and not r["complete"] and m["seeds"]
      and sorted(os.listdir(sys.argv[3])) == sorted(s["file"] for s in m["seeds"]))
sys.exit(0 if ok else 1)
PY
expect 0 audit late.manifest.json

# Out of memory is its own status, whatever was running: an input larger than the address space
# left (a sparse file under ulimit -v) ends the run with 6 and one line naming it, and nothing is
# written. It used to exit 3, the target-failure status. Not under AddressSanitizer, whose shadow
# memory needs more address space than any such limit leaves.
if ! ldd "$bin" 2>/dev/null | grep -q libasan; then
  mkdir oom-in && printf 'null' >oom-in/a.json && truncate -s 700M oom-in/big.json
  (ulimit -v 500000 && exec "$bin" -q -j 1 --max-input-size 1G oom-in -o oom -- "$target" @@) \
    >out.txt 2>err.txt
  rc=$?
  [ $rc = 6 ] || err "out of memory exited $rc, expected 6: $(head -c 300 err.txt)"
  [ "$(wc -l <err.txt)" = 1 ] && grep -q "out of memory reading 'oom-in/big.json'" err.txt ||
    err "out of memory: not one line naming the input: $(head -c 300 err.txt)"
  [ ! -e oom ] && [ ! -e oom.manifest.json ] || err "out of memory: an output was written"
fi
[ $fail = 0 ] && echo "ok"
exit $fail
