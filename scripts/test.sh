#!/usr/bin/env bash
# test.sh: install what is missing, build and run every test, as CI does:
#   0. every tracked C++ file is clang-formatted (.clang-format);
#   1. the dev preset: Catch2 units, protocol transcripts, daemon, client and
#      hardening end-to-end tests, and the end-to-end runs on real Ruby dumps,
#      among them (label rubies) the leak scenarios under Ruby 3.1 and the
#      3.2-4.0 WebAssembly builds, which need Node 20 and npm: its fixture runs
#      `npm ci` in tests/rubies from the lock file and fails without them;
#      and (label duckdb) the real DuckDB engine (npm @duckdb/node-api, `npm ci`
#      in tests/duckdb) running the queries of docs/fleet.md and docs/tables.md;
#      and (label report) heapleak report's page in headless Chromium
#      (playwright-core, `npm ci` in the build tree from tests/report's lock file);
#   2. scripts/sanitizers.sh: the units, transcripts, daemon, client,
#      hardening and dump end-to-end tests again under AddressSanitizer +
#      UndefinedBehaviorSanitizer + LeakSanitizer (the asan preset), then the
#      protocol, daemon, client and hardening tests under ThreadSanitizer;
#      any sanitizer report from any process fails the run;
#   3. each libFuzzer target for a bounded time (tests/fuzz/run.sh);
#   4. the packages: the .deb (installed with dpkg -i), the .tar.gz and the
#      capture gem (gem install --local), each run as a user would;
#   5. the VS Code extension: node --test units and integration tests against
#      the installed heapleakd, then the e2e in a real VS Code (code-server)
#      with the packaged .vsix; then the .deb is removed.
# Exits non-zero on any failure, and when no test ran at all (the test
# presets set noTestsAction=error). This is what .ci/run calls.
# Set HEAPLEAK_QUICK=1 to run step 1 only.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
# Formatting first: a second, and no build wasted on an unformatted tree.
echo "== clang-format"
git ls-files -z '*.h' '*.cpp' | xargs -0 clang-format --dry-run -Werror
stage() { echo "== $1 ($(( SECONDS / 60 )) min $(( SECONDS % 60 )) s since the start)"; }
stage "dev build"
cmake --preset dev
cmake --build --preset dev
background=()
trap 'kill "${background[@]}" 2>/dev/null || true' EXIT
# Most dev tests run one at a time (below), leaving a core idle: the ASan
# build takes it, at the lowest priority (a test's process wins any core it
# wants), and is done or nearly when the sanitizer stage starts (~5 min of a
# cold CI run saved). Its output is printed when it fails.
if [ "${HEAPLEAK_QUICK:-0}" != 1 ]; then
  nice -n 19 ./scripts/sanitizers.sh asan-build >build/asan-build.log 2>&1 &
  asan_build=$!
  background+=("$asan_build")
fi
# The tests that only run programs and compare answers (tests/apps, the
# Ruby versions of tests/rubies and the memory programs of tests/memory:
# mostly interpreter time, no timing bounds) run two at a time; the rest one
# at a time, as the timing bounds of the daemon and hardening tests assume no
# other test beside them.
stage "dev tests, one at a time"
ctest --preset dev -LE '^(apps|rubies|memory)$' "$@"
stage "dev tests, two at a time"
ctest --preset dev -L '^(apps|rubies|memory)$' -j2 "$@"
[ "${HEAPLEAK_QUICK:-0}" = 1 ] && exit 0
wait "$asan_build" || { tail -50 build/asan-build.log; exit 2; }

# Most sanitizer tests (the daemon, client and hardening ones) run one at a
# time and wait on replies, leaving a core idle. The TSan build and the fuzz
# targets' build (clang: a fourth build of core/) take it, at the lowest
# priority, while the ASan stage runs. The fuzzing runs alone: beside the
# TSan tests it ran 50x fewer inputs. Each background build's output is
# printed when it fails.
stage "sanitizers"
cmake --preset tsan >/dev/null
nice -n 19 cmake --build --preset tsan -j 2 >build/tsan-build.log 2>&1 &
tsan_build=$!
background+=("$tsan_build")
nice -n 19 ./tests/fuzz/run.sh --build-only >build/fuzz-build.log 2>&1 &
fuzz_build=$!
background+=("$fuzz_build")
./scripts/sanitizers.sh asan
wait "$tsan_build" || { tail -50 build/tsan-build.log; exit 2; }
wait "$fuzz_build" || { cat build/fuzz-build.log; exit 2; }
./scripts/sanitizers.sh tsan

stage "fuzzing (bounded)"
./tests/fuzz/run.sh "${HEAPLEAK_FUZZ_SECONDS:-10}"

# The packages a user installs (.deb, .tar.gz, the gem; tests/packages/run.sh),
# then the editor tests against the installed /usr/bin/heapleakd, the .vsix
# installed into code-server; the .deb is removed again, also on a failure.
stage "packages"
trap 'dpkg -r heapleak >/dev/null 2>&1 || true' EXIT
./tests/packages/run.sh build/dev install
# The editor tests, like CTest's, never read or fill the user's heap cache.
HEAPLEAK_NO_CACHE=1 HEAPLEAK_DAEMON=/usr/bin/heapleakd ./clients/vscode/test/run-all.sh
./tests/packages/run.sh build/dev remove
stage "done"
