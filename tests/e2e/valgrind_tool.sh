#!/usr/bin/env bash
# The tool under valgrind's memcheck: a full run with two workers on a slice of the JSON sample
# (archive input, reduction, crash reproducers, seeds, manifest), the next run over that output
# with a second target, the same run stopped by SIGINT,
# and audits of its manifest (labels; source coverage with two workers; the report) leak nothing
# and touch no invalid memory. The targets themselves are not traced.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
cd_need_cmd valgrind "valgrind not installed"
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
cd_need "$target"
if ldd "$bin" 2>/dev/null | grep -q libasan; then
  cd_skip "the tool is built with AddressSanitizer, which checks leaks itself"
fi
cd_scratch

mkdir in
tar --zstd -xf "${CD_SRC:?}/sample_corpora/json.tar.zst" -C in
# A dozen inputs, one of them crashing, packed again as an archive so that ingest is exercised.
files=$(cd in && find . -type f | sort | head -n 11)
tar -C in -czf slice.tar.gz $files bugs/issue_0412.json

vg=(valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99)
"${vg[@]}" "$bin" -q -j 2 -t 2000 --max-execs 800 slice.tar.gz -o seeds -- "$target" @@ 2>vg.txt
rc=$?
if [ $rc = 99 ] || grep -q "==[0-9]*==" vg.txt; then
  echo "FAIL: valgrind reports errors in a run:"; head -40 vg.txt; fail=1
elif [ $rc != 0 ] && [ $rc != 1 ]; then
  echo "FAIL: the run exited $rc: $(head -5 vg.txt)"; fail=1
fi
[ -n "$(ls seeds 2>/dev/null)" ] || { echo "FAIL: no seeds written"; fail=1; }

# The next night over that output, a second target added: the output's paths checked as they
# now exist, the state read and its targets compared, the identity of two written.
"${vg[@]}" "$bin" -q -j 1 -t 2000 --max-execs 200 slice.tar.gz -o seeds -- "$target" @@ -- \
    "$CD_TARGETS/sample_http" 2>vg5.txt
rc=$?
if [ $rc = 99 ] || grep -q "==[0-9]*==" vg5.txt; then
  echo "FAIL: valgrind reports errors in a warm run with a target added:"; head -40 vg5.txt; fail=1
elif [ $rc != 0 ] && [ $rc != 1 ]; then
  echo "FAIL: the warm run exited $rc: $(head -5 vg5.txt)"; fail=1
fi

"${vg[@]}" "$bin" audit seeds.manifest.json >/dev/null 2>vg2.txt
rc=$?
if [ $rc != 0 ] || grep -q "==[0-9]*==" vg2.txt; then
  echo "FAIL: audit under valgrind exited $rc:"; head -40 vg2.txt; fail=1
fi
# Source coverage with two workers, and a question read back from its record.
cov=${CD_TARGETS:?}/sample_json.cov
if [ -x "$cov" ]; then
  "${vg[@]}" "$bin" audit seeds.manifest.json --coverage "$cov" -j 2 --html report >/dev/null \
    2>vg4.txt && "${vg[@]}" "$bin" audit seeds.manifest.json --function main >/dev/null 2>>vg4.txt
  rc=$?
  if [ $rc != 0 ] || grep -q "==[0-9]*==" vg4.txt; then
    echo "FAIL: audit --coverage under valgrind exited $rc:"; head -40 vg4.txt; fail=1
  fi
fi
# A run stopped by SIGINT (once its fork servers are up, so its handlers are in place) leaks
# nothing either, and still writes its output.
"${vg[@]}" "$bin" -q -j 2 -t 2000 slice.tar.gz -o seeds-int -- "$target" @@ 2>vg3.txt &
pid=$! # valgrind itself, not a subshell: the signal must reach the tool
while kill -0 "$pid" 2>/dev/null && ! pgrep -P "$pid" >/dev/null; do sleep 0.1; done
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
if [ $rc = 99 ] || grep -q "==[0-9]*==" vg3.txt; then
  echo "FAIL: valgrind reports errors in a run stopped by SIGINT:"; head -40 vg3.txt; fail=1
elif [ $rc != 1 ]; then
  echo "FAIL: the run stopped by SIGINT exited $rc, not 1: $(head -5 vg3.txt)"; fail=1
fi
[ -f seeds-int.manifest.json ] || { echo "FAIL: no manifest after SIGINT"; fail=1; }
[ $fail = 0 ] && echo "ok: no leaks or memory errors in a run, a run stopped by SIGINT and audits"
exit $fail
