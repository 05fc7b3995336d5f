#!/usr/bin/env bash
# The output goes through handles: once a run has started (its lock taken), a directory above
# its output swapped for a link to another campaign, back and forth for as long as the run
# writes (checkpoints, seeds, reproducers, manifest, state, the generation it keeps), sends no
# byte there: the other campaign's seeds, manifest and state stay byte for byte, and the run's
# output is whole in the directory it started in.
set -u
. "$(dirname "$0")/lib.sh" && cd_need_afl
bin=${CD_BIN:?CD_BIN not set}
target=${CD_TARGETS:?}/sample_json
corpus=${CD_SRC:?}/sample_corpora/json.tar.zst
cd_need "$target" "$corpus"
cd_scratch

mkdir all in camp victim && tar --zstd -xf "$corpus" -C all || exit 1
find all -type f -printf '%s %p\n' | sort -n | head -n 150 | cut -d' ' -f2- |
    while read -r f; do cp "$f" in/; done
# Yesterday's output in camp, and another campaign's output of the same names in victim.
"$bin" -q -j 1 --no-reduce in -o camp/seeds -- "$target" @@ || [ $? = 1 ] || exit 1
printf '{"v": 1}' >victim-in.json && mkdir vin && mv victim-in.json vin/
"$bin" -q -j 1 --no-reduce vin -o victim/seeds -- "$target" @@ || [ $? = 1 ] || exit 1
snap() { (cd victim && find . -type f | sort | xargs sha1sum); }
snap >victim.before

"$bin" -q -j 1 --checkpoint 1 --max-execs 6000 camp/seeds in -o camp/seeds -- "$target" @@ \
    2>run.err &
run=$!
while kill -0 "$run" 2>/dev/null && [ ! -e camp/.seeds.lock ]; do sleep 0.05; done
[ -e camp/.seeds.lock ] || err "the run never took its lock (premise)"
python3 - <<'PY' &
import os, time
end = time.monotonic() + 120
os.symlink("victim", "lnk")
while time.monotonic() < end and not os.path.exists("stop"):
    os.rename("camp", "camp.real"); os.rename("lnk", "camp")
    time.sleep(0.0005)
    os.rename("camp", "lnk"); os.rename("camp.real", "camp")
    time.sleep(0.0005)
PY
swapper=$!
wait $run
rc=$?
touch stop
wait $swapper
[ $rc -le 1 ] || err "the run under the swaps exited $rc: $(head -c 300 run.err)"
snap | cmp -s - victim.before || err "bytes went into the other campaign: $(snap | diff - victim.before | head -n 4)"
[ -n "$(ls camp/seeds)" ] && [ -f camp/seeds.manifest.json ] && [ -f camp/seeds.state ] ||
    err "the run's output is not whole in camp: $(ls camp)"
[ $fail = 0 ] && ok "a directory above the output swapped mid-run redirected nothing"
exit $fail
