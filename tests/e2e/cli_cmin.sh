#!/usr/bin/env bash
# "corpus-distill cmin" against afl-cmin itself, on the three sample targets (two @@ targets and
# a stdin one): both exit 0; every file cmin writes is an input under its own name and content;
# its files show every label (intended hit-count classes) that afl-cmin's show, and with -e every
# edge; on the JSON sample they show every label of the inputs that neither crash nor hang; -C keeps crashing inputs
# only; an output directory that is not empty is refused with afl-cmin's error and status 1,
# and left as it was.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
cd_need_cmd afl-cmin "afl-cmin not found"
bin=${CD_BIN:?CD_BIN not set}
cd_scratch
export AFL_QUIET=1 AFL_ALLOW_TMP=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1

# same_as_inputs OUT IN: every file of OUT is the file of IN with its name, byte for byte.
same_as_inputs() {
    local f src
    for f in "$1"/*; do
        src=$(find "$2" -type f -name "${f##*/}" | head -n 1)
        [ -n "$src" ] && cmp -s "$f" "$src" || { echo "${f##*/}"; return 1; }
    done
}

for n in json png http; do
    target=$CD_TARGETS/sample_$n
    args=(@@)
    [ $n = http ] && args=()
    mkdir -p "in-$n" "clean-$n"
    tar --zstd -xf "$CD_SRC/sample_corpora/$n.tar.zst" -C "in-$n"
    # afl-cmin reads one directory level: the inputs flat, names made unique.
    find "in-$n" -mindepth 2 -type f | while read -r f; do
        mv "$f" "in-$n/$(echo "${f#in-$n/}" | tr / _)"
    done
    find "in-$n" -mindepth 1 -type d -empty -delete
    # the inputs that neither crash nor hang (the JSON sample's: the check costs a run per input)
    for f in "in-$n"/*; do
        [ $n = json ] || break
        rc=$( (timeout 2 "$target" "$f" >/dev/null 2>&1) 2>/dev/null; echo $?)
        [ "$rc" -lt 124 ] && cp "$f" "clean-$n/"
    done
    "$bin" cmin -i "in-$n" -o "ours-$n" -t 2000 -- "$target" "${args[@]}" >"ours-$n.log" 2>&1 ||
        err "$n: cmin exited $?: $(tail -n 2 "ours-$n.log")"
    afl-cmin -i "in-$n" -o "theirs-$n" -t 2000 -- "$target" "${args[@]}" >"theirs-$n.log" 2>&1 ||
        err "$n: afl-cmin exited $?: $(tail -n 2 "theirs-$n.log")"
    grep -q "^\[+\] Narrowed down to [0-9]* files, saved in 'ours-$n'.$" "ours-$n.log" ||
        err "$n: no afl-cmin-like summary line: $(tail -n 2 "ours-$n.log")"
    bad=$(same_as_inputs "ours-$n" "in-$n") || err "$n: '$bad' is no input under its own name"
    cd_labels "ours-$n" "$target" "${args[@]}" >"ours-$n.labels"
    cd_labels "theirs-$n" "$target" "${args[@]}" >"theirs-$n.labels"
    lost=$(comm -23 "theirs-$n.labels" "ours-$n.labels" | wc -l)
    [ "$lost" = 0 ] || err "$n: $lost labels of afl-cmin's files missing from cmin's"
    if [ $n = json ]; then
        cd_labels "clean-$n" "$target" "${args[@]}" >"clean-$n.labels"
        lost=$(comm -23 "clean-$n.labels" "ours-$n.labels" | wc -l)
        [ "$lost" = 0 ] && [ -s "clean-$n.labels" ] ||
            err "$n: $lost labels of the inputs that neither crash nor hang missing"
    fi
    echo "$n: cmin $(ls "ours-$n" | wc -l) files, $(cd_bytes "ours-$n") B," \
        "$(wc -l <"ours-$n.labels") labels; afl-cmin $(ls "theirs-$n" | wc -l) files," \
        "$(cd_bytes "theirs-$n") B, $(wc -l <"theirs-$n.labels") labels"
done

# -e: every edge of afl-cmin -e's files (the PNG sample: the cheapest to run).
t=$CD_TARGETS/sample_png
"$bin" cmin -e -T 2 -i in-png -o ours-e -- "$t" @@ >/dev/null 2>&1 || err "-e: cmin exited $?"
afl-cmin -e -i in-png -o theirs-e -- "$t" @@ >/dev/null 2>&1 || err "-e: afl-cmin exited $?"
lost=$(comm -23 <(EDGES=1 cd_labels theirs-e "$t" @@ | sort -u) \
    <(EDGES=1 cd_labels ours-e "$t" @@ | sort -u) | wc -l)
[ "$lost" = 0 ] || err "-e: $lost edges of afl-cmin -e's files missing"
t=$CD_TARGETS/sample_json

# -C: crashing inputs only.
"$bin" cmin -C -i in-json -o crashes -- "$t" @@ >/dev/null 2>&1 || err "-C: cmin exited $?"
[ -n "$(ls crashes 2>/dev/null)" ] || err "-C: nothing kept"
for f in crashes/*; do
    rc=$( (timeout 2 "$t" "$f" >/dev/null 2>&1) 2>/dev/null; echo $?)
    [ "$rc" -ge 128 ] || err "-C: ${f##*/} does not crash (exit $rc)"
done

# A non-empty output directory: afl-cmin's error, status 1, nothing touched.
before=$(ls ours-json | sha1sum)
"$bin" cmin -i in-json -o ours-json -- "$t" @@ >out.txt 2>&1
rc=$?
[ $rc = 1 ] || err "existing output: exit $rc, expected 1"
grep -q "exists and is not empty" out.txt || err "existing output: $(cat out.txt)"
[ "$(ls ours-json | sha1sum)" = "$before" ] || err "existing output: it changed"
"$bin" cmin -i in-json -o x -Q -- "$t" @@ >/dev/null 2>&1
[ $? = 1 ] || err "-Q: not refused with status 1"

[ $fail = 0 ] && echo "ok: cmin keeps every label afl-cmin keeps, on every sample target"
exit $fail
