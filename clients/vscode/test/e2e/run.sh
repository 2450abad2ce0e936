#!/usr/bin/env bash
# run.sh: the extension in a real VS Code 1.100 (code-server 4.100.3) driven
# by headless Chromium through playwright-core (shared/guide/VSCODE-E2E.md).
# Installs code-server + playwright-core into .vscode-e2e/ (git-ignored, npm
# registry only), makes a workspace with three generated dumps, installs the
# packaged .vsix, runs e2e.mjs, and always stops what it started.
#
#   clients/vscode/test/e2e/run.sh [VSIX]
# env: HEAPLEAK_DAEMON (default build/dev/daemon/heapleakd), E2E_OUT (default
# build/vscode-e2e), E2E_SCRATCH (default .vscode-e2e), E2E_TIMEOUT (s, 300),
# E2E_LEAK_ROWS=shim: run heapleakd behind leak_rows_shim.mjs (explain's old
# one-row-per-class answer regrouped into one row per leak) and require the
# leak-row steps; for daemons before issue 12.
# Needs: chromium, ripgrep, curl, ruby, node 20 (run-all.sh installs them).
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../../.." && pwd)"
VSIX="$(realpath "${1:-$REPO/clients/vscode/build/heapleak.vsix}")"
DAEMON="$(realpath "${HEAPLEAK_DAEMON:-$REPO/build/dev/daemon/heapleakd}")"
OUT="${E2E_OUT:-$REPO/build/vscode-e2e}"
W="${E2E_SCRATCH:-$REPO/.vscode-e2e}"
CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_VERSION=1.65.1

log() { printf '[e2e] %s\n' "$*"; }
[ -f "$VSIX" ] || { echo "e2e: no vsix at $VSIX (run: npm run package)" >&2; exit 2; }
[ -x "$DAEMON" ] || { echo "e2e: no heapleakd at $DAEMON (build it or set HEAPLEAK_DAEMON)" >&2; exit 2; }
CHROMIUM="$(command -v chromium || true)"
[ -n "$CHROMIUM" ] || { echo "e2e: chromium is not installed (apt-get install chromium)" >&2; exit 2; }

mkdir -p "$W" "$OUT"
OUT="$(cd "$OUT" && pwd)"
export TMPDIR="$W/tmp" XDG_CONFIG_HOME="$W/xdg/config" XDG_DATA_HOME="$W/xdg/data" XDG_CACHE_HOME="$W/xdg/cache"
mkdir -p "$TMPDIR" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME"

# ---- install code-server + playwright-core once per scratch folder ----------
MARK="$W/.installed-code-server-$CODE_SERVER_VERSION-playwright-$PLAYWRIGHT_VERSION"
if [ ! -f "$MARK" ] || [ ! -x "$W/node_modules/.bin/code-server" ]; then
  log "installing code-server@$CODE_SERVER_VERSION and playwright-core@$PLAYWRIGHT_VERSION into $W"
  # @vscode/ripgrep's postinstall downloads rg unless it finds this cached
  # archive: give it Debian's rg.
  mkdir -p "$TMPDIR/vscode-ripgrep-cache-1.15.11" "$W/rg"
  cp "$(command -v rg)" "$W/rg/"
  tar czf "$TMPDIR/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$W/rg" rg
  # npm >= 11.18 runs dependency install scripts only when allowScripts says
  # so; code-server's postinstall builds its native modules.
  cat >"$W/package.json" <<EOF
{
  "name": "heapleak-vscode-e2e",
  "private": true,
  "dependencies": { "code-server": "$CODE_SERVER_VERSION", "playwright-core": "$PLAYWRIGHT_VERSION" },
  "allowScripts": { "code-server": true, "argon2": true }
}
EOF
  rm -rf "$W/node_modules" "$W/package-lock.json"
  # unsafe_perm: code-server's postinstall refuses root without it; yes: a
  # nested npx would wait for a prompt; nodedir: build against Debian's headers.
  (cd "$W" && npm_config_unsafe_perm=true npm_config_yes=true npm_config_nodedir=/usr \
    nice npm install --no-audit --no-fund --loglevel=error </dev/null >"$W/install.log" 2>&1) || {
    tail -40 "$W/install.log" >&2
    exit 1
  }
  touch "$MARK"
