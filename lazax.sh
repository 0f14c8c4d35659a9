#!/usr/bin/env bash
# The one entry point: `./lazax.sh demo` runs the main job, `./lazax.sh test` the test suite,
# `./lazax.sh lint` the format, line-length and clang-tidy checks (`./lazax.sh format` fixes the
# formatting). Each installs what is missing (Debian packages), then builds with CMake + Ninja.
set -euo pipefail
cd "$(dirname "$0")"

# libomp-16-dev: clang-tidy parses omp.h from it (GCC's does not parse with clang).
# mlir-16-tools: mlir-opt-16, which the StableHLO export test runs on the exported text.
PACKAGES=(cmake ninja-build ccache g++ clang libclang-rt-14-dev pkg-config
  libxxhash-dev libdw-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libdnnl-dev libhwy-dev libmimalloc-dev python3-torch python3-numpy
  clang-tidy-16 clang-format-16 libomp-16-dev libcli11-dev fortunes fortunes-min
  libopenblas0-pthread libopenmpi-dev openmpi-bin mlir-16-tools)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "[lazax.sh] installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

JOBS=${LAZAX_JOBS:-$(nproc)}

build() {  # build DIR TYPE [extra cmake args]
  local dir=$1 type=$2
  shift 2
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
  ninja -C "$dir" -j "$JOBS"
}

# The C++ sources that format and lint check (not the fuzzer's seeds or the test data).
cxx_files() {
  find src include tests apps bench examples -type f \( -name '*.h' -o -name '*.cc' \) \
    -not -path 'tests/fuzz/seeds/*' -not -path '*/data/*' | LC_ALL=C sort
}

# Installs build/ to build/install and uses it as a user's project would: builds examples/ with
# find_package(lazax) and runs each program, then builds examples/pkg_config_check.cc with
# pkg-config alone and runs it. Fails with the step that failed.
check_install() {
  local prefix=$PWD/build/install log=build/examples.log
  rm -rf "$prefix" build/examples
  : >"$log"
  install_failed() {
    tail -40 "$log" >&2
    echo "[lazax.sh] install check failed: $1 (log: $log)" >&2
    exit 1
  }
  cmake --install build --prefix "$prefix" >>"$log" 2>&1 || install_failed "cmake --install"
  cmake -S examples -B build/examples -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" >>"$log" 2>&1 ||
    install_failed "examples/ did not configure against the installed package"
  ninja -C build/examples -j "$JOBS" >>"$log" 2>&1 ||
    install_failed "examples/ did not build against the installed package"
  ctest --test-dir build/examples --output-on-failure >>"$log" 2>&1 ||
    install_failed "an example failed"
  grep -E "^ *[0-9]+/[0-9]+ Test" "$log"
  local pc_dir flags
  pc_dir=$(dirname "$(find "$prefix" -name lazax.pc)")
  flags=$(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs lazax 2>>"$log") ||
    install_failed "pkg-config --cflags --libs lazax"
  # shellcheck disable=SC2086  # (the flags are words)
  g++ -std=c++20 -Wall -Wextra -Werror examples/pkg_config_check.cc $flags \
    -o build/examples/pkg_config_check >>"$log" 2>&1 ||
    install_failed "a program did not build with pkg-config's flags: $flags"
  ./build/examples/pkg_config_check >>"$log" 2>&1 || install_failed "pkg_config_check failed"
  tail -1 "$log"
}

