#!/usr/bin/env bash
# The Debian package as built (cpack from this build): its binary carries Debian's hardening (a
# stack protector, fortified calls, full RELRO with BIND_NOW), the man page is installed
# gzip-compressed and no longer plain, a copyright file is where Debian looks for it, and
# lintian --pedantic has nothing to say.
# Skipped for a sanitizer or debug build, which is not what the package ships.
set -u
. "$(dirname "$0")/lib.sh"
build=${CD_BUILD:?CD_BUILD not set}
for p in cpack dpkg-deb dpkg-shlibdeps readelf nm; do
    command -v "$p" >/dev/null || cd_skip "$p missing (tools/setup installs dpkg-dev and binutils)"
done
grep -q '^CD_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" && cd_skip "a sanitizer build is not the package's"
grep -Eq '^CMAKE_BUILD_TYPE:STRING=(RelWithDebInfo|Release|MinSizeRel)$' "$build/CMakeCache.txt" ||
    cd_skip "not an optimised build: the package is made from one"
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >cpack.log 2>&1) ||
    { echo "FAIL: cpack: $(tail -n 5 "$tmp/cpack.log")"; exit 1; }
deb=$(ls "$tmp"/pkg/corpus-distill_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { echo "FAIL: no corpus-distill_*.deb made"; exit 1; }
dpkg-deb -x "$deb" "$tmp/root" || { echo "FAIL: dpkg-deb -x"; exit 1; }
exe=$tmp/root/usr/bin/corpus-distill
[ -x "$exe" ] || { echo "FAIL: no /usr/bin/corpus-distill in the package"; exit 1; }

readelf -lW "$exe" | grep -q GNU_RELRO || err "no RELRO segment"
readelf -dW "$exe" | grep -Eq 'BIND_NOW|FLAGS.*NOW' || err "no BIND_NOW (partial RELRO only)"
syms=$(nm -D "$exe")
grep -q '__stack_chk_fail' <<<"$syms" || err "no stack protector (__stack_chk_fail not called)"
grep -Eq '__[a-z]+_chk@' <<<"$syms" || err "no fortified call (_FORTIFY_SOURCE not in effect)"
man=$tmp/root/usr/share/man/man1
[ -f "$man/corpus-distill.1.gz" ] && gzip -t "$man/corpus-distill.1.gz" ||
    err "the man page is not installed gzip-compressed"
[ ! -e "$man/corpus-distill.1" ] || err "an uncompressed man page is installed too"
zcat "$man/corpus-distill.1.gz" | cmp -s - "${CD_SRC:?}/man/corpus-distill.1" ||
    err "the compressed man page is not the source's"
[ -s "$tmp/root/usr/share/doc/corpus-distill/copyright" ] ||
    err "no /usr/share/doc/corpus-distill/copyright"
# Stripped, its debug symbols apart, a changelog, the units where systemd finds them (not enabled:
# no maintainer script), and lintian --pedantic finds nothing where it is installed.
file -b "$exe" | grep -q ', stripped' || err "the binary is not stripped"
ls "$tmp"/pkg/corpus-distill-dbgsym_*.ddeb >/dev/null 2>&1 || err "no -dbgsym package"
[ -s "$tmp/root/usr/share/doc/corpus-distill/changelog.gz" ] || err "no changelog"
for u in service timer; do
    [ -f "$tmp/root/usr/lib/systemd/system/corpus-distill-nightly.$u" ] ||
        err "corpus-distill-nightly.$u not in /usr/lib/systemd/system"
done
dpkg-deb -e "$deb" "$tmp/control" && [ ! -e "$tmp/control/postinst" ] || err "a maintainer script"
if command -v lintian >/dev/null; then
    lintian --pedantic "$deb" >"$tmp/lintian.txt" 2>&1
    grep -Ev 'running with root privileges' "$tmp/lintian.txt" | grep -Eq '^[EWIP]:' &&
        err "lintian --pedantic: $(grep -E '^[EWIP]:' "$tmp/lintian.txt" | head -5 | tr '\n' ' ')"
else
    echo "lintian not installed: its check left out"
fi
# The installed tool finds the libFuzzer hook where the package put it.
lf=${CD_TARGETS:-}/lf_http
if [ -x "$lf" ]; then
    mkdir "$tmp/in" && printf 'GET / HTTP/1.0\r\n\r\n' >"$tmp/in/a"
    "$exe" -q --no-reduce --no-state "$tmp/in" -o "$tmp/seeds" -- "$lf" 2>"$tmp/lf.err" ||
        err "the installed tool cannot run a libFuzzer binary: $(head -c 300 "$tmp/lf.err")"
fi
[ $fail = 0 ] && echo "ok: ${deb##*/} is hardened (RELRO, BIND_NOW, stack protector, fortify), its man page compressed, its copyright file in place"
exit $fail
