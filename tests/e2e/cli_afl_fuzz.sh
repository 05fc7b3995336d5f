#!/usr/bin/env bash
# afl-fuzz takes a produced seed directory as it is: it holds only regular files named by the
# SHA-1 of their content, no reproducer, and afl-fuzz gets through its dry run into fuzzing; its
# output directory given back as an operand yields its test cases and none of its state.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
cd_need_cmd afl-fuzz "afl-fuzz not found"
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
corpus=${CD_SRC:?}/sample_corpora/json.tar.zst
cd_need "$target" "$corpus"
cd_scratch

mkdir all in && tar --zstd -xf "$corpus" -C all || exit 1
find all -type f | sort | head -n 60 | while read -r f; do cp "$f" in/; done

"$bin" -q -j 1 --max-execs 15000 in -o seeds -- "$target" @@
rc=$?
{ [ $rc = 0 ] || [ $rc = 1 ]; } || { echo "FAIL: distill exited $rc"; exit 1; }
n=$(find seeds -mindepth 1 | wc -l)
[ "$n" -gt 0 ] || err "no seeds written"
find seeds -mindepth 1 ! -type f | grep -q . && err "seed dir holds something other than files"
for f in seeds/*; do
  name=${f#seeds/}
  [[ $name =~ ^[0-9a-f]{40}$ ]] || err "seed file name '$name' is not a SHA-1"
  [ "$(sha1sum <"$f" | cut -c1-40)" = "$name" ] || err "seed '$name' is not named by its content"
done
python3 - seeds.manifest.json seeds <<'PY' || err "a reproducer is in the seed dir"
import json, os, sys
m = json.load(open(sys.argv[1]))
files = set(os.listdir(sys.argv[2]))
sys.exit(1 if any(r["sha1"] in files or r["file"] in files for r in m["reproducers"]) else 0)
PY

AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 \
  AFL_QUIET=1 timeout 60 afl-fuzz -i seeds -o fuzzout -V 3 -- "$target" @@ >afl.log 2>&1
if [ -f fuzzout/default/fuzzer_stats ]; then
  queued=$(awk -F: '/^corpus_count|^paths_total/ { gsub(/ /, "", $2); print $2; exit }' \
           fuzzout/default/fuzzer_stats)
  echo "afl-fuzz reached fuzzing with ${queued:-?} queue entries from $n seeds"
else
  err "afl-fuzz did not reach the fuzzing stage"
  tail -n 20 afl.log
fi
# Its output directory, given back as an operand (the nightly refresh), yields exactly its test
# cases (queue/, crashes/, hangs/) and none of its state files.
if [ -d fuzzout/default/queue ]; then
  want=$(find fuzzout/default/queue fuzzout/default/crashes fuzzout/default/hangs -maxdepth 1 \
         -type f \( -name 'id:*' -o -name 'id_*' \) | wc -l)
  "$bin" -q -j 1 --no-reduce --json-summary fuzzout -o refreshed -- "$target" @@ >sum.json
  python3 - sum.json "$want" <<'PY' || err "afl-fuzz output as input: $(cat sum.json), want $want"
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["inputs"] == int(sys.argv[2]) and not j["skipped"] else 1)
PY
fi
[ $fail = 0 ] && echo "ok"
exit $fail
