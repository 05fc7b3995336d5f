#!/usr/bin/env bash
# Several targets in one run, checked against afl-showmap: the HTTP sample corpus through two
# harnesses of the format (sample_http, persistent, and sample_http_headers, an @@ build) in one
# run; every label of each target that the inputs crashing or hanging nowhere show is shown by
# that target's view (DIR.by-target/NAME); the views share seeds, so the seeds weigh less than the
# views together; labels name their target in the manifest and audit; shards of the run merge; a
# warm rerun that adds a third target (sample_json) runs the state's examples and the inputs on it
# alone, keeps the first two targets' labels and finished marks, and gives it a view that keeps
# its inputs' labels; a second "--" is never a
# target's argument, and cmin stays single-target; one bug reached from two targets is one bug.
# Budgets are executions, not time.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
: "${CD_BIN:?}" "${CD_TARGETS:?}" "${CD_SRC:?}"
bin=$CD_BIN
http=$CD_TARGETS/sample_http
headers=$CD_TARGETS/sample_http_headers
json=$CD_TARGETS/sample_json
for t in "$http" "$headers" "$json"; do [ -x "$t" ] || cd_skip "$(basename "$t") not built"; done
export AFL_QUIET=1
unset __AFL_SHM_ID __AFL_SHM_FUZZ_ID __AFL_PERSISTENT __AFL_DEFER_FORKSRV AFL_NO_FORKSRV || true
cd_scratch
mkdir in && tar -C in -xf "$CD_SRC/sample_corpora/http.tar.zst" || { err "cannot unpack"; exit 1; }
EXECS=${CD_MULTI_EXECS:-40000}
# py FILE EXPR: EXPR over the JSON in FILE, as m.
py() { python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# 1. One run over both harnesses (labels in random order, so that some finish within the budget).
"$bin" in -o seeds -j 2 -q --max-execs "$EXECS" --order uniform --json-summary -- "$http" -- \
    "$headers" @@ \
    >summary.json
rc=$?
[ $rc -le 1 ] || err "the run of two targets exited $rc"
names=$(py seeds.manifest.json '" ".join(t["name"] for t in m["targets"])')
[ "$names" = "sample_http sample_http_headers" ] && ok "two targets, named: $names" ||
    err "targets in the manifest: '$names'"
prefixes=$(py seeds.manifest.json \
    '" ".join(sorted({k.split("/")[0] for k in m["labels"]}))')
[ "$prefixes" = "sample_http sample_http_headers" ] && ok "every label names its target" ||
    err "label prefixes: '$prefixes'"
for t in sample_http sample_http_headers; do
    [ -d "seeds.by-target/$t" ] && [ -n "$(ls "seeds.by-target/$t")" ] ||
        err "no view for $t"
done

# Inputs that crash or hang on no target: their labels must all be in each target's view.
mkdir clean
for f in in/*/*; do
    a=0 b=0
    (timeout 1 "$http" "$tmp/$f" >/dev/null 2>&1) 2>/dev/null || a=$?
    (timeout 1 "$headers" "$tmp/$f" >/dev/null 2>&1) 2>/dev/null || b=$?
    [ "$a" -lt 124 ] && [ "$b" -lt 124 ] && cp "$f" "clean/$(echo "$f" | tr / _)"
done
[ "$(ls clean | wc -l)" -gt 100 ] || err "only $(ls clean | wc -l) clean inputs"
# covered NAME VIEW -- TARGET...: every label the clean inputs show on TARGET, VIEW shows, but
# those of the edges the run found unstable (target k's slot s is k * 2^24 + s in the manifest).
covered() {
    local name=$1 view=$2 k
    shift 3
    k=$(py seeds.manifest.json '[t["name"] for t in m["targets"]].index("'"$name"'")')
    py seeds.manifest.json '"\n".join(str(e - '"$k"' * 2**24) for e in m["run"]["unstable_edges"]
                            if e >> 24 == '"$k"')' >"unstable.$name"
    cd_labels clean "$@" | awk -F: -v f="unstable.$name" \
        'BEGIN { while ((getline e < f) > 0) u[e + 0] = 1 } !(($1 + 0) in u)' >"in.$name"
    cd_labels "$view" "$@" >"out.$name"
    local missing n
    missing=$(comm -23 "in.$name" "out.$name" | wc -l)
    n=$(wc -l <"in.$name")
    if [ "$n" -lt "${MIN:-50}" ]; then
        err "$name: only $n input labels: the oracle did not run"
    elif [ "$missing" != 0 ]; then
        err "$name: $missing of $n input labels missing from $view: $(comm -23 "in.$name" \
            "out.$name" | head -3 | tr '\n' ' ')"
    else
        ok "$name: all $n input labels shown by $view"
    fi
}
covered sample_http seeds.by-target/sample_http -- "$http"
covered sample_http_headers seeds.by-target/sample_http_headers -- "$headers" @@
# Each view holds exactly the examples the manifest puts in it: seeds, and those only views hold
# (view_only), each named by its content's SHA-1.
alone=$(py seeds.manifest.json 'len(m.get("view_only", []))')
python3 - <<'PY' && ok "each view holds what the manifest lists: $alone example(s) in views alone" ||
    err "a view and the manifest differ"
import hashlib, json, os
m = json.load(open("seeds.manifest.json"))
for t in m["targets"]:
    d = "seeds.by-target/" + t["name"]
    want = {e["sha1"] for e in m["seeds"] + m.get("view_only", []) if t["name"] in e["views"]}
    have = set(os.listdir(d))
    assert have == want, (t["name"], sorted(have ^ want)[:3])
    for f in have:
        assert hashlib.sha1(open(os.path.join(d, f), "rb").read()).hexdigest() == f, f
    assert t["seed_bytes"] == sum(os.path.getsize(os.path.join(d, f)) for f in have)
assert not {e["sha1"] for e in m.get("view_only", [])} & set(os.listdir("seeds"))
PY
shared=$(cd_bytes seeds)
views=$(( $(cd_bytes seeds.by-target/sample_http) + $(cd_bytes seeds.by-target/sample_http_headers) ))
[ "$shared" -lt "$views" ] && ok "one seed serves both: $shared B against $views B of the views" ||
    err "no seed is shared: $shared B, views $views B"
other=$(py summary.json 'm["other_target_executions"]')
[ "${other:-0}" -gt 0 ] && ok "kept candidates ran on the other target ($other runs)" ||
    err "no run on the other target"
"$bin" audit seeds.manifest.json >audit.txt
grep -q "^target sample_http_headers: " audit.txt && ok "audit gives each target" ||
    err "audit: $(head -3 audit.txt)"
"$bin" audit seeds.manifest.json --html report >/dev/null 2>&1
[ -f report/target-sample_http_headers.html ] && grep -q "<h2>Targets</h2>" report/index.html &&
    ok "the HTML report has a page per target" || err "no target pages in the HTML report"
label=$(py seeds.manifest.json 'next(k for k in m["labels"] if k.startswith("sample_http_headers/"))')
"$bin" audit seeds.manifest.json --label "$label" >label.txt &&
    ok "audit --label $label" || err "audit --label $label failed"

# 2. Shards of the run merge.
for k in 1 2; do
    "$bin" --shard $k/2 in -o shard$k -j 1 -q --max-execs 5000 -- "$http" -- "$headers" @@
    [ $? -le 1 ] || err "shard $k failed"
done
"$bin" merge shard1.state shard2.state -o merged -j 2 -q --max-execs 5000 -- "$http" -- \
    "$headers" @@
[ $? -le 1 ] || err "merge of two targets failed"
n=$(py merged.manifest.json 'len(m["targets"])')
[ "$n" = 2 ] && [ -d merged.by-target/sample_http_headers ] &&
    ok "shards of two targets merge" || err "merged manifest: $n targets"
"$bin" audit merged.manifest.json --diff seeds.manifest.json >diff.txt
grep -q "^target sample_http_headers: " diff.txt && ok "audit --diff gives each target" ||
    err "audit --diff: $(head -3 diff.txt)"

# 3. A warm rerun adds a third target: the state's examples run on it alone.
before=$(py seeds.manifest.json \
    '" ".join("%d/%d" % (t["labels"], t["labels_finished"]) for t in m["targets"])')
[ "$(py seeds.manifest.json 'min(t["labels_finished"] for t in m["targets"]) > 0')" = True ] ||
    err "no target has finished labels to keep ($before): the check below would be empty"
examples=$(py seeds.manifest.json 'len(m["seeds"]) + len(m["reproducers"])')
"$bin" in -o seeds -j 2 -q --no-reduce --json-summary -- "$http" -- "$headers" @@ \
    -- "$json" @@ >summary3.json
rc=$?
[ $rc -le 1 ] || err "the rerun with a third target exited $rc"
start=$(py seeds.manifest.json 'm["state"]["start"]')
[ "$start" = "targets changed" ] && ok "state start: $start" || err "state start: '$start'"
after=$(py seeds.manifest.json \
    '" ".join("%d/%d" % (t["labels"], t["labels_finished"]) for t in m["targets"][:2])')
[ "$after" = "$before" ] && ok "the first two targets kept their labels and marks ($after)" ||
    err "the first two targets' labels/finished went from '$before' to '$after'"
third=$(py seeds.manifest.json 'm["targets"][2]["labels"]')
[ "${third:-0}" -gt 0 ] && [ -n "$(ls seeds.by-target/sample_json 2>/dev/null)" ] &&
    ok "the third target has $third labels and a view" || err "third target: '$third' labels"
execs=$(py summary3.json 'm["executions"]')
inputs=$(py summary.json 'm["inputs"] - m["duplicates"]') # the distinct inputs, all seen before
n=$(py seeds.manifest.json 'int(m["state"]["note"].split("its ")[1].split(" examples")[0])')
[ "$execs" = "$((n + inputs))" ] && [ "$(py summary3.json 'm["inputs"] - m["duplicates"]')" = "$inputs" ] &&
    ok "the state's $n examples and the $inputs inputs ran on the third target alone" ||
    err "$execs executions for the state's ${n:-?} examples and $inputs inputs on one target"
# Its view keeps every label its clean inputs show.
mkdir clean3
for f in clean/*; do
    c=0
    (timeout 1 "$json" "$f" >/dev/null 2>&1) 2>/dev/null || c=$?
    [ "$c" -lt 124 ] && cp "$f" clean3/
done
mv clean clean2 && mv clean3 clean
MIN=10 covered sample_json seeds.by-target/sample_json -- "$json" @@ # it rejects HTTP early
mv clean clean3 && mv clean2 clean

# 4. One bug reached from two targets is one bug: sample_bugs and its rebuild with other
#    addresses, over inputs that reach its three planted bugs.
if command -v llvm-symbolizer >/dev/null; then
    mkdir bugs_in
    i=0
    for line in 'name:abcdefghijklmnopqrstuvwxyz' 'sum:6,1,2,3,4,5,6' 'put:!ab=3' 'del:!xyz' \
                'set:a=1' 'echo:hello' 'name:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'; do
        printf '%s\nnum:%d\n' "$line" $i >"bugs_in/$i"
        i=$((i + 1))
    done
    "$bin" bugs_in -o bugs -j 2 -q --max-execs 20000 -- "$CD_TARGETS/sample_bugs" @@ -- \
        "$CD_TARGETS/sample_bugs_shift" @@
    [ $? -le 1 ] || err "the run of two bug targets failed"
    "$bin" audit bugs.manifest.json --crashes --json >crashes.json
    distinct=$(py crashes.json 'len([b for b in m if "same_as" not in b and b.get("sanitizer", 1)])')
    same=$(py crashes.json 'len([b for b in m if "same_as" in b])')
    single=$("$bin" bugs_in -o bugs1 -q --no-state --max-execs 20000 --json-summary -- \
        "$CD_TARGETS/sample_bugs" @@ | py /dev/stdin 'm["bugs"]')
    [ "$distinct" = "$single" ] && [ "$same" = "$single" ] &&
        ok "$distinct bugs reached from both targets are $distinct bugs, each with a label in both" ||
        err "bugs of two targets: $distinct distinct and $same the same, one target has $single"
fi

# 5. Nothing planted where the views go is followed: a link as DIR.by-target, a link or a FIFO as
#    a view.
mkdir planted_to
ln -s planted_to p.by-target
"$bin" clean -o p -q --max-execs 2000 -- "$http" -- "$headers" @@ 2>planted.err
[ -z "$(ls planted_to)" ] && grep -q "symbolic link" planted.err &&
    ok "a link as DIR.by-target is not followed" || err "views written through a planted link"
rm p.by-target && mkdir p.by-target && ln -s ../planted_to p.by-target/sample_http &&
    mkfifo p.by-target/sample_http_headers
"$bin" clean -o p -q --max-execs 2000 -- "$http" -- "$headers" @@ 2>planted.err
[ -z "$(ls planted_to)" ] && [ -p p.by-target/sample_http_headers ] &&
    [ "$(grep -c "not written" planted.err)" = 2 ] &&
    ok "a link or a FIFO as a view is left as it is" || err "a planted view was replaced or followed"

# 6. A second "--" starts a target; an empty one is an error; cmin keeps one target.
"$bin" in -o bad -q -- -- "$http" >/dev/null 2>err.txt
[ $? = 2 ] && grep -q "empty target" err.txt && ok "an empty target is a usage error" ||
    err "an empty target after '--': $(cat err.txt)"
"$bin" cmin -i clean -o cmin_out -- "$json" @@ -- extra >/dev/null 2>&1
[ $? -le 1 ] && ok "cmin takes a second '--' as the target's argument" ||
    err "cmin with '-- extra' failed"
exit $fail
