# shellcheck shell=bash
# What the test scripts (tests/e2e, tests/long, tests/docs) share, sourced first by each: the
# helpers of tools/lib.sh (the classifier, afl-showmap labels, manifest fields), the skip rules,
# the scratch directory and the checks' verdict. Not a test itself (ctest runs tests/e2e/*.sh
# but this one).

# shellcheck source=../../tools/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/lib.sh"

# cd_skip WHY: reports the test skipped (ctest's SKIP_RETURN_CODE 77) and exits.
cd_skip() {
    echo "skipped: $*"
    exit 77
}

# cd_need_afl: skips unless AFL++ and the instrumented sample targets were built.
cd_need_afl() {
    [ "${CD_HAVE_AFL:-0}" = 1 ] || cd_skip "AFL++ not available"
}

# cd_need PATH...: skips unless every PATH (a target, a corpus, a build) is there.
cd_need() {
    local p
    for p in "$@"; do [ -e "$p" ] || cd_skip "$(basename "$p") missing"; done
}

# cd_need_cmd COMMAND [WHY]: skips unless COMMAND is on PATH.
cd_need_cmd() {
    command -v "$1" >/dev/null || cd_skip "${2:-$1 not found}"
}

# cd_check_manifests DIR: the tool's own reader takes every manifest the tool wrote under DIR
# (corpus-distill audit reads it), but those a test forged on purpose (listed in cd_forged, as
# given or by name); fails with a line for each it refuses.
cd_forged=()
cd_check_manifests() {
    local m f skip rc=0
    [ -n "${CD_BIN:-}" ] && [ -d "$1" ] || return 0
    while IFS= read -r -d '' m; do
        skip=0
        for f in "${cd_forged[@]}"; do
            [ "$m" -ef "$f" ] || [ "$(basename "$m")" = "$f" ] && skip=1
        done
        [ $skip = 1 ] && continue
        grep -q '"corpus-distill"' "$m" 2>/dev/null || continue
        if ! "$CD_BIN" audit "$m" >/dev/null 2>"$1/.audit.err"; then
            echo "FAIL: the reader refuses a manifest the tool wrote: $m: $(head -c 300 "$1/.audit.err")"
            rc=1
        fi
    done < <(find "$1" \( -name '*manifest.json' \) -type f -print0 2>/dev/null)
    return $rc
}

# cd_scratch: makes a private scratch directory, the working directory ($tmp), removed at exit
# once the reader has taken every manifest written in it (cd_check_manifests).
cd_scratch() {
    tmp=$(mktemp -d) && trap '_cd_scratch_end' EXIT && cd "$tmp" || exit 1
}
_cd_scratch_end() {
    local rc=$?
    cd / && [ "$rc" != 77 ] && { cd_check_manifests "$tmp" || rc=1; }
    rm -rf "$tmp"
    exit $rc
}

# err WHAT: reports a failed check and marks the test failed (it exits with $fail at its end);
# ok WHAT: reports a check that held.
fail=0
err() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }
