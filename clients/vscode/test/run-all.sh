#!/usr/bin/env bash
# run-all.sh: every test of the VS Code extension, as CI runs them.
#   1. Debian packages the e2e needs (only those missing; noninteractive)
#   2. npm ci, compile (tsc), bundle (esbuild)
#   3. node --test: unit tests, then integration tests against the real heapleakd
#   4. package the .vsix (@vscode/vsce)
#   5. the e2e in code-server 1.100 + headless Chromium (test/e2e/run.sh)
# env: HEAPLEAK_DAEMON (default build/dev/daemon/heapleakd), SKIP_E2E=1 to stop
# after packaging. Exits non-zero on any failure.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
EXT="$(cd "$HERE/.." && pwd)"
REPO="$(cd "$EXT/../.." && pwd)"
export HEAPLEAK_DAEMON="${HEAPLEAK_DAEMON:-$REPO/build/dev/daemon/heapleakd}"
say() { printf '\n== vscode: %s\n' "$*"; }
started=$SECONDS

say "system packages"
need=()
for pkg in chromium ripgrep curl ruby build-essential python3 pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep 'install ok installed' >/dev/null || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
  echo "installing: ${need[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" </dev/null >/dev/null
fi
command -v node >/dev/null || { echo "node 20 is required" >&2; exit 1; }

if [ ! -x "$HEAPLEAK_DAEMON" ]; then
  say "building heapleakd"
  [ -f "$REPO/build/dev/CMakeCache.txt" ] || (cd "$REPO" && cmake --preset dev)
  (cd "$REPO" && nice cmake --build build/dev -j2 --target heapleakd)
fi

cd "$EXT"
say "npm ci"
nice npm ci --no-audit --no-fund --loglevel=error </dev/null

say "compile"
rm -rf out dist
nice npx tsc -p .
nice npx tsc -p webview   # the treemap page's script (type-check only; bundled below)
nice npm run --silent bundle

say "node --test (unit + integration against $HEAPLEAK_DAEMON)"
node --test --test-reporter=spec --test-reporter-destination=stdout out/test/unit/ out/test/integration/

say "package"
mkdir -p build
nice npx vsce package --no-dependencies --skip-license --allow-missing-repository -o build/heapleak.vsix </dev/null

if [ "${SKIP_E2E:-0}" = 1 ]; then
  say "SKIP_E2E=1: not running the e2e"
else
  say "e2e in code-server + headless Chromium"
  "$EXT/test/e2e/run.sh" "$EXT/build/heapleak.vsix"
fi
say "done in $((SECONDS - started)) s"
