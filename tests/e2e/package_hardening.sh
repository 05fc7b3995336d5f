#!/usr/bin/env bash
# The Debian package as built (cpack from this build): its binary carries Debian's hardening (a
# stack protector, fortified calls, full RELRO with BIND_NOW), the man page is installed
# gzip-compressed and no longer plain, and a copyright file is where Debian looks for it.
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
[ $fail = 0 ] && echo "ok: ${deb##*/} is hardened (RELRO, BIND_NOW, stack protector, fortify), its man page compressed, its copyright file in place"
exit $fail
