#!/usr/bin/env bash
# npm_ci.sh NAME SRC DEST: a node test's environment in the build tree. Copies
# SRC's committed package.json, package-lock.json and test scripts (*.mjs) into
# DEST and runs `npm ci` there, only when the lock file changed since the last
# install; NAME labels what it prints. tests/mcp's and tests/report's CTest
# fixtures run it once each (the report's playwright-core downloads no
# browser: its test drives Debian's chromium).
set -euo pipefail
name=$1
src=$2
dest=$3
mkdir -p "$dest"
cp "$src/package.json" "$src/package-lock.json" "$src"/*.mjs "$dest/"
stamp="$dest/node_modules/.heapleak-lock"
if [ -f "$stamp" ] && cmp -s "$stamp" "$src/package-lock.json"; then
  echo "$name: node_modules up to date"
  exit 0
fi
start=$SECONDS
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
cp "$src/package-lock.json" "$stamp"
echo "$name: npm ci took $((SECONDS - start)) s"
