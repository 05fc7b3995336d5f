#!/usr/bin/env bash
# Crash triage on a real library with a real pile of crashes: Debian's cJSON (from the source tree
# tools/real_targets/prepare.sh unpacked) with three planted faults, built with AddressSanitizer
# and afl-clang-fast, fuzzed by two afl-fuzz instances for FUZZ_TIME seconds from the smallest
# SEEDS real JSON files. The instances' crashes/ then go, side by side, through:
#   - the ClusterFuzz rule, applied here on its own (each crash run alone with the sanitizer
#     symbolizing, its state = kind, access and top three program frames, by a separate parser):
#     the distinct crash states, the reference grouping;
#   - corpus-distill, to completion: its bugs, reproducer bytes and wall time;
#   - afl-tmin on every crash file (TMIN_FILES at most, smallest first): bytes, wall time, and how
#     many minimized files no longer show their own crash state (afl-tmin keeps "a crash").
# The planted faults (a patch of ours, applied to a copy of cJSON.c):
#   1. parse_number: a number with a capital E is copied into a buffer one byte short
#      (heap-buffer-overflow WRITE in parse_number);
#   2. parse_string: a string with a "\b" escape gets an output buffer one byte short, and its
#      terminating NUL goes past it (heap-buffer-overflow WRITE in parse_string: same kind and
#      access as 1, another function);
#   3. print_object: an empty key is printed through a NULL pointer (SEGV WRITE in print_object,
#      reached from print_value at every nesting depth: one state per depth of the top frames).
#
# usage: tools/bench/bench_triage.sh
# env:   CD_BUILD (./build), BENCH_DIR ($CD_BUILD/bench-real), FUZZ_TIME (600), SEEDS (50),
#        TMIN_FILES (200), WORK (a new temporary directory, removed unless KEEP=1)
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${CD_BUILD:-$SRC/build}" && pwd)
BIN=$BUILD/corpus-distill
BENCH=${BENCH_DIR:-$BUILD/bench-real}
FUZZ_TIME=${FUZZ_TIME:-600}
SEEDS=${SEEDS:-50}
TMIN_FILES=${TMIN_FILES:-200}
TREE=$BENCH/src/cjson/tree
[ -f "$TREE/cJSON.c" ] || { echo "bench_triage: run tools/real_targets/prepare.sh first" >&2; exit 2; }
[ -f "$BENCH/inputs/cjson.tar.zst" ] || { echo "bench_triage: no cjson inputs in $BENCH" >&2; exit 2; }
for p in afl-fuzz afl-tmin afl-clang-fast llvm-symbolizer; do
    command -v $p >/dev/null || { echo "bench_triage: $p not found" >&2; exit 2; }
done
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
export AFL_QUIET=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1

# The planted copy of cJSON.c: each replacement must apply exactly once.
python3 - "$TREE/cJSON.c" cJSON.c <<'EOF'
import sys
s = open(sys.argv[1]).read()
plants = [
    ("number_c_string = (unsigned char *) input_buffer->hooks.allocate(number_string_length + 1);",
     "number_c_string = (unsigned char *) input_buffer->hooks.allocate(number_string_length +"
     " (memchr(buffer_at_offset(input_buffer), 'E', number_string_length) ? 0 : 1));"),
    ("output = (unsigned char*)input_buffer->hooks.allocate(allocation_length + sizeof(\"\"));",
     "output = (unsigned char*)input_buffer->hooks.allocate(allocation_length + sizeof(\"\") -"
     " (memmem(buffer_at_offset(input_buffer), (size_t)(input_end - buffer_at_offset(input_buffer)),"
     " \"\\\\b\", 2) ? 1 : 0));"),
    ("        if (!print_string_ptr((unsigned char*)current_item->string, output_buffer))",
     "        if (current_item->string && !current_item->string[0])\n"
     "        {\n            char *volatile null_key = NULL;\n            *null_key = '\\0';\n        }\n"
     "        if (!print_string_ptr((unsigned char*)current_item->string, output_buffer))"),
]
for old, new in plants:
    assert s.count(old) == 1, old
    s = s.replace(old, new)
open(sys.argv[2], 'w').write(s)
EOF
cp "$TREE/cJSON.h" .
afl-clang-fast -O2 -g -w -fsanitize=address -D_GNU_SOURCE -I. cJSON.c "$SRC/tools/real_targets/cjson.c" \
    "$SRC/tools/real_targets/harness_main.c" -o t_asan

# Seeds: the smallest real files.
mkdir -p all seeds
tar --zstd -xf "$BENCH/inputs/cjson.tar.zst" -C all
find all -type f -printf '%s %p\n' | sort -n > by_size.txt
i=0
head -n "$SEEDS" by_size.txt | while read -r _ f; do
    i=$((i + 1))
    cp "$f" "seeds/$i-$(basename "$f")"
