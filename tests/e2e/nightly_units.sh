#!/usr/bin/env bash
# The nightly recipes of tools/scale/nightly/: systemd-analyze verify accepts the service and the
# timer (where systemd-analyze is installed), and the service's ExecStart and the crontab line,
# run as written with nightly.env's variables pointed at a scratch campaign, both refresh the
# seed directory from itself plus a fuzzer's output and new inputs, ending 0 or 1 (a budget).
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
dir=${CD_SRC:?}/tools/scale/nightly
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*"; fail=1; }

if command -v systemd-analyze >/dev/null; then
    out=$(systemd-analyze verify --man=no "$dir/corpus-distill-nightly.service" \
          "$dir/corpus-distill-nightly.timer" 2>&1) || err "systemd-analyze verify: $out"
else
    echo "systemd-analyze not installed: units not verified"
fi

# A scratch campaign: yesterday's seeds, an afl-fuzz-like output directory, new inputs.
mkdir -p "$tmp/day1" "$tmp/findings/default/queue" "$tmp/new"
printf '{"a": [1, 2]}' >"$tmp/day1/a.json"
"$bin" -q -j 1 "$tmp/day1" -o "$tmp/seeds" -- "$target" @@ || err "day 1 exited $?"
printf '[true, null]' >"$tmp/findings/default/queue/id:000000,orig:x"
printf '{"b": "c\\n"}' >"$tmp/new/n.json"
cat >"$tmp/nightly.env" <<EOF
SEEDS="$tmp/seeds"
INPUTS="$tmp/findings $tmp/new"
TARGET="$target @@"
MAX_TIME=20s
EOF
# The commands exactly as the recipes hold them, corpus-distill from this build on PATH.
exec_start=$(sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'$/\1/p" "$dir/corpus-distill-nightly.service")
[ -n "$exec_start" ] || err "no ExecStart=/bin/sh -c '...' line in the service"
cron=$(grep -v '^#' "$dir/nightly.cron" | sed -n 's/^[0-9*]* [0-9*]* [0-9*]* [0-9*]* [0-9*]* //p')
cron=${cron//\/etc\/corpus-distill\/nightly.env/$tmp/nightly.env}
[ -n "$cron" ] || err "no crontab line in nightly.cron"
export PATH="$(dirname "$bin"):$PATH"
for how in service cron; do
    if [ $how = service ]; then
        (set -a && . "$tmp/nightly.env" && set +a && exec /bin/sh -c "$exec_start")
    else
        /bin/sh -c "$cron"
    fi
    rc=$?
    [ $rc -le 1 ] || err "$how: the nightly command exited $rc"
    n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["input"]["inputs"])' \
        "$tmp/seeds.manifest.json" 2>/dev/null)
    [ "${n:-0}" -ge 3 ] || err "$how: the run took ${n:-no} inputs, expected the seed, the queue entry and the new file"
    [ -n "$(ls "$tmp/seeds")" ] || err "$how: no seeds after the nightly run"
done
[ $fail = 0 ] && echo "ok: the units verify; the service's and the crontab's commands refresh the seeds"
exit $fail
