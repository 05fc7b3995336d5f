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

# cd_scratch: makes a private scratch directory, removed at exit, the working directory ($tmp).
cd_scratch() {
    tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT && cd "$tmp" || exit 1
}

# err WHAT: reports a failed check and marks the test failed (it exits with $fail at its end);
# ok WHAT: reports a check that held.
fail=0
err() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }
