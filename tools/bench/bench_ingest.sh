#!/usr/bin/env bash
# Ingest benchmark: generates a large tar.zst deterministically (many files of varied size, part
# text-like, part random; about BENCH_MB MiB before compression), then times reading every input
# through the ingest module (tools/bench/bench_ingest) against `tar --zstd -xf` into a tmpfs directory,
# side by side, interleaved, median of BENCH_RUNS runs. It also reports the peak RSS of our
# driver, which must stay bounded whatever the archive size. Everything it writes is removed at
# the end.
#
#   tools/bench/bench_ingest.sh [BUILD_DIR]     (default: ./build; BENCH_MB=400 BENCH_RUNS=5)
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${CD_BUILD:-$src/build}}
driver=$build/tools/bench_ingest
mb=${BENCH_MB:-400}
runs=${BENCH_RUNS:-5}
shm=${BENCH_SHM:-/dev/shm}

for tool in python3 tar zstd /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench_ingest.sh: $tool not found" >&2; exit 1; }
done
[ -x "$driver" ] || { echo "bench_ingest.sh: $driver not built" >&2; exit 1; }

work=$(mktemp -d)
out=$(mktemp -d "$shm/cd-bench-XXXXXX")
trap 'rm -rf "$work" "$out"' EXIT

# Deterministic corpus: sizes log-uniform from 64 B to 512 KiB, in nested directories.
python3 - "$work/corpus" "$mb" <<'EOF'
import os, random, sys
root, total = sys.argv[1], int(sys.argv[2]) << 20
rng = random.Random(20240601)
words = [bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
         for _ in range(2000)]
done = n = 0
while done < total:
    size = int(2 ** rng.uniform(6, 19))
    d = os.path.join(root, "d%02d" % (n % 37), "e%02d" % (n % 11))
    os.makedirs(d, exist_ok=True)
    if n % 3 == 0:   # random bytes: zstd cannot shrink them
        data = rng.randbytes(size)
    else:            # text-like: compresses as markup would
        parts, got = [], 0
        while got < size:
            w = words[rng.randrange(len(words))]
            parts.append(b"<" + w + b">" if rng.random() < 0.2 else w + b" ")
            got += len(parts[-1])
        data = b"".join(parts)[:size]
    with open(os.path.join(d, "f%06d.bin" % n), "wb") as f:
        f.write(data)
    done += size
    n += 1
print("generated %d files, %d bytes" % (n, done))
EOF
tar --zstd -cf "$work/corpus.tar.zst" -C "$work" corpus
rm -rf "$work/corpus"
echo "archive: $(du -m "$work/corpus.tar.zst" | cut -f1) MiB compressed"

echo "--- ingest once (inputs, bytes, rate):"
"$driver" "$work/corpus.tar.zst"

# Interleaved runs (ours, tar, ours, tar, ...) rather than one block each: on a shared machine
# the load changes from minute to minute, and alternating exposes both to the same load.
echo "--- side by side, interleaved, median of $runs (wall, and CPU = user + sys of all processes):"
python3 - "$runs" "$driver" "$work/corpus.tar.zst" "$out/x" <<'EOF'
import os, resource, shutil, statistics, subprocess, sys, time
runs, driver, archive, dest = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
cmds = {
    "cd_ingest": [driver, archive],
    "tar --zstd -xf (tmpfs)": ["tar", "--zstd", "-xf", archive, "-C", dest],
}
res = {k: ([], []) for k in cmds}
def once(cmd):
    shutil.rmtree(dest, ignore_errors=True)
    os.mkdir(dest)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
for name, cmd in cmds.items():  # warm-up: page cache
    once(cmd)
for i in range(runs):
    for name, cmd in cmds.items():
        wall, cpu = once(cmd)
        res[name][0].append(wall)
        res[name][1].append(cpu)
        print("run %d %-24s wall %.3f s  cpu %.3f s" % (i + 1, name, wall, cpu))
for name, (walls, cpus) in res.items():
    print("median %-24s wall %.3f s  cpu %.3f s" % (name, statistics.median(walls),
                                                  statistics.median(cpus)))
EOF
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "--- for reference, ingest of the tree tar extracted into tmpfs, and of the archive on stdin:"
"$driver" "$out/x"
"$driver" - < "$work/corpus.tar.zst"

echo "--- peak memory of the ingest driver:"
/usr/bin/time -v "$driver" "$work/corpus.tar.zst" 2>&1 | grep -E "Maximum resident|Elapsed"
