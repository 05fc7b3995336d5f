#!/usr/bin/env bash
# Builds the real-library targets of tools/bench/bench_real.sh and gathers their real inputs, once, into
# DIR (default build/bench-real): each library from its Debian bookworm source package (apt-get
# source through a private deb-src list, so the machine's apt configuration is untouched; Debian's
# patches applied by dpkg-source) compiled with afl-clang-fast, linked with our harness for a
# fork-server @@ target and a persistent libFuzzer-style one through libAFLDriver (NAME-persist),
# and for three of them a plain libFuzzer binary (NAME-lf, clang -fsanitize=fuzzer, no AFL++);
# each input set the files of that format in Debian binary packages (apt-get download), at most
# 1 MiB each, the first COUNT (default 2000) in path order, as DIR/inputs/NAME.tar.zst. Steps
# already done are skipped, so it is safe to run again.
#
# usage: tools/real_targets/prepare.sh [DIR]
set -Eeuo pipefail
trap 'echo "prepare: failed at line $LINENO (build logs in $DIR/log)" >&2' ERR

HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$(mkdir -p "${1:-$HERE/../../build/bench-real}" && cd "${1:-$HERE/../../build/bench-real}" && pwd)
COUNT=${COUNT:-2000}
JOBS=$(nproc)
CC=afl-clang-fast
export AFL_QUIET=1

