# shellcheck shell=bash
# Helpers shared by the benches (tools/bench/) and the end-to-end tests (tests/e2e/lib.sh sources
# this file): the one AFL hit-count classifier, label sets through afl-showmap, manifest fields and
# clocks. Sourced, never run; it sets no shell options and defines only cd_* names.

# The awk program behind cd_classify. afl-showmap -r writes raw counts (EDGE:COUNT); a label is
# EDGE:CLASS by the intended ranges (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+ as classes 1 to 8),
# never afl-showmap's own classes: Debian's 4.04c drops counts such as 5 or 12. Map index 0 is no
# edge (uninstrumented guards and persistent loops count there): no label. With edges=1 a label
# is EDGE alone (afl-cmin -e); with named=1 each line is "FILE LABEL", FILE the trace's name.
# shellcheck disable=SC2016 # an awk program: its $1 and $2 are awk's
CD_LABELS_AWK='$1 + 0 == 0 || $2 + 0 == 0 { next }
{
    c = $2 + 0; k = c >= 128 ? 8 : c >= 32 ? 7 : c >= 16 ? 6 : c >= 8 ? 5 : c >= 4 ? 4 : c
    l = edges ? $1 : $1 ":" k
    if (named) { n = FILENAME; sub(/.*\//, "", n); print n, l } else print l
}'

# cd_classify [FILE...]: labels from afl-showmap -r trace lines on stdin or in FILEs, one per line
# (EDGES=1: edges alone; NAMED=1: "FILE LABEL" lines).
# shellcheck disable=SC2120 # files are optional
cd_classify() {
    awk -F: -v edges="${EDGES:-0}" -v named="${NAMED:-0}" "$CD_LABELS_AWK" "$@"
}

# cd_labels DIR TARGET [ARGS...]: the union of the labels of every file in DIR, distinct, one per
# line, through afl-showmap -r (timeout CD_SHOWMAP_T ms, default 2000).
cd_labels() {
    local dir=$1 maps
    shift
    maps=$(mktemp -d "${TMPDIR:-/tmp}/cd-maps.XXXXXX")
    AFL_ALLOW_TMP=1 afl-showmap -q -r -t "${CD_SHOWMAP_T:-2000}" -i "$dir" -o "$maps" -- "$@" \
        >/dev/null 2>&1 || true
    find "$maps" -type f -exec cat {} + | cd_classify | sort -u
    rm -rf "$maps"
}

# cd_now: seconds since the epoch, with nanoseconds.
cd_now() { date +%s.%N; }

# cd_since START: seconds since START (a cd_now), one decimal.
cd_since() { echo "$(cd_now) $1" | awk '{ printf "%.1f", $1 - $2 }'; }

# cd_json FILE KEY...: the value at KEY... in the JSON file FILE (a list index is a number),
# printed as Python prints it; nothing and status 1 when a key is missing.
cd_json() {
    python3 - "$@" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
try:
    for k in sys.argv[2:]:
        v = v[int(k)] if isinstance(v, list) else v[k]
except (KeyError, IndexError, ValueError):
    sys.exit(1)
print(v)
PY
}

# cd_manifest_labels MANIFEST: the labels a manifest lists, sorted, one per line.
cd_manifest_labels() {
    python3 -c "import json,sys; print('\n'.join(sorted(json.load(open(sys.argv[1]))['labels'])))" "$1"
}

# cd_bytes DIR: the bytes of the files in DIR.
cd_bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
