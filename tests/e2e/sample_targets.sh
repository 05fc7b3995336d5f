#!/usr/bin/env bash
# The sample targets build, fail on their planted faults exactly as documented in
# tests/targets/README.md (SIGSEGV, SIGABRT, a hang, an ASan heap-buffer-overflow), run normal
# corpus files cleanly, and the sample corpora reach hundreds of coverage labels by afl-showmap.
set -euo pipefail

. "$(dirname "$0")/lib.sh" && cd_need_afl
: "${CD_TARGETS:?}" "${CD_SRC:?}"
SHOWMAP=$(command -v afl-showmap)
export AFL_QUIET=1
# Plain runs outside AFL: never let a caller's AFL variables reach the targets.
unset __AFL_SHM_ID __AFL_SHM_FUZZ_ID __AFL_PERSISTENT __AFL_DEFER_FORKSRV AFL_NO_FORKSRV || true

WORK=$(mktemp -d)
tmp=$WORK && trap '_cd_scratch_end' EXIT # (lib.sh: manifests checked, then removed)
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# run_rc TARGET FILE: the exit status as bash reports it (128 + signal for a signal).
run_rc() {
    local rc=0
    "$CD_TARGETS/$1" "$2" >/dev/null 2>&1 || rc=$?
    echo "$rc"
}

expect_rc() { # expect_rc WANT TARGET FILE WHAT
    local got
    got=$(run_rc "$2" "$3")
    if [ "$got" != "$1" ]; then
        fail "$2 on $4: exit status $got, expected $1"
    else
        echo "ok: $2 on $4 -> $got"
    fi
}

expect_hang() { # expect_hang TARGET FILE WHAT
    local rc=0
    timeout 2 "$CD_TARGETS/$1" "$2" >/dev/null 2>&1 || rc=$?
    if [ "$rc" != 124 ]; then
        fail "$1 on $3: exit status $rc, expected still running after 2 s"
    else
        echo "ok: $1 on $3 still running after 2 s"
    fi
}

for t in sample_json sample_png sample_png_asan sample_http; do
    [ -x "$CD_TARGETS/$t" ] || fail "target $t was not built"
done
[ "$failures" = 0 ] || exit 1

# --- planted faults, minimal triggers -------------------------------------------------------
T="$WORK/triggers"
mkdir -p "$T"
SIG='\x89PNG\r\n\x1a\n'
printf '%s' '{"":{"":{"crash":0}}}' >"$T/json_segv"
printf '%s' '{"\udc00":0}' >"$T/json_abort"
printf '%s' '{"a":{"b":{"crash2":0}}}' >"$T/json_near_segv"
printf "$SIG"'\x00\x00\x00\x01sBIT\x08\xe6\x0a\x5b\x99' >"$T/png_segv"
printf "$SIG"'\x00\x00\x00\x01tEXtA\x4e\x9d\xab\xe1' >"$T/png_hbo"
printf "$SIG"'\x00\x00\x00\x08acTL\x00\x00\x00\x01\x00\x00\x00\x00\xb4\x2d\xe9\xa0' >"$T/png_hang"
printf 'DELETE /admin HTTP/1.0\r\n\r\n' >"$T/http_segv"
printf 'POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n11111111111111111\r\n' >"$T/http_abort"
printf 'GET / HTTP/1.0\r\nX-Hang: 1\r\n\r\n' >"$T/http_hang"
printf 'GET / HTTP/1.0\r\nX-Hang: 2\r\n\r\n' >"$T/http_no_hang"

expect_rc 139 sample_json "$T/json_segv" "key \"crash\" at depth 3"
expect_rc 134 sample_json "$T/json_abort" "lone low surrogate in a key"
expect_rc 0 sample_json "$T/json_near_segv" "key \"crash2\" at depth 3"
expect_rc 139 sample_png "$T/png_segv" "sBIT before IHDR"
expect_hang sample_png "$T/png_hang" "acTL with an odd frame count"
expect_rc 139 sample_http "$T/http_segv" "DELETE /admin"
expect_rc 134 sample_http "$T/http_abort" "17-digit chunk size"
expect_hang sample_http "$T/http_hang" "X-Hang: 1"
expect_rc 0 sample_http "$T/http_no_hang" "X-Hang: 2"

# The heap-buffer-overflow read: reported by the ASan build, harmless in the plain build.
rc=0
ASAN_OPTIONS=detect_leaks=0 "$CD_TARGETS/sample_png_asan" "$T/png_hbo" >/dev/null 2>"$WORK/asan.err" || rc=$?
if grep -q 'ERROR: AddressSanitizer: heap-buffer-overflow' "$WORK/asan.err"; then
    echo "ok: sample_png_asan reports heap-buffer-overflow (exit status $rc)"
else
    fail "sample_png_asan on tEXt without NUL: no heap-buffer-overflow report (exit status $rc)"
fi
rc=$(run_rc sample_png "$T/png_hbo")
if [ "$rc" -ge 128 ]; then
    fail "plain sample_png on tEXt without NUL: exit status $rc, expected a normal exit"
else
    echo "ok: plain sample_png on tEXt without NUL exits normally ($rc)"
fi

# --- corpora: normal files run cleanly, planted files fail as documented ---------------------
for n in json png http; do
    mkdir -p "$WORK/corpus/$n"
    tar --zstd -xf "$CD_SRC/sample_corpora/$n.tar.zst" -C "$WORK/corpus/$n"
    count=$(find "$WORK/corpus/$n" -type f | wc -l)
    if [ "$count" -lt 200 ] || [ "$count" -gt 500 ]; then
        fail "corpus $n has $count files, expected 200-500"
    fi
done
C="$WORK/corpus"
expect_rc 0 sample_json "$C/json/valid/record_0000.json" "a corpus record"
expect_rc 0 sample_png "$C/png/photos/img_0000.png" "a corpus image"
expect_rc 0 sample_http "$C/http/logs/req_0000.http" "a corpus request"
rc=0
ASAN_OPTIONS=detect_leaks=0 "$CD_TARGETS/sample_png_asan" "$C/png/photos/img_0000.png" \
    >/dev/null 2>"$WORK/asan2.err" || rc=$?
if [ "$rc" != 0 ] || grep -q AddressSanitizer "$WORK/asan2.err"; then
    fail "sample_png_asan on a corpus image: exit status $rc"
fi
expect_rc 139 sample_json "$C/json/bugs/issue_0412.json" "corpus bugs/issue_0412.json"
expect_rc 134 sample_json "$C/json/bugs/issue_0603.json" "corpus bugs/issue_0603.json"
expect_rc 139 sample_png "$C/png/bugs/issue_0091.png" "corpus bugs/issue_0091.png"
expect_rc 139 sample_http "$C/http/bugs/issue_1201.http" "corpus bugs/issue_1201.http"
expect_rc 134 sample_http "$C/http/bugs/issue_1213.http" "corpus bugs/issue_1213.http"

# --- corpora reach hundreds of labels (union over each corpus, afl-showmap -C) --------------
for n in json png http; do
    args=("$CD_TARGETS/sample_$n" @@)
    # A libFuzzer harness under the fork server: no file argument, test cases in shared memory.
    [ "$n" = http ] && args=("$CD_TARGETS/sample_$n")
    rc=0
    "$SHOWMAP" -C -i "$C/$n" -o "$WORK/union_$n" -t 1000 -- "${args[@]}" >/dev/null 2>&1 || rc=$?
    labels=$(wc -l <"$WORK/union_$n" 2>/dev/null || echo 0)
    if [ "$labels" -lt 200 ]; then
        fail "corpus $n reaches $labels labels (afl-showmap exit status $rc), expected >= 200"
    else
        echo "ok: corpus $n reaches $labels labels"
    fi
done

# --- the generator is deterministic -------------------------------------------------------
if command -v python3 >/dev/null && command -v zstd >/dev/null; then
    python3 "$CD_SRC/tools/gen_corpora.py" -o "$WORK/gen1"
    python3 "$CD_SRC/tools/gen_corpora.py" -o "$WORK/gen2"
    for n in json png http; do
        cmp -s "$WORK/gen1/$n.tar.zst" "$WORK/gen2/$n.tar.zst" ||
            fail "gen_corpora.py is not deterministic for $n.tar.zst"
    done
    echo "ok: gen_corpora.py output is byte-identical over two runs"
fi

if [ "$failures" != 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
echo "all sample target checks passed"
