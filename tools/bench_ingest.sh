#!/usr/bin/env bash
# Ingest benchmark: generates a large tar.zst deterministically (many files of varied size, part
# text-like, part random; about BENCH_MB MiB before compression), then times reading every input
# through the ingest module (tools/bench_ingest) against `tar --zstd -xf` into a tmpfs directory,
# side by side, median of BENCH_RUNS runs with hyperfine. It also reports the peak RSS of our
# driver, which must stay bounded whatever the archive size. Everything it writes is removed at
# the end.
#
#   tools/bench_ingest.sh [BUILD_DIR]     (default: ./build; BENCH_MB=400 BENCH_RUNS=3)
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${CD_BUILD:-$src/build}}
driver=$build/tools/bench_ingest
mb=${BENCH_MB:-400}
runs=${BENCH_RUNS:-3}
shm=${BENCH_SHM:-/dev/shm}

for tool in hyperfine python3 tar zstd /usr/bin/time; do
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

echo "--- side by side, median of $runs:"
hyperfine --runs "$runs" --warmup 1 --export-json "$work/h.json" \
  --prepare "rm -rf '$out/x' && mkdir '$out/x'" \
  -n "cd_ingest" "'$driver' '$work/corpus.tar.zst'" \
  -n "tar --zstd -xf (tmpfs)" "tar --zstd -xf '$work/corpus.tar.zst' -C '$out/x'"
python3 - "$work/h.json" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("median %-24s %.3f s" % (r["command"], r["median"]))
EOF

echo "--- for reference, ingest of the tree tar extracted into tmpfs, and of the archive on stdin:"
"$driver" "$out/x"
"$driver" - < "$work/corpus.tar.zst"

echo "--- peak memory of the ingest driver:"
/usr/bin/time -v "$driver" "$work/corpus.tar.zst" 2>&1 | grep -E "Maximum resident|Elapsed"
