#!/usr/bin/env bash
# test.sh: install what is missing, build the dev preset and run every test
# (Catch2 units and the end-to-end tests on real Ruby heap dumps).
# Exits non-zero on any failure, and when no test ran at all (the dev test
# preset sets noTestsAction=error). This is what .ci/run calls.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
cmake --preset dev
cmake --build --preset dev
ctest --preset dev "$@"