case "${1:-}" in
  demo)
    install_missing
    build build Release
    ./build/apps/lazax/lazax demo --out build/demo
    ;;
  test)
    install_missing
    build build Release
    (cd build && ctest --output-on-failure -j "$JOBS")
    echo "[lazax.sh] install to build/install; examples/ and a pkg-config build against it"
    check_install
    # ctest runs every test in a process of its own; this pass runs each binary whole, twice, in
    # a random order, so that a test that needs a cold cache or a clean process state fails here.
    seed=${LAZAX_SHUFFLE_SEED:-$((RANDOM % 99999 + 1))}
    echo "[lazax.sh] each test binary twice, shuffled (seed $seed; LAZAX_SHUFFLE_SEED repeats it)"
    failed=()
    for t in core ir interp io passes runtime trace autodiff api pure nn optim vmap stablehlo; do
      ./build/tests/test_$t --gtest_shuffle --gtest_random_seed="$seed" --gtest_repeat=2 \
        --gtest_brief=1 > build/shuffle-$t.log 2>&1 || { tail -40 build/shuffle-$t.log; failed+=("$t"); }
    done
    if [ ${#failed[@]} -gt 0 ]; then
      echo "[lazax.sh] shuffled/repeated runs failed: ${failed[*]} (seed $seed; logs:" \
        "build/shuffle-NAME.log)" >&2
      exit 1
    fi
    echo "[lazax.sh] core tests under AddressSanitizer + UndefinedBehaviorSanitizer"
    build build-asan Debug -DLAZAX_SANITIZE=ON -DLAZAX_SAN_ONLY_CORE=ON
    (cd build-asan && ctest --output-on-failure -j "$JOBS" -L "core|ir|interp|io|passes")
    echo "[lazax.sh] libFuzzer: the IR parser and the safetensors reader, ${LAZAX_FUZZ_SECONDS:-30} s"
    if ! tests/fuzz/run_fuzz.sh "${LAZAX_FUZZ_SECONDS:-30}" > build-fuzz.log 2>&1; then
      tail -40 build-fuzz.log
      echo "[lazax.sh] a fuzzer failed (log: build-fuzz.log)" >&2
      exit 1
    fi
    grep -E "^\[run_fuzz|^Done|stat::number_of_executed_units" build-fuzz.log || true
    ;;
  asan)
    # The upper layers' tests under ASan+UBSan (and LeakSanitizer), Debug; CI runs it after
    # `test`. The same build directory as `test`'s core-only sanitizer run, with the upper layers
    # switched on: the lower layers' objects are reused, not compiled again.
    install_missing
    build build-asan Debug -DLAZAX_SANITIZE=ON -DLAZAX_SAN_ONLY_CORE=OFF
    (cd build-asan &&
      ctest --output-on-failure -j "$JOBS" -L "backend|runtime|trace|api|autodiff|pure|nn|optim|trainapp|dist")
    ;;
  bench)
    install_missing >&2
    build build Release >&2  # stdout is the benchmark's alone (one JSON object with --json)
    shift
    ./build/apps/lazax/lazax bench "$@"
    ;;
  format)
    install_missing
    cxx_files | xargs clang-format-16 -i
    ;;
  lint)
    # CI runs this before the tests: a formatting diff, a line over 100 columns or a clang-tidy
    # finding (.clang-tidy) fails it.
    install_missing
    mapfile -t files < <(cxx_files)
    failed=0
    out=$(clang-format-16 --dry-run --Werror "${files[@]}" 2>&1) && rc=0 || rc=$?
    mapfile -t unformatted < <(sed -n \
      's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-f.*/\1/p' <<<"$out" | sort -u)
    if [ ${#unformatted[@]} -gt 0 ]; then
      printf '  %s\n' "${unformatted[@]}" >&2
      echo "[lazax.sh] these files are not clang-formatted; fix: ./lazax.sh format" >&2
      failed=1
    elif [ "$rc" -ne 0 ]; then
      echo "$out" >&2
      failed=1
    fi
    # Columns, not bytes (a comment may hold a UTF-8 arrow); clang-format cannot wrap a long
    # string literal or comment, so this fails after `format` too until it is split by hand.
    if LC_ALL=C.UTF-8 grep -nE '^.{101}' "${files[@]}" | cut -c1-120 >&2; then
      echo "[lazax.sh] the lines above are over 100 columns" >&2
      failed=1
    fi
    # clang-tidy reads the compile commands: configuring is enough (no build). libtorch's headers
    # do not parse with clang 16 and libstdc++ 12, so the libtorch peer bench is left out.
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    root=$(pwd -P | sed 's/[^a-zA-Z0-9/_-]/\\&/g')  # as CMake writes it, regex-escaped
    start=$SECONDS
    echo "[lazax.sh] clang-tidy over src/, apps/ and bench/ ($JOBS jobs)"
    # clang finds omp.h in its own directory (libomp-16-dev; GCC's omp.h does not parse with
    # clang). A limit, so that a check that runs away fails the run instead of timing CI out.
    if ! timeout 1800 run-clang-tidy-16 -p build -j "$JOBS" -quiet \
      -extra-arg=-Wno-unknown-warning-option \
      "^$root/(src|apps|bench/(?!libtorch_eager_add\.cc$))[^ ]*\.cc$" >build/lint-tidy.log 2>&1
    then
      grep -E ': (error|warning): ' build/lint-tidy.log | sort -u >&2 ||
        tail -40 build/lint-tidy.log >&2
      echo "[lazax.sh] clang-tidy found the above (with context: build/lint-tidy.log)" >&2
      failed=1
    fi
    echo "[lazax.sh] clang-tidy took $((SECONDS - start)) s"
    [ "$failed" -eq 0 ] || exit 1
    echo "[lazax.sh] lint passed"
    ;;
  *)
    echo "usage: ./lazax.sh demo | test | asan | lint | format | bench NAME [--json]" >&2
    exit 2
    ;;
esac