done
# (a WORK kept from an earlier run keeps its findings: the rest runs again on the same pile)
if [ ! -d findings ]; then
    echo "fuzzing: 2 afl-fuzz instances, ${FUZZ_TIME} s, $(ls seeds | wc -l) seeds"
    afl-fuzz -M m -i seeds -o findings -m none -t 1000 -V "$FUZZ_TIME" -- ./t_asan @@ \
        >fuzz-m.log 2>&1 &
    afl-fuzz -S s -i seeds -o findings -m none -t 1000 -V "$FUZZ_TIME" -- ./t_asan @@ \
        >fuzz-s.log 2>&1
    wait
fi
rm -rf pile triage* tmin
mkdir -p pile
for d in findings/*/crashes; do
    find "$d" -type f -name 'id:*' -exec cp {} pile/ \;
done
n=$(ls pile | wc -l)
echo "crashes: $n files"
[ "$n" -gt 0 ] || { echo "bench_triage: afl-fuzz found no crash; raise FUZZ_TIME" >&2; exit 1; }

# The ClusterFuzz rule, independently: the sanitizer symbolizes, this parser keeps the state.
cat > cf_state.py <<'EOF'
import re, sys
skip = re.compile(r"^(__asan|__interceptor|___interceptor|__sanitizer|__libc_|_start$|malloc$|"
                  r"calloc$|realloc$|free$|memcpy$|memmove$|memset$|strlen$|abort$|raise$)")
kind, access, frames = None, "-", []
for line in sys.stdin:
    m = re.search(r"ERROR: AddressSanitizer: ([\w-]+)", line)
    if m and not kind:
        kind = m.group(1)
        continue
    if kind and access == "-":
        m = re.search(r"(READ|WRITE) of size|caused by a (READ|WRITE) memory", line)
        if m:
            access = m.group(1) or m.group(2)
    m = re.match(r"\s+#\d+ 0x[0-9a-f]+ in (\S+)", line)
    if kind and m:
        f = m.group(1).split("(")[0]
        if not skip.match(f) and len(frames) < 3:
            frames.append(f)
    if kind and frames and not line.strip():
        break
print("asan:%s %s %s" % (kind or "none", access, " ".join(frames)))
EOF
state_of() { # FILE -> one line "kind access frame1 frame2 frame3"
    { ASAN_OPTIONS=symbolize=1:detect_leaks=0:handle_segv=1:handle_abort=1:abort_on_error=1 \
        ./t_asan "$1" 2>&1 >/dev/null || true; } 2>/dev/null | python3 cf_state.py
}
for f in pile/*; do state_of "$f"; done | sort | uniq -c | sort -rn > cf_groups.txt
echo; echo "ClusterFuzz rule: $(wc -l < cf_groups.txt) distinct crash states over $n crashes"
cat cf_groups.txt

# corpus-distill, to completion.
start=$(date +%s.%N)
"$BIN" -q pile -o triage -j 2 --max-time 3600 -- ./t_asan @@ || true
dur=$(python3 -c "import time; print('%.1f' % (time.time() - $start))")
echo; echo "corpus-distill: ${dur} s"
"$BIN" audit triage.manifest.json --crashes
python3 - triage.manifest.json cf_groups.txt <<'EOF'
import json, sys
bugs = json.load(open(sys.argv[1]))['bugs']
ours = {(b['kind'], b['access'] or '-', tuple(b['frames'])) for b in bugs}
cf = set()
for line in open(sys.argv[2]):
    parts = line.split()[1:]
    cf.add((parts[0], parts[1], tuple(parts[2:])))
print("bugs: %d; crash states the ClusterFuzz rule gives: %d; the same: %d; reproducer bytes: %d"
      % (len(ours), len(cf), len(ours & cf), sum(b['size'] for b in bugs)))
for x in sorted(ours ^ cf):
    print("  only in", "corpus-distill:" if x in ours else "ClusterFuzz rule:", *x)
EOF

# afl-tmin on every crash file (smallest first, TMIN_FILES at most), timed alone; then whether
# each minimized file still shows its original's crash state, and per state the smallest one.
mkdir -p tmin
start=$(date +%s.%N)
done_files=0
while read -r _ f; do
    [ "$done_files" -lt "$TMIN_FILES" ] || break
    afl-tmin -i "$f" -o "tmin/$(basename "$f")" -m none -t 1000 -- ./t_asan @@ >/dev/null 2>&1 &&
        done_files=$((done_files + 1))
done < <(find pile -type f -printf '%s %p\n' | sort -n)
dur=$(python3 -c "import time; print('%.1f' % (time.time() - $start))")
for out in tmin/*; do
    printf '%s\t%s\t%s\n' "$(state_of "pile/${out#tmin/}")" "$(state_of "$out")" "$(stat -c %s "$out")"
done > tmin_states.txt
python3 - tmin_states.txt "$done_files" "$dur" <<'EOF'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
drift = sum(1 for a, b, _ in rows if a != b)
best = {}
for a, b, n in rows:
    if a == b:
        best[a] = min(best.get(a, 1 << 60), int(n))
print("afl-tmin: %s files in %s s, %d bytes in all; %d minimized files show another crash state "
      "than their original; the smallest that keeps its state, per state: %d bytes in all (%d "
      "states)" % (sys.argv[2], sys.argv[3], sum(int(n) for *_, n in rows), drift,
                   sum(best.values()), len(best)))
EOF
