#!/usr/bin/env bash
# install_sarif_schema.sh SRC DEST: installs the official SARIF 2.1.0 JSON
# schema for check_gate's validation with `npm ci` from the committed
# package.json + package-lock.json in SRC (tests/check/sarif-schema) into
# DEST (a build folder). A CTest fixture: runs again only when the lock file
# changed. Test-only: the product never downloads anything.
set -euo pipefail
src=$1
dest=$2
schema=node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json
command -v npm >/dev/null || { echo "npm (node 20) is required to install the SARIF schema" >&2; exit 1; }
mkdir -p "$dest"
if [ -f "$dest/$schema" ] && cmp -s "$src/package-lock.json" "$dest/package-lock.json"; then
  echo "SARIF schema already installed: $dest/$schema"
  exit 0
fi
cp "$src/package.json" "$src/package-lock.json" "$dest/"
cd "$dest"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error </dev/null
test -f "$schema" || { echo "the package no longer ships $schema" >&2; exit 1; }
echo "SARIF schema installed: $dest/$schema"
