#!/usr/bin/env bash
# Fuzzes one of our own parsers with libFuzzer, as zstd and libarchive fuzz theirs.
#   tests/fuzz/run.sh NAME [SECONDS]    NAME: manifest, state, srccov (the readers), report (the
#                                       report writer, manifest and record in), ingest (archive
#                                       ingest) or image (the reducer's PNG image pass); SECONDS:
#                                       30 by default
# Builds tests/fuzz/fuzz_NAME.c with the engine's sources using clang -fsanitize=fuzzer,address,
# undefined, then runs it for SECONDS on a scratch copy of tests/fuzz/corpus/NAME (the seeds in
# the tree are never written). A crash, leak, sanitizer report or timeout fails the run and leaves
# the reproducer in the scratch directory it names. The sanitizer test tier (CD_SANITIZE=ON) runs
# each for 30 s; for a longer hunt run it by hand, e.g. tests/fuzz/run.sh ingest 3600.
set -euo pipefail
name=${1:?usage: tests/fuzz/run.sh manifest|state|srccov|report|ingest|image [SECONDS]}
secs=${2:-30}
src=$(cd "$(dirname "$0")/../.." && pwd)
harness=$src/tests/fuzz/fuzz_$name.c
[ -f "$harness" ] || { echo "run.sh: no harness $harness" >&2; exit 2; }
command -v clang >/dev/null || { echo "skipped: clang not installed"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cd-fuzz-$name.XXXXXX")
keep=0
trap '[ $keep = 1 ] || rm -rf "$work"' EXIT

sources=()
for f in "$src"/src/*/*.c; do
  case $f in "$src"/src/cli/*) ;; *) sources+=("$f") ;; esac
done
# The report harness drives the report writer, which is front-end code (with its messages).
[ "$name" != report ] || sources+=("$src/src/cli/cli_audit_html.c" "$src/src/cli/cli_msgs.c")
# shellcheck disable=SC2046
clang -g -O1 -std=c11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -D_POSIX_C_SOURCE=200809L -DCD_VERSION='"fuzz"' -I"$src/src" "$harness" "${sources[@]}" \
  $(pkg-config --cflags --libs libarchive libzstd json-c libxxhash libcrypto zlib cbc) -lpthread \
  -o "$work/fuzz_$name"
mkdir "$work/corpus"
cp "$src/tests/fuzz/corpus/$name"/* "$work/corpus/"
cd "$work"
if ! ./"fuzz_$name" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
     -print_final_stats=1 corpus 2>log.txt; then
  keep=1
  tail -40 log.txt
  echo "FAIL: fuzz_$name found a problem; reproducer and log in $work"
  exit 1
fi
grep -E "stat::number_of_executed_units|stat::peak_rss_mb" log.txt || true
echo "ok: fuzz_$name ran ${secs} s with no finding ($(ls corpus | wc -l) inputs in its corpus)"