fi

# ---- the workspace: Ruby sources + three dumps made from them ---------------
RUN="$OUT/run"
rm -rf "$RUN" "$OUT"/*.png "$OUT/steps.json"
mkdir -p "$RUN/workspace" "$RUN/ext" "$RUN/ud/User"
WS="$RUN/workspace"
cp -r "$REPO/tests/gen" "$WS/gen"
# Run from the workspace so allocation sites name files in it.
(cd "$WS" && ruby gen/leakgen.rb class_cache small "$WS" >"$RUN/leakgen.log" 2>&1)
mv "$WS/truth.json" "$RUN/truth.json"
DAEMON_SETTING="$DAEMON"
EXPECT_LEAK_ROWS=0
if [ "${E2E_LEAK_ROWS:-}" = shim ]; then
  DAEMON_SETTING="$RUN/heapleakd-leak-rows"
  printf '#!/bin/sh\nexec node %q %q "$@"\n' "$HERE/leak_rows_shim.mjs" "$DAEMON" >"$DAEMON_SETTING"
  chmod +x "$DAEMON_SETTING"
  EXPECT_LEAK_ROWS=1
  log "heapleakd behind leak_rows_shim.mjs"
fi
cat >"$RUN/ud/User/settings.json" <<EOF
{
  "heapleak.daemonPath": "$DAEMON_SETTING",
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.welcomePage.walkthroughs.openOnInstall": false,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.ignoreRecommendations": true,
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "git.enabled": false,
  "workbench.list.openMode": "doubleClick",
  "explorer.autoReveal": false,
  "files.exclude": { "gen": true },
  "window.zoomLevel": 0
}
EOF

CS="$W/node_modules/.bin/code-server"
log "installing $VSIX"
"$CS" --extensions-dir "$RUN/ext" --user-data-dir "$RUN/ud" --install-extension "$VSIX" </dev/null >"$RUN/install-extension.log" 2>&1 || {
  cat "$RUN/install-extension.log" >&2
  exit 1
}

PORT="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
log "starting code-server on 127.0.0.1:$PORT"
# setsid: its own process group, so the cleanup ends the extension host and
# heapleakd with it, and nothing else.
setsid "$CS" --auth none --bind-addr "127.0.0.1:$PORT" --extensions-dir "$RUN/ext" --user-data-dir "$RUN/ud" \
  --disable-telemetry --disable-update-check --disable-workspace-trust --disable-getting-started-override \
  "$WS" </dev/null >"$RUN/code-server.log" 2>&1 &
CS_PID=$!
cleanup() {
  local rc=$?
  # playwright starts chromium in its own process group; e2e.mjs wrote its pid.
  if [ -f "$RUN/chromium.pid" ]; then
    local cpid
    cpid="$(cat "$RUN/chromium.pid")"
    kill -KILL -- "-$cpid" 2>/dev/null || true
    rm -f "$RUN/chromium.pid"
  fi
  if kill -0 "$CS_PID" 2>/dev/null; then
    kill -TERM -- "-$CS_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$CS_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$CS_PID" 2>/dev/null || true
  fi
  exit "$rc"
}
trap cleanup EXIT INT TERM

for _ in $(seq 1 300); do
  curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break
  kill -0 "$CS_PID" 2>/dev/null || { cat "$RUN/code-server.log" >&2; exit 1; }
  sleep 0.2
done
curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" || { echo "e2e: code-server did not come up" >&2; exit 1; }

log "driving VS Code; screenshots in $OUT"
E2E_URL="http://127.0.0.1:$PORT/?folder=$WS" E2E_WORKSPACE="$WS" E2E_TRUTH="$RUN/truth.json" E2E_OUT="$OUT" \
  E2E_CHROMIUM="$CHROMIUM" E2E_NODE_MODULES="$W/node_modules" E2E_EXPECT_LEAK_ROWS="$EXPECT_LEAK_ROWS" \
  timeout --kill-after=10 "${E2E_TIMEOUT:-300}" node "$HERE/e2e.mjs" </dev/null
