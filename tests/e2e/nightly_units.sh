#!/usr/bin/env bash
# The nightly recipes of tools/scale/nightly/: systemd-analyze verify accepts the service and the
# timer, and its offline security review rates the service's sandbox 1.5 or better (the unit as
# shipped before ran as root unsandboxed: 9.6); the tool and an AFL++ target run under its system
# call filter; the service runs as a named user, never root;
# its ExecStart, expanded as systemd expands it (${VAR} one word, no shell), and the crontab
# line, with nightly.env's variables and list files pointed at a scratch campaign whose paths
# hold blanks and a '*', both refresh the seed directory from itself plus a fuzzer's output and
# new inputs, ending 0 or 1 (a budget).
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
dir=${CD_SRC:?}/tools/scale/nightly
tmp=$(mktemp -d) && trap '_cd_scratch_end' EXIT # (lib.sh: manifests checked, then removed)
unit=$dir/corpus-distill-nightly.service

user=$(sed -n 's/^User=//p' "$unit")
[ -n "$user" ] && [ "$user" != root ] && [ "$user" != 0 ] || err "the service runs as '${user:-root}'"
grep -q '^ExecStart=/bin/sh' "$unit" && err "the service's command goes through a shell"
if command -v systemd-analyze >/dev/null; then
    # verify checks that the program exists: this build's stands in for the package's.
    mkdir "$tmp/units"
    sed "s|/usr/bin/corpus-distill|$bin|" "$unit" >"$tmp/units/corpus-distill-nightly.service"
    cp "$dir/corpus-distill-nightly.timer" "$tmp/units/"
    out=$(systemd-analyze verify --man=no "$tmp/units/corpus-distill-nightly.service" \
          "$tmp/units/corpus-distill-nightly.timer" 2>&1) || err "systemd-analyze verify: $out"
    score=$(systemd-analyze security --offline=yes "$tmp/units/corpus-distill-nightly.service" 2>&1 |
            sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
    if [ -z "$score" ]; then
        echo "systemd-analyze security --offline unavailable: the sandbox not rated"
    elif python3 -c 'import sys; sys.exit(float(sys.argv[1]) > 1.5)' "$score"; then
        echo "ok: the service's exposure is $score (systemd-analyze security)"
    else
        err "the service's exposure is $score, above 1.5"
    fi
else
    echo "systemd-analyze not installed: units not verified"
fi

# The service's system call filter, as systemd would install it (its groups expanded by
# systemd-analyze, a seccomp filter refusing the rest with EPERM, inherited by every child): the
# tool, its AFL++ target and its sanitizer symbolizer run under it.
filters=$(sed -n 's/^SystemCallFilter=//p' "$unit")
[ -n "$filters" ] || err "the service has no SystemCallFilter="
if command -v systemd-analyze >/dev/null && /usr/bin/python3 -c 'import seccomp' 2>/dev/null; then
    mkdir "$tmp/sc" && printf '{"a": [1, "x"]}' >"$tmp/sc/a.json" && printf '[true]' >"$tmp/sc/b.json"
    # (LeakSanitizer, in a sanitizer build of the tool, needs ptrace, which the filter denies)
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    /usr/bin/python3 - "$filters" "$bin" -q -j 1 --max-execs 500 "$tmp/sc" -o "$tmp/sc-seeds" \
        -- "$target" @@ <<'EOP'
import os, subprocess, sys, seccomp
def expand(group, seen=set()):
    if not group.startswith("@"):
        return {group}
    out = set()
    text = subprocess.run(["systemd-analyze", "syscall-filter", group], capture_output=True,
                          text=True, check=True).stdout
    for line in text.splitlines()[1:]:
        w = line.strip()
        if w and not w.startswith("#") and w not in seen:
            seen.add(w)
            out |= expand(w, seen) if w.startswith("@") else {w}
    return out
allow = set()
for line in sys.argv[1].splitlines():
    deny = line.startswith("~")
    names = set().union(*(expand(w, set()) for w in line.lstrip("~").split()))
    allow = allow - names if deny else allow | names
f = seccomp.SyscallFilter(seccomp.ERRNO(1))
for name in sorted(allow):
    try:
        f.add_rule(seccomp.ALLOW, name)
    except (RuntimeError, ValueError, OSError):
        pass  # not a system call of this architecture
f.load()
os.execv(sys.argv[2], sys.argv[2:])
EOP
    rc=$?
    [ $rc -le 1 ] && [ -n "$(ls "$tmp/sc-seeds" 2>/dev/null)" ] &&
        ok "the tool and its target run under the service's system call filter" ||
        err "under the service's system call filter the run exited $rc"
else
    echo "systemd-analyze or python3-seccomp missing: the system call filter not tried"
fi

# A scratch campaign: yesterday's seeds, an afl-fuzz-like output directory, new inputs, under
# paths with a blank and a '*' that neither a split nor a glob may change.
camp="$tmp/camp dir*"
mkdir -p "$camp/day1" "$camp/find ings/default/queue" "$camp/new"
printf '{"a": [1, 2]}' >"$camp/day1/a.json"
"$bin" -q -j 1 "$camp/day1" -o "$camp/seeds" -- "$target" @@ || err "day 1 exited $?"
printf '[true, null]' >"$camp/find ings/default/queue/id:000000,orig:x"
printf '{"b": "c\\n"}' >"$camp/new/n.json"
cp "$target" "$camp/the target"
mkdir "$tmp/etc"
cat >"$tmp/etc/nightly.env" <<EOV
SEEDS="$camp/seeds"
MAX_TIME=20s
EOV
printf '%s\n%s\n' "$camp/find ings" "$camp/new" >"$tmp/etc/nightly.inputs"
printf '%s\n@@\n' "$camp/the target" >"$tmp/etc/nightly.target"

# The service's command line as systemd expands it: words split as systemd splits them (shlex
# quoting), a word that is all ${VAR} replaced by the value whole.
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
[ -n "$exec_start" ] || err "no ExecStart= line in the service"
exec_start=${exec_start//\/etc\/corpus-distill\//$tmp/etc/}
exec_start=${exec_start//\/usr\/bin\/corpus-distill/$bin}
cron=$(grep -v '^#' "$dir/nightly.cron" | sed -n 's/^[0-9*]* [0-9*]* [0-9*]* [0-9*]* [0-9*]* //p')
cron=${cron//\/etc\/corpus-distill\//$tmp/etc/}
[ -n "$cron" ] || err "no crontab line in nightly.cron"
export PATH="$(dirname "$bin"):$PATH"
for how in service cron; do
    rm -f "$camp/seeds.manifest.json.prev"
    if [ $how = service ]; then
        (set -a && . "$tmp/etc/nightly.env" && set +a &&
         python3 - "$exec_start" <<'EOP'
import os, re, shlex, sys
words = []
for w in shlex.split(sys.argv[1]):
    m = re.fullmatch(r'\$\{(\w+)\}', w)
    words.append(os.environ[m.group(1)] if m else w)
os.execv(words[0], words)
EOP
        )
    else
        /bin/sh -c "$cron"
    fi
    rc=$?
    [ $rc -le 1 ] || err "$how: the nightly command exited $rc"
    n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["input"]["inputs"])' \
        "$camp/seeds.manifest.json" 2>/dev/null)
    [ "${n:-0}" -ge 3 ] || err "$how: the run took ${n:-no} inputs, expected the seed, the queue entry and the new file"
    [ -n "$(ls "$camp/seeds")" ] || err "$how: no seeds after the nightly run"
done
# A broken rebuild (it aborts on every input): each way fails the job, and the seeds stay.
grep -q '^SuccessExitStatus=.*\b7\b' "$unit" && err "the service takes a refused night (7) as success"
cp "${CD_TARGETS:?}/night_abort" "$camp/the target"
ls "$camp/seeds" >"$tmp/seeds.before"
out=$(/bin/sh -c "$cron" 2>&1)
rc=$?
[ $rc = 7 ] || err "cron: a broken rebuild's night exited $rc, expected 7"
grep -q "refused: every one of" <<<"$out" || err "cron: no refusal line for cron to mail: $out"
[ "$(ls "$camp/seeds")" = "$(cat "$tmp/seeds.before")" ] || err "cron: a refused night changed the seeds"
[ $fail = 0 ] && echo "ok: the units verify; the service's and the crontab's commands refresh the seeds"
exit $fail
