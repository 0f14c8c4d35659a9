#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, libFuzzer + ASan + UBSan) in their own build directory and
# runs them for SECONDS seconds in all (default 60), split evenly between the targets:
#   parse_fuzz        the IR parser, seeded from tests/ir/corpus and tests/fuzz/seeds (small valid
#                     programs, mostly of ops with attributes);
#   safetensors_fuzz  the safetensors reader, seeded from tests/fuzz/safetensors_seeds;
#   stablehlo_fuzz    the StableHLO parser, importer and exporter, seeded from the fixtures in
#                     tests/stablehlo/fixtures.
#   tests/fuzz/run_fuzz.sh [SECONDS] [TARGET...]
# Inputs that grow coverage are kept in $BUILD/fuzz_corpus/TARGET; a crasher is written to
# $BUILD/crashes/ and the script exits non-zero. Reproduce with: $BUILD/tests/fuzz/TARGET FILE
# BUILD defaults to build-fuzz/ at the repository root (override with LAZAX_FUZZ_BUILD).
set -euo pipefail

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(parse_fuzz safetensors_fuzz stablehlo_fuzz)
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${LAZAX_FUZZ_BUILD:-$root/build-fuzz}"

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLAZAX_FUZZ=ON -DLAZAX_TESTS=OFF -DLAZAX_SAN_ONLY_CORE=ON >/dev/null
ninja -C "$build" "${targets[@]}"

each=$(( seconds / ${#targets[@]} ))
[ "$each" -lt 1 ] && each=1
mkdir -p "$build/crashes"
for target in "${targets[@]}"; do
  case "$target" in
    parse_fuzz)
      dict="$root/tests/fuzz/lzir.dict"
      seeds=("$root/tests/fuzz/seeds" "$root/tests/ir/corpus/good" "$root/tests/ir/corpus/bad") ;;
    safetensors_fuzz)
      dict="$root/tests/fuzz/safetensors.dict"
      seeds=("$root/tests/fuzz/safetensors_seeds") ;;
    stablehlo_fuzz)
      dict="$root/tests/fuzz/stablehlo.dict"
      seeds=("$root/tests/stablehlo/fixtures") ;;
    *) echo "run_fuzz.sh: unknown target '$target' (parse_fuzz, safetensors_fuzz, stablehlo_fuzz)" >&2; exit 64 ;;
  esac
  echo "[run_fuzz.sh] $target for $each s"
  mkdir -p "$build/fuzz_corpus/$target"
  "$build/tests/fuzz/$target" -max_total_time="$each" -timeout=10 -rss_limit_mb=4096 \
    -dict="$dict" -artifact_prefix="$build/crashes/$target-" -print_final_stats=1 \
    "$build/fuzz_corpus/$target" "${seeds[@]}"
done
