#!/usr/bin/env bash
# npm_ci.sh SRC DEST: the report test's node environment (playwright-core,
# pinned in the committed package-lock.json; it downloads no browser: the
# test drives Debian's chromium). Copies package.json, the lock file and the
# test script into DEST (in the build tree) and runs `npm ci` there, only
# when the lock file changed since the last install.
set -euo pipefail
src=$1
dest=$2
mkdir -p "$dest"
cp "$src/package.json" "$src/package-lock.json" "$src"/*.mjs "$dest/"
stamp="$dest/node_modules/.heapleak-lock"
if [ -f "$stamp" ] && cmp -s "$stamp" "$src/package-lock.json"; then
  echo "report: node_modules up to date"
  exit 0
fi
start=$SECONDS
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
cp "$src/package-lock.json" "$stamp"
echo "report: npm ci took $((SECONDS - start)) s"
