#!/usr/bin/env bash
# A libFuzzer binary as the target, in one run, on the same inputs: libFuzzer's own corpus
# pruning (-merge=1, and -set_cover_merge=1 as ClusterFuzz prunes), corpus-distill select-only
# (--no-reduce) and reducing (to completion, or EXECS executions), all on LF (a clang
# -fsanitize=fuzzer build), then corpus-distill on AFL (the same harness built with
# afl-clang-fast: the fork-server path) for the cost of the merge-step protocol. For each: wall
# time, output bytes and files, and the counter features of the inputs the output keeps, as the
# libFuzzer binary's own set-cover merge reports them (the stack-depth feature, which moves with
# the environment, is left out for every row alike). Medians of RUNS runs; -j 1 throughout.
#
#   tools/bench/bench_libfuzzer.sh [BUILD_DIR]
#     (RUNS=3 EXECS=0 LF=path/fuzzer AFL=path/afl-build CORPUS=path/inputs.tar.zst)
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${CD_BUILD:-$src/build}}
lf=${LF:-$build/targets/lf_http}
afl=${AFL:-$build/targets/sample_http}
corpus=${CORPUS:-$src/sample_corpora/http.tar.zst}
[ -x "$lf" ] || { echo "bench_libfuzzer.sh: $lf not built (needs clang)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/in"
tar -xf "$corpus" -C "$work/in"

python3 - "$work" "${RUNS:-3}" "${EXECS:-0}" "$lf" "$afl" "$build/corpus-distill" <<'EOF'
import os, shutil, statistics, subprocess, sys, time
work, runs, execs, lf, afl, tool = sys.argv[1:7]
runs, execs = int(runs), int(execs)
inp = os.path.join(work, 'in')
counters = None

def features(d):
    """Counter features of the files under d, through the binary's own set-cover merge."""
    global counters
    ctl, out = os.path.join(work, 'ctl'), os.path.join(work, 'merged')
    shutil.rmtree(out, ignore_errors=True); os.mkdir(out)
    if os.path.exists(ctl): os.unlink(ctl)
    r = subprocess.run([lf, '-set_cover_merge=1', '-merge_control_file=' + ctl, '-timeout=5',
                        '-rss_limit_mb=0', out, d], capture_output=True, text=True)
    if counters is None:
        for line in r.stderr.splitlines():
            if 'inline 8-bit counters' in line:
                counters = int(line.split('(')[1].split()[0]); break
    lines = open(ctl).read().split('\n')
    n = int(lines[0]); fs = set()
    for l in lines[2 + n:]:
        w = l.split()
        if len(w) > 1 and w[0] == 'FT':
            fs.update(f for f in map(int, w[2:]) if f < 8 * counters)
    return fs

def size(d):
    b = n = 0
    for root, _, files in os.walk(d):
        for f in files:
            b += os.path.getsize(os.path.join(root, f)); n += 1
    return b, n

def run(name, cmd, out):
    walls = []
    for _ in range(runs):
        for p in (out, out + '.crashes'):
            shutil.rmtree(p, ignore_errors=True)
        for p in (out + '.manifest.json', out + '.state'):
            if os.path.exists(p): os.unlink(p)
        os.makedirs(out, exist_ok=True) if 'merge' in name else None
        t = time.monotonic()
        r = subprocess.run(cmd, capture_output=True, text=True)
        walls.append(time.monotonic() - t)
        if r.returncode not in (0, 1):
            print('%s failed (%d): %s' % (name, r.returncode, r.stderr[-300:])); return None
    return statistics.median(walls)

want = features(inp)
ib, inn = size(inp)
print('inputs: %d files, %d bytes, %d counter features (%s, %d counters)' %
      (inn, ib, len(want), os.path.basename(lf), counters))
budget = ['--max-execs', str(execs)] if execs else []
rows = [
    ('libFuzzer -merge=1', [lf, '-merge=1', '-timeout=5', '-rss_limit_mb=0',
                            os.path.join(work, 'o_merge'), inp], 'o_merge', lf),
    ('libFuzzer -set_cover_merge=1', [lf, '-set_cover_merge=1', '-timeout=5', '-rss_limit_mb=0',
                                      os.path.join(work, 'o_scm'), inp], 'o_scm', lf),
    ('corpus-distill --no-reduce', [tool, '-q', '-j', '1', '--no-reduce', inp, '-o',
                                    os.path.join(work, 'o_sel'), '--', lf], 'o_sel', lf),
    ('corpus-distill (reduce)', [tool, '-q', '-j', '1', inp, '-o', os.path.join(work, 'o_red')]
     + budget + ['--', lf], 'o_red', lf),
]
if os.access(afl, os.X_OK):
    rows.append(('corpus-distill (reduce), AFL++ build', [tool, '-q', '-j', '1', inp, '-o',
                 os.path.join(work, 'o_afl')] + budget + ['--', afl], 'o_afl', afl))
print('%-38s %8s %10s %6s %9s %12s' % ('', 'wall s', 'bytes', 'files', 'features', 'execs/s'))
walls = {}
for name, cmd, out, binary in rows:
    out = os.path.join(work, out)
    wall = run(name, cmd, out)
    if wall is None: continue
    walls[name] = wall
    b, n = size(out)
    kept = len(want & features(out)) if binary == lf else float('nan')
    rate = ''
    mf = out + '.manifest.json'
    if os.path.exists(mf):
        import json
        r = json.load(open(mf))['run']
        rate = '%.0f' % (r['executions'] / r['wall_time_s'])
    print('%-38s %8.2f %10d %6d %9s %12s' % (name, wall, b, n,
          '%d/%d' % (kept, len(want)) if kept == kept else '-', rate))
a, l = 'corpus-distill (reduce), AFL++ build', 'corpus-distill (reduce)'
if a in walls and l in walls:
    print('cost of the libFuzzer merge-step protocol: %.2fx the AFL++ build\'s wall time' %
          (walls[l] / walls[a]))
EOF
