#!/usr/bin/env bash
# Long tier: the Debian package installs and runs where the project was never built. cpack makes
# corpus-distill_VERSION_amd64.deb from the build; debootstrap makes a fresh minimal bookworm
# root (from CD_DEBIAN_MIRROR, default deb.debian.org); there apt-get installs the package by its
# file, pulling what its Depends name; the sample distillation runs (the sample target and corpus
# copied in), `man corpus-distill` renders, and the bash completion and the recipes are where the
# package says. Needs root (chroot) and network access to the Debian archive; a few minutes.
set -u
. "$(dirname "$0")/../e2e/lib.sh" && cd_need_afl
[ "$(id -u)" = 0 ] || cd_skip "chroot needs root"
for p in debootstrap cpack dpkg-shlibdeps chroot; do
    command -v "$p" >/dev/null || cd_skip "$p missing (tools/setup installs it)"
done
build=${CD_BUILD:?CD_BUILD not set}
target=${CD_TARGETS:?}/sample_json
corpus=${CD_SRC:?}/sample_corpora/json.tar.zst
mirror=${CD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
tmp=$(mktemp -d)
root=$tmp/root
cleanup() {
    umount "$root/proc" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >cpack.log 2>&1) ||
    { echo "FAIL: cpack: $(tail -n 5 "$tmp/cpack.log")"; exit 1; }
deb=$(ls "$tmp"/pkg/corpus-distill_*_amd64.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { echo "FAIL: no corpus-distill_*_amd64.deb made"; exit 1; }
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libarchive13 libjson-c5 libssl3 libxxhash0; do
    [[ $depends == *"$lib"* ]] || err "Depends lacks $lib: $depends"
done

debootstrap --variant=minbase bookworm "$root" "$mirror" >"$tmp/debootstrap.log" 2>&1 ||
    cd_skip "debootstrap could not make a bookworm root from $mirror: $(tail -n 2 "$tmp/debootstrap.log")"
mount -t proc proc "$root/proc" || err "cannot mount /proc in the root"
mkdir -p "$root/work"
cp "$deb" "$target" "$corpus" "$root/work/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
in_root sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends "./work/'"${deb##*/}"'" man-db' >"$tmp/apt.log" 2>&1 ||
    { echo "FAIL: apt-get install of the package: $(tail -n 5 "$tmp/apt.log")"; exit 1; }
[ ! -e "$root/usr/bin/afl-fuzz" ] || err "AFL++ came with the package: it is only recommended"

in_root corpus-distill --version | grep -q '^corpus-distill ' || err "corpus-distill --version"
in_root sh -c 'cd /work && corpus-distill -q -j 1 --max-execs 5000 json.tar.zst -o seeds \
    -- ./sample_json @@' >"$tmp/run.log" 2>&1
rc=$?
[ $rc -le 1 ] || err "the sample distillation in the fresh root exited $rc: $(tail -n 3 "$tmp/run.log")"
[ -s "$root/work/seeds.manifest.json" ] && [ -n "$(ls "$root/work/seeds")" ] ||
    err "no seeds or manifest in the fresh root"
in_root sh -c 'MANWIDTH=80 man corpus-distill 2>/dev/null' | grep -q 'corpus-distill' ||
    err "man corpus-distill does not render in the fresh root"
for f in /usr/share/bash-completion/completions/corpus-distill \
         /usr/share/corpus-distill/scale/slurm.sh \
         /usr/share/corpus-distill/scale/nightly/corpus-distill-nightly.timer; do
    [ -f "$root$f" ] || err "$f not installed"
done
[ $fail = 0 ] && echo "ok: ${deb##*/} installs in a fresh bookworm root ($depends) and runs there"
exit $fail
