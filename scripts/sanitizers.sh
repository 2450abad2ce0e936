#!/usr/bin/env bash
# sanitizers.sh: the sanitizer runs of issue 7.
#  1. the `asan` preset (ASan + UBSan, LeakSanitizer included) built and every
#     ctest test run in it;
#  2. a ThreadSanitizer build (own dir) running the protocol, daemon and
#     hardening tests.
# Exits non-zero if any test fails or a sanitizer reports. Builds use -j2 and nice.
#   usage: scripts/sanitizers.sh [asan|tsan|all]   (default all)
#   env:   ASAN_DIR (default: the preset's build/asan), TSAN_DIR (default build/tsan),
#          CTEST_ARGS (extra ctest arguments, e.g. "-L hardening"), JOBS (default 2)
set -uo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
jobs="${JOBS:-2}"
asan_dir="${ASAN_DIR:-build/asan}"
tsan_dir="${TSAN_DIR:-build/tsan}"
read -r -a extra <<<"${CTEST_ARGS:-}"
status=0

# Slower binaries: the Python tests stretch their time bounds by this factor.
export HEAPLEAK_TEST_SLOWDOWN="${HEAPLEAK_TEST_SLOWDOWN:-5}"

if [ "$what" = asan ] || [ "$what" = all ]; then
  echo "== ASan + UBSan + LSan ($asan_dir)"
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  cmake --preset asan -B "$asan_dir" >/dev/null || exit 2
  nice cmake --build "$asan_dir" -j "$jobs" || exit 2
  ctest --test-dir "$asan_dir" --output-on-failure --no-tests=error "${extra[@]}" || status=1
fi

if [ "$what" = tsan ] || [ "$what" = all ]; then
  echo "== ThreadSanitizer ($tsan_dir)"
  export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=0:second_deadlock_stack=1:history_size=4}"
  cmake -S . -B "$tsan_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null || exit 2
  # Only what the protocol, daemon and hardening tests need.
  nice cmake --build "$tsan_dir" -j "$jobs" --target protocol_tests heapleakd heapleak || exit 2
  ctest --test-dir "$tsan_dir" --output-on-failure --no-tests=error \
    -R '^(protocol_tests|daemon_|hardening_)' "${extra[@]}" || status=1
fi
exit $status
