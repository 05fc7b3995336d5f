#!/usr/bin/env bash
# A full disk while writing the output: one clear line naming the file and the cause, exit 5, and
# the previous seeds and manifest exactly as they were, with nothing of ours left beside them. On a
# small tmpfs mounted for the test in a private mount namespace: full before the seeds are written,
# full after the seeds but before the manifest (the pair must not be split), and with --tar.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
cd_need "$target"
if [ "${CD_IN_MOUNT_NS:-}" != 1 ]; then
  if unshare -rm true 2>/dev/null; then
    CD_IN_MOUNT_NS=1 exec unshare -rm bash "$0" "$@"
  elif [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    CD_IN_MOUNT_NS=1 exec unshare -m bash "$0" "$@"
  fi
  cd_skip "no private mount namespace (unshare) to mount a small tmpfs in"
fi
tmp=$(mktemp -d) && trap 'umount "$tmp/fs" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mkdir fs small big
mount -t tmpfs -o size=1m,mode=0755 tmpfs fs || cd_skip "cannot mount a tmpfs"

printf '{"a": [1, 2]}' >small/a.json
python3 - big <<'PY'
import random, sys
random.seed(1)
for i in range(200):
    nums = ",".join(str(random.random()) for _ in range(300))
    open("%s/%d.json" % (sys.argv[1], i), "w").write('{"k%d": [%s]}' % (i, nums))
PY

# state: what a listing of fs and the bytes of every file in it look like now
state() { (cd fs && find . -type f -exec sha1sum {} + | sort; ls -A); }
# fill KIB: leaves about KIB KiB free on fs (tmpfs counts whole pages)
fill() {
  rm -f fs/filler
  local free
  free=$(df --output=avail -k fs | tail -1)
  [ "$free" -gt "$1" ] && head -c $(( (free - $1) * 1024 )) /dev/zero >fs/filler
}
# full NAME KIB ARGS...: with about KIB KiB free, a run on big/ must fail cleanly
full() {
  local name=$1 kib=$2; shift 2
  fill "$kib"
  local before
  before=$(state)
  "$bin" -q -j 1 --no-reduce "$@" big -o fs/seeds -- "$target" @@ 2>err.txt
  local rc=$?
  [ $rc = 5 ] || err "$name: exit $rc, not 5"
  [ "$(wc -l <err.txt)" = 1 ] || err "$name: not one line: $(cat err.txt)"
  grep -q "No space left on device" err.txt || err "$name: cause not named: $(cat err.txt)"
  grep -q "are as they were" err.txt || err "$name: does not say the output is unchanged"
  [ "$(state)" = "$before" ] || err "$name: the previous output changed or temp files were left"
}

# What the big run writes, to size the second case: its seeds fit, its manifest does not.
"$bin" -q -j 1 --no-reduce big -o fs/probe -- "$target" @@ || err "unconstrained run failed"
seeds_kib=$(du -sk fs/probe | cut -f1)
manifest_kib=$(du -sk fs/probe.manifest.json | cut -f1)
rm -rf fs/probe fs/probe.manifest.json
[ "$manifest_kib" -gt 8 ] || err "the manifest is too small ($manifest_kib KiB) to test with"

"$bin" -q -j 1 --no-reduce small -o fs/seeds -- "$target" @@ || err "first run failed"
full "full before the seeds" 8
full "full before the manifest" $(( seeds_kib + manifest_kib / 2 ))
rm -rf fs/seeds fs/seeds.manifest.json fs/filler
"$bin" -q -j 1 --no-reduce --tar small -o fs/seeds -- "$target" @@ || err "first --tar run failed"
full "--tar, full" 8 --tar
rm -f fs/filler
"$bin" -q -j 1 --no-reduce --tar big -o fs/seeds -- "$target" @@ || err "--tar with room failed"
[ $fail = 0 ] && echo "ok"
exit $fail
