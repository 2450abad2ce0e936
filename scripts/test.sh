#!/usr/bin/env bash
# test.sh: install what is missing, build and run every test, as CI does:
#   1. the dev preset: Catch2 units, protocol transcripts, daemon and client
#      end-to-end tests, and the end-to-end runs on real Ruby heap dumps;
#   2. the VS Code extension: node --test units and integration tests against
#      the real heapleakd, then the e2e in a real VS Code (code-server).
# Exits non-zero on any failure, and when no test ran at all (the dev test
# preset sets noTestsAction=error). This is what .ci/run calls.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
cmake --preset dev
cmake --build --preset dev
ctest --preset dev "$@"

HEAPLEAK_DAEMON="$PWD/build/dev/daemon/heapleakd" ./clients/vscode/test/run-all.sh