# The build tools the libraries need beyond tools/setup's: installed here as root (after an apt
# update), so that a bench runs on a machine that only ran tools/setup.
missing=()
for p in afl++ dpkg-dev zstd autoconf automake libtool make cmake; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" -eq 0 ] ||
        { echo "prepare: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2; exit 2; }
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "${missing[@]}" >/dev/null
fi

# A private apt configuration with the deb-src twins of the machine's Debian sources.
APT=$DIR/apt
apt_src() {
    if [ ! -d "$APT/lists" ]; then
        mkdir -p "$APT/parts" "$APT/lists/partial"
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -e "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" > "$APT/parts/$(basename "$f")"
        done
        if [ -f /etc/apt/sources.list ]; then
            sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$APT/parts/list.list"
        fi
        apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$APT/parts" \
            -o Dir::State::Lists="$APT/lists" update >/dev/null
    fi
    apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$APT/parts" \
        -o Dir::State::Lists="$APT/lists" source "$@" >/dev/null 2>&1
}

# source PKG: the unpacked, patched Debian source tree of PKG under DIR/src; prints its path.
source_tree() {
    local pkg=$1 d=$DIR/src/$1
    if [ ! -f "$d/.unpacked" ]; then
        rm -rf "$d"
        mkdir -p "$d"
        # The security suite's newest source may be gone from the mirror: then the release's.
        (cd "$d" && { apt_src --download-only "$pkg" ||
            apt_src --download-only "$pkg/$(. /etc/os-release && echo "$VERSION_CODENAME")"; }) ||
            { echo "prepare: apt-get source $pkg failed" >&2; exit 2; }
        (cd "$d" && dpkg-source --no-check -x ./*.dsc tree >/dev/null)
        touch "$d/.unpacked"
    fi
    echo "$d/tree"
}

# inputs NAME 'GLOB...' PACKAGE...: DIR/inputs/NAME.tar.zst, the first COUNT files matching one
# of the globs in the packages, of at most 1 MiB and not empty, in path order.
inputs() {
    local name=$1 globs=$2 out=$DIR/inputs/$1.tar.zst d=$DIR/debs/$1 p g
    shift 2
    [ -f "$out" ] && return
    rm -rf "$d"
    mkdir -p "$d/x" "$DIR/inputs"
    for p in "$@"; do
        (cd "$d" && apt-get download "$p" >/dev/null 2>&1) ||
            { echo "prepare: apt-get download $p failed" >&2; exit 2; }
        dpkg-deb -x "$d/$p"_*.deb "$d/x"
    done
    local find_args=()
    for g in $globs; do
        [ ${#find_args[@]} -eq 0 ] || find_args+=(-o)
        find_args+=(-name "$g")
    done
    (cd "$d/x" && find . -type f \( "${find_args[@]}" \) -size -1025k -size +0 -print0 |
        sort -z > "$d/all")
    head -z -n "$COUNT" "$d/all" > "$d/list"
    tar --null -C "$d/x" -T "$d/list" -cf - | zstd -q -f -o "$out.tmp"
    mv "$out.tmp" "$out"
    rm -rf "$d"
}

# harness NAME LIB... -- CFLAGS...: DIR/bin/NAME, the fork-server @@ target of harness NAME.c.
harness() {
    local name=$1 libs=()
    shift
    while [ "$1" != -- ]; do libs+=("$1"); shift; done
    shift
    mkdir -p "$DIR/bin"
    $CC -O2 -g "$@" -o "$DIR/bin/$name" "$HERE/harness_main.c" "$HERE/$name.c" "${libs[@]}" -lm
}

t=$(source_tree libxml2)
if [ ! -x "$DIR/bin/xml" ]; then
    # Debian's patches touch the autotools inputs, so regenerate as dh_autoreconf does.
    (cd "$t" && autoreconf -fi && CC=$CC ./configure --disable-shared --without-python \
        --without-lzma --without-zlib --without-http --without-ftp --without-threads &&
        make -j"$JOBS" libxml2.la) >"$DIR/log" 2>&1
    harness xml "$t/.libs/libxml2.a" -- -I"$t/include"
fi
# Two more harnesses of the XML format on the same library, for runs of several targets
# (tools/bench/bench_multi.sh): the streaming reader and the HTML parser.
for h in xmlreader html; do
    [ -x "$DIR/bin/$h" ] || harness "$h" "$t/.libs/libxml2.a" -- -I"$t/include"
done

# json-c and Lua seed their string hashes at random (json-c from /dev/urandom, Lua from addresses
# and the clock), so hit counts of a few edges differ between two runs of the same file. Run twice
# over their inputs with afl-showmap: json-c, 1,193 of 2,000 files differ, in 78 labels of 10
# edges; Lua, 1,134 of 1,139 files, in 303 labels of 48 edges. Their bench figures vary from run
# to run with the same seed: compare them over several seeds. libxml2 and libyaml repeat exactly.
t=$(source_tree json-c)
if [ ! -x "$DIR/bin/json" ]; then
    cmake -S "$t" -B "$t/afl" -DCMAKE_C_COMPILER=$CC -DCMAKE_BUILD_TYPE=Release \
        -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=OFF -DDISABLE_WERROR=ON >"$DIR/log" 2>&1
    cmake --build "$t/afl" -j"$JOBS" >>"$DIR/log" 2>&1
    harness json "$t/afl/libjson-c.a" -- -I"$t" -I"$t/afl"
    # The persistent build: libAFLDriver's loop over shared-memory test cases.
    $CC -O2 -g -fsanitize=fuzzer -I"$t" -I"$t/afl" -o "$DIR/bin/json-persist" "$HERE/json.c" \
        "$t/afl/libjson-c.a"
fi

t=$(source_tree lua5.4)
if [ ! -x "$DIR/bin/lua" ]; then
    # Debian's makefile links through libtool for its shared library: compile the core directly.
    mkdir -p "$t/afl"
    # luaconf.h, as Debian patches it, names the header debian/rules generates.
    echo '#define DEB_HOST_MULTIARCH "'"$(dpkg-architecture -qDEB_HOST_MULTIARCH)"'"' \
        > "$t/afl/lua5.4-deb-multiarch.h"
    (cd "$t/src" && ls ./*.c | grep -v -e '/lua.c$' -e '/luac.c$' |
        xargs -P "$JOBS" -I{} sh -c "$CC -O2 -g -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -I../afl -c {} -o ../afl/\$(basename {} .c).o" &&
        ar rcs ../afl/liblua.a ../afl/*.o) >"$DIR/log" 2>&1
    harness lua "$t/afl/liblua.a" -- -I"$t/src" -I"$t/afl"
fi

t=$(source_tree libyaml)
if [ ! -x "$DIR/bin/yaml" ]; then
    (cd "$t" && autoreconf -fi && CC=$CC ./configure --disable-shared && make -j"$JOBS") \
        >"$DIR/log" 2>&1
    harness yaml "$t/src/.libs/libyaml.a" -- -I"$t/include"
fi

# Two libraries for corpora where a few large files carry most of the bytes: libpng over game
# sprites and backgrounds, cJSON over large JSON data files.
t=$(source_tree libpng1.6)
if [ ! -x "$DIR/bin/png" ]; then
    (cd "$t" && autoreconf -fi && CC=$CC ./configure --disable-shared && make -j"$JOBS" libpng16.la) \
        >"$DIR/log" 2>&1
    harness png "$t/.libs/libpng16.a" -lz -- -I"$t"
fi

t=$(source_tree cjson)
if [ ! -x "$DIR/bin/cjson" ]; then
    $CC -O2 -g -c "$t/cJSON.c" -o "$t/cJSON.o" >"$DIR/log" 2>&1
    harness cjson "$t/cJSON.o" -- -I"$t"
fi
# A second harness of the JSON format on the same library (tools/bench/bench_multi.sh).
[ -x "$DIR/bin/cjsonmin" ] || harness cjsonmin "$t/cJSON.o" -- -I"$t"

# The persistent builds: libAFLDriver's loop over shared-memory test cases, the same harness.
persist() {
    local name=$1
    shift
    [ -x "$DIR/bin/$name-persist" ] && return
    $CC -O2 -g -fsanitize=fuzzer "$@" -o "$DIR/bin/$name-persist" -lm
}
for h in xml xmlreader html; do
    persist $h -I"$(source_tree libxml2)/include" "$HERE/$h.c" "$(source_tree libxml2)/.libs/libxml2.a"
done
persist yaml -I"$(source_tree libyaml)/include" "$HERE/yaml.c" "$(source_tree libyaml)/src/.libs/libyaml.a"
persist lua -I"$(source_tree lua5.4)/src" -I"$(source_tree lua5.4)/afl" "$HERE/lua.c" \
    "$(source_tree lua5.4)/afl/liblua.a"
persist png -I"$(source_tree libpng1.6)" "$HERE/png.c" "$(source_tree libpng1.6)/.libs/libpng16.a" -lz
persist cjson -I"$(source_tree cjson)" "$HERE/cjson.c" "$(source_tree cjson)/cJSON.o"

# The libFuzzer builds (tools/bench/bench_libfuzzer.sh), NAME-lf: the library compiled again in a
# copy of its tree with plain clang and -fsanitize=fuzzer-no-link, the same harness linked with
# -fsanitize=fuzzer, no AFL++: a fuzz target as OSS-Fuzz builds it. XML (many small files), PNG
# (a few large files carry most bytes) and cJSON.
LF_CFLAGS="-O2 -g -fsanitize=fuzzer-no-link"
lf_tree() {
    [ -d "$1.lf" ] || { cp -a "$1" "$1.lf" && (cd "$1.lf" && make distclean) >>"$DIR/log" 2>&1; }
    echo "$1.lf"
}
lf_harness() {
    local name=$1
    shift
    clang -O2 -g -fsanitize=fuzzer -o "$DIR/bin/$name-lf" "$HERE/$name.c" "$@" -lm
}
if [ ! -x "$DIR/bin/xml-lf" ]; then
    t=$(lf_tree "$(source_tree libxml2)")
    (cd "$t" && CC=clang CFLAGS="$LF_CFLAGS" ./configure --disable-shared --without-python \
        --without-lzma --without-zlib --without-http --without-ftp --without-threads &&
        make -j"$JOBS" libxml2.la) >>"$DIR/log" 2>&1
    lf_harness xml -I"$t/include" "$t/.libs/libxml2.a"
fi
if [ ! -x "$DIR/bin/png-lf" ]; then
    t=$(lf_tree "$(source_tree libpng1.6)")
    (cd "$t" && CC=clang CFLAGS="$LF_CFLAGS" ./configure --disable-shared &&
        make -j"$JOBS" libpng16.la) >>"$DIR/log" 2>&1
    lf_harness png -I"$t" "$t/.libs/libpng16.a" -lz
fi
if [ ! -x "$DIR/bin/cjson-lf" ]; then
    t=$(source_tree cjson)
    clang $LF_CFLAGS -c "$t/cJSON.c" -o "$t/cJSON-lf.o" >>"$DIR/log" 2>&1
    lf_harness cjson -I"$t" "$t/cJSON-lf.o"
fi

# Real inputs of each format, made by others.
inputs xml '*.xml *.xsl *.page' docbook-xsl gnome-user-docs
inputs json '*.json' python3-botocore node-caniuse-db
inputs lua '*.lua *.nse' nmap-common prosody awesome
inputs yaml '*.yml *.yaml' ansible
inputs png '*.png' frozen-bubble-data pingus-data supertux-data
inputs cjson '*.json' python3-botocore
echo "$DIR"
