#!/usr/bin/env bash
# Builds the IR parser fuzzer (clang, libFuzzer + ASan + UBSan) in its own build directory and
# runs it for SECONDS seconds (default 60), seeded from tests/ir/corpus and tests/fuzz/seeds (small
# valid programs, mostly of ops with attributes).
#   tests/fuzz/run_fuzz.sh [SECONDS]
# Inputs that grow coverage are kept in $BUILD/fuzz_corpus; a crasher is written to
# $BUILD/crashes/ and the script exits non-zero. Reproduce with: $BUILD/tests/fuzz/parse_fuzz FILE
# BUILD defaults to build-fuzz/ at the repository root (override with LAZAX_FUZZ_BUILD).
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${LAZAX_FUZZ_BUILD:-$root/build-fuzz}"

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLAZAX_FUZZ=ON -DLAZAX_TESTS=OFF >/dev/null
ninja -C "$build" parse_fuzz

mkdir -p "$build/fuzz_corpus" "$build/crashes"
exec "$build/tests/fuzz/parse_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
  -dict="$root/tests/fuzz/lzir.dict" -artifact_prefix="$build/crashes/" -print_final_stats=1 \
  "$build/fuzz_corpus" "$root/tests/fuzz/seeds" "$root/tests/ir/corpus/good" \
  "$root/tests/ir/corpus/bad"
