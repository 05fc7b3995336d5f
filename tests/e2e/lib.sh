# shellcheck shell=bash
# What the end-to-end scripts share, sourced first by each: the helpers of tools/lib.sh (the
# classifier, afl-showmap labels, manifest fields) and the skip rules. Not a test itself (ctest
# runs tests/e2e/*.sh but this one).

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

# err WHAT: reports a failed check and marks the test failed (it exits with $fail at its end);
# ok WHAT: reports a check that held.
fail=0
err() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }
