#!/usr/bin/env bash
# sanitizers.sh: the sanitizer runs of issue 7, as CI runs them.
#  asan: the `asan` preset (ASan + UBSan + LeakSanitizer, -O1 -g1 with
#        asserts: core_tests took 168 s at -O0, 79 s at -O1) running the units,
#        transcripts, daemon, client, hardening and dump end-to-end tests, and
#        heapleak check's (results_units, check_gate, check_evidence); of the
#        Ruby scenario runs only the two whose dumps differ in kind (class_cache
#        untraced, global_array traced): the others add Ruby time, not code;
#  tsan: the `tsan` configure/build/test presets (ThreadSanitizer) running what
#        has more than one thread at work: the protocol units, the daemon tests,
#        the clients that cancel, start or stop a daemon, and the hardening
#        tests of concurrency, cancellation, disconnects, signals and slow or
#        idle peers. Bad input on one connection (hardening_file_*, _gzip_*,
#        most _wire_*) and the clients' rendering are ASan's: they race nothing.
# Every process a test starts (heapleakd, heapleak, heapleak-client) writes
# its sanitizer reports to a file under $REPORTS/<kind>/ (log_path), so a
# report fails the run even where the test itself never looks at stderr, and
# a leak found when a daemon exits at the end of a test is not lost.
#   usage: scripts/sanitizers.sh [asan|tsan|all|asan-build]   (default all;
#          asan-build only configures and builds what the asan run tests:
#          scripts/test.sh builds it beside the dev tests)
#   env:   ASAN_DIR (default build/asan; tsan builds in build/tsan, its preset),
#          REPORTS (default build/sanitizer-reports), CTEST_ARGS (extra ctest
#          arguments, e.g. "-R hardening_"), JOBS (default 2)
set -uo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
jobs="${JOBS:-2}"
asan_dir="${ASAN_DIR:-build/asan}"
reports="$(mkdir -p "${REPORTS:-build/sanitizer-reports}" && cd "${REPORTS:-build/sanitizer-reports}" && pwd)"
read -r -a extra <<<"${CTEST_ARGS:-}"
status=0

# Slower binaries: the Python tests stretch their time bounds by this factor.
export HEAPLEAK_TEST_SLOWDOWN="${HEAPLEAK_TEST_SLOWDOWN:-5}"

# no_reports KIND: fails (and prints them) if any process wrote a report.
no_reports() {
  local files
  files=$(find "$reports/$1" -type f -size +0 2>/dev/null)
  if [ -n "$files" ]; then
    echo "FAIL $1: $(echo "$files" | wc -l) sanitizer report(s):"
    for f in $files; do echo "--- $f"; head -60 "$f"; done
    return 1
  fi
  echo "ok   $1: no sanitizer reports"
}

# What the asan run tests, configured and built (a no-op when built already).
build_asan() {
  cmake --preset asan -B "$asan_dir" >/dev/null || return 2
  nice cmake --build "$asan_dir" -j "$jobs" \
    --target core_tests protocol_tests results_units daemon_units client_units heapleakd heapleak heapleak-client heapleak-synth || return 2
}

if [ "$what" = asan-build ]; then
  build_asan
  exit $?
fi

if [ "$what" = asan ] || [ "$what" = all ]; then
  echo "== ASan + UBSan + LSan ($asan_dir)"
  rm -rf "$reports/asan" && mkdir -p "$reports/asan"
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:log_path=$reports/asan/asan"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/asan/ubsan"
  export LSAN_OPTIONS="log_path=$reports/asan/lsan"
  build_asan || exit 2
  # Units and end-to-end program runs have no timing bounds: two at a time.
  # The daemon, client and hardening tests time replies: one at a time.
  # Left to the dev pass: two more Ruby scenarios (the loader and analyses
  # they run are class_cache's), the parallel test hook (Ruby's forks).
  ctest --test-dir "$asan_dir" --output-on-failure --no-tests=error -j "$jobs" \
    -R '^(core_tests|protocol_tests|results_units|e2e_|check_)' \
    -E '^(e2e_scenario_singleton_ivar.*|e2e_scenario_global_array.*|check_parallel_hook)$' "${extra[@]}" || status=1
  # Left to the dev pass and TSan: waiting on a load (its concurrency is
  # TSan's; its load is e2e's) and the two CLIs' text compared (the
  # renderers run under ASan in results_units, the CLIs in e2e_).
  ctest --test-dir "$asan_dir" --output-on-failure --no-tests=error \
    -R '^(daemon_|client_|hardening_)' -E '^(daemon_query_waits_for_load|client_one_voice)$' \
    "${extra[@]}" || status=1
  no_reports asan || status=1
  unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
fi

if [ "$what" = tsan ] || [ "$what" = all ]; then
  echo "== ThreadSanitizer (build/tsan)"
  rm -rf "$reports/tsan" && mkdir -p "$reports/tsan"
  # handle_sigbus=0: the loader turns the SIGBUS of a mapped dump cut short
  # under it into an error (core/reading/mapped_reads.h); TSan's own handler would
  # take the signal first and end the process.
  export TSAN_OPTIONS="halt_on_error=0:second_deadlock_stack=1:history_size=4:handle_sigbus=0:log_path=$reports/tsan/tsan"
  # The flags, targets and test filter live in CMakePresets.json (tsan). The
  # filter leaves out daemon_transcripts (one client's requests in order, 80 s
  # under TSan): the threads they cross are crossed with real overlap by
  # daemon_two_clients, daemon_query_waits_for_load and the concurrent
  # hardening tests here; their answers are checked by dev and ASan.
  # (scripts/test.sh builds it ahead, beside the ASan stage: then a no-op.)
  cmake --preset tsan >/dev/null || exit 2
  nice cmake --build --preset tsan -j "$jobs" || exit 2
  ctest --preset tsan "${extra[@]}" || status=1
  no_reports tsan || status=1
  unset TSAN_OPTIONS
fi
exit $status
