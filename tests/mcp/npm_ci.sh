#!/usr/bin/env bash
# npm_ci.sh SRC DEST: the MCP end-to-end test's node environment. Copies the
# committed package.json, package-lock.json and the test scripts into DEST
# (in the build tree) and runs `npm ci` there, only when the lock file
# changed since the last install. The CTest fixture mcp_node runs it once.
set -euo pipefail
src=$1
dest=$2
mkdir -p "$dest"
cp "$src/package.json" "$src/package-lock.json" "$src"/*.mjs "$dest/"
stamp="$dest/node_modules/.heapleak-lock"
if [ -f "$stamp" ] && cmp -s "$stamp" "$src/package-lock.json"; then
  echo "mcp: node_modules up to date"
  exit 0
fi
start=$SECONDS
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
cp "$src/package-lock.json" "$stamp"
echo "mcp: npm ci took $((SECONDS - start)) s"
