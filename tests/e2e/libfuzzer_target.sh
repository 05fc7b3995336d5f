#!/usr/bin/env bash
# libFuzzer binaries as targets, no rebuild: the HTTP sample built with plain clang
# -fsanitize=fuzzer (with and without ASan), run on the HTTP sample corpus. The oracle is the
# binary's own merge: `-set_cover_merge=1 -merge_control_file=F` writes every input's features,
# and a feature f of its N counters (f < 8N) is the label "(f/8+1):(f%8+1)"; the one past them,
# the stack depth, moves with the environment's size and is no label. Checked: every feature of
# the inputs is in
# the seeds as the binary itself sees them; each seed's labels in the manifest are exactly its
# features; the crashes are triaged (an ASan bug named by its kind, a hang as a timeout) and each
# reproducer still fails when the binary runs it alone; a reduction run shrinks the seeds; the
# build without ASan runs too; the input and control files reach the binary as descriptors, no
# name left in the temporary directory; arguments the merge step cannot take are refused in one
# line.
set -u
. "$(dirname "$0")/lib.sh"
bin=${CD_BIN:?CD_BIN not set}
lf=$CD_TARGETS/lf_http
plain=$CD_TARGETS/lf_http_plain
cd_need "$lf" "$plain"
cd_scratch
fail=0
err() { echo "FAIL: $*"; fail=1; }

mkdir in && tar --zstd -xf "$CD_SRC/sample_corpora/http.tar.zst" -C in || exit 1

