#!/usr/bin/env bash
# The tool's own CPU against its target's, and executions a second against afl-fuzz, on a fast
# persistent target in one run: by default sample_http (libFuzzer harness, test cases in shared
# memory) on its sample corpus; TARGET and CORPUS name another (a persistent build of
# tools/real_targets, NAME-persist, and its inputs). Each corpus-distill run is one worker (-j 1):
# select-only (--no-reduce, the first pass over every input) and reduction (bounded by EXECS
# executions). Its own CPU (every thread, from /proc/PID/stat sampled until it exits) is set
# against the whole tree's (wait4: the tool, its fork servers and the targets they reaped).
# afl-fuzz then fuzzes the same harness from the seeds the first run wrote, on one core, for the
# same wall time as the median reduction run, and its fuzzer_stats give its executions a second.
# OLD names a second corpus-distill binary (an earlier build) to run alternately with this one.
# TARGET may be a libFuzzer binary (clang -fsanitize=fuzzer): the same rows, without afl-fuzz.
# Medians of RUNS runs.
#
#   tools/bench/bench_overhead.sh [BUILD_DIR]
#     (RUNS=3 EXECS=300000 OLD=path/corpus-distill TARGET=path/harness CORPUS=path/inputs.tar.zst)
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${CD_BUILD:-$src/build}}
runs=${RUNS:-3}
execs=${EXECS:-300000}
target=${TARGET:-$build/targets/sample_http}
corpus=${CORPUS:-$src/sample_corpora/http.tar.zst}
for tool in afl-fuzz python3; do
  command -v "$tool" >/dev/null || { echo "bench_overhead.sh: $tool not found" >&2; exit 1; }
done
[ -x "$target" ] || { echo "bench_overhead.sh: $target not built" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$runs" "$execs" "$target" "$corpus" "$build/corpus-distill" "${OLD:-}" <<'EOF'
import json, os, statistics, subprocess, sys, time
work, runs, execs, target, corpus, new, old = sys.argv[1:8]
runs, execs = int(runs), int(execs)
tick = os.sysconf('SC_CLK_TCK')

def self_cpu(pid):
    try:
        f = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()
        return (int(f[11]) + int(f[12])) / tick
    except (OSError, IndexError):
        return None

def one(binary, k, mode):
    out = os.path.join(work, 'out-%d' % k)
    t0 = time.monotonic()
    bound = ['--no-reduce'] if mode == 'select' else ['--max-execs', str(execs)]
    # the exact cover's child would count as target CPU: greedy only, where the build has it
    greedy = ['--cover-time', '0'] if b'cover-time' in subprocess.run(
        [binary, '--help'], capture_output=True).stdout else []
    p = subprocess.Popen([binary, '-q', '-j', '1', '--no-state'] + greedy + bound +
                         ['--json-summary', corpus, '-o', out, '--', target],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    own = 0.0
    while p.poll() is None:
        c = self_cpu(p.pid)
        own = c if c is not None else own
        time.sleep(0.02)
    wall = time.monotonic() - t0
    summary = json.loads(p.stdout.read() or b'{}')
    return wall, own, summary, out

def tree(binary, k, mode):
    # the children CPU of this interval: the tool and every process it reaped, targets included
    r0 = os.times()
    wall, own, summary, out = one(binary, k, mode)
    r1 = os.times()
    total = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
    n = summary.get('executions') or summary.get('execs') or execs
    return {'wall': wall, 'own': own, 'total': total, 'execs': n, 'out': out}

bins = [('corpus-distill', new)] + ([('corpus-distill OLD', old)] if old else [])
rows = [(name + ' ' + mode, b, mode) for mode in ('select', 'reduce') for name, b in bins]
res = {name: [] for name, _, _ in rows}
k = 0
for r in range(runs):
    for name, b, mode in rows:
        res[name].append(tree(b, k, mode))
        k += 1
print('%-26s %10s %12s %12s %10s' % ('', 'execs/s', 'tool CPU s', 'target CPU s', 'tool share'))
for name, _, _ in rows:
    v = res[name]
    rate = statistics.median(x['execs'] / x['wall'] for x in v)
    own = statistics.median(x['own'] for x in v)
    tgt = statistics.median(x['total'] - x['own'] for x in v)
    print('%-26s %10.0f %12.2f %12.2f %9.0f%%' % (name, rate, own, tgt, 100 * own / (own + tgt)))
# afl-fuzz on the same harness from the first run's seeds, for the median reduction's wall time;
# a libFuzzer binary (no AFL++ instrumentation) has no afl-fuzz row
if b'__AFL_SHM_ID' not in open(target, 'rb').read():
    print('afl-fuzz: %s is no AFL++ build (a libFuzzer binary: its own rate is above)' % target)
    sys.exit(0)
secs = max(10, int(statistics.median(x['wall'] for x in res['corpus-distill reduce'])))
rates, shares = [], []
for r in range(runs):
    out = os.path.join(work, 'afl-%d' % r)
    env = dict(os.environ, AFL_NO_UI='1', AFL_SKIP_CPUFREQ='1', AFL_NO_AFFINITY='1',
               AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES='1', AFL_SHUFFLE_QUEUE='0')
    r0 = os.times()
    p = subprocess.Popen(['afl-fuzz', '-i', res['corpus-distill reduce'][0]['out'], '-o', out,
                          '-V', str(secs), '--', target], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    own = 0.0
    while p.poll() is None:
        c = self_cpu(p.pid)
        own = c if c is not None else own
        time.sleep(0.02)
    r1 = os.times()
    total = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
    stats = {a.strip(): b.strip() for a, b in (l.split(':', 1) for l in
             open(os.path.join(out, 'default', 'fuzzer_stats')) if ':' in l)}
    done, run_time = float(stats['execs_done']), float(stats['run_time'])
    rates.append(done / max(run_time, 1))
    shares.append((own, total - own))
own = statistics.median(x[0] for x in shares)
tgt = statistics.median(x[1] for x in shares)
print('%-26s %10.0f %12.2f %12.2f %9.0f%%   (%d s from the seeds, median of %d)' %
      ('afl-fuzz', statistics.median(rates), own, tgt, 100 * own / max(own + tgt, 1e-9), secs,
       runs))
EOF