# features DIR CTL [BINARY]: the labels of every input in DIR as the binary's own set-cover
# merge sees them (lf_http's by default), "FILE LABEL" lines (FILE the input's path), through
# the control file CTL. Its timeout of 1 s stops the corpus's one hang (an endless loop) early;
# every other input runs in microseconds.
features() {
    rm -rf "$1.merged" && mkdir "$1.merged"
    ASAN_OPTIONS=symbolize=0 "${3:-$lf}" -set_cover_merge=1 -merge_control_file="$2" -timeout=1 \
        -rss_limit_mb=0 \
        "$1.merged" "$1" >/dev/null 2>&1
    python3 - "$2" "$counters" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split('\n')
n = int(lines[0]); files = lines[2:2 + n]
counters = int(sys.argv[2])
for l in lines[2 + n:]:
    w = l.split()
    if len(w) >= 2 and w[0] == 'FT':
        for f in map(int, w[2:]):
            if f < 8 * counters:
                print(files[int(w[1])], '%06d:%d' % (f // 8 + 1, f % 8 + 1))
EOF
}

# 1. A run on a budget (select-only and some reduction): every feature of the inputs kept.
"$bin" -q in -o seeds --max-execs 20000 -- "$lf" 2>run.err
rc=$?
[ $rc = 1 ] || err "exit $rc (1: stopped by the budget) on a libFuzzer binary: $(head -c 300 run.err)"
[ -s seeds.manifest.json ] || { err "no manifest"; exit 1; }
counters=$("$lf" -runs=0 2>&1 | sed -n 's/.*(\([0-9]*\) inline 8-bit counters).*/\1/p' | head -1)
[ "$(cd_json seeds.manifest.json target map_size)" = $((counters + 1)) ] ||
    err "map size $(cd_json seeds.manifest.json target map_size), not the binary's $counters counters"
features in in.ctl | awk '{ print $2 }' | sort -u >want
features seeds seeds.ctl >seed_features
awk '{ print $2 }' seed_features | sort -u >got
[ "$(wc -l <want)" -gt 300 ] || err "the oracle saw only $(wc -l <want) features"
missing=$(comm -23 want got | wc -l)
[ "$missing" = 0 ] || err "$missing features of the inputs missing from the seeds: $(comm -23 want got | head -3 | tr '\n' ' ')"

# 2. Each seed's labels in the manifest are its features, exactly.
python3 - seeds.manifest.json seed_features <<'EOF' || err "a seed's labels are not its features"
import json, os, sys
m = json.load(open(sys.argv[1]))
feats = {}
for line in open(sys.argv[2]):
    f, l = line.split()
    feats.setdefault(os.path.basename(f), set()).add(l)
bad = 0
for s in m['seeds']:
    mine = {l for l in s['labels'] if ':' in l and l.split(':')[0].isdigit()}
    if mine != feats.get(s['file'], set()):
        bad += 1
        if bad < 3:
            print('seed', s['file'], 'manifest-only', sorted(mine - feats.get(s['file'], set()))[:5],
                  'binary-only', sorted(feats.get(s['file'], set()) - mine)[:5])
sys.exit(1 if bad or not m['seeds'] else 0)
EOF

# 3. Crashes triaged: an ASan bug by its kind, the hang as a timeout; each reproducer fails alone.
"$bin" audit --crashes seeds >audit.txt 2>&1 || err "audit --crashes failed"
python3 - seeds.manifest.json <<'EOF' || err "bugs: $(cat audit.txt | head -5)"
import json, sys
m = json.load(open(sys.argv[1]))
kinds = {b['kind'] for b in m['bugs']}
print(sorted(kinds))
sys.exit(0 if any(k.startswith('asan:') for k in kinds) else 1)
EOF
n_crash=0
for r in seeds.crashes/*; do
    [ -f "$r" ] || continue
    case $(basename "$r") in *timeout*|*hang*) continue ;; esac
    n_crash=$((n_crash + 1))
    ASAN_OPTIONS=symbolize=0 timeout 10 "$lf" -runs=1 "$r" >/dev/null 2>&1 && err "reproducer $(basename "$r") does not crash the binary"
done
[ $n_crash -ge 1 ] || err "no crash reproducer in seeds.crashes: $(ls seeds.crashes 2>&1 | head -3)"
grep -q timeout < <(ls seeds.crashes) || err "the hang has no timeout reproducer: $(ls seeds.crashes | tr '\n' ' ')"

# 4. Reduction on the build without ASan, two workers: the seeds shrink, and still hold every
# feature of the inputs as that binary sees them.
"$bin" -q in -o red -j 2 --max-execs 40000 -- "$plain" 2>red.err
rc=$?
[ $rc = 1 ] || err "reduction run: exit $rc: $(head -c 300 red.err)"
sb=$(cd_bytes red) ib=$(cd_bytes in)
[ "$sb" -gt 0 ] && [ "$((sb * 3))" -lt "$ib" ] || err "seeds $sb bytes against $ib of inputs"
features in in_plain.ctl "$plain" | awk '{ print $2 }' | sort -u >want_red
features red red.ctl "$plain" | awk '{ print $2 }' | sort -u >got_red
[ "$(comm -23 want_red got_red | wc -l)" = 0 ] ||
    err "features of the inputs missing after reduction: $(comm -23 want_red got_red | head -3 | tr '\n' ' ')"

# 5. The binary reaches the input and control files through descriptors: while it runs, the
# temporary directory holds no name of ours to plant or swap.
mkdir priv
TMPDIR=$PWD/priv "$bin" -q in -o fd_run --no-state -j 1 --max-execs 100000 -- "$plain" &
run=$!
# (as long as the run lives, however slow the machine: it ends by its executions)
seen=0
while kill -0 $run 2>/dev/null; do
    pgrep -f -- "-merge_control_file=/proc/self/fd/197" >/dev/null && { seen=1; break; }
    sleep 0.05
done
[ $seen = 1 ] || err "no libFuzzer process with its control file as a descriptor"
[ -z "$(ls -A priv)" ] || err "names left in the temporary directory: $(ls -A priv | head -3)"
kill -INT $run 2>/dev/null
wait $run

# 6. What the merge step cannot take is refused, with one line naming it.
for extra in in -runs=10 -merge=1; do
    "$bin" -q in -o bad -- "$lf" "$extra" 2>bad.err && err "'$extra' accepted"
    [ "$(wc -l <bad.err)" = 1 ] && grep -q -- "$extra" bad.err || err "'$extra': $(cat bad.err)"
done
[ ! -e bad ] || err "a refused run wrote its output"

[ $fail = 0 ] && echo "ok: libFuzzer binaries: $(wc -l <want) features all kept, labels exact, $n_crash crash reproducers, seeds $sb of $ib bytes"
exit $fail
